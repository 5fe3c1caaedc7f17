// SPDX-License-Identifier: BSD-3-Clause
// Branch-free float32 math that GCC auto-vectorises. libm's expf is a call
// (and sets errno), so a loop over it stays scalar; these are plain
// arithmetic and selects, so `ExpF32 e; for (..) out[i] = e(a[i]);`
// becomes SIMD code.
// Accuracy: within 2 ulp of the correctly rounded result over the whole
// float range (checked in tests/internal/test_iter.cpp), subnormal results
// included; inf, -inf and NaN behave as std::exp.
#pragma once
#include <cstdint>
#include <cstring>

#include "core/sanitize.h"

namespace tc::cpu {

namespace detail {
inline float bits_to_float(int32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
// Hides a constant from the optimizer (an empty asm "changes" it). Without
// this GCC sees that clamped inputs give constant results, splits the loop
// body into branches and then refuses to vectorise it.
inline float opaque(float v) {
  int32_t b;
  std::memcpy(&b, &v, 4);
  asm("" : "+r"(b));
  return bits_to_float(b);
}
}  // namespace detail

// exp(x) = 2^n * e^r with n = round(x / ln2), |r| <= ln2 / 2 (Cody-Waite
// reduction, Cephes' minimax polynomial for e^r).
struct ExpF32 {
  // Clamping to [-104, 89] needs no special cases afterwards: e^89 overflows
  // to +inf and e^-104 underflows to 0 in the final scaling, and NaN passes
  // the clamps and propagates through the arithmetic.
  float hi = detail::opaque(89.0f), lo = detail::opaque(-104.0f);

  // Always inlined: a call per element would stop the loop vectorising.
  // The exponent bits are unsigned arithmetic that wraps for negative n.
  TC_NO_SANITIZE_INTEGER __attribute__((always_inline)) float operator()(float x) const {
    constexpr float kLog2e = 1.44269504088896341f;
    constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
    constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
    float xc = x > hi ? hi : x;
    xc = xc < lo ? lo : xc;
    const float t = xc * kLog2e + kRound;
    const float n = t - kRound;
    float r = xc - n * kLn2Hi;
    r = r - n * kLn2Lo;
    const float r2 = r * r;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r2 + r + 1.0f;
    // 2^n in two factors so that n from -150 (subnormal results) to 128
    // (overflow to inf) keeps each factor a normal float. n is read from t's
    // low mantissa bits (t = 1.5 * 2^23 + n exactly): integer-only, so a NaN
    // input gives garbage factors times a NaN p instead of undefined behaviour.
    uint32_t tb;
    std::memcpy(&tb, &t, 4);
    const int32_t ni = int32_t(tb - 0x4B400000u);
    const uint32_t n1 = uint32_t(ni >> 1), n2 = uint32_t(ni) - n1;
    const float f1 = detail::bits_to_float(int32_t((n1 + 127u) << 23));
    const float f2 = detail::bits_to_float(int32_t((n2 + 127u) << 23));
    return p * f1 * f2;
  }
};

// One-off use; in a loop, construct ExpF32 once outside it.
inline float exp_f32(float x) { return ExpF32()(x); }

}  // namespace tc::cpu
