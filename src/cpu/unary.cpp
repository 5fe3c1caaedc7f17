// SPDX-License-Identifier: BSD-3-Clause
// Unary pointwise kernels. Three shapes of op:
//   - same dtype in and out (abs, neg, sign, relu, floor, ceil, round, trunc)
//   - floating result (exp, log, sin, sigmoid, gelu...): integer and bool
//     inputs compute in float32, as PyTorch does
//   - bool result (isnan, isinf, isfinite)
// Float16/BFloat16 load, compute in float and round on store.
// Most ops are `structured:` in schema/ops.yaml: this file holds only their
// CPU loop (<op>_loop_cpu, over an iterator the family's meta step planned);
// the functional, in-place and out= kernels are generated around it
// (src/structured/families.h), so none of them stages a temporary. neg and
// relu check their input first and call the family functions by hand.
#include <cmath>
#include <string_view>

#include "cpu/fast_math.h"
#include "cpu/loops.h"
#include "structured/nn.h"
#include "structured/families.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels and loops match the schema
#include "cpu/vec_math.h"

namespace tc::native {
namespace {

using cpu::cpu_kernel;
using cpu::opmath_t;

// out = fn(x) in floating point; fn is called with float or double.
template <class F>
void float_loop(TensorIter& it, const char* name, F fn, int64_t grain = cpu::kTranscendentalGrain) {
  TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), name, [&] {
    using acc = opmath_t<scalar_t>;
    cpu_kernel(
        it, [fn](scalar_t a) -> scalar_t { return scalar_t(fn(acc(a))); }, grain);
  });
}

// The same with float32 and float64 through SLEEF's vector `op`
// (cpu/vec_math.h); fn serves Float16/BFloat16 (and any build without it).
template <class F>
void float_loop(TensorIter& it, const char* name, cpu::VecOp op, F fn, int64_t grain = cpu::kTranscendentalGrain) {
  const ScalarType dt = it.common_dtype();
  if (dt == ScalarType::Float32) {
    if (auto vf = cpu::vec_unary_fn<float>(op)) return cpu::vec_unary_kernel<float>(it, vf, grain);
  } else if (dt == ScalarType::Float64) {
    if (auto vf = cpu::vec_unary_fn<double>(op)) return cpu::vec_unary_kernel<double>(it, vf, grain);
  }
  float_loop(it, name, fn, grain);
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

template <class T>
bool isfinite_op(T a) {
  if constexpr (cpu::is_float_like_v<T>)
    return std::isfinite(opmath_t<T>(a));
  else
    return true;
}

enum class FloatClass { Nan, Inf, Finite };

template <FloatClass kClass>
Tensor float_class(const Tensor& self, const char* name) {
  Tensor out;
  TensorIter it(name);
  it.add_output(out).add_input(self).promote_inputs().output_dtype(ScalarType::Bool);
  it.build();
  TC_DISPATCH_ALL_TYPES_AND_BOOL(it.common_dtype(), name, [&] {
    cpu_kernel(it, [](scalar_t a) -> bool {
      if constexpr (kClass == FloatClass::Nan) return isnan_op(a);
      if constexpr (kClass == FloatClass::Inf) return isinf_op(a);
      return isfinite_op(a);
    });
  });
  return out;
}

}  // namespace

// ---- the loops of the structured ops (`structured: unary_same / unary_float`) ----

void abs_loop_cpu(TensorIter& it) {
  TC_DISPATCH_ALL_TYPES(it.common_dtype(), "abs",
                        [&] { cpu_kernel(it, [](scalar_t a) -> scalar_t { return abs_op(a); }); });
}
static void neg_body(TensorIter& it) {
  TC_DISPATCH_ALL_TYPES(it.common_dtype(), "neg",
                        [&] { cpu_kernel(it, [](scalar_t a) -> scalar_t { return neg_op(a); }); });
}
void sign_loop_cpu(TensorIter& it) {
  TC_DISPATCH_ALL_TYPES_AND_BOOL(it.common_dtype(), "sign",
                                 [&] { cpu_kernel(it, [](scalar_t a) -> scalar_t { return sign_op(a); }); });
}
static void relu_body(TensorIter& it) {
  TC_DISPATCH_ALL_TYPES(it.common_dtype(), "relu",
                        [&] { cpu_kernel(it, [](scalar_t a) -> scalar_t { return relu_op(a); }); });
}

