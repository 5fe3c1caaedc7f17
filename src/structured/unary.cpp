// SPDX-License-Identifier: BSD-3-Clause
// The unary families: one plan for every variant, then the op's loop.
#include "core/error.h"
#include "structured/families.h"

namespace tc::structured {
namespace {

Tensor functional(const Tensor& self, const char* op, bool int_to_float, Loop loop) {
  Tensor out;
  run_unary(out, self, Write::Functional, op, int_to_float, loop);
  return out;
}

}  // namespace

const Tensor& check_neg_input(const Tensor& self, const char* name) {
  TC_CHECK_ARG(self.defined(), name, ": argument 'self' is an undefined tensor");
  TC_CHECK_TYPE(self.dtype() != ScalarType::Bool, name,
                ": negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
                "a mask, use the `~` or `logical_not()` operator instead.");
  return self;
}

const Tensor& check_relu_input(const Tensor& self, const char* name) {
  TC_CHECK_ARG(self.defined(), name, ": argument 'self' is an undefined tensor");
  TC_CHECK_TYPE(self.dtype() != ScalarType::Bool, name, ": boolean inputs are not supported");
  return self;
}

Tensor unary_same(const Tensor& self, const char* op, Loop loop) { return functional(self, op, false, loop); }
Tensor& unary_same_(Tensor& self, const char* op, Loop loop) {
  run_unary(self, self, Write::InPlace, op, false, loop);
  return self;
}
Tensor& unary_same_out(const Tensor& self, Tensor& out, const char* op, Loop loop) {
  run_unary(out, self, Write::Out, op, false, loop);
  return out;
}

Tensor unary_float(const Tensor& self, const char* op, Loop loop) { return functional(self, op, true, loop); }
Tensor& unary_float_(Tensor& self, const char* op, Loop loop) {
  run_unary(self, self, Write::InPlace, op, true, loop);
  return self;
}
Tensor& unary_float_out(const Tensor& self, Tensor& out, const char* op, Loop loop) {
  run_unary(out, self, Write::Out, op, true, loop);
  return out;
}

}  // namespace tc::structured
