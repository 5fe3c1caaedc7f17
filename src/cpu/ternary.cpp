// SPDX-License-Identifier: BSD-3-Clause
// Three-operand pointwise kernels: where, clamp (number or tensor bounds,
// clamp_min, clamp_max) and lerp.
#include <cmath>
#include <limits>

#include "core/promotion.h"
#include "cpu/loops.h"
#include "structured/clamp.h"
#include "tensorc_gen/native_functions.h"

namespace tc::native {
namespace {

using cpu::cpu_kernel;
using cpu::opmath_t;

// ---- clamp ----

// A number bound in T's arithmetic type (structured::clamp_meta checked that
// an integer bound fits).
template <class T>
opmath_t<T> bound_value(const Scalar& s) {
  return s.to<opmath_t<T>>();
}

// max(x, lo) / min(x, hi) keeping a NaN x (std::max semantics with x first).
template <class A>
A raise_to(A x, A lo) {
  return x < lo ? lo : x;
}
template <class A>
A lower_to(A x, A hi) {
  return hi < x ? hi : x;
}

template <class A>
bool is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>)
    return v != v;
  else
    return false;
}

template <class T>
T clamp_both(T a, T lo, T hi) {
  using A = opmath_t<T>;
  const A l = lo, h = hi;
  if (is_nan(l) || is_nan(h)) return T(std::numeric_limits<A>::quiet_NaN());
  return T(lower_to(raise_to(A(a), l), h));
}

// Tensor bound on one side: NaN anywhere propagates, as torch.maximum.
template <class T, bool kLower>
T clamp_one(T a, T bound) {
  using A = opmath_t<T>;
  const A x = a, b = bound;
  if (is_nan(x)) return a;
  if (is_nan(b)) return bound;
  return T(kLower ? raise_to(x, b) : lower_to(x, b));
}

Tensor clamp_numbers(const Tensor& self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi,
                     const char* name) {
  const ScalarType dt = structured::clamp_meta(self, lo, hi, name);
  Tensor out;
  TensorIter it(name);
  it.add_output(out).add_input(self).compute_dtype(dt);
  it.build();
  TC_DISPATCH_ALL_TYPES(dt, name, [&] {
    using A = opmath_t<scalar_t>;
    if (lo && hi) {
      const A l = bound_value<scalar_t>(*lo), h = bound_value<scalar_t>(*hi);
      if (is_nan(l) || is_nan(h)) {
        cpu_kernel(it, [](scalar_t) -> scalar_t { return scalar_t(std::numeric_limits<A>::quiet_NaN()); });
      } else {
        cpu_kernel(it, [l, h](scalar_t a) -> scalar_t { return scalar_t(lower_to(raise_to(A(a), l), h)); });
      }
    } else if (lo) {
      const A l = bound_value<scalar_t>(*lo);
      cpu_kernel(it, [l](scalar_t a) -> scalar_t { return scalar_t(raise_to(A(a), l)); });
    } else {
      const A h = bound_value<scalar_t>(*hi);
      cpu_kernel(it, [h](scalar_t a) -> scalar_t { return scalar_t(lower_to(A(a), h)); });
    }
  });
  return out;
}

Tensor clamp_tensors(const Tensor& self, const Tensor* lo, const Tensor* hi, const char* name) {
  structured::clamp_tensors_meta(self, lo, hi, name);
  const bool has_lo = lo && lo->defined(), has_hi = hi && hi->defined();
  Tensor out;
  TensorIter it(name);
  it.add_output(out).add_input(self);
  if (has_lo) it.add_input(*lo);
  if (has_hi) it.add_input(*hi);
  it.promote_inputs();
  it.build();
  TC_DISPATCH_ALL_TYPES(it.common_dtype(), name, [&] {
    if (has_lo && has_hi) {
      cpu_kernel(it, [](scalar_t a, scalar_t l, scalar_t h) -> scalar_t { return clamp_both(a, l, h); });
    } else if (has_lo) {
      cpu_kernel(it, [](scalar_t a, scalar_t l) -> scalar_t { return clamp_one<scalar_t, true>(a, l); });
    } else {
      cpu_kernel(it, [](scalar_t a, scalar_t h) -> scalar_t { return clamp_one<scalar_t, false>(a, h); });
    }
  });
  return out;
}