void exp_loop_cpu(TensorIter& it) {
  float_loop(
      it, "exp", cpu::VecOp::Exp, [e = cpu::ExpF32()](auto x) { return exp_op(e, x); }, kGrainSize);
}
void expm1_loop_cpu(TensorIter& it) {
  float_loop(it, "expm1", cpu::VecOp::Expm1, [](auto x) { return std::expm1(x); });
}
void log_loop_cpu(TensorIter& it) {
  float_loop(it, "log", cpu::VecOp::Log, [](auto x) { return std::log(x); });
}
void log1p_loop_cpu(TensorIter& it) {
  float_loop(it, "log1p", cpu::VecOp::Log1p, [](auto x) { return std::log1p(x); });
}
void log2_loop_cpu(TensorIter& it) {
  float_loop(it, "log2", cpu::VecOp::Log2, [](auto x) { return std::log2(x); });
}
void log10_loop_cpu(TensorIter& it) {
  float_loop(it, "log10", cpu::VecOp::Log10, [](auto x) { return std::log10(x); });
}
void sqrt_loop_cpu(TensorIter& it) {
  float_loop(
      it, "sqrt", [](auto x) { return std::sqrt(x); }, kGrainSize);
}
void rsqrt_loop_cpu(TensorIter& it) {
  float_loop(
      it, "rsqrt", [](auto x) { return decltype(x)(1) / std::sqrt(x); }, kGrainSize);
}
void reciprocal_loop_cpu(TensorIter& it) {
  float_loop(
      it, "reciprocal", [](auto x) { return decltype(x)(1) / x; }, kGrainSize);
}
void sin_loop_cpu(TensorIter& it) {
  float_loop(it, "sin", cpu::VecOp::Sin, [](auto x) { return std::sin(x); });
}
void cos_loop_cpu(TensorIter& it) {
  float_loop(it, "cos", cpu::VecOp::Cos, [](auto x) { return std::cos(x); });
}
void tan_loop_cpu(TensorIter& it) {
  float_loop(it, "tan", cpu::VecOp::Tan, [](auto x) { return std::tan(x); });
}
void asin_loop_cpu(TensorIter& it) {
  float_loop(it, "asin", cpu::VecOp::Asin, [](auto x) { return std::asin(x); });
}
void acos_loop_cpu(TensorIter& it) {
  float_loop(it, "acos", cpu::VecOp::Acos, [](auto x) { return std::acos(x); });
}
void atan_loop_cpu(TensorIter& it) {
  float_loop(it, "atan", cpu::VecOp::Atan, [](auto x) { return std::atan(x); });
}
void sinh_loop_cpu(TensorIter& it) {
  float_loop(it, "sinh", cpu::VecOp::Sinh, [](auto x) { return std::sinh(x); });
}
void cosh_loop_cpu(TensorIter& it) {
  float_loop(it, "cosh", cpu::VecOp::Cosh, [](auto x) { return std::cosh(x); });
}
void tanh_loop_cpu(TensorIter& it) {
  float_loop(it, "tanh", cpu::VecOp::Tanh, [](auto x) { return std::tanh(x); });
}
void sigmoid_loop_cpu(TensorIter& it) {
  float_loop(
      it, "sigmoid", cpu::VecOp::Sigmoid,
      [e = cpu::ExpF32()](auto x) { return decltype(x)(1) / (decltype(x)(1) + exp_op(e, -x)); }, kGrainSize);
}
void erf_loop_cpu(TensorIter& it) {
  float_loop(it, "erf", cpu::VecOp::Erf, [](auto x) { return std::erf(x); });
}
void asinh_loop_cpu(TensorIter& it) {
  float_loop(it, "asinh", cpu::VecOp::Asinh, [](auto x) { return std::asinh(x); });
}
void acosh_loop_cpu(TensorIter& it) {
  float_loop(it, "acosh", cpu::VecOp::Acosh, [](auto x) { return std::acosh(x); });
}
void atanh_loop_cpu(TensorIter& it) {
  float_loop(it, "atanh", cpu::VecOp::Atanh, [](auto x) { return std::atanh(x); });
}

