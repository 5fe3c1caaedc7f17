// Unary pointwise kernels. Three shapes of op:
//   - same dtype in and out (abs, neg, sign, relu, floor, ceil, round, trunc)
//   - floating result (exp, log, sin, sigmoid, gelu...): integer and bool
//     inputs compute in float32, as PyTorch does
//   - bool result (isnan, isinf)
// Float16/BFloat16 load, compute in float and round on store.
#include <cmath>
#include <string_view>

#include "cpu/fast_math.h"
#include "cpu/loops.h"
#include "cpu/pointwise.h"

namespace tc::native {
namespace {

using cpu::cpu_kernel;
using cpu::opmath_t;

// out = body(it) over an iterator whose computation dtype is self's.
template <class Body>
Tensor unary_same_dtype(const Tensor& self, const char* name, Body body) {
  Tensor out;
  TensorIter it(name);
  it.add_output(out).add_input(self).promote_inputs();
  it.build();
  body(it);
  return out;
}

// out = fn(x) in floating point; fn is called with float or double.
template <class F>
Tensor unary_float(const Tensor& self, const char* name, F fn, int64_t grain = cpu::kTranscendentalGrain) {
  Tensor out;
  TensorIter it(name);
  it.add_output(out).add_input(self).promote_inputs().promote_integer_inputs_to_float();
  it.build();
  TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), name, [&] {
    using acc = opmath_t<scalar_t>;
    cpu_kernel(it, [fn](scalar_t a) -> scalar_t { return scalar_t(fn(acc(a))); }, grain);
  });
  return out;
}

// float32 exp without a libm call, so its loops vectorise (<= 1 ulp);
// float64 keeps libm.
__attribute__((always_inline)) inline float exp_op(const cpu::ExpF32& e, float x) { return e(x); }
inline double exp_op(const cpu::ExpF32&, double x) { return std::exp(x); }

template <class T>
T abs_op(T a) {
  if constexpr (std::is_unsigned_v<T>) return a;
  else if constexpr (std::is_integral_v<T>) return a < 0 ? cpu::wrapping_neg(a) : a;
  else return T(std::abs(opmath_t<T>(a)));
}

template <class T>
T neg_op(T a) {
  if constexpr (std::is_integral_v<T>) return cpu::wrapping_neg(a);
  else return T(-opmath_t<T>(a));
}

// (0 < a) - (a < 0): NaN and -0.0 give 0, bool stays bool.
template <class T>
T sign_op(T a) {
  if constexpr (std::is_same_v<T, bool>) return a;
  else if constexpr (std::is_unsigned_v<T>) return T(a > 0);
  else {
    const opmath_t<T> x = a;
    return T(int(opmath_t<T>(0) < x) - int(x < opmath_t<T>(0)));
  }
}

template <class T>
T relu_op(T a) {
  if constexpr (std::is_unsigned_v<T>) return a;
  else return opmath_t<T>(a) < opmath_t<T>(0) ? T(0) : a;
}

enum class Rounding { Floor, Ceil, Round, Trunc };

template <Rounding R, class T>
T round_op(T a) {
  if constexpr (std::is_integral_v<T>) {
    return a;  // already integral: a copy, as PyTorch
  } else {
    const opmath_t<T> x = a;
    if constexpr (R == Rounding::Floor) return T(std::floor(x));
    else if constexpr (R == Rounding::Ceil) return T(std::ceil(x));
    else if constexpr (R == Rounding::Round) return T(std::nearbyint(x));  // half to even
    else return T(std::trunc(x));
  }
}

template <Rounding R>
Tensor rounding(const Tensor& self, const char* name) {
  return unary_same_dtype(self, name, [name](TensorIter& it) {
    TC_DISPATCH_ALL_TYPES(it.common_dtype(), name, [&] {
      cpu_kernel(it, [](scalar_t a) -> scalar_t { return round_op<R>(a); });
    });
  });
}

template <class T>
bool isnan_op(T a) {
  if constexpr (cpu::is_float_like_v<T>) return std::isnan(opmath_t<T>(a));
  else return false;
}

template <class T>
bool isinf_op(T a) {
  if constexpr (cpu::is_float_like_v<T>) return std::isinf(opmath_t<T>(a));
  else return false;
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

}  // namespace

// ---- same dtype ----
Tensor abs_cpu(const Tensor& self) {
  return unary_same_dtype(self, "abs", [](TensorIter& it) {
    TC_DISPATCH_ALL_TYPES(it.common_dtype(), "abs", [&] {
      cpu_kernel(it, [](scalar_t a) -> scalar_t { return abs_op(a); });
    });
  });
}

Tensor neg_cpu(const Tensor& self) {
  cpu::check_defined(self, "neg", "self");
  TC_CHECK_TYPE(self.dtype() != ScalarType::Bool,
                "neg: negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
                "a mask, use the `~` or `logical_not()` operator instead.");
  return unary_same_dtype(self, "neg", [](TensorIter& it) {
    TC_DISPATCH_ALL_TYPES(it.common_dtype(), "neg", [&] {
      cpu_kernel(it, [](scalar_t a) -> scalar_t { return neg_op(a); });
    });
  });
}

Tensor sign_cpu(const Tensor& self) {
  return unary_same_dtype(self, "sign", [](TensorIter& it) {
    TC_DISPATCH_ALL_TYPES_AND_BOOL(it.common_dtype(), "sign", [&] {
      cpu_kernel(it, [](scalar_t a) -> scalar_t { return sign_op(a); });
    });
  });
}

