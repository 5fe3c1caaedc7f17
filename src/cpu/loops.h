// SPDX-License-Identifier: BSD-3-Clause
// Typed inner loops for pointwise CPU kernels, driven by TensorIter.
//
//   cpu_kernel(iter, [](float a, float b) -> float { return a + b; });
//
// The lambda's signature gives the element types: its parameters are the
// inputs' loop dtypes, its result the output's. Each 1-D run picks the
// fastest loop its strides allow:
//   - every operand dense                      -> out[i] = f(a[i], b[i])
//   - one input broadcast (stride 0), rest dense -> that input is hoisted
//   - anything else                            -> byte-strided loop
// The first two are plain indexed loops over typed pointers, which GCC
// auto-vectorises (with a runtime alias check, so in-place is fine).
#pragma once
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/iter.h"
#include "core/sanitize.h"
#include "cpu/isa.h"
#include "structured/binary.h"

namespace tc::cpu {

// The type arithmetic happens in: reduced floats compute in float.
template <class T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <class T>
using opmath_t = typename OpMath<T>::type;

template <class T>
constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <class T>
constexpr bool is_float_like_v = std::is_floating_point_v<T> || is_reduced_float_v<T>;

// Signature of a lambda (or any class with one operator()).
template <class F>
struct fn_traits : fn_traits<decltype(&std::decay_t<F>::operator())> {};
template <class C, class R, class... A>
struct fn_traits<R (C::*)(A...) const> {
  using result = R;
  using args = std::tuple<std::decay_t<A>...>;
  static constexpr size_t arity = sizeof...(A);
};
template <class C, class R, class... A>
struct fn_traits<R (C::*)(A...)> : fn_traits<R (C::*)(A...) const> {};

namespace detail {

template <class R, class Args, class Idx>
struct Loop1d;

template <class R, class... A, size_t... I>
struct Loop1d<R, std::tuple<A...>, std::index_sequence<I...>> {
  // Strides of the inputs match "dense, except input S is broadcast"
  // (S = -1: all dense).
  template <int S>
  static bool matches(const int64_t* s) {
    return (((int(I) == S) ? s[I + 1] == 0 : s[I + 1] == int64_t(sizeof(A))) && ...);
  }

  template <size_t J, int S, class T, class V>
  static inline T load(const T* p, int64_t i, const V& hoisted) {
    if constexpr (int(J) == S)
      return hoisted;
    else
      return p[i];
  }

  // The functor is copied to a local: its captures then cannot alias `out`,
  // so they stay in registers. `flatten` (on each ISA's copy below) inlines
  // the functor and everything it calls that has a visible body (GCC
  // otherwise leaves e.g. a generic lambda around a polynomial exp as a call
  // per element, which stops vectorisation).
  template <int S, class F>
  static inline __attribute__((always_inline)) void dense_body(char** data, int64_t n, const F& fn) {
    F f = fn;
    R* out = reinterpret_cast<R*>(data[0]);
    const std::tuple<const A*...> in(reinterpret_cast<const A*>(data[I + 1])...);
    if constexpr (S >= 0) {
      using H = std::tuple_element_t<size_t(S), std::tuple<A...>>;
      const H h = *std::get<size_t(S)>(in);
      for (int64_t i = 0; i < n; ++i) out[i] = f(load<I, S>(std::get<I>(in), i, h)...);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = f(std::get<I>(in)[i]...);
    }
  }

  template <int S, class F>
  __attribute__((flatten)) static void dense_baseline(char** data, int64_t n, const F& fn) {
    dense_body<S>(data, n, fn);
  }
#if TC_HAVE_ISA_VARIANTS
  template <int S, class F>
  TC_TARGET_AVX2 __attribute__((flatten)) static void dense_avx2(char** data, int64_t n, const F& fn) {
    dense_body<S>(data, n, fn);
  }
  template <int S, class F>
  TC_TARGET_AVX512 __attribute__((flatten)) static void dense_avx512(char** data, int64_t n, const F& fn) {
    dense_body<S>(data, n, fn);
  }
#endif

