// SPDX-License-Identifier: BSD-3-Clause
// The binary families: one plan per variant (structured/binary.h), then the
// op's loop.
#include "structured/binary.h"

namespace tc::structured {

void check_alpha(ScalarType dtype, const Scalar& alpha, const char* name) {
  TC_CHECK_TYPE(!alpha.is_bool() || dtype == ScalarType::Bool, name,
                ": boolean alpha is only supported for boolean results, got ", dtype);
  TC_CHECK_TYPE(is_floating(dtype) || !alpha.is_floating_point(), name,
                ": for integral input tensors, argument alpha must not be a floating point number");
}

void check_sub(TensorOrNumber a, TensorOrNumber b, const char* name) {
  TC_CHECK_TYPE(!(a.is_bool() && b.is_bool()), name,
                ": subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead.");
  TC_CHECK_TYPE(!(a.is_bool() || b.is_bool()), name,
                ": subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                "invert a mask, use the `~` or `logical_not()` operator instead.");
}

namespace {

// out = loop(self, other) planned per `w`; returns the written tensor.
Tensor& plain(Tensor& out, const Tensor& self, TensorOrNumber other, Write w, const char* op, bool int_to_float,
              Loop loop) {
  run_binary(out, self, other, w, op, int_to_float, loop);
  return out;
}

// out = self + alpha * other (negate: sub, which refuses bools first).
Tensor& alpha_step(Tensor& out, const Tensor& self, TensorOrNumber other, const Scalar& alpha, bool negate, Write w,
                   const char* op, AlphaLoop loop) {
  if (negate) check_sub(self, other, op);
  run_binary(out, self, other, w, op, false, [&](TensorIter& it) {
    check_alpha(it.common_dtype(), alpha, op);
    loop(it, negate ? -alpha : alpha);
  });
  return out;
}

// out(bool) = loop(self, other); an in-place or out= tensor of another dtype
// gets the results converted (0 or 1).
Tensor& compare_step(Tensor& out, const Tensor& self, TensorOrNumber other, Write w, const char* op, Loop loop) {
  TensorIter it(op);
  setup_binary(it, out, self, other, w);
  it.output_dtype(ScalarType::Bool);
  it.build();
  loop(it);
  if (w != Write::Functional) out.bump_version();
  return out;
}

}  // namespace

// ---- binary / binary_float ----
Tensor binary(const Tensor& self, const Tensor& other, const char* op, Loop loop) {
  Tensor out;
  return plain(out, self, other, Write::Functional, op, false, loop);
}
Tensor binary(const Tensor& self, const Scalar& other, const char* op, Loop loop) {
  Tensor out;
  return plain(out, self, other, Write::Functional, op, false, loop);
}
Tensor& binary_(Tensor& self, const Tensor& other, const char* op, Loop loop) {
  return plain(self, self, other, Write::InPlace, op, false, loop);
}
Tensor& binary_(Tensor& self, const Scalar& other, const char* op, Loop loop) {
  return plain(self, self, other, Write::InPlace, op, false, loop);
}
Tensor& binary_out(const Tensor& self, const Tensor& other, Tensor& out, const char* op, Loop loop) {
  return plain(out, self, other, Write::Out, op, false, loop);
}

Tensor binary_float(const Tensor& self, const Tensor& other, const char* op, Loop loop) {
  Tensor out;
  return plain(out, self, other, Write::Functional, op, true, loop);
}
Tensor binary_float(const Tensor& self, const Scalar& other, const char* op, Loop loop) {
  Tensor out;
  return plain(out, self, other, Write::Functional, op, true, loop);
}
Tensor& binary_float_(Tensor& self, const Tensor& other, const char* op, Loop loop) {
  return plain(self, self, other, Write::InPlace, op, true, loop);
}
Tensor& binary_float_(Tensor& self, const Scalar& other, const char* op, Loop loop) {
  return plain(self, self, other, Write::InPlace, op, true, loop);
}
Tensor& binary_float_out(const Tensor& self, const Tensor& other, Tensor& out, const char* op, Loop loop) {
  return plain(out, self, other, Write::Out, op, true, loop);
}

// ---- binary_alpha / binary_sub ----
Tensor binary_alpha(const Tensor& self, const Tensor& other, const Scalar& alpha, const char* op, AlphaLoop loop) {
  Tensor out;
  return alpha_step(out, self, other, alpha, false, Write::Functional, op, loop);
}
Tensor binary_alpha(const Tensor& self, const Scalar& other, const Scalar& alpha, const char* op, AlphaLoop loop) {
  Tensor out;
  return alpha_step(out, self, other, alpha, false, Write::Functional, op, loop);
}
Tensor& binary_alpha_(Tensor& self, const Tensor& other, const Scalar& alpha, const char* op, AlphaLoop loop) {
  return alpha_step(self, self, other, alpha, false, Write::InPlace, op, loop);
}
Tensor& binary_alpha_(Tensor& self, const Scalar& other, const Scalar& alpha, const char* op, AlphaLoop loop) {
  return alpha_step(self, self, other, alpha, false, Write::InPlace, op, loop);
}
Tensor& binary_alpha_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, const char* op,
                         AlphaLoop loop) {
  return alpha_step(out, self, other, alpha, false, Write::Out, op, loop);
}

Tensor binary_sub(const Tensor& self, const Tensor& other, const Scalar& alpha, const char* op, AlphaLoop loop) {
  Tensor out;
  return alpha_step(out, self, other, alpha, true, Write::Functional, op, loop);
}
Tensor binary_sub(const Tensor& self, const Scalar& other, const Scalar& alpha, const char* op, AlphaLoop loop) {
  Tensor out;
  return alpha_step(out, self, other, alpha, true, Write::Functional, op, loop);
}
Tensor& binary_sub_(Tensor& self, const Tensor& other, const Scalar& alpha, const char* op, AlphaLoop loop) {
  return alpha_step(self, self, other, alpha, true, Write::InPlace, op, loop);
}
Tensor& binary_sub_(Tensor& self, const Scalar& other, const Scalar& alpha, const char* op, AlphaLoop loop) {
  return alpha_step(self, self, other, alpha, true, Write::InPlace, op, loop);
}
Tensor& binary_sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, const char* op,
                       AlphaLoop loop) {
  return alpha_step(out, self, other, alpha, true, Write::Out, op, loop);
}

// ---- comparison ----
Tensor comparison(const Tensor& self, const Tensor& other, const char* op, Loop loop) {
  Tensor out;
  return compare_step(out, self, other, Write::Functional, op, loop);
}
Tensor comparison(const Tensor& self, const Scalar& other, const char* op, Loop loop) {
  Tensor out;
  return compare_step(out, self, other, Write::Functional, op, loop);
}
Tensor& comparison_(Tensor& self, const Tensor& other, const char* op, Loop loop) {
  return compare_step(self, self, other, Write::InPlace, op, loop);
}
Tensor& comparison_(Tensor& self, const Scalar& other, const char* op, Loop loop) {
  return compare_step(self, self, other, Write::InPlace, op, loop);
}
Tensor& comparison_out(const Tensor& self, const Tensor& other, Tensor& out, const char* op, Loop loop) {
  return compare_step(out, self, other, Write::Out, op, loop);
}
Tensor& comparison_out(const Tensor& self, const Scalar& other, Tensor& out, const char* op, Loop loop) {
  return compare_step(out, self, other, Write::Out, op, loop);
}

}  // namespace tc::structured