Tensor relu_cpu(const Tensor& self) {
  cpu::check_defined(self, "relu", "self");
  TC_CHECK_TYPE(self.dtype() != ScalarType::Bool, "relu: boolean inputs are not supported");
  return unary_same_dtype(self, "relu", [](TensorIter& it) {
    TC_DISPATCH_ALL_TYPES(it.common_dtype(), "relu", [&] {
      cpu_kernel(it, [](scalar_t a) -> scalar_t { return relu_op(a); });
    });
  });
}

Tensor floor_cpu(const Tensor& self) { return rounding<Rounding::Floor>(self, "floor"); }
Tensor ceil_cpu(const Tensor& self) { return rounding<Rounding::Ceil>(self, "ceil"); }
Tensor round_cpu(const Tensor& self) { return rounding<Rounding::Round>(self, "round"); }
Tensor trunc_cpu(const Tensor& self) { return rounding<Rounding::Trunc>(self, "trunc"); }

// ATen's formula: scale by 10^|decimals|, round half to even, scale back.
Tensor round_decimals_cpu(const Tensor& self, int64_t decimals) {
  return unary_same_dtype(self, "round", [decimals](TensorIter& it) {
    TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), "round", [&] {
      using acc = opmath_t<scalar_t>;
      const bool neg = decimals < 0;
      const acc scale = acc(std::pow(10.0, double(neg ? -decimals : decimals)));
      if (neg) {
        cpu_kernel(it, [scale](scalar_t a) -> scalar_t { return std::nearbyint(acc(a) / scale) * scale; });
      } else {
        cpu_kernel(it, [scale](scalar_t a) -> scalar_t { return std::nearbyint(acc(a) * scale) / scale; });
      }
    });
  });
}

// ---- floating result ----
Tensor exp_cpu(const Tensor& self) {
  return unary_float(self, "exp", [e = cpu::ExpF32()](auto x) { return exp_op(e, x); }, kGrainSize);
}
Tensor expm1_cpu(const Tensor& self) {
  return unary_float(self, "expm1", [](auto x) { return std::expm1(x); });
}
Tensor log_cpu(const Tensor& self) {
  return unary_float(self, "log", [](auto x) { return std::log(x); });
}
Tensor log1p_cpu(const Tensor& self) {
  return unary_float(self, "log1p", [](auto x) { return std::log1p(x); });
}
Tensor log2_cpu(const Tensor& self) {
  return unary_float(self, "log2", [](auto x) { return std::log2(x); });
}
Tensor log10_cpu(const Tensor& self) {
  return unary_float(self, "log10", [](auto x) { return std::log10(x); });
}
Tensor sqrt_cpu(const Tensor& self) {
  return unary_float(self, "sqrt", [](auto x) { return std::sqrt(x); }, kGrainSize);
}
Tensor rsqrt_cpu(const Tensor& self) {
  return unary_float(self, "rsqrt", [](auto x) { return decltype(x)(1) / std::sqrt(x); }, kGrainSize);
}
Tensor reciprocal_cpu(const Tensor& self) {
  return unary_float(self, "reciprocal", [](auto x) { return decltype(x)(1) / x; }, kGrainSize);
}
Tensor sin_cpu(const Tensor& self) {
  return unary_float(self, "sin", [](auto x) { return std::sin(x); });
}
Tensor cos_cpu(const Tensor& self) {
  return unary_float(self, "cos", [](auto x) { return std::cos(x); });
}
Tensor tan_cpu(const Tensor& self) {
  return unary_float(self, "tan", [](auto x) { return std::tan(x); });
}
Tensor asin_cpu(const Tensor& self) {
  return unary_float(self, "asin", [](auto x) { return std::asin(x); });
}
Tensor acos_cpu(const Tensor& self) {
  return unary_float(self, "acos", [](auto x) { return std::acos(x); });
}
Tensor atan_cpu(const Tensor& self) {
  return unary_float(self, "atan", [](auto x) { return std::atan(x); });
}
Tensor sinh_cpu(const Tensor& self) {
  return unary_float(self, "sinh", [](auto x) { return std::sinh(x); });
}
Tensor cosh_cpu(const Tensor& self) {
  return unary_float(self, "cosh", [](auto x) { return std::cosh(x); });
}
Tensor tanh_cpu(const Tensor& self) {
  return unary_float(self, "tanh", [](auto x) { return std::tanh(x); });
}
Tensor sigmoid_cpu(const Tensor& self) {
  return unary_float(
      self, "sigmoid", [e = cpu::ExpF32()](auto x) { return decltype(x)(1) / (decltype(x)(1) + exp_op(e, -x)); },
      kGrainSize);
}
Tensor erf_cpu(const Tensor& self) {
  return unary_float(self, "erf", [](auto x) { return std::erf(x); });
}

// gelu is defined for floating tensors only (no integer promotion).
Tensor gelu_cpu(const Tensor& self, std::string_view approximate) {
  const bool tanh_approx = approximate == "tanh";
  TC_CHECK_ARG(tanh_approx || approximate == "none",
               "gelu: argument 'approximate' must be either 'none' or 'tanh', got '", approximate, "'");
  return unary_same_dtype(self, "gelu", [tanh_approx](TensorIter& it) {
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
