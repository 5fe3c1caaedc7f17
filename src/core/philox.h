// SPDX-License-Identifier: BSD-3-Clause
// Philox4x32-10 (Salmon et al., SC'11) as host and device code, and what
// element i of a random fill reads from a stream, so that the CPU kernels
// and the CUDA kernels draw the same numbers from the same generator state.
//
// A stream is (key = the seed, first counter); counter value c yields four
// 32-bit words, so word w of the stream is lane w % 4 of counter
// first + w / 4. A fill of n elements of `words` words each reserves
// ceil(n * words / 4) counters and element i reads words
// [i * words, (i + 1) * words).
#pragma once
#include <cstdint>

#include "core/sanitize.h"

#if defined(__CUDACC__)
#define TC_HOST_DEVICE __host__ __device__
#else
#define TC_HOST_DEVICE
#endif

namespace tc::philox {

// Round multipliers and Weyl key increments.
constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;

// The ten rounds over a 128-bit counter c with a 64-bit key (k0, k1); the key
// schedule and the products wrap by design.
TC_NO_SANITIZE_INTEGER TC_HOST_DEVICE inline void block(uint32_t c[4], uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    if (r) {
      k0 += kW0;
      k1 += kW1;
    }
    const uint64_t p0 = uint64_t(kM0) * c[0], p1 = uint64_t(kM1) * c[2];
    const uint32_t n0 = uint32_t(p1 >> 32) ^ c[1] ^ k0, n2 = uint32_t(p0 >> 32) ^ c[3] ^ k1;
    c[1] = uint32_t(p1);
    c[3] = uint32_t(p0);
    c[0] = n0;
    c[2] = n2;
  }
}

// The four words of counter value `counter` (a 64-bit counter in words 0..1).
TC_NO_SANITIZE_INTEGER TC_HOST_DEVICE inline void generate(uint64_t counter, uint64_t key, uint32_t out[4]) {
  out[0] = uint32_t(counter);
  out[1] = uint32_t(counter >> 32);
  out[2] = 0;
  out[3] = 0;
  block(out, uint32_t(key), uint32_t(key >> 32));
}

// Word w of the stream (key, first counter).
TC_NO_SANITIZE_INTEGER TC_HOST_DEVICE inline uint32_t word(uint64_t key, uint64_t first, uint64_t w) {
  uint32_t out[4];
  generate(first + w / 4, key, out);
  return out[w % 4];
}
// Words w and w + 1 as one 64-bit value (w low).
TC_HOST_DEVICE inline uint64_t word64(uint64_t key, uint64_t first, uint64_t w) {
  return uint64_t(word(key, first, w)) | (uint64_t(word(key, first, w + 1)) << 32);
}

// ---- the draws of element i ----
// `digits`: the mantissa digits a uniform in [0, 1) may use so that it never
// rounds up to 1 in the destination dtype (11 float16, 8 bfloat16, 24
// float32, 53 float64); above 32 it takes two words per element.

// u * span + from rounded twice, as the CPU computes it (nvcc would fuse it
// into one FMA and round once).
TC_HOST_DEVICE inline float scale_shift(float u, float span, float from) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(__fmul_rn(u, span), from);
#else
  return u * span + from;
#endif
}
TC_HOST_DEVICE inline double scale_shift(double u, double span, double from) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(__dmul_rn(u, span), from);
#else
  return u * span + from;
#endif
}

// uniform_(from, to): from + span * u, u in [0, 1) with `digits` digits.
template <class Acc>
TC_HOST_DEVICE inline Acc uniform(uint64_t key, uint64_t first, uint64_t i, int digits, Acc from, Acc span) {
  Acc u;
  if (digits > 32)
    u = Acc(int64_t(word64(key, first, 2 * i) >> (64 - digits))) * Acc(1.0 / double(uint64_t(1) << digits));
  else
    u = Acc(int32_t(word(key, first, i) >> (32 - digits))) * Acc(1.0 / double(uint64_t(1) << digits));
  return scale_shift(u, span, from);
}

// bernoulli_(p): element i is 1 when word i, as a fraction of 2^32, is below p.
TC_HOST_DEVICE inline bool bernoulli(uint64_t key, uint64_t first, uint64_t i, double p) {
  return double(word(key, first, i)) * 0x1p-32 < p;
}

// randint(low, high), range = high - low: element i is low + x % range, x
// word i, or words 2i and 2i + 1 when the range exceeds 2^32 (words 2);
// modulo 2^64, which is exact for any int64 range.
TC_NO_SANITIZE_INTEGER TC_HOST_DEVICE inline int64_t integer(uint64_t key, uint64_t first, uint64_t i, int words,
                                                             int64_t low, uint64_t range) {
  const uint64_t x = words == 2 ? word64(key, first, 2 * i) : uint64_t(word(key, first, i));
  return int64_t(uint64_t(low) + x % range);
}

// bernoulli(probabilities): element i is 1 when this fraction (word i over
// 2^32, exact in double) is below its probability.
TC_HOST_DEVICE inline double fraction(uint64_t key, uint64_t first, uint64_t i) {
  return double(word(key, first, i)) * 0x1p-32;
}

// The two uniforms of normal pair k (elements 2k and 2k + 1), Box-Muller's
// u1 in (0, 1] (log never sees 0) and u2 in [0, 1): 24-bit from one word
// each for float accumulation, 53-bit from two words each for double.
template <class Acc>
TC_HOST_DEVICE inline void normal_uniforms(uint64_t key, uint64_t first, uint64_t k, Acc* u1, Acc* u2) {
  if constexpr (sizeof(Acc) == 8) {
    *u1 = double(int64_t(word64(key, first, 4 * k) >> 11) + 1) * 0x1p-53;
    *u2 = double(int64_t(word64(key, first, 4 * k + 2) >> 11)) * 0x1p-53;
  } else {
    *u1 = float(int32_t(word(key, first, 2 * k) >> 8) + 1) * 0x1p-24f;
    *u2 = float(int32_t(word(key, first, 2 * k + 1) >> 8)) * 0x1p-24f;
  }
}
// Counters a fill of n elements of `words` words each reserves.
inline uint64_t counters(int64_t n, int words) { return (uint64_t(n) * uint64_t(words) + 3) / 4; }
// Counters a normal fill of n elements reserves: pairs of 2 (float) or 4
// (double) words.
inline uint64_t normal_counters(int64_t n, bool double_acc) { return counters((n + 1) / 2, double_acc ? 4 : 2); }

}  // namespace tc::philox