// ---- lerp ----

// ATen's formula: the branch on |w| < 0.5 keeps lerp exact at both ends.
template <class T>
T lerp_op(T self, T end, opmath_t<T> w) {
  using A = opmath_t<T>;
  const A a = self, b = end;
  return T(std::abs(w) < A(0.5) ? a + w * (b - a) : b - (b - a) * (A(1) - w));
}

void check_lerp_dtype(const Tensor& self, const Tensor& t, const char* arg) {
  cpu::check_defined(t, "lerp", arg);
  TC_CHECK_TYPE(self.dtype() == t.dtype(), "lerp: expected dtype ", self.dtype(), " for '", arg, "' but got dtype ",
                t.dtype());
}

}  // namespace

Tensor where_cpu(const Tensor& condition, const Tensor& self, const Tensor& other) {
  cpu::check_defined(condition, "where", "condition");
  TC_CHECK_TYPE(condition.dtype() == ScalarType::Bool,
                "where: expected condition to be a boolean tensor, but got a tensor with dtype ", condition.dtype());
  Tensor out;
  TensorIter it("where");
  it.add_output(out).add_input(condition, ScalarType::Bool).add_input(self).add_input(other).promote_inputs();
  it.build();
  TC_DISPATCH_ALL_TYPES_AND_BOOL(it.common_dtype(), "where", [&] {
    cpu_kernel(it, [](bool c, scalar_t a, scalar_t b) -> scalar_t { return c ? a : b; });
  });
  return out;
}

Tensor clamp_cpu(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return clamp_numbers(self, min, max, "clamp");
}
Tensor clamp_tensor_cpu(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return clamp_tensors(self, min ? &*min : nullptr, max ? &*max : nullptr, "clamp");
}
Tensor clamp_min_cpu(const Tensor& self, const Scalar& min) {
  return clamp_numbers(self, min, std::nullopt, "clamp_min");
}
Tensor clamp_min_tensor_cpu(const Tensor& self, const Tensor& min) {
  return clamp_tensors(self, &min, nullptr, "clamp_min");
}
Tensor clamp_max_cpu(const Tensor& self, const Scalar& max) {
  return clamp_numbers(self, std::nullopt, max, "clamp_max");
}
Tensor clamp_max_tensor_cpu(const Tensor& self, const Tensor& max) {
  return clamp_tensors(self, nullptr, &max, "clamp_max");
}

Tensor lerp_cpu(const Tensor& self, const Tensor& end, const Scalar& weight) {
  cpu::check_defined(self, "lerp", "self");
  check_lerp_dtype(self, end, "end");
  Tensor out;
  TensorIter it("lerp");
  it.add_output(out).add_input(self).add_input(end).compute_dtype(self.dtype());
  it.build();
  TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), "lerp", [&] {
    const opmath_t<scalar_t> w = weight.to<opmath_t<scalar_t>>();
    cpu_kernel(it, [w](scalar_t a, scalar_t b) -> scalar_t { return lerp_op(a, b, w); });
  });
  return out;
}

Tensor lerp_tensor_cpu(const Tensor& self, const Tensor& end, const Tensor& weight) {
  cpu::check_defined(self, "lerp", "self");
  check_lerp_dtype(self, end, "end");
  check_lerp_dtype(self, weight, "weight");
  Tensor out;
  TensorIter it("lerp");
  it.add_output(out).add_input(self).add_input(end).add_input(weight).compute_dtype(self.dtype());
  it.build();
  TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), "lerp", [&] {
    cpu_kernel(it, [](scalar_t a, scalar_t b, scalar_t w) -> scalar_t { return lerp_op(a, b, opmath_t<scalar_t>(w)); });
  });
  return out;
}

}  // namespace tc::native
