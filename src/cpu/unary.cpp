// SPDX-License-Identifier: BSD-3-Clause
// Unary pointwise kernels. Three shapes of op:
//   - same dtype in and out (abs, neg, sign, relu, floor, ceil, round, trunc)
//   - floating result (exp, log, sin, sigmoid, gelu...): integer and bool
//     inputs compute in float32, as PyTorch does
//   - bool result (isnan, isinf)
// Float16/BFloat16 load, compute in float and round on store.
// Each op's loop is written once (its *_body) and serves the functional,
// in-place (self) and out= entries, so none of them stages a temporary.
#include <cmath>
#include <string_view>

#include "cpu/fast_math.h"
#include "cpu/loops.h"
#include "cpu/pointwise.h"

namespace tc::native {
namespace {

using cpu::cpu_kernel;
using cpu::opmath_t;

using cpu::Write;

// Runs body(it) with `out` = op(self) written per `w`. int_to_float: integer
// and bool inputs compute in float32 (exp, sin...), as PyTorch does.
template <class Body>
void run_unary(Tensor& out, const Tensor& self, Write w, const char* name, bool int_to_float, Body body) {
  TensorIter it(name);
  it.add_output(out).add_input(self).promote_inputs().promote_integer_inputs_to_float(int_to_float);
  if (w == Write::InPlace) it.resize_outputs(false);
  it.build();
  body(it);
  if (w != Write::Functional) out.bump_version();
}

template <class Body>
Tensor unary_functional(const Tensor& self, const char* name, bool int_to_float, Body body) {
  Tensor out;
  run_unary(out, self, Write::Functional, name, int_to_float, body);
  return out;
}
template <class Body>
Tensor& unary_out(const Tensor& self, Tensor& out, const char* name, bool int_to_float, Body body) {
  run_unary(out, self, Write::Out, name, int_to_float, body);
  return out;
}
template <class Body>
Tensor& unary_inplace(Tensor& self, const char* name, bool int_to_float, Body body) {
  run_unary(self, self, Write::InPlace, name, int_to_float, body);
  return self;
}

// out = fn(x) in floating point; fn is called with float or double.
template <class F>
void float_loop(TensorIter& it, const char* name, F fn, int64_t grain = cpu::kTranscendentalGrain) {
  TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), name, [&] {
    using acc = opmath_t<scalar_t>;
    cpu_kernel(
        it, [fn](scalar_t a) -> scalar_t { return scalar_t(fn(acc(a))); }, grain);
  });
}

// float32 exp without a libm call, so its loops vectorise (<= 1 ulp);
// float64 keeps libm.
__attribute__((always_inline)) inline float exp_op(const cpu::ExpF32& e, float x) { return e(x); }
inline double exp_op(const cpu::ExpF32&, double x) { return std::exp(x); }

template <class T>
T abs_op(T a) {
  if constexpr (std::is_unsigned_v<T>)
    return a;
  else if constexpr (std::is_integral_v<T>)
    return a < 0 ? cpu::wrapping_neg(a) : a;
  else
    return T(std::abs(opmath_t<T>(a)));
}

template <class T>
T neg_op(T a) {
  if constexpr (std::is_integral_v<T>)
    return cpu::wrapping_neg(a);
  else
    return T(-opmath_t<T>(a));
}

// (0 < a) - (a < 0): NaN and -0.0 give 0, bool stays bool.
template <class T>
T sign_op(T a) {
  if constexpr (std::is_same_v<T, bool>)
    return a;
  else if constexpr (std::is_unsigned_v<T>)
    return T(a > 0);
  else {
    const opmath_t<T> x = a;
    return T(int(opmath_t<T>(0) < x) - int(x < opmath_t<T>(0)));
  }
}

template <class T>
T relu_op(T a) {
  if constexpr (std::is_unsigned_v<T>)
    return a;
  else
    return opmath_t<T>(a) < opmath_t<T>(0) ? T(0) : a;
}

