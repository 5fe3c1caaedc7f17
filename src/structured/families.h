// SPDX-License-Identifier: BSD-3-Clause
// The op families of `structured:` entries in schema/ops.yaml. One entry
// there yields an op's functional, in-place and out= variants; the generator
// makes each variant's kernel a call to its family's function here, passing
// the op's loop for the backend being called:
//
//   Tensor  tc::structured::unary_float    (self,      "exp", &exp_loop_cpu)
//   Tensor& tc::structured::unary_float_   (self,      "exp_", ...)
//   Tensor& tc::structured::unary_float_out(self, out, "exp", ...)
//   Tensor  tc::structured::binary_alpha   (self, other, alpha, "add", &add_loop_cpu)
//   (other a Tensor or a Scalar: the .Tensor and .Scalar overloads)
//
// The family function is the device-agnostic meta step: it plans the loop
// (result dtype, broadcasting, out= resizing and casting rules, overlap), then
// runs the loop, which only computes. A new backend adds loops, not variants.
// Add a family: a row in kFamilies (schema/codegen/native_functions.h) and
// its three functions here.
#pragma once
#include "core/error.h"
#include "core/iter.h"
#include "core/tensor.h"

namespace tc::structured {

// An op's per-backend loop over a planned iterator.
using Loop = void (*)(TensorIter& iter);
// The loop of the alpha families: out = a + alpha * b (add; sub passes -alpha).
using AlphaLoop = void (*)(TensorIter& iter, const Scalar& alpha);

enum class Write { Functional, InPlace, Out };

// The unary meta step shared by both families and by unary ops whose loop
// captures arguments (gelu, round.decimals): plans out = op(self) per `w`
// (int_to_float: integer and bool inputs compute in float32), runs body(it).
template <class Body>
void run_unary(Tensor& out, const Tensor& self, Write w, const char* op, bool int_to_float, Body&& body) {
  TC_CHECK_ARG(self.defined(), op, ": argument 'self' is an undefined tensor");
  TensorIter it(op);
  it.add_output(out).add_input(self).promote_inputs().promote_integer_inputs_to_float(int_to_float);
  if (w == Write::InPlace) it.resize_outputs(false);
  it.build();
  body(it);
  if (w != Write::Functional) out.bump_version();
}

// neg and relu are unary_same ops with an input rule of their own, checked
// before the family function runs: no bool.
const Tensor& check_neg_input(const Tensor& self, const char* name);
const Tensor& check_relu_input(const Tensor& self, const char* name);

// unary_same: out = f(self) in self's dtype (abs, floor...).
Tensor unary_same(const Tensor& self, const char* op, Loop loop);
Tensor& unary_same_(Tensor& self, const char* op, Loop loop);
Tensor& unary_same_out(const Tensor& self, Tensor& out, const char* op, Loop loop);

// unary_float: out = f(self) in floating point; integer and bool inputs
// compute in float32, as PyTorch does (exp, sin...).
Tensor unary_float(const Tensor& self, const char* op, Loop loop);
Tensor& unary_float_(Tensor& self, const char* op, Loop loop);
Tensor& unary_float_out(const Tensor& self, Tensor& out, const char* op, Loop loop);

// The binary families; each kind takes `other` as a Tensor (the .Tensor
// overload) or a Scalar (.Scalar). Out= variants are Tensor-only, except for
// the families whose out= variants are .Tensor_out and .Scalar_out
// (comparison, binary_modulo, bitwise).
// binary: out = f(self, other) in the promoted dtype (mul).
Tensor binary(const Tensor& self, const Tensor& other, const char* op, Loop loop);
Tensor binary(const Tensor& self, const Scalar& other, const char* op, Loop loop);
Tensor& binary_(Tensor& self, const Tensor& other, const char* op, Loop loop);
Tensor& binary_(Tensor& self, const Scalar& other, const char* op, Loop loop);
Tensor& binary_out(const Tensor& self, const Tensor& other, Tensor& out, const char* op, Loop loop);

// binary_float: as binary, but integer and bool operands compute in float32 (div).
Tensor binary_float(const Tensor& self, const Tensor& other, const char* op, Loop loop);
Tensor binary_float(const Tensor& self, const Scalar& other, const char* op, Loop loop);
Tensor& binary_float_(Tensor& self, const Tensor& other, const char* op, Loop loop);
Tensor& binary_float_(Tensor& self, const Scalar& other, const char* op, Loop loop);
Tensor& binary_float_out(const Tensor& self, const Tensor& other, Tensor& out, const char* op, Loop loop);

// binary_alpha: out = self + alpha * other (add); alpha must suit the result
// dtype (no float alpha for integers, bool alpha only for bool).
Tensor binary_alpha(const Tensor& self, const Tensor& other, const Scalar& alpha, const char* op, AlphaLoop loop);
Tensor binary_alpha(const Tensor& self, const Scalar& other, const Scalar& alpha, const char* op, AlphaLoop loop);
Tensor& binary_alpha_(Tensor& self, const Tensor& other, const Scalar& alpha, const char* op, AlphaLoop loop);
Tensor& binary_alpha_(Tensor& self, const Scalar& other, const Scalar& alpha, const char* op, AlphaLoop loop);
Tensor& binary_alpha_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, const char* op,
                         AlphaLoop loop);

