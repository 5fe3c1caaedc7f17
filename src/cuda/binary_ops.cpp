// SPDX-License-Identifier: BSD-3-Clause
// CUDA kernels of the binary ops outside the structured families: div's
// rounding modes and floor_divide, pow, atan2, rsub, and the (Scalar, Tensor)
// overloads of remainder and the bitwise ops. Each runs the CPU kernel's meta
// step (structured/binary.h: operands, promotion, checks, a TensorIter planned
// on the device) and one launch of the driver's pointwise loop.
#include "cuda/pointwise.h"
#include "structured/binary.h"
#include "tensorc_gen/native_functions.h"

namespace tc::native {
namespace {

using structured::Rounding;
using structured::run_binary;
using structured::TensorOrNumber;
using structured::Write;

Tensor functional(TensorOrNumber a, TensorOrNumber b, const char* name, bool int_to_float, cuda::PointwiseOp kind) {
  Tensor out;
  run_binary(out, a, b, Write::Functional, name, int_to_float,
             [&](TensorIter& it) { cuda::launch_pointwise(it, kind, name); });
  return out;
}

// The CPU loops' dtype dispatch refuses these (TC_DISPATCH_* messages).
void refuse_bool(const TensorIter& it, const char* name) {
  TC_CHECK_TYPE(it.common_dtype() != ScalarType::Bool, name, ": unsupported dtype ", it.common_dtype());
}

Tensor divide(TensorOrNumber a, TensorOrNumber b, Rounding r, const char* name) {
  if (r != Rounding::None) {
    // Rounding two bool operands computes in bool: refused (the CPU loop's
    // dtype dispatch) before the integer zero-divisor check, which counts
    // bool as integral. True division computes them in float.
    TC_CHECK_TYPE(!(a.is_bool() && b.is_bool()), name, ": unsupported dtype ", ScalarType::Bool);
    structured::check_no_int_zero_divisor(a, b, name);
  }
  Tensor out;
  run_binary(out, a, b, Write::Functional, name, r == Rounding::None, [&](TensorIter& it) {
    refuse_bool(it, name);
    const cuda::PointwiseOp kind = r == Rounding::None    ? cuda::PointwiseOp::Div
                                   : r == Rounding::Trunc ? cuda::PointwiseOp::DivTrunc
                                                          : cuda::PointwiseOp::DivFloor;
    cuda::launch_pointwise(it, kind, name);
  });
  return out;
}

Tensor power(TensorOrNumber base, TensorOrNumber exponent, cuda::PointwiseOp kind) {
  Tensor out;
  run_binary(out, base, exponent, Write::Functional, "pow", false, [&](TensorIter& it) {
    refuse_bool(it, "pow");
    cuda::launch_pointwise(it, kind, "pow");
  });
  return out;
}

Tensor bitwise(const Scalar& self, const Tensor& other, const char* name, cuda::PointwiseOp kind) {
  structured::check_bitwise(self, other, name);
  return functional(self, other, name, false, kind);
}

}  // namespace

// ---- div / floor_divide ----
Tensor div_mode_cuda(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  return divide(self, other, structured::parse_rounding(rounding_mode, "div"), "div");
}
Tensor div_scalar_mode_cuda(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  return divide(self, other, structured::parse_rounding(rounding_mode, "div"), "div");
}
Tensor floor_divide_cuda(const Tensor& self, const Tensor& other) {
  return divide(self, other, Rounding::Floor, "floor_divide");
}
Tensor floor_divide_scalar_cuda(const Tensor& self, const Scalar& other) {
  return divide(self, other, Rounding::Floor, "floor_divide");
}

// ---- pow ----
Tensor pow_tensor_tensor_cuda(const Tensor& self, const Tensor& exponent) {
  return power(self, exponent, cuda::PointwiseOp::Pow);
}
Tensor pow_tensor_scalar_cuda(const Tensor& self, const Scalar& exponent) {
  Tensor out;
  run_binary(out, self, exponent, Write::Functional, "pow", false, [&](TensorIter& it) {
    refuse_bool(it, "pow");
    TC_CHECK_ARG(!is_integral(it.common_dtype(), false) || !(exponent.to_int() < 0),
                 "pow: integers to negative integer powers are not allowed");
    // A floating computation takes the exponent as alpha, in the compute
    // type (the CPU's opmath) rather than rounded to a float16 common dtype.
    // The CPU picks its exact formulas from the exponent as a double: so here.
    const double e = exponent.to_double();
    const bool exact = e == 2 || e == 3 || e == 0.5 || e == -0.5 || e == -1 || e == -2;
    cuda::launch_pointwise(it, exact ? cuda::PointwiseOp::PowExact : cuda::PointwiseOp::PowNumber, "pow", exponent);
  });
  return out;
}
Tensor pow_scalar_cuda(const Scalar& self, const Tensor& exponent) {
  return power(self, exponent, cuda::PointwiseOp::Pow);
}

// ---- atan2 (integers compute in the default float dtype) ----
Tensor atan2_cuda(const Tensor& self, const Tensor& other) {
  return functional(self, other, "atan2", true, cuda::PointwiseOp::Atan2);
}

// ---- rsub(self, other, alpha) = other - alpha * self ----
Tensor rsub_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return structured::binary_sub(other, self, alpha, "rsub", &add_loop_cuda);
}
Tensor rsub_scalar_cuda(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  structured::check_sub(other, self, "rsub");
  Tensor out;
  run_binary(out, other, self, Write::Functional, "rsub", false, [&](TensorIter& it) {
    structured::check_alpha(it.common_dtype(), alpha, "rsub");
    add_loop_cuda(it, -alpha);
  });
  return out;
}

// ---- (Scalar, Tensor) overloads ----
Tensor remainder_scalar_tensor_cuda(const Scalar& self, const Tensor& other) {
  structured::check_no_int_zero_divisor(self, other, "remainder");
  Tensor out;
  run_binary(out, self, other, Write::Functional, "remainder", false, [](TensorIter& it) { remainder_loop_cuda(it); });
  return out;
}
Tensor bitwise_and_scalar_tensor_cuda(const Scalar& self, const Tensor& other) {
  return bitwise(self, other, "bitwise_and", cuda::PointwiseOp::BitwiseAnd);
}
Tensor bitwise_or_scalar_tensor_cuda(const Scalar& self, const Tensor& other) {
  return bitwise(self, other, "bitwise_or", cuda::PointwiseOp::BitwiseOr);
}
Tensor bitwise_xor_scalar_tensor_cuda(const Scalar& self, const Tensor& other) {
  return bitwise(self, other, "bitwise_xor", cuda::PointwiseOp::BitwiseXor);
}

}  // namespace tc::native