enum class Rounding { Floor, Ceil, Round, Trunc };

template <Rounding R, class T>
T round_op(T a) {
  if constexpr (std::is_integral_v<T>) {
    return a;  // already integral: a copy, as PyTorch
  } else {
    const opmath_t<T> x = a;
    if constexpr (R == Rounding::Floor)
      return T(std::floor(x));
    else if constexpr (R == Rounding::Ceil)
      return T(std::ceil(x));
    else if constexpr (R == Rounding::Round)
      return T(std::nearbyint(x));  // half to even
    else
      return T(std::trunc(x));
  }
}

template <Rounding R>
void rounding_body(TensorIter& it) {
  TC_DISPATCH_ALL_TYPES(it.common_dtype(), "round",
                        [&] { cpu_kernel(it, [](scalar_t a) -> scalar_t { return round_op<R>(a); }); });
}

template <class T>
bool isnan_op(T a) {
  if constexpr (cpu::is_float_like_v<T>)
    return std::isnan(opmath_t<T>(a));
  else
    return false;
}

template <class T>
bool isinf_op(T a) {
  if constexpr (cpu::is_float_like_v<T>)
    return std::isinf(opmath_t<T>(a));
  else
    return false;
}

template <bool kNan>
Tensor float_class(const Tensor& self, const char* name) {
  Tensor out;
  TensorIter it(name);
  it.add_output(out).add_input(self).promote_inputs().output_dtype(ScalarType::Bool);
  it.build();
  TC_DISPATCH_ALL_TYPES_AND_BOOL(it.common_dtype(), name, [&] {
    cpu_kernel(it, [](scalar_t a) -> bool { return kNan ? isnan_op(a) : isinf_op(a); });
  });
  return out;
}

void abs_body(TensorIter& it) {
  TC_DISPATCH_ALL_TYPES(it.common_dtype(), "abs",
                        [&] { cpu_kernel(it, [](scalar_t a) -> scalar_t { return abs_op(a); }); });
}
void neg_body(TensorIter& it) {
  TC_DISPATCH_ALL_TYPES(it.common_dtype(), "neg",
                        [&] { cpu_kernel(it, [](scalar_t a) -> scalar_t { return neg_op(a); }); });
}
void sign_body(TensorIter& it) {
  TC_DISPATCH_ALL_TYPES_AND_BOOL(it.common_dtype(), "sign",
                                 [&] { cpu_kernel(it, [](scalar_t a) -> scalar_t { return sign_op(a); }); });
}
void relu_body(TensorIter& it) {
  TC_DISPATCH_ALL_TYPES(it.common_dtype(), "relu",
                        [&] { cpu_kernel(it, [](scalar_t a) -> scalar_t { return relu_op(a); }); });
}

const Tensor& checked_neg_input(const Tensor& self, const char* name) {
  cpu::check_defined(self, name, "self");
  TC_CHECK_TYPE(self.dtype() != ScalarType::Bool, name,
                ": negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
                "a mask, use the `~` or `logical_not()` operator instead.");
  return self;
}
const Tensor& checked_relu_input(const Tensor& self, const char* name) {
  cpu::check_defined(self, name, "self");
  TC_CHECK_TYPE(self.dtype() != ScalarType::Bool, name, ": boolean inputs are not supported");
  return self;
}

