// SPDX-License-Identifier: BSD-3-Clause
// The unary families: one plan for every variant, then the op's loop.
#include "core/error.h"
#include "structured/families.h"

namespace tc::structured {
namespace {

enum class Variant { Functional, InPlace, Out };

void run(Tensor& out, const Tensor& self, Variant v, const char* op, bool int_to_float, Loop loop) {
  TC_CHECK_ARG(self.defined(), op, ": argument 'self' is an undefined tensor");
  TensorIter it(op);
  it.add_output(out).add_input(self).promote_inputs().promote_integer_inputs_to_float(int_to_float);
  if (v == Variant::InPlace) it.resize_outputs(false);
  it.build();
  loop(it);
  if (v != Variant::Functional) out.bump_version();
}

Tensor functional(const Tensor& self, const char* op, bool int_to_float, Loop loop) {
  Tensor out;
  run(out, self, Variant::Functional, op, int_to_float, loop);
  return out;
}

}  // namespace

Tensor unary_same(const Tensor& self, const char* op, Loop loop) { return functional(self, op, false, loop); }
Tensor& unary_same_(Tensor& self, const char* op, Loop loop) {
  run(self, self, Variant::InPlace, op, false, loop);
  return self;
}
Tensor& unary_same_out(const Tensor& self, Tensor& out, const char* op, Loop loop) {
  run(out, self, Variant::Out, op, false, loop);
  return out;
}

Tensor unary_float(const Tensor& self, const char* op, Loop loop) { return functional(self, op, true, loop); }
Tensor& unary_float_(Tensor& self, const char* op, Loop loop) {
  run(self, self, Variant::InPlace, op, true, loop);
  return self;
}
Tensor& unary_float_out(const Tensor& self, Tensor& out, const char* op, Loop loop) {
  run(out, self, Variant::Out, op, true, loop);
  return out;
}

}  // namespace tc::structured
