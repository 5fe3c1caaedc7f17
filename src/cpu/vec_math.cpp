// SPDX-License-Identifier: BSD-3-Clause
// SLEEF behind cpu/vec_math.h: one loop per (ISA, dtype, op), in tables
// indexed by VecOp.
//
// The library is compiled for baseline x86-64, so the AVX2 and AVX-512 loops
// carry their ISA as a function attribute (cpu/isa.h) and call SLEEF's
// functions for that ISA by name (Sleef_tanhf16_u10avx512f...), never its
// own load-time dispatchers: the choice is cpu::isa()'s, as for every other
// loop here. Vector arithmetic (sigmoid, gelu) uses GCC vector extensions on
// the intrinsic types.
#include "cpu/vec_math.h"

#include <array>
#include <cmath>
#include <cstring>
#include <iterator>
#include <utility>

#if defined(__x86_64__)
#define TC_VEC_MATH_SLEEF 1
#include <immintrin.h>
// sleef.h declares each ISA's functions only when the translation unit itself
// is compiled for that ISA (#ifdef __AVX2__, #ifdef __AVX512F__). This file is
// built for baseline x86-64 and calls those functions only from code compiled
// for their ISA, so it shows sleef.h the macros for the declarations alone.
#if TC_HAVE_ISA_VARIANTS
#ifndef __AVX__
#define __AVX__ 1
#define TC_UNDEF_AVX
#endif
#ifndef __AVX2__
#define __AVX2__ 1
#define TC_UNDEF_AVX2
#ifndef FP_FAST_FMA
#define TC_UNDEF_FP_FAST_FMA
#endif
#ifndef FP_FAST_FMAF
#define TC_UNDEF_FP_FAST_FMAF
#endif
#endif
#ifndef __AVX512F__
#define __AVX512F__ 1
#define TC_UNDEF_AVX512F
#endif
#endif  // TC_HAVE_ISA_VARIANTS
#include <sleef.h>
#ifdef TC_UNDEF_AVX
#undef __AVX__
#endif
#ifdef TC_UNDEF_AVX2
#undef __AVX2__
#endif
#ifdef TC_UNDEF_AVX512F
#undef __AVX512F__
#endif
#ifdef TC_UNDEF_FP_FAST_FMA
#undef FP_FAST_FMA
#endif
#ifdef TC_UNDEF_FP_FAST_FMAF
#undef FP_FAST_FMAF
#endif
#else
#define TC_VEC_MATH_SLEEF 0
#endif

