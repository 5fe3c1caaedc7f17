// SPDX-License-Identifier: BSD-3-Clause
// Binary arithmetic: add/sub/rsub (with alpha), mul, div (true, trunc,
// floor), floor_divide, pow, atan2, fmod, remainder, maximum, minimum.
// Promotion follows PyTorch (result_type over tensors and wrapped numbers);
// every check runs before the first element is written.
#include <cmath>
#include <limits>
#include <string_view>

#include "cpu/loops.h"
#include "tensorc_gen/native_functions.h"

namespace tc::native {
namespace {

using cpu::cpu_kernel;
using cpu::opmath_t;
using cpu::TensorOrNumber;
using cpu::Write;

using structured::check_alpha;
using structured::check_sub;
using structured::parse_rounding;
using structured::Rounding;
using structured::run_binary;

// a + w * b in T's arithmetic type; for bool, "+" is "or" and "*" is "and".
template <class T>
T add_alpha(T a, T b, opmath_t<T> w) {
  if constexpr (std::is_same_v<T, bool>)
    return a || (w && b);
  else if constexpr (std::is_integral_v<T>)
    return cpu::wrapping_add(a, cpu::wrapping_mul(T(w), b));
  else
    return opmath_t<T>(a) + w * opmath_t<T>(b);
}

template <class T>
T add_plain(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a || b;
  else if constexpr (std::is_integral_v<T>)
    return cpu::wrapping_add(a, b);
  else
    return opmath_t<T>(a) + opmath_t<T>(b);
}

template <class T>
T mul_plain(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a && b;
  else if constexpr (std::is_integral_v<T>)
    return cpu::wrapping_mul(a, b);
  else
    return opmath_t<T>(a) * opmath_t<T>(b);
}

// out = a + alpha * b (rsub passes alpha negated).
void add_kernel(TensorIter& it, const Scalar& alpha, const char* name) {
  TC_DISPATCH_ALL_TYPES_AND_BOOL(it.common_dtype(), name, [&] {
    if (cpu::scalar_is_one(alpha)) {
      cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t { return add_plain(a, b); });
    } else {
      const opmath_t<scalar_t> w = alpha.to<opmath_t<scalar_t>>();
      cpu_kernel(it, [w](scalar_t a, scalar_t b) -> scalar_t { return add_alpha(a, b, w); });
    }
  });
}

// ---- division family ----

template <class T>
T div_trunc_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return cpu::wrapping_neg(a);  // INT_MIN / -1 traps on x86
  }
  return T(a / b);
}

template <class T>
T div_floor_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return cpu::wrapping_neg(a);
    T q = T(a / b), r = T(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) --q;
    return q;
  } else {
    return T(a / b);
  }
}

// ATen's div_floor_floating: Python's floor division, computed from fmod so
// that results agree with Python for exact quotients.
template <class T>
T div_floor_float(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
  if (div == 0) return std::copysign(T(0), a / b);
  T floordiv = std::floor(div);
  if (div - floordiv > T(0.5)) floordiv += T(1);
  return floordiv;
}

template <class T>
T fmod_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);
  }
  return T(a % b);
}

template <class T>
T remainder_int(T a, T b) {
  T r = fmod_int(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (b < 0))) r = T(r + b);
  }
  return r;
}

template <class T>
T remainder_float(T a, T b) {
  T mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}

void check_no_int_zero_divisor(const TensorIter& it, const char* name) {
  const ScalarType dt = it.common_dtype();
  if (!is_integral(dt, false)) return;
  TC_DISPATCH_INTEGRAL_TYPES(
      dt, name, [&] { TC_CHECK_ARG(!cpu::operand_has_zero<scalar_t>(it, 2), name, ": integer division by zero"); });
}

void div_true_kernel(TensorIter& it, const char* name) {
  TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), name, [&] {
    using acc = opmath_t<scalar_t>;
    cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t { return acc(a) / acc(b); });
  });
}

void div_trunc_kernel(TensorIter& it, const char* name) {
  const ScalarType dt = it.common_dtype();
  if (is_integral(dt, false)) {
    check_no_int_zero_divisor(it, name);
    TC_DISPATCH_INTEGRAL_TYPES(
        dt, name, [&] { cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t { return div_trunc_int(a, b); }); });
    return;
  }
  TC_DISPATCH_FLOATING_TYPES(dt, name, [&] {
    using acc = opmath_t<scalar_t>;
    cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t { return std::trunc(acc(a) / acc(b)); });
  });
}

void div_floor_kernel(TensorIter& it, const char* name) {
  const ScalarType dt = it.common_dtype();
  if (is_integral(dt, false)) {
    check_no_int_zero_divisor(it, name);
    TC_DISPATCH_INTEGRAL_TYPES(
        dt, name, [&] { cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t { return div_floor_int(a, b); }); });
    return;
  }
  TC_DISPATCH_FLOATING_TYPES(dt, name, [&] {
    using acc = opmath_t<scalar_t>;
    cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t { return div_floor_float<acc>(acc(a), acc(b)); });
  });
}

