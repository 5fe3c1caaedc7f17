// SPDX-License-Identifier: BSD-3-Clause
// IEEE binary16 and bfloat16 storage types. Arithmetic happens in float:
// kernels load, compute in float, and round back on store.
#pragma once
#include <cstdint>
#include <cstring>

namespace tc {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

struct Half {
  uint16_t x = 0;
  Half() = default;
  Half(float f) : x(from_float(f)) {}
  operator float() const { return to_float(x); }
  static Half from_bits(uint16_t b) {
    Half h;
    h.x = b;
    return h;
  }

  static float to_float(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0) {
      if (man == 0) return bits_float(sign);
      // Subnormal: value = man * 2^-24.
      float f = float(man) * (1.0f / 16777216.0f);
      return sign ? -f : f;
    }
    if (exp == 31) return bits_float(sign | 0x7f800000u | (man << 13));
    return bits_float(sign | ((exp + 112) << 23) | (man << 13));
  }
  // Round to nearest even, as hardware conversions do.
  static uint16_t from_float(float f) {
    uint32_t u = float_bits(f);
    uint16_t sign = uint16_t((u >> 16) & 0x8000);
    uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) return uint16_t(sign | (a > 0x7f800000u ? 0x7e00 : 0x7c00));
    if (a >= 0x477ff000u) return uint16_t(sign | 0x7c00);  // rounds to inf
    if (a < 0x38800000u) {                                 // subnormal or zero in half
      float v = bits_float(a) * 16777216.0f;               // scale by 2^24
      uint32_t m = uint32_t(v);
      float rem = v - float(m);
      if (rem > 0.5f || (rem == 0.5f && (m & 1))) ++m;
      return uint16_t(sign | m);
    }
    uint32_t mant_odd = (a >> 13) & 1;
    // Rebias the exponent (-112 << 23) and round (+0xfff + mant_odd); no
    // wraparound, as a >= 0x38800000 here.
    a = a - 0x37fff001u + mant_odd;
    return uint16_t(sign | (a >> 13));
  }
};

struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  BFloat16(float f) : x(from_float(f)) {}
  operator float() const { return bits_float(uint32_t(x) << 16); }
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.x = b;
    return h;
  }
  static uint16_t from_float(float f) {
    uint32_t u = float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // quiet NaN
    u += 0x7fff + ((u >> 16) & 1);                                           // round to nearest even
    return uint16_t(u >> 16);
  }
};

}  // namespace tc