namespace tc::cpu {

namespace {
constexpr const char* kVecOpNames[] = {"exp",   "expm1", "log",   "log1p",   "log2",     "log10",    "sin",  "cos",
                                       "tan",   "asin",  "acos",  "atan",    "sinh",     "cosh",     "tanh", "erf",
                                       "asinh", "acosh", "atanh", "sigmoid", "gelu_erf", "gelu_tanh"};
static_assert(std::size(kVecOpNames) == size_t(VecOp::kCount), "one name per VecOp");
}  // namespace

const char* vec_op_name(VecOp op) { return size_t(op) < size_t(VecOp::kCount) ? kVecOpNames[size_t(op)] : "?"; }

#if TC_VEC_MATH_SLEEF

// Every function below that takes or returns a vector is always inlined into
// a loop compiled for its ISA, so the baseline ABI for wide vectors never
// applies (CMakeLists.txt builds this file with -Wno-psabi). The intrinsic
// types lose only their may_alias attribute as template arguments, which the
// loops do not need: they load and store through memcpy.
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace {

// Inlined into the ISA-specific loops below, so its vector code is compiled
// for their ISA (a call would pass wide vectors under the baseline ABI).
#define TC_VEC_INLINE __attribute__((always_inline)) inline

// Sleef_fn::call(v): SLEEF's fn, the variant chosen by the vector type.
// The u10 (1.0-ulp) variants throughout, as PyTorch's kernels; erfc (for
// gelu) exists as u15 only.
#if TC_HAVE_ISA_VARIANTS
#define TC_SLEEF_WIDE(fn, u)                                                             \
  TC_VEC_INLINE static __m256 call(__m256 x) { return Sleef_##fn##f8_##u##avx2(x); }     \
  TC_VEC_INLINE static __m256d call(__m256d x) { return Sleef_##fn##d4_##u##avx2(x); }   \
  TC_VEC_INLINE static __m512 call(__m512 x) { return Sleef_##fn##f16_##u##avx512f(x); } \
  TC_VEC_INLINE static __m512d call(__m512d x) { return Sleef_##fn##d8_##u##avx512f(x); }
#else
#define TC_SLEEF_WIDE(fn, u)
#endif

#define TC_SLEEF_FN(fn, u)                                                               \
  struct Sleef_##fn {                                                                    \
    TC_VEC_INLINE static __m128 call(__m128 x) { return Sleef_##fn##f4_##u##sse2(x); }   \
    TC_VEC_INLINE static __m128d call(__m128d x) { return Sleef_##fn##d2_##u##sse2(x); } \
    TC_SLEEF_WIDE(fn, u)                                                                 \
  };

TC_SLEEF_FN(exp, u10)
TC_SLEEF_FN(expm1, u10)
TC_SLEEF_FN(log, u10)
TC_SLEEF_FN(log1p, u10)
TC_SLEEF_FN(log2, u10)
TC_SLEEF_FN(log10, u10)
TC_SLEEF_FN(sin, u10)
TC_SLEEF_FN(cos, u10)
TC_SLEEF_FN(tan, u10)
TC_SLEEF_FN(asin, u10)
TC_SLEEF_FN(acos, u10)
TC_SLEEF_FN(atan, u10)
TC_SLEEF_FN(sinh, u10)
TC_SLEEF_FN(cosh, u10)
TC_SLEEF_FN(tanh, u10)
TC_SLEEF_FN(erf, u10)
TC_SLEEF_FN(erfc, u15)
TC_SLEEF_FN(asinh, u10)
TC_SLEEF_FN(acosh, u10)
TC_SLEEF_FN(atanh, u10)

#undef TC_SLEEF_FN
#undef TC_SLEEF_WIDE

// The element type of a GCC vector type.
template <class V>
using elem_t = std::remove_cv_t<std::remove_reference_t<decltype(V{}[0])>>;

// 1 / (1 + exp(-t)), evaluated as e / (1 + e) with e = exp(t) for t < 0, so
// that it stays accurate (no overflow of exp(-t), subnormal results kept)
// on both sides. NaN propagates; sigmoid(+-inf) = 1, 0.
template <class V>
TC_VEC_INLINE V sigmoid(V t) {
  using E = elem_t<V>;
  const auto pos = t >= E(0);
  const V e = Sleef_exp::call(pos ? -t : t);
  const V one = V{} + E(1);
  return (pos ? one : e) / (E(1) + e);
}

// Kernel<op>::run(v): the op on one vector.
template <VecOp Op>
struct Kernel;

#define TC_KERNEL(op, fn)             \
  template <>                         \
  struct Kernel<VecOp::op> {          \
    template <class V>                \
    TC_VEC_INLINE static V run(V x) { \
      return Sleef_##fn::call(x);     \
    }                                 \
  };
TC_KERNEL(Exp, exp)
TC_KERNEL(Expm1, expm1)
TC_KERNEL(Log, log)
TC_KERNEL(Log2, log2)
TC_KERNEL(Log10, log10)
TC_KERNEL(Sin, sin)
TC_KERNEL(Cos, cos)
TC_KERNEL(Tan, tan)
TC_KERNEL(Asin, asin)
TC_KERNEL(Acos, acos)
TC_KERNEL(Atan, atan)
TC_KERNEL(Tanh, tanh)
TC_KERNEL(Erf, erf)
TC_KERNEL(Atanh, atanh)
#undef TC_KERNEL

// The libm type a fallback lane computes in: one wider than E, so that its
// result is rounded once (glibc's sinhf near overflow is off by 1.6 ulp).
template <class E>
using wide_t = std::conditional_t<std::is_same_v<E, float>, double, long double>;

// True when some lane has |x| > t (NaN lanes: false). Not always_inline:
// the loops below are `flatten`ed, which inlines these once the caller is
// compiled for their ISA.
inline bool any_abs_above(__m128 x, float t) {
  return _mm_movemask_ps(_mm_cmpgt_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), x), _mm_set1_ps(t))) != 0;
}
inline bool any_abs_above(__m128d x, double t) {
  return _mm_movemask_pd(_mm_cmpgt_pd(_mm_andnot_pd(_mm_set1_pd(-0.0), x), _mm_set1_pd(t))) != 0;
}
#if TC_HAVE_ISA_VARIANTS
TC_TARGET_AVX2 inline bool any_abs_above(__m256 x, float t) {
  return _mm256_movemask_ps(_mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x), _mm256_set1_ps(t), _CMP_GT_OQ)) !=
         0;
}
TC_TARGET_AVX2 inline bool any_abs_above(__m256d x, double t) {
  return _mm256_movemask_pd(_mm256_cmp_pd(_mm256_andnot_pd(_mm256_set1_pd(-0.0), x), _mm256_set1_pd(t), _CMP_GT_OQ)) !=
         0;
}
TC_TARGET_AVX512 inline bool any_abs_above(__m512 x, float t) {
  return _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(t), _CMP_GT_OQ) != 0;
}
TC_TARGET_AVX512 inline bool any_abs_above(__m512d x, double t) {
  return _mm512_cmp_pd_mask(_mm512_abs_pd(x), _mm512_set1_pd(t), _CMP_GT_OQ) != 0;
}
#endif

// SLEEF 3.5 returns inf for some finite results: sinh and cosh from
// |x| > 88.72 (float) / 709.78 (double), where exp(x) overflows but the
// result does not yet; log1p above 1e38 / 1e307; asinh and acosh from
// |x| >= 2^64 / 2^512. Lanes with |x| above a limit a little below those go
// through libm in a wider type instead: a scalar path taken only by such
// inputs.
#define TC_KERNEL_LIMITED(op, fn, lim32, lim64)                          \
  template <>                                                            \
  struct Kernel<VecOp::op> {                                             \
    template <class V>                                                   \
    TC_VEC_INLINE static V run(V x) {                                    \
      using E = elem_t<V>;                                               \
      E lim;                                                             \
      if constexpr (std::is_same_v<E, float>)                            \
        lim = lim32;                                                     \
      else                                                               \
        lim = lim64;                                                     \
      V r = Sleef_##fn::call(x);                                         \
      if (__builtin_expect(any_abs_above(x, lim), 0)) {                  \
        for (size_t k = 0; k < sizeof(V) / sizeof(E); ++k)               \
          if (std::fabs(x[k]) > lim) r[k] = E(std::fn(wide_t<E>(x[k]))); \
      }                                                                  \
      return r;                                                          \
    }                                                                    \
  };
TC_KERNEL_LIMITED(Sinh, sinh, 88.0f, 709.0)
TC_KERNEL_LIMITED(Cosh, cosh, 88.0f, 709.0)
TC_KERNEL_LIMITED(Log1p, log1p, 1e37f, 1e306)
TC_KERNEL_LIMITED(Asinh, asinh, 1e19f, 1e154)
TC_KERNEL_LIMITED(Acosh, acosh, 1e19f, 1e154)
#undef TC_KERNEL_LIMITED

template <>
struct Kernel<VecOp::Sigmoid> {
  template <class V>
  TC_VEC_INLINE static V run(V x) {
    return sigmoid(x);
  }
};
// exp(x) for gelu's exp(-z^2), inline: a call to SLEEF's exp in the middle
// of gelu's loop made GCC spill every live vector around it and serialised
// the iterations (gelu cost three exps). Cody-Waite reduction x = n ln2 + r,
// |r| <= ln2 / 2, 1 + r + r^2 S(r) with S a degree-4 fit (relative error
// 3e-9; fitted as gelu's Q), times 2^n built from its
// exponent bits. Below -80 the result is 0 (erfc's term is far below
// gelu's rounding there); NaN gives garbage that gelu's selects never use.
template <class V>
TC_VEC_INLINE V exp_for_gelu(V x) {
  typedef int32_t VI __attribute__((vector_size(sizeof(V))));
  const auto tiny = x < -80.0f;
  x = tiny ? V{} - 80.0f : x;
  const V shifter = V{} + 12582912.0f;  // 1.5 * 2^23: t's low mantissa bits hold round(x / ln2)
  const V t = x * 1.44269504088896341f + shifter;
  const V n = t - shifter;
  V r = x - n * 0.693145751953125f;  // ln2's high part: n * it is exact
  r = r - n * 1.42860676533018755e-06f;
  V p = V{} + 1.381461240e-03f;
  p = p * r + 8.368709900e-03f;
  p = p * r + 4.166838738e-02f;
  p = p * r + 1.666652069e-01f;
  p = p * r + 4.999999345e-01f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const VI biased = (VI)t - (0x4B400000 - 127);  // n + 127, in [11, 127]
  const V e = p * (V)(biased << 23);             // p * 2^n
  return tiny ? V{} : e;
}

// gelu(x) = x * Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2.
//
// float64: x * 0.5 * erfc(-x / sqrt 2), without the cancellation of 1 + erf
// for negative x.
//
// float32 has its own Phi, because SLEEF's float erf and erfc cost several
// times PyTorch's whole gelu. With z = x / sqrt 2 and a = |z|, one form for
// every a:
//   erfc(a) = exp(-a^2) * Q(u), u = 0.39 a / (1 + 0.39 a) in [0, 0.61],
//   gelu = x/2 * (2 - erfc(a)) for z > 0 and x/2 * erfc(a) for z <= 0,
// neither of which cancels (erfc(a) <= 1), and x/2 underflows as x * Phi does.
// Q = 1 + u * R(u), R a degree-7 fit of (erfc(a) exp(a^2) - 1) / u over a in
// [0, 4] (relative error 2e-9, weighted least squares iterated towards
// minimax on Chebyshev nodes); in u rather than 1 / (1 + 0.39 a) its Horner
// sum is well conditioned where erfc(a) is near 1. Past a = 4 Q is held at
// Q(4), where x/2 * erfc(a) is below 1e-8 * |x|. u is a true division: the
// divider is otherwise idle in this loop. Worst error 2.0 ulp (2.1 without
// FMA) of max(|gelu|, |x| / 2), the measure the test holds gelu to.
// gelu(inf) = inf; gelu(-inf) is NaN (-inf * 0), as PyTorch's float kernel
// gives. tools/fit_gelu.py computes R and exp_for_gelu's S.
template <class V>
TC_VEC_INLINE V gelu_erf_float(V x) {
  typedef int32_t VI __attribute__((vector_size(sizeof(V))));
  const V z = x * float(M_SQRT1_2);
  const V a = (V)((VI)z & 0x7fffffff);
  const V ka = 0.39f * (a < 4.0f ? a : V{} + 4.0f);
  const V u = ka / (1.0f + ka);
  V r = V{} + 9.170133924e-02f;
  r = r * u + -2.093133692e-01f;
  r = r * u + -5.005293707e-02f;
  r = r * u + 4.047814042e-01f;
  r = r * u + 4.010657009e-01f;
  r = r * u + -2.425707229e+00f;
  r = r * u + 3.681349659e+00f;
  r = r * u + -2.893279984e+00f;
  const V erfc_a = exp_for_gelu(z * -z) * (1.0f + u * r);
  return x * 0.5f * (z > 0.0f ? 2.0f - erfc_a : erfc_a);
}

template <>
struct Kernel<VecOp::GeluErf> {
  template <class V>
  TC_VEC_INLINE static V run(V x) {
    using E = elem_t<V>;
    if constexpr (std::is_same_v<E, float>)
      return gelu_erf_float(x);
    else
      return x * E(0.5) * Sleef_erfc::call(x * E(-M_SQRT1_2));
  }
};
// 0.5 * x * (1 + tanh(u)) as x * sigmoid(2u): the same value, through one
// exp instead of tanh, and without the cancellation of 1 + tanh(u) for u < 0.
template <>
struct Kernel<VecOp::GeluTanh> {
  template <class V>
  TC_VEC_INLINE static V run(V x) {
    using E = elem_t<V>;
    const E two_beta = E(M_SQRT2 * M_2_SQRTPI), kappa = E(0.044715);
    return x * sigmoid(two_beta * (x + kappa * x * x * x));
  }
};

// out = K::run(in) a vector of V at a time; the tail goes through one
// zero-padded vector.
template <class V, class K, class T>
TC_VEC_INLINE void span(const T* in, T* out, int64_t n) {
  constexpr int64_t kW = int64_t(sizeof(V) / sizeof(T));
  int64_t i = 0;
  for (; i + kW <= n; i += kW) {
    V x;
    std::memcpy(&x, in + i, sizeof x);
    x = K::run(x);
    std::memcpy(out + i, &x, sizeof x);
  }
  if (i < n) {
    V x{};
    const size_t bytes = size_t(n - i) * sizeof(T);
    std::memcpy(&x, in + i, bytes);
    x = K::run(x);
    std::memcpy(out + i, &x, bytes);
  }
}

template <class T>
using sse_t = std::conditional_t<std::is_same_v<T, float>, __m128, __m128d>;

template <class T, VecOp Op>
__attribute__((flatten)) void loop_sse2(const T* in, T* out, int64_t n) {
  span<sse_t<T>, Kernel<Op>>(in, out, n);
}

#if TC_HAVE_ISA_VARIANTS
template <class T>
using avx_t = std::conditional_t<std::is_same_v<T, float>, __m256, __m256d>;
template <class T>
using avx512_t = std::conditional_t<std::is_same_v<T, float>, __m512, __m512d>;

template <class T, VecOp Op>
TC_TARGET_AVX2 __attribute__((flatten)) void loop_avx2(const T* in, T* out, int64_t n) {
  span<avx_t<T>, Kernel<Op>>(in, out, n);
}
template <class T, VecOp Op>
TC_TARGET_AVX512 __attribute__((flatten)) void loop_avx512(const T* in, T* out, int64_t n) {
  span<avx512_t<T>, Kernel<Op>>(in, out, n);
}
#endif

constexpr size_t kOps = size_t(VecOp::kCount);
template <class T>
using Row = std::array<VecUnaryFn<T>, kOps>;

// Tables indexed [isa][op]; nullptr where this build has no such variant.
template <class T, size_t... I>
constexpr std::array<Row<T>, 3> make_tables(std::index_sequence<I...>) {
#if TC_HAVE_ISA_VARIANTS
  return {{{{&loop_sse2<T, VecOp(I)>...}}, {{&loop_avx2<T, VecOp(I)>...}}, {{&loop_avx512<T, VecOp(I)>...}}}};
#else
  return {{{{&loop_sse2<T, VecOp(I)>...}}, Row<T>{}, Row<T>{}}};
#endif
}

static_assert(int(Isa::Baseline) == 0 && int(Isa::Avx2) == 1 && int(Isa::Avx512) == 2, "table order");
constexpr auto kF32 = make_tables<float>(std::make_index_sequence<kOps>());
constexpr auto kF64 = make_tables<double>(std::make_index_sequence<kOps>());

}  // namespace

VecUnaryFn<float> vec_unary_f32(VecOp op, Isa isa) {
  return size_t(op) < kOps ? kF32[size_t(isa)][size_t(op)] : nullptr;
}
VecUnaryFn<double> vec_unary_f64(VecOp op, Isa isa) {
  return size_t(op) < kOps ? kF64[size_t(isa)][size_t(op)] : nullptr;
}

#else  // no SLEEF vectors on this architecture: callers keep their scalar loops

VecUnaryFn<float> vec_unary_f32(VecOp, Isa) { return nullptr; }
VecUnaryFn<double> vec_unary_f64(VecOp, Isa) { return nullptr; }

#endif

}  // namespace tc::cpu
