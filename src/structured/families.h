// SPDX-License-Identifier: BSD-3-Clause
// The op families of `structured:` entries in schema/ops.yaml. One entry
// there yields an op's functional, in-place and out= variants; the generator
// makes each variant's kernel a call to its family's function here, passing
// the op's loop for the backend being called:
//
//   Tensor  tc::structured::unary_float    (self,      "exp", &exp_loop_cpu)
//   Tensor& tc::structured::unary_float_   (self,      "exp_", ...)
//   Tensor& tc::structured::unary_float_out(self, out, "exp", ...)
//
// The family function is the device-agnostic meta step: it plans the loop
// (result dtype, broadcasting, out= resizing and casting rules, overlap), then
// runs the loop, which only computes. A new backend adds loops, not variants.
// Add a family: a row in kFamilies (schema/codegen/native_functions.h) and
// its three functions here.
#pragma once
#include "core/iter.h"
#include "core/tensor.h"

namespace tc::structured {

// An op's per-backend loop over a planned iterator.
using Loop = void (*)(TensorIter& iter);

// unary_same: out = f(self) in self's dtype (abs, floor...).
Tensor unary_same(const Tensor& self, const char* op, Loop loop);
Tensor& unary_same_(Tensor& self, const char* op, Loop loop);
Tensor& unary_same_out(const Tensor& self, Tensor& out, const char* op, Loop loop);

// unary_float: out = f(self) in floating point; integer and bool inputs
// compute in float32, as PyTorch does (exp, sin...).
Tensor unary_float(const Tensor& self, const char* op, Loop loop);
Tensor& unary_float_(Tensor& self, const char* op, Loop loop);
Tensor& unary_float_out(const Tensor& self, Tensor& out, const char* op, Loop loop);

}  // namespace tc::structured
