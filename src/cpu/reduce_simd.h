// SPDX-License-Identifier: BSD-3-Clause
// Vectorised building blocks for reductions, written with GCC vector
// extensions so they vectorise at any -O level. Vectors are 16 bytes, the
// x86-64 baseline's register width, except in block_sum, which has AVX2 and
// AVX-512 variants chosen at run time (cpu/isa.h).
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/half.h"
#include "core/sanitize.h"
#include "cpu/isa.h"

namespace tc::cpu {

template <class T>
constexpr bool kIsReducedFloat = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// The accumulation type PyTorch uses on CPU: half types in float, integers
// and bool in int64.
template <class T>
using acc_type_t = std::conditional_t<kIsReducedFloat<T> || std::is_same_v<T, float>, float,
                                      std::conditional_t<std::is_same_v<T, double>, double, int64_t>>;

template <class Acc, class In>
inline Acc to_acc(In v) {
  if constexpr (kIsReducedFloat<In>)
    return Acc(float(v));
  else
    return Acc(v);
}

// B bytes of T (a GCC vector type). Loads and stores go through memcpy
// inside the loops.
template <class T, int B = 16>
struct Vec {
  typedef T type __attribute__((vector_size(B)));
  static constexpr int64_t lanes = B / sizeof(T);
};
template <class T>
using Vec16 = Vec<T, 16>;
#define TC_VLOAD(v, ptr) std::memcpy(&(v), (ptr), sizeof(v))
#define TC_VSTORE(ptr, v) std::memcpy((ptr), &(v), sizeof(v))

namespace detail {
// Plain sum with 8 vector accumulators of B bytes (enough to hide the add
// latency): each lane adds n/(8*lanes) terms, so the error stays small per
// block. Always inlined into a caller compiled for a target where B-byte
// vectors are native.
template <int B, class T>
__attribute__((always_inline)) inline T block_sum_w(const T* p, int64_t n) {
  using V = typename Vec<T, B>::type;
  constexpr int64_t L = Vec<T, B>::lanes;
  V a[8] = {}, x;
  int64_t i = 0;
  for (; i + 8 * L <= n; i += 8 * L) {
    for (int j = 0; j < 8; ++j) {
      TC_VLOAD(x, p + i + j * L);
      a[j] += x;
    }
  }
  for (; i + L <= n; i += L) {
    TC_VLOAD(x, p + i);
    a[0] += x;
  }
  V t = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
  T lanes[L];
  TC_VSTORE(lanes, t);
  T s = 0;
  for (int64_t j = 0; j < L; ++j) s += lanes[j];
  for (; i < n; ++i) s += p[i];
  return s;
}
template <class T>
T block_sum_sse(const T* p, int64_t n) {
  return block_sum_w<16>(p, n);
}
#if TC_HAVE_ISA_VARIANTS
template <class T>
TC_TARGET_AVX2 T block_sum_avx2(const T* p, int64_t n) {
  return block_sum_w<32>(p, n);
}
template <class T>
TC_TARGET_AVX512 T block_sum_avx512(const T* p, int64_t n) {
  return block_sum_w<64>(p, n);
}
#endif
}  // namespace detail

// Sum of up to a few thousand contiguous elements, with the vectors that
// stream fastest on this CPU (cpu::streaming_isa()).
template <class T>
T block_sum(const T* p, int64_t n) {
#if TC_HAVE_ISA_VARIANTS
  switch (streaming_isa()) {
    case Isa::Avx512: return detail::block_sum_avx512(p, n);
    case Isa::Avx2: return detail::block_sum_avx2(p, n);
    case Isa::Baseline: break;
  }
#endif
  return detail::block_sum_sse(p, n);
}

// Pairwise (cascade) summation: error O(log n) instead of O(n), at the
// speed of the block loop.
constexpr int64_t kPairwiseBlock = 2048;
template <class T>
T pairwise_sum(const T* p, int64_t n) {
  if (n <= kPairwiseBlock) return block_sum(p, n);
  int64_t half = (n / 2) & ~int64_t(63);
  return pairwise_sum(p, half) + pairwise_sum(p + half, n - half);
}

// A binary-counter pairwise combination of a stream of partial sums.
template <class T>
class SumCascade {
 public:
  void push(T x) {
    int k = 0;
    while (used_ & (uint64_t(1) << k)) {
      x = level_[k] + x;
      used_ &= ~(uint64_t(1) << k);
      ++k;
    }
    level_[k] = x;
    used_ |= uint64_t(1) << k;
  }
  T result() const {
    T s = 0;
    for (int k = 63; k >= 0; --k)
      if (used_ & (uint64_t(1) << k)) s += level_[k];
    return s;
  }

