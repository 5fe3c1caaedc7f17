// SPDX-License-Identifier: BSD-3-Clause
// CUDA kernels of small pointwise ops composed of other CUDA ops: the
// functional copy and fill, fill_ with a tensor value, bitwise_not, lerp and
// round(decimals). Each keeps its CPU kernel's checks and messages and
// computes as the CPU loop does: float16 and bfloat16 in float32, rounded
// once at the end.
#include <cmath>

#include "core/error.h"
#include "core/promotion.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

bool reduced_float(ScalarType dt) { return dt == ScalarType::Float16 || dt == ScalarType::BFloat16; }
// The CPU loops' opmath type: float32 for float16 / bfloat16.
Tensor in_opmath(const Tensor& t) { return reduced_float(t.dtype()) ? tc::_to_copy(t, ScalarType::Float32) : t; }
Tensor as_dtype(const Tensor& t, ScalarType dt) { return t.dtype() == dt ? t : tc::_to_copy(t, dt); }

void check_defined(const Tensor& t, const char* op, const char* arg) {
  TC_CHECK_ARG(t.defined(), op, ": argument '", arg, "' is an undefined tensor");
}

// fill_'s 0-dim value tensor (the CPU kernel's value_of).
void check_value(const Tensor& value, const char* name) {
  TC_CHECK_ARG(value.defined(), name, ": argument 'value' is an undefined tensor");
  TC_CHECK_ARG(value.dim() == 0, name, ": only supports 0-dimension value tensor but got tensor with ", value.dim(),
               " dimensions");
}

// self filled from a 0-dim tensor: a CPU value is read on the host; a device
// value is copied on the device (no synchronisation), from a copy of it in
// case it is an element of self.
Tensor& fill_from(Tensor& self, const Tensor& value, const char* name) {
  check_defined(self, name, "self");
  check_value(value, name);
  if (value.device().is_cpu()) return tc::fill_(self, value.item());
  return tc::copy_(self, tc::expand(tc::clone(value), self.sizes()));
}

// lerp's operands share self's floating dtype (the CPU kernel's checks).
void check_lerp(const Tensor& self, const Tensor& t, const char* arg) {
  check_defined(t, "lerp", arg);
  TC_CHECK_TYPE(self.dtype() == t.dtype(), "lerp: expected dtype ", self.dtype(), " for '", arg, "' but got dtype ",
                t.dtype());
}

}  // namespace

// ---- copy / fill, functional: a fresh contiguous tensor like self ----
Tensor copy_cuda(const Tensor& self, const Tensor& src, bool non_blocking) {
  check_defined(self, "copy", "self");
  Tensor out = tc::empty(self.sizes(), self.dtype(), self.device());
  return tc::copy_(out, src, non_blocking);
}
Tensor fill_cuda(const Tensor& self, const Scalar& value) {
  check_defined(self, "fill", "self");
  check_scalar_fits("fill", "value", value, self.dtype());
  Tensor out = tc::empty(self.sizes(), self.dtype(), self.device());
  return tc::fill_(out, value);
}
Tensor fill_tensor_cuda(const Tensor& self, const Tensor& value) {
  check_defined(self, "fill", "self");
  check_value(value, "fill");
  Tensor out = tc::empty(self.sizes(), self.dtype(), self.device());
  return fill_from(out, value, "fill");
}
Tensor& fill_tensor_inplace_cuda(Tensor& self, const Tensor& value) { return fill_from(self, value, "fill_"); }

// ~x for integers (x ^ -1, in x's dtype), not x for bool.
Tensor bitwise_not_cuda(const Tensor& self) {
  check_defined(self, "bitwise_not", "self");
  TC_CHECK_TYPE(is_integral(self.dtype(), true), "bitwise_not: expected integral or bool tensors, got ", self.dtype());
  return tc::bitwise_xor(self, self.dtype() == ScalarType::Bool ? Scalar(true) : Scalar(int64_t(-1)));
}

// ---- lerp: ATen's two-sided formula, exact at both ends ----
//   |w| < 0.5: self + w * (end - self);  else: end - (end - self) * (1 - w)
Tensor lerp_cuda(const Tensor& self, const Tensor& end, const Scalar& weight) {
  check_defined(self, "lerp", "self");
  check_lerp(self, end, "end");
  TC_CHECK_TYPE(is_floating(self.dtype()), "lerp: unsupported dtype ", self.dtype());
  const Tensor a = in_opmath(self), b = in_opmath(end), d = tc::sub(b, a);
  // w and 1 - w in the compute type, as the CPU loop's opmath values.
  const bool f64 = self.dtype() == ScalarType::Float64;
  const double w = f64 ? weight.to_double() : double(float(weight.to_double()));
  const double one_minus_w = f64 ? 1 - w : double(1.0f - float(w));
  const Tensor r = std::fabs(w) < 0.5 ? tc::add(a, d, Scalar(w)) : tc::sub(b, d, Scalar(one_minus_w));
  return as_dtype(r, self.dtype());
}
Tensor lerp_tensor_cuda(const Tensor& self, const Tensor& end, const Tensor& weight) {
  check_defined(self, "lerp", "self");
  check_lerp(self, end, "end");
  check_lerp(self, weight, "weight");
  TC_CHECK_TYPE(is_floating(self.dtype()), "lerp: unsupported dtype ", self.dtype());
  const Tensor a = in_opmath(self), b = in_opmath(end), w = in_opmath(weight), d = tc::sub(b, a);
  const Tensor near_self = tc::lt(tc::abs(w), Scalar(0.5));
  const Tensor from_self = tc::add(a, tc::mul(w, d));
  const Tensor from_end = tc::sub(b, tc::mul(d, tc::rsub(w, Scalar(int64_t(1)))));
  return as_dtype(tc::where(near_self, from_self, from_end), self.dtype());
}

// ---- round(decimals): scale by 10^|decimals|, round half to even, scale back ----
Tensor round_decimals_cuda(const Tensor& self, int64_t decimals) {
  check_defined(self, "round", "self");
  TC_CHECK_TYPE(is_floating(self.dtype()), "round: unsupported dtype ", self.dtype());
  const bool neg = decimals < 0;
  const double scale = std::pow(10.0, neg ? -double(decimals) : double(decimals));
  const Tensor x = in_opmath(self);
  const Tensor r = neg ? tc::mul(tc::round(tc::div(x, Scalar(scale))), Scalar(scale))
                       : tc::div(tc::round(tc::mul(x, Scalar(scale))), Scalar(scale));
  return as_dtype(r, self.dtype());
}

}  // namespace tc::native