void div_into(Tensor& out, TensorOrNumber a, TensorOrNumber b, Rounding r, Write w, const char* name) {
  run_binary(out, a, b, w, name, r == Rounding::None, [&](TensorIter& it) {
    if (r == Rounding::None)
      div_true_kernel(it, name);
    else if (r == Rounding::Trunc)
      div_trunc_kernel(it, name);
    else
      div_floor_kernel(it, name);
  });
}

// ---- fmod / remainder (integer zero divisors: refused by the meta step) ----

void fmod_kernel(TensorIter& it, const char* name) {
  const ScalarType dt = it.common_dtype();
  if (is_integral(dt, false)) {
    TC_DISPATCH_INTEGRAL_TYPES(
        dt, name, [&] { cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t { return fmod_int(a, b); }); });
    return;
  }
  TC_DISPATCH_FLOATING_TYPES(dt, name, [&] {
    using acc = opmath_t<scalar_t>;
    cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t { return std::fmod(acc(a), acc(b)); });
  });
}

void remainder_kernel(TensorIter& it, const char* name) {
  const ScalarType dt = it.common_dtype();
  if (is_integral(dt, false)) {
    TC_DISPATCH_INTEGRAL_TYPES(
        dt, name, [&] { cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t { return remainder_int(a, b); }); });
    return;
  }
  TC_DISPATCH_FLOATING_TYPES(dt, name, [&] {
    using acc = opmath_t<scalar_t>;
    cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t { return remainder_float<acc>(acc(a), acc(b)); });
  });
}

// ---- pow ----

// Integer power by squaring, wrapping on overflow; negative exponents follow
// ATen (1 and -1 stay units, everything else truncates to 0).
template <class T>
T powi(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return T(1);
      if (a == -1) return (b % 2) ? T(-1) : T(1);
      return T(0);
    }
  }
  using U = cpu::wrap_t<T>;  // at least unsigned int: no promotion to signed int
  U base = U(a), result = 1;
  for (U e = U(std::make_unsigned_t<T>(b)); e; e >>= 1) {
    if (e & 1) result = U(result * base);
    base = U(base * base);
  }
  return T(result);
}

void pow_kernel(TensorIter& it, const char* name) {
  const ScalarType dt = it.common_dtype();
  if (is_integral(dt, false)) {
    TC_DISPATCH_INTEGRAL_TYPES(dt, name, [&] {
      cpu_kernel(
          it, [](scalar_t a, scalar_t b) -> scalar_t { return powi(a, b); }, cpu::kTranscendentalGrain);
    });
    return;
  }
  TC_DISPATCH_FLOATING_TYPES(dt, name, [&] {
    using acc = opmath_t<scalar_t>;
    cpu_kernel(
        it, [](scalar_t a, scalar_t b) -> scalar_t { return std::pow(acc(a), acc(b)); }, cpu::kTranscendentalGrain);
  });
}

// pow with a number exponent: common exponents become cheap exact formulas.
void pow_scalar_exponent_kernel(TensorIter& it, const Scalar& e, const char* name) {
  const ScalarType dt = it.common_dtype();
  if (is_integral(dt, false)) {
    TC_CHECK_ARG(!(e.to_int() < 0), name, ": integers to negative integer powers are not allowed");
    TC_DISPATCH_INTEGRAL_TYPES(dt, name, [&] {
      const scalar_t ev = e.to<scalar_t>();
      cpu_kernel(it, [ev](scalar_t a, scalar_t) -> scalar_t { return powi(a, ev); });
    });
    return;
  }
  TC_DISPATCH_FLOATING_TYPES(dt, name, [&] {
    using acc = opmath_t<scalar_t>;
    const double ed = e.to_double();
    if (ed == 2.0) {
      cpu_kernel(it, [](scalar_t a, scalar_t) -> scalar_t { return acc(a) * acc(a); });
    } else if (ed == 3.0) {
      cpu_kernel(it, [](scalar_t a, scalar_t) -> scalar_t { return acc(a) * acc(a) * acc(a); });
    } else if (ed == 0.5) {
      cpu_kernel(it, [](scalar_t a, scalar_t) -> scalar_t { return std::sqrt(acc(a)); });
    } else if (ed == -0.5) {
      cpu_kernel(it, [](scalar_t a, scalar_t) -> scalar_t { return acc(1) / std::sqrt(acc(a)); });
    } else if (ed == -1.0) {
      cpu_kernel(it, [](scalar_t a, scalar_t) -> scalar_t { return acc(1) / acc(a); });
    } else if (ed == -2.0) {
      cpu_kernel(it, [](scalar_t a, scalar_t) -> scalar_t { return acc(1) / (acc(a) * acc(a)); });
    } else {
      const acc ev = acc(ed);
      cpu_kernel(
          it, [ev](scalar_t a, scalar_t) -> scalar_t { return std::pow(acc(a), ev); }, cpu::kTranscendentalGrain);
    }
  });
}

// ---- atan2 / maximum / minimum ----

void atan2_kernel(TensorIter& it, const char* name) {
  TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), name, [&] {
    using acc = opmath_t<scalar_t>;
    cpu_kernel(
        it, [](scalar_t a, scalar_t b) -> scalar_t { return std::atan2(acc(a), acc(b)); }, cpu::kTranscendentalGrain);
  });
}