void exp_body(TensorIter& it) {
  float_loop(
      it, "exp", [e = cpu::ExpF32()](auto x) { return exp_op(e, x); }, kGrainSize);
}
void expm1_body(TensorIter& it) {
  float_loop(it, "expm1", [](auto x) { return std::expm1(x); });
}
void log_body(TensorIter& it) {
  float_loop(it, "log", [](auto x) { return std::log(x); });
}
void log1p_body(TensorIter& it) {
  float_loop(it, "log1p", [](auto x) { return std::log1p(x); });
}
void log2_body(TensorIter& it) {
  float_loop(it, "log2", [](auto x) { return std::log2(x); });
}
void log10_body(TensorIter& it) {
  float_loop(it, "log10", [](auto x) { return std::log10(x); });
}
void sqrt_body(TensorIter& it) {
  float_loop(
      it, "sqrt", [](auto x) { return std::sqrt(x); }, kGrainSize);
}
void rsqrt_body(TensorIter& it) {
  float_loop(
      it, "rsqrt", [](auto x) { return decltype(x)(1) / std::sqrt(x); }, kGrainSize);
}
void reciprocal_body(TensorIter& it) {
  float_loop(
      it, "reciprocal", [](auto x) { return decltype(x)(1) / x; }, kGrainSize);
}
void sin_body(TensorIter& it) {
  float_loop(it, "sin", [](auto x) { return std::sin(x); });
}
void cos_body(TensorIter& it) {
  float_loop(it, "cos", [](auto x) { return std::cos(x); });
}
void tan_body(TensorIter& it) {
  float_loop(it, "tan", [](auto x) { return std::tan(x); });
}
void asin_body(TensorIter& it) {
  float_loop(it, "asin", [](auto x) { return std::asin(x); });
}
void acos_body(TensorIter& it) {
  float_loop(it, "acos", [](auto x) { return std::acos(x); });
}
void atan_body(TensorIter& it) {
  float_loop(it, "atan", [](auto x) { return std::atan(x); });
}
void sinh_body(TensorIter& it) {
  float_loop(it, "sinh", [](auto x) { return std::sinh(x); });
}
void cosh_body(TensorIter& it) {
  float_loop(it, "cosh", [](auto x) { return std::cosh(x); });
}
void tanh_body(TensorIter& it) {
  float_loop(it, "tanh", [](auto x) { return std::tanh(x); });
}
void sigmoid_body(TensorIter& it) {
  float_loop(
      it, "sigmoid", [e = cpu::ExpF32()](auto x) { return decltype(x)(1) / (decltype(x)(1) + exp_op(e, -x)); },
      kGrainSize);
}
void erf_body(TensorIter& it) {
  float_loop(it, "erf", [](auto x) { return std::erf(x); });
}
void asinh_body(TensorIter& it) {
  float_loop(it, "asinh", [](auto x) { return std::asinh(x); });
}
void acosh_body(TensorIter& it) {
  float_loop(it, "acosh", [](auto x) { return std::acosh(x); });
}
void atanh_body(TensorIter& it) {
  float_loop(it, "atanh", [](auto x) { return std::atanh(x); });
}

constexpr bool kSame = false, kFloat = true;  // run_unary's int_to_float

}  // namespace