void floor_loop_cpu(TensorIter& it) { rounding_body<Rounding::Floor>(it); }
void ceil_loop_cpu(TensorIter& it) { rounding_body<Rounding::Ceil>(it); }
void round_loop_cpu(TensorIter& it) { rounding_body<Rounding::Round>(it); }
void trunc_loop_cpu(TensorIter& it) { rounding_body<Rounding::Trunc>(it); }

constexpr bool kSame = false;  // structured::run_unary's int_to_float

// ---- same dtype ----
Tensor neg_cpu(const Tensor& self) {
  return structured::unary_same(structured::check_neg_input(self, "neg"), "neg", neg_body);
}
Tensor& neg_out_cpu(const Tensor& self, Tensor& out) {
  return structured::unary_same_out(structured::check_neg_input(self, "neg"), out, "neg", neg_body);
}
Tensor& neg_inplace_cpu(Tensor& self) {
  structured::check_neg_input(self, "neg_");
  return structured::unary_same_(self, "neg_", neg_body);
}
Tensor relu_cpu(const Tensor& self) {
  return structured::unary_same(structured::check_relu_input(self, "relu"), "relu", relu_body);
}
Tensor& relu_inplace_cpu(Tensor& self) {
  structured::check_relu_input(self, "relu_");
  return structured::unary_same_(self, "relu_", relu_body);
}

// ATen's formula: scale by 10^|decimals|, round half to even, scale back.
Tensor round_decimals_cpu(const Tensor& self, int64_t decimals) {
  Tensor out;
  structured::run_unary(out, self, structured::Write::Functional, "round", kSame, [decimals](TensorIter& it) {
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
  return out;
}

// ---- floating result ----

// gelu is defined for floating tensors only (no integer promotion). One
// kernel for the three variants: out= and in-place write their tensor
// directly (through a temporary and a copy they cost a fifth more).
namespace {
void gelu_into(Tensor& out, const Tensor& self, structured::Write w, const char* op, std::string_view approximate) {
  const bool tanh_approx = structured::gelu_tanh(approximate, op);
  structured::run_unary(out, self, w, op, kSame, [tanh_approx](TensorIter& it) {
    // float32 and float64 through SLEEF (cpu/vec_math.h): the same functions,
    // evaluated without the cancellation of 1 + erf / 1 + tanh for x < 0.
    const cpu::VecOp vop = tanh_approx ? cpu::VecOp::GeluTanh : cpu::VecOp::GeluErf;
    if (it.common_dtype() == ScalarType::Float32) {
      if (auto vf = cpu::vec_unary_fn<float>(vop))
        return cpu::vec_unary_kernel<float>(it, vf, cpu::kTranscendentalGrain);
    } else if (it.common_dtype() == ScalarType::Float64) {
      if (auto vf = cpu::vec_unary_fn<double>(vop))
        return cpu::vec_unary_kernel<double>(it, vf, cpu::kTranscendentalGrain);
    }
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
}  // namespace

Tensor gelu_cpu(const Tensor& self, std::string_view approximate) {
  Tensor out;
  gelu_into(out, self, structured::Write::Functional, "gelu", approximate);
  return out;
}
Tensor& gelu_inplace_cpu(Tensor& self, std::string_view approximate) {
  gelu_into(self, self, structured::Write::InPlace, "gelu_", approximate);
  return self;
}
Tensor& gelu_out_cpu(const Tensor& self, std::string_view approximate, Tensor& out) {
  gelu_into(out, self, structured::Write::Out, "gelu", approximate);
  return out;
}

// ---- bool result ----
Tensor isnan_cpu(const Tensor& self) { return float_class<FloatClass::Nan>(self, "isnan"); }
Tensor isinf_cpu(const Tensor& self) { return float_class<FloatClass::Inf>(self, "isinf"); }
Tensor isfinite_cpu(const Tensor& self) { return float_class<FloatClass::Finite>(self, "isfinite"); }

}  // namespace tc::native