// binary_sub: out = self - alpha * other, run as the add loop given -alpha
// (sub); bool operands are refused before anything is planned.
Tensor binary_sub(const Tensor& self, const Tensor& other, const Scalar& alpha, const char* op, AlphaLoop loop);
Tensor binary_sub(const Tensor& self, const Scalar& other, const Scalar& alpha, const char* op, AlphaLoop loop);
Tensor& binary_sub_(Tensor& self, const Tensor& other, const Scalar& alpha, const char* op, AlphaLoop loop);
Tensor& binary_sub_(Tensor& self, const Scalar& other, const Scalar& alpha, const char* op, AlphaLoop loop);
Tensor& binary_sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out, const char* op,
                       AlphaLoop loop);

// comparison: out(bool) = f(self, other) compared in the promoted dtype; the
// in-place form keeps self's dtype and stores 0 or 1 (eq, lt...).
Tensor comparison(const Tensor& self, const Tensor& other, const char* op, Loop loop);
Tensor comparison(const Tensor& self, const Scalar& other, const char* op, Loop loop);
Tensor& comparison_(Tensor& self, const Tensor& other, const char* op, Loop loop);
Tensor& comparison_(Tensor& self, const Scalar& other, const char* op, Loop loop);
Tensor& comparison_out(const Tensor& self, const Tensor& other, Tensor& out, const char* op, Loop loop);
Tensor& comparison_out(const Tensor& self, const Scalar& other, Tensor& out, const char* op, Loop loop);

// binary_modulo: out = f(self, other) in the promoted dtype; when that dtype
// is integral, a zero in `other` is an error before anything is planned or
// written (fmod, remainder).
Tensor binary_modulo(const Tensor& self, const Tensor& other, const char* op, Loop loop);
Tensor binary_modulo(const Tensor& self, const Scalar& other, const char* op, Loop loop);
Tensor& binary_modulo_(Tensor& self, const Tensor& other, const char* op, Loop loop);
Tensor& binary_modulo_(Tensor& self, const Scalar& other, const char* op, Loop loop);
Tensor& binary_modulo_out(const Tensor& self, const Tensor& other, Tensor& out, const char* op, Loop loop);
Tensor& binary_modulo_out(const Tensor& self, const Scalar& other, Tensor& out, const char* op, Loop loop);

// bitwise: out = f(self, other) for integral and bool operands; a floating
// operand is refused before anything is planned (bitwise_and, _or, _xor).
Tensor bitwise(const Tensor& self, const Tensor& other, const char* op, Loop loop);
Tensor bitwise(const Tensor& self, const Scalar& other, const char* op, Loop loop);
Tensor& bitwise_(Tensor& self, const Tensor& other, const char* op, Loop loop);
Tensor& bitwise_(Tensor& self, const Scalar& other, const char* op, Loop loop);
Tensor& bitwise_out(const Tensor& self, const Tensor& other, Tensor& out, const char* op, Loop loop);
Tensor& bitwise_out(const Tensor& self, const Scalar& other, Tensor& out, const char* op, Loop loop);

}  // namespace tc::structured