// ---- same dtype ----
Tensor abs_cpu(const Tensor& self) { return unary_functional(self, "abs", kSame, abs_body); }
Tensor& abs_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "abs", kSame, abs_body); }
Tensor& abs_inplace_cpu(Tensor& self) { return unary_inplace(self, "abs_", kSame, abs_body); }
Tensor neg_cpu(const Tensor& self) { return unary_functional(checked_neg_input(self, "neg"), "neg", kSame, neg_body); }
Tensor& neg_out_cpu(const Tensor& self, Tensor& out) {
  return unary_out(checked_neg_input(self, "neg"), out, "neg", kSame, neg_body);
}
Tensor& neg_inplace_cpu(Tensor& self) {
  checked_neg_input(self, "neg_");
  return unary_inplace(self, "neg_", kSame, neg_body);
}
Tensor sign_cpu(const Tensor& self) { return unary_functional(self, "sign", kSame, sign_body); }
Tensor& sign_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "sign", kSame, sign_body); }
Tensor& sign_inplace_cpu(Tensor& self) { return unary_inplace(self, "sign_", kSame, sign_body); }
Tensor relu_cpu(const Tensor& self) {
  return unary_functional(checked_relu_input(self, "relu"), "relu", kSame, relu_body);
}
Tensor& relu_inplace_cpu(Tensor& self) {
  checked_relu_input(self, "relu_");
  return unary_inplace(self, "relu_", kSame, relu_body);
}
Tensor floor_cpu(const Tensor& self) { return unary_functional(self, "floor", kSame, rounding_body<Rounding::Floor>); }
Tensor& floor_out_cpu(const Tensor& self, Tensor& out) {
  return unary_out(self, out, "floor", kSame, rounding_body<Rounding::Floor>);
}
Tensor& floor_inplace_cpu(Tensor& self) { return unary_inplace(self, "floor_", kSame, rounding_body<Rounding::Floor>); }
Tensor ceil_cpu(const Tensor& self) { return unary_functional(self, "ceil", kSame, rounding_body<Rounding::Ceil>); }
Tensor& ceil_out_cpu(const Tensor& self, Tensor& out) {
  return unary_out(self, out, "ceil", kSame, rounding_body<Rounding::Ceil>);
}
Tensor& ceil_inplace_cpu(Tensor& self) { return unary_inplace(self, "ceil_", kSame, rounding_body<Rounding::Ceil>); }
Tensor round_cpu(const Tensor& self) { return unary_functional(self, "round", kSame, rounding_body<Rounding::Round>); }
Tensor& round_out_cpu(const Tensor& self, Tensor& out) {
  return unary_out(self, out, "round", kSame, rounding_body<Rounding::Round>);
}
Tensor& round_inplace_cpu(Tensor& self) { return unary_inplace(self, "round_", kSame, rounding_body<Rounding::Round>); }
Tensor trunc_cpu(const Tensor& self) { return unary_functional(self, "trunc", kSame, rounding_body<Rounding::Trunc>); }
Tensor& trunc_out_cpu(const Tensor& self, Tensor& out) {
  return unary_out(self, out, "trunc", kSame, rounding_body<Rounding::Trunc>);
}
Tensor& trunc_inplace_cpu(Tensor& self) { return unary_inplace(self, "trunc_", kSame, rounding_body<Rounding::Trunc>); }

// ATen's formula: scale by 10^|decimals|, round half to even, scale back.
Tensor round_decimals_cpu(const Tensor& self, int64_t decimals) {
  return unary_functional(self, "round", kSame, [decimals](TensorIter& it) {
    TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), "round", [&] {
      using acc = opmath_t<scalar_t>;
      const bool neg = decimals < 0;
      const acc scale = acc(std::pow(10.0, neg ? -double(decimals) : double(decimals)));
      if (neg) {
        cpu_kernel(it, [scale](scalar_t a) -> scalar_t { return std::nearbyint(acc(a) / scale) * scale; });
      } else {
        cpu_kernel(it, [scale](scalar_t a) -> scalar_t { return std::nearbyint(acc(a) * scale) / scale; });
      }
    });
  });
}