// NaN-propagating for floating types, as torch.maximum / torch.minimum.
template <bool kMax>
void extremum_kernel(TensorIter& it, const char* name) {
  TC_DISPATCH_ALL_TYPES_AND_BOOL(it.common_dtype(), name, [&] {
    if constexpr (cpu::is_float_like_v<scalar_t>) {
      using acc = opmath_t<scalar_t>;
      cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t {
        const acc x = acc(a), y = acc(b);
        if (x != x) return x;
        if (y != y) return y;
        return kMax ? (x > y ? x : y) : (x < y ? x : y);
      });
    } else {
      cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t { return kMax ? (a > b ? a : b) : (a < b ? a : b); });
    }
  });
}

// Functional helper: out is allocated by the iterator.
template <class Body>
Tensor binary_functional(TensorOrNumber a, TensorOrNumber b, const char* name, bool int_to_float, Body body) {
  Tensor out;
  run_binary(out, a, b, Write::Functional, name, int_to_float, body);
  return out;
}

}  // namespace

// ---- the loops of the structured families (add and sub share add's) ----
void add_loop_cpu(TensorIter& it, const Scalar& alpha) { add_kernel(it, alpha, it.op_name()); }
void mul_loop_cpu(TensorIter& it) {
  TC_DISPATCH_ALL_TYPES_AND_BOOL(it.common_dtype(), it.op_name(), [&] {
    cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t { return mul_plain(a, b); });
  });
}
void div_loop_cpu(TensorIter& it) { div_true_kernel(it, it.op_name()); }

// ---- rsub(self, other, alpha) = other - alpha * self ----
Tensor rsub_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return structured::binary_sub(other, self, alpha, "rsub", &add_loop_cpu);
}
Tensor rsub_scalar_cpu(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  Tensor out;
  check_sub(other, self, "rsub");
  run_binary(out, other, self, Write::Functional, "rsub", false, [&](TensorIter& it) {
    check_alpha(it.common_dtype(), alpha, "rsub");
    add_kernel(it, -alpha, "rsub");
  });
  return out;
}

// ---- div / floor_divide ----
Tensor div_mode_cpu(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  Tensor out;
  div_into(out, self, other, parse_rounding(rounding_mode, "div"), Write::Functional, "div");
  return out;
}
Tensor div_scalar_mode_cpu(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  Tensor out;
  div_into(out, self, other, parse_rounding(rounding_mode, "div"), Write::Functional, "div");
  return out;
}
Tensor floor_divide_cpu(const Tensor& self, const Tensor& other) {
  Tensor out;
  div_into(out, self, other, Rounding::Floor, Write::Functional, "floor_divide");
  return out;
}
Tensor floor_divide_scalar_cpu(const Tensor& self, const Scalar& other) {
  Tensor out;
  div_into(out, self, other, Rounding::Floor, Write::Functional, "floor_divide");
  return out;
}

// ---- pow ----
Tensor pow_tensor_tensor_cpu(const Tensor& self, const Tensor& exponent) {
  return binary_functional(self, exponent, "pow", false, [](TensorIter& it) { pow_kernel(it, "pow"); });
}
Tensor pow_tensor_scalar_cpu(const Tensor& self, const Scalar& exponent) {
  return binary_functional(self, exponent, "pow", false,
                           [&](TensorIter& it) { pow_scalar_exponent_kernel(it, exponent, "pow"); });
}
Tensor pow_scalar_cpu(const Scalar& self, const Tensor& exponent) {
  return binary_functional(self, exponent, "pow", false, [](TensorIter& it) { pow_kernel(it, "pow"); });
}

// ---- atan2 / fmod / remainder / maximum / minimum ----
Tensor atan2_cpu(const Tensor& self, const Tensor& other) {
  return binary_functional(self, other, "atan2", true, [](TensorIter& it) { atan2_kernel(it, "atan2"); });
}
// fmod and remainder are the binary_modulo family (the meta step refuses an
// integer zero divisor); remainder(Scalar, Tensor) checks the same way.
void fmod_loop_cpu(TensorIter& it) { fmod_kernel(it, it.op_name()); }
void remainder_loop_cpu(TensorIter& it) { remainder_kernel(it, it.op_name()); }
Tensor remainder_scalar_tensor_cpu(const Scalar& self, const Tensor& other) {
  structured::check_no_int_zero_divisor(self, other, "remainder");
  return binary_functional(self, other, "remainder", false, [](TensorIter& it) { remainder_kernel(it, "remainder"); });
}
Tensor maximum_cpu(const Tensor& self, const Tensor& other) {
  return binary_functional(self, other, "maximum", false, [](TensorIter& it) { extremum_kernel<true>(it, "maximum"); });
}
Tensor minimum_cpu(const Tensor& self, const Tensor& other) {
  return binary_functional(self, other, "minimum", false,
                           [](TensorIter& it) { extremum_kernel<false>(it, "minimum"); });
}

}  // namespace tc::native
