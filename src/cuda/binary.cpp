// SPDX-License-Identifier: BSD-3-Clause
// add, sub, mul and div (true division) on CUDA: the binary meta step every
// backend shares (structured/binary.h: promotion, broadcasting, out= and
// in-place rules, alpha and bool checks), then one launch of the pointwise
// kernel. A 0-dim CPU operand or a number reaches the kernel by value.
#include "cuda/pointwise.h"
#include "structured/binary.h"
#include "tensorc_gen/native_functions.h"

namespace tc::native {
namespace {

using cuda::PointwiseOp;
using structured::TensorOrNumber;
using structured::Write;

// out = a + alpha * b; sub passes its alpha negated.
void add_into(Tensor& out, TensorOrNumber a, TensorOrNumber b, const Scalar& alpha, bool negate, Write w,
              const char* name) {
  if (negate) structured::check_sub(a, b, name);
  structured::run_binary(out, a, b, w, name, false, [&](TensorIter& it) {
    structured::check_alpha(it.common_dtype(), alpha, name);
    cuda::launch_pointwise(it, PointwiseOp::Add, name, negate ? -alpha : alpha);
  });
}

void mul_into(Tensor& out, TensorOrNumber a, TensorOrNumber b, Write w, const char* name) {
  structured::run_binary(out, a, b, w, name, false,
                         [&](TensorIter& it) { cuda::launch_pointwise(it, PointwiseOp::Mul, name); });
}

// True division: integer and bool operands divide in float32, as on the CPU.
void div_into(Tensor& out, TensorOrNumber a, TensorOrNumber b, Write w, const char* name) {
  structured::run_binary(out, a, b, w, name, true,
                         [&](TensorIter& it) { cuda::launch_pointwise(it, PointwiseOp::Div, name); });
}

}  // namespace

Tensor add_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  Tensor out;
  add_into(out, self, other, alpha, false, Write::Functional, "add");
  return out;
}
Tensor& add_inplace_cuda(Tensor& self, const Tensor& other, const Scalar& alpha) {
  add_into(self, self, other, alpha, false, Write::InPlace, "add_");
  return self;
}
Tensor& add_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  add_into(out, self, other, alpha, false, Write::Out, "add");
  return out;
}
Tensor add_scalar_cuda(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  Tensor out;
  add_into(out, self, other, alpha, false, Write::Functional, "add");
  return out;
}
Tensor& add_scalar_inplace_cuda(Tensor& self, const Scalar& other, const Scalar& alpha) {
  add_into(self, self, other, alpha, false, Write::InPlace, "add_");
  return self;
}

Tensor sub_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  Tensor out;
  add_into(out, self, other, alpha, true, Write::Functional, "sub");
  return out;
}
Tensor& sub_inplace_cuda(Tensor& self, const Tensor& other, const Scalar& alpha) {
  add_into(self, self, other, alpha, true, Write::InPlace, "sub_");
  return self;
}
Tensor& sub_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  add_into(out, self, other, alpha, true, Write::Out, "sub");
  return out;
}
Tensor sub_scalar_cuda(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  Tensor out;
  add_into(out, self, other, alpha, true, Write::Functional, "sub");
  return out;
}
Tensor& sub_scalar_inplace_cuda(Tensor& self, const Scalar& other, const Scalar& alpha) {
  add_into(self, self, other, alpha, true, Write::InPlace, "sub_");
  return self;
}

Tensor mul_cuda(const Tensor& self, const Tensor& other) {
  Tensor out;
  mul_into(out, self, other, Write::Functional, "mul");
  return out;
}
Tensor& mul_inplace_cuda(Tensor& self, const Tensor& other) {
  mul_into(self, self, other, Write::InPlace, "mul_");
  return self;
}
Tensor& mul_out_cuda(const Tensor& self, const Tensor& other, Tensor& out) {
  mul_into(out, self, other, Write::Out, "mul");
  return out;
}
Tensor mul_scalar_cuda(const Tensor& self, const Scalar& other) {
  Tensor out;
  mul_into(out, self, other, Write::Functional, "mul");
  return out;
}
Tensor& mul_scalar_inplace_cuda(Tensor& self, const Scalar& other) {
  mul_into(self, self, other, Write::InPlace, "mul_");
  return self;
}

Tensor div_cuda(const Tensor& self, const Tensor& other) {
  Tensor out;
  div_into(out, self, other, Write::Functional, "div");
  return out;
}
Tensor& div_inplace_cuda(Tensor& self, const Tensor& other) {
  div_into(self, self, other, Write::InPlace, "div_");
  return self;
}
Tensor& div_out_cuda(const Tensor& self, const Tensor& other, Tensor& out) {
  div_into(out, self, other, Write::Out, "div");
  return out;
}
Tensor div_scalar_cuda(const Tensor& self, const Scalar& other) {
  Tensor out;
  div_into(out, self, other, Write::Functional, "div");
  return out;
}
Tensor& div_scalar_inplace_cuda(Tensor& self, const Scalar& other) {
  div_into(self, self, other, Write::InPlace, "div_");
  return self;
}

}  // namespace tc::native