  template <int S, class F>
  static void dense(Isa which, char** data, int64_t n, const F& f) {
#if TC_HAVE_ISA_VARIANTS
    switch (which) {
      case Isa::Avx512: return dense_avx512<S>(data, n, f);
      case Isa::Avx2: return dense_avx2<S>(data, n, f);
      case Isa::Baseline: break;
    }
#endif
    dense_baseline<S>(data, n, f);
  }

  template <class F>
  __attribute__((flatten)) static void strided(char** data, const int64_t* s, int64_t n, const F& fn) {
    F f = fn;
    char* out = data[0];
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<R*>(out + i * s[0]) = f(*reinterpret_cast<const A*>(data[I + 1] + i * s[I + 1])...);
  }

  template <class F>
  static void run(Isa which, char** data, const int64_t* s, int64_t n, const F& f) {
    if (s[0] == int64_t(sizeof(R))) {
      if (matches<-1>(s)) return dense<-1>(which, data, n, f);
      if constexpr (sizeof...(A) > 0) {
        const bool done = ((matches<int(I)>(s) ? (dense<int(I)>(which, data, n, f), true) : false) || ...);
        if (done) return;
      }
    }
    strided(data, s, n, f);
  }
};

}  // namespace detail

// out = f(inputs...) elementwise over a built iterator with one output. A
// grain below kGrainSize marks an expensive f (kTranscendentalGrain): its loop
// is compute-bound and gets the widest vectors; cheap ones are memory-bound
// and get the vectors that stream fastest (cpu/isa.h).
template <class F>
void cpu_kernel(TensorIter& iter, F f, int64_t grain = kGrainSize) {
  using traits = fn_traits<F>;
  using L = detail::Loop1d<typename traits::result, typename traits::args, std::make_index_sequence<traits::arity>>;
  const Isa which = grain < kGrainSize ? isa() : streaming_isa();
  iter.for_each([&f, which](char** data, const int64_t* s, int64_t n) { L::run(which, data, s, n, f); }, grain);
}

// Expensive per-element functions (exp, sin, pow) split across threads sooner.
constexpr int64_t kTranscendentalGrain = 4096;

inline bool scalar_is_one(const Scalar& s) { return s.is_floating_point() ? s.to_double() == 1.0 : s.to_int() == 1; }

// The binary meta step's operand and write kinds (structured/binary.h),
// under the names the CPU kernels use.
using structured::setup_binary;
using structured::TensorOrNumber;
using structured::Write;

// For checks that read a tensor's metadata before the planner would.
inline void check_defined(const Tensor& t, const char* name, const char* arg) {
  TC_CHECK_ARG(t.defined(), name, ": argument '", arg, "' is an undefined tensor");
}

// Integer arithmetic that wraps as PyTorch's does instead of overflowing
// (undefined for signed types). The unsigned type is at least `unsigned`, so
// narrow types do not promote back to a signed int.
template <class T>
using wrap_t = std::make_unsigned_t<std::common_type_t<T, unsigned>>;
template <class T>
TC_NO_SANITIZE_INTEGER inline T wrapping_neg(T a) {
  return T(wrap_t<T>(wrap_t<T>(0) - wrap_t<T>(a)));
}
template <class T>
TC_NO_SANITIZE_INTEGER inline T wrapping_add(T a, T b) {
  return T(wrap_t<T>(wrap_t<T>(a) + wrap_t<T>(b)));
}
template <class T>
TC_NO_SANITIZE_INTEGER inline T wrapping_mul(T a, T b) {
  return T(wrap_t<T>(wrap_t<T>(a) * wrap_t<T>(b)));
}

// True when operand `op` of a built iterator holds a zero (in its loop dtype)
// anywhere in the iteration space: the integer-division guard, run before
// anything is written.
template <class T>
bool operand_has_zero(const TensorIter& it, int op) {
  if (it.numel() == 0) return false;
  if (it.is_scalar(op)) return *reinterpret_cast<const T*>(it.data(op)) == T(0);
  bool zero = false;
  auto scan = [&](char** data, const int64_t* s, int64_t n) {
    const char* p = data[op];
    const int64_t st = s[op];
    bool z = false;
    for (int64_t i = 0; i < n; ++i) z |= *reinterpret_cast<const T*>(p + i * st) == T(0);
    zero |= z;
  };
  it.serial_for_each(scan, 0, it.numel());
  return zero;
}

}  // namespace tc::cpu