 private:
  T level_[64];
  uint64_t used_ = 0;
};

// Copies n strided elements into `buf` as Acc (the staging step for
// converted or strided rows).
template <class Acc, class In>
inline void gather(Acc* buf, const In* p, int64_t n, int64_t s) {
  if (s == 1)
    for (int64_t i = 0; i < n; ++i) buf[i] = to_acc<Acc>(p[i]);
  else
    for (int64_t i = 0; i < n; ++i) buf[i] = to_acc<Acc>(p[i * s]);
}

// Sum of a strided row of In, accumulated in Acc.
template <class Acc, class In>
TC_NO_SANITIZE_INTEGER Acc sum_row(const In* p, int64_t n, int64_t s) {
  if constexpr (std::is_integral_v<Acc>) {
    // Unsigned arithmetic: wraps like PyTorch's int64 sum without UB.
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      a0 += uint64_t(int64_t(p[i * s]));
      a1 += uint64_t(int64_t(p[(i + 1) * s]));
      a2 += uint64_t(int64_t(p[(i + 2) * s]));
      a3 += uint64_t(int64_t(p[(i + 3) * s]));
    }
    for (; i < n; ++i) a0 += uint64_t(int64_t(p[i * s]));
    return Acc(a0 + a1 + a2 + a3);
  } else {
    if constexpr (std::is_same_v<Acc, In>)
      if (s == 1) return pairwise_sum(p, n);
    constexpr int64_t kChunk = 1024;
    Acc buf[kChunk];
    if (n <= kChunk) {
      gather(buf, p, n, s);
      return block_sum(buf, n);
    }
    SumCascade<Acc> c;
    for (int64_t i = 0; i < n; i += kChunk) {
      int64_t len = n - i < kChunk ? n - i : kChunk;
      gather(buf, p + i * s, len, s);
      c.push(block_sum(buf, len));
    }
    return c.result();
  }
}

// acc[i] += p[i * s] for i < w (integers wrap modulo 2^64).
template <class Acc, class In>
TC_NO_SANITIZE_INTEGER inline void add_rows(Acc* acc, const In* p, int64_t w, int64_t s) {
  if constexpr (std::is_same_v<Acc, In> && std::is_floating_point_v<Acc>) {
    if (s == 1) {
      using V = typename Vec16<Acc>::type;
      constexpr int64_t L = Vec16<Acc>::lanes;
      V a, x;
      int64_t i = 0;
      for (; i + L <= w; i += L) {
        TC_VLOAD(a, acc + i);
        TC_VLOAD(x, p + i);
        a += x;
        TC_VSTORE(acc + i, a);
      }
      for (; i < w; ++i) acc[i] += p[i];
      return;
    }
  }
  if constexpr (std::is_integral_v<Acc>)
    for (int64_t i = 0; i < w; ++i) acc[i] = Acc(uint64_t(acc[i]) + uint64_t(int64_t(p[i * s])));
  else
    for (int64_t i = 0; i < w; ++i) acc[i] += to_acc<Acc>(p[i * s]);
}

}  // namespace tc::cpu