// ---- floating result ----
Tensor exp_cpu(const Tensor& self) { return unary_functional(self, "exp", kFloat, exp_body); }
Tensor& exp_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "exp", kFloat, exp_body); }
Tensor& exp_inplace_cpu(Tensor& self) { return unary_inplace(self, "exp_", kFloat, exp_body); }
Tensor expm1_cpu(const Tensor& self) { return unary_functional(self, "expm1", kFloat, expm1_body); }
Tensor& expm1_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "expm1", kFloat, expm1_body); }
Tensor& expm1_inplace_cpu(Tensor& self) { return unary_inplace(self, "expm1_", kFloat, expm1_body); }
Tensor log_cpu(const Tensor& self) { return unary_functional(self, "log", kFloat, log_body); }
Tensor& log_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "log", kFloat, log_body); }
Tensor& log_inplace_cpu(Tensor& self) { return unary_inplace(self, "log_", kFloat, log_body); }
Tensor log1p_cpu(const Tensor& self) { return unary_functional(self, "log1p", kFloat, log1p_body); }
Tensor& log1p_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "log1p", kFloat, log1p_body); }
Tensor& log1p_inplace_cpu(Tensor& self) { return unary_inplace(self, "log1p_", kFloat, log1p_body); }
Tensor log2_cpu(const Tensor& self) { return unary_functional(self, "log2", kFloat, log2_body); }
Tensor& log2_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "log2", kFloat, log2_body); }
Tensor& log2_inplace_cpu(Tensor& self) { return unary_inplace(self, "log2_", kFloat, log2_body); }
Tensor log10_cpu(const Tensor& self) { return unary_functional(self, "log10", kFloat, log10_body); }
Tensor& log10_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "log10", kFloat, log10_body); }
Tensor& log10_inplace_cpu(Tensor& self) { return unary_inplace(self, "log10_", kFloat, log10_body); }
Tensor sqrt_cpu(const Tensor& self) { return unary_functional(self, "sqrt", kFloat, sqrt_body); }
Tensor& sqrt_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "sqrt", kFloat, sqrt_body); }
Tensor& sqrt_inplace_cpu(Tensor& self) { return unary_inplace(self, "sqrt_", kFloat, sqrt_body); }
Tensor rsqrt_cpu(const Tensor& self) { return unary_functional(self, "rsqrt", kFloat, rsqrt_body); }
Tensor& rsqrt_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "rsqrt", kFloat, rsqrt_body); }
Tensor& rsqrt_inplace_cpu(Tensor& self) { return unary_inplace(self, "rsqrt_", kFloat, rsqrt_body); }
Tensor reciprocal_cpu(const Tensor& self) { return unary_functional(self, "reciprocal", kFloat, reciprocal_body); }
Tensor& reciprocal_out_cpu(const Tensor& self, Tensor& out) {
  return unary_out(self, out, "reciprocal", kFloat, reciprocal_body);
}
Tensor& reciprocal_inplace_cpu(Tensor& self) { return unary_inplace(self, "reciprocal_", kFloat, reciprocal_body); }
Tensor sin_cpu(const Tensor& self) { return unary_functional(self, "sin", kFloat, sin_body); }
Tensor& sin_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "sin", kFloat, sin_body); }
Tensor& sin_inplace_cpu(Tensor& self) { return unary_inplace(self, "sin_", kFloat, sin_body); }
Tensor cos_cpu(const Tensor& self) { return unary_functional(self, "cos", kFloat, cos_body); }
Tensor& cos_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "cos", kFloat, cos_body); }
Tensor& cos_inplace_cpu(Tensor& self) { return unary_inplace(self, "cos_", kFloat, cos_body); }
Tensor tan_cpu(const Tensor& self) { return unary_functional(self, "tan", kFloat, tan_body); }
Tensor& tan_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "tan", kFloat, tan_body); }
Tensor& tan_inplace_cpu(Tensor& self) { return unary_inplace(self, "tan_", kFloat, tan_body); }
Tensor asin_cpu(const Tensor& self) { return unary_functional(self, "asin", kFloat, asin_body); }
Tensor& asin_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "asin", kFloat, asin_body); }
Tensor& asin_inplace_cpu(Tensor& self) { return unary_inplace(self, "asin_", kFloat, asin_body); }
Tensor acos_cpu(const Tensor& self) { return unary_functional(self, "acos", kFloat, acos_body); }
Tensor& acos_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "acos", kFloat, acos_body); }
Tensor& acos_inplace_cpu(Tensor& self) { return unary_inplace(self, "acos_", kFloat, acos_body); }
Tensor atan_cpu(const Tensor& self) { return unary_functional(self, "atan", kFloat, atan_body); }
Tensor& atan_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "atan", kFloat, atan_body); }
Tensor& atan_inplace_cpu(Tensor& self) { return unary_inplace(self, "atan_", kFloat, atan_body); }
Tensor sinh_cpu(const Tensor& self) { return unary_functional(self, "sinh", kFloat, sinh_body); }
Tensor& sinh_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "sinh", kFloat, sinh_body); }
Tensor& sinh_inplace_cpu(Tensor& self) { return unary_inplace(self, "sinh_", kFloat, sinh_body); }
Tensor cosh_cpu(const Tensor& self) { return unary_functional(self, "cosh", kFloat, cosh_body); }
Tensor& cosh_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "cosh", kFloat, cosh_body); }
Tensor& cosh_inplace_cpu(Tensor& self) { return unary_inplace(self, "cosh_", kFloat, cosh_body); }
Tensor tanh_cpu(const Tensor& self) { return unary_functional(self, "tanh", kFloat, tanh_body); }
Tensor& tanh_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "tanh", kFloat, tanh_body); }
Tensor& tanh_inplace_cpu(Tensor& self) { return unary_inplace(self, "tanh_", kFloat, tanh_body); }
Tensor sigmoid_cpu(const Tensor& self) { return unary_functional(self, "sigmoid", kFloat, sigmoid_body); }
Tensor& sigmoid_out_cpu(const Tensor& self, Tensor& out) {
  return unary_out(self, out, "sigmoid", kFloat, sigmoid_body);
}
Tensor& sigmoid_inplace_cpu(Tensor& self) { return unary_inplace(self, "sigmoid_", kFloat, sigmoid_body); }
Tensor erf_cpu(const Tensor& self) { return unary_functional(self, "erf", kFloat, erf_body); }
Tensor& erf_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "erf", kFloat, erf_body); }
Tensor& erf_inplace_cpu(Tensor& self) { return unary_inplace(self, "erf_", kFloat, erf_body); }
Tensor asinh_cpu(const Tensor& self) { return unary_functional(self, "asinh", kFloat, asinh_body); }
Tensor& asinh_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "asinh", kFloat, asinh_body); }
Tensor& asinh_inplace_cpu(Tensor& self) { return unary_inplace(self, "asinh_", kFloat, asinh_body); }
Tensor acosh_cpu(const Tensor& self) { return unary_functional(self, "acosh", kFloat, acosh_body); }
Tensor& acosh_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "acosh", kFloat, acosh_body); }
Tensor& acosh_inplace_cpu(Tensor& self) { return unary_inplace(self, "acosh_", kFloat, acosh_body); }
Tensor atanh_cpu(const Tensor& self) { return unary_functional(self, "atanh", kFloat, atanh_body); }
Tensor& atanh_out_cpu(const Tensor& self, Tensor& out) { return unary_out(self, out, "atanh", kFloat, atanh_body); }
Tensor& atanh_inplace_cpu(Tensor& self) { return unary_inplace(self, "atanh_", kFloat, atanh_body); }

// gelu is defined for floating tensors only (no integer promotion).
Tensor gelu_cpu(const Tensor& self, std::string_view approximate) {
  const bool tanh_approx = approximate == "tanh";
  TC_CHECK_ARG(tanh_approx || approximate == "none",
               "gelu: argument 'approximate' must be either 'none' or 'tanh', got '", approximate, "'");
  return unary_functional(self, "gelu", kSame, [tanh_approx](TensorIter& it) {
    TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), "gelu", [&] {
      using acc = opmath_t<scalar_t>;
      if (tanh_approx) {
        const acc beta = acc(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = acc(0.044715);
        cpu_kernel(
            it,
            [beta, kappa](scalar_t a) -> scalar_t {
              const acc x = a;
              return acc(0.5) * x * (acc(1) + std::tanh(beta * (x + kappa * x * x * x)));
            },
            cpu::kTranscendentalGrain);
      } else {
        const acc alpha = acc(M_SQRT1_2);
        cpu_kernel(
            it,
            [alpha](scalar_t a) -> scalar_t {
              const acc x = a;
              return x * acc(0.5) * (acc(1) + std::erf(x * alpha));
            },
            cpu::kTranscendentalGrain);
      }
    });
  });
}

// ---- bool result ----
Tensor isnan_cpu(const Tensor& self) { return float_class<true>(self, "isnan"); }
Tensor isinf_cpu(const Tensor& self) { return float_class<false>(self, "isinf"); }

}  // namespace tc::native
