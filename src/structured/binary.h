// SPDX-License-Identifier: BSD-3-Clause
// The meta step of binary pointwise ops (add, sub, mul, div...), shared by
// every backend: the operands (a tensor or a Python-style number), PyTorch's
// type promotion and out=/in-place rules through a TensorIter planned on the
// tensors' device, and the checks that depend only on dtypes. A backend's
// kernel is run_binary plus its loop.
#pragma once
#include <optional>
#include <string_view>

#include "core/error.h"
#include "core/iter.h"
#include "core/tensor.h"
#include "structured/families.h"

namespace tc::structured {

// An operand of a pointwise op that ATen overloads on Tensor vs Scalar.
struct TensorOrNumber {
  const Tensor* tensor = nullptr;
  const Scalar* number = nullptr;
  TensorOrNumber(const Tensor& t) : tensor(&t) {}
  TensorOrNumber(const Scalar& s) : number(&s) {}
  void add_to(TensorIter& it) const {
    if (tensor)
      it.add_input(*tensor);
    else
      it.add_scalar_input(*number);
  }
  bool is_bool() const { return tensor ? tensor->defined() && tensor->dtype() == ScalarType::Bool : number->is_bool(); }
};

// Configures `it` for out = op(a, b) with PyTorch's type promotion.
inline void setup_binary(TensorIter& it, Tensor& out, TensorOrNumber a, TensorOrNumber b, Write w,
                         bool int_to_float = false) {
  it.add_output(out);
  a.add_to(it);
  b.add_to(it);
  it.promote_inputs().promote_integer_inputs_to_float(int_to_float);
  if (w == Write::InPlace) it.resize_outputs(false);
}

// Plans out = op(a, b), lets body check dtypes and run the loop, and bumps
// the version of a caller-supplied output.
template <class Body>
void run_binary(Tensor& out, TensorOrNumber a, TensorOrNumber b, Write w, const char* name, bool int_to_float,
                Body&& body) {
  TensorIter it(name);
  setup_binary(it, out, a, b, w, int_to_float);
  it.build();
  body(it);
  if (w != Write::Functional) out.bump_version();
}

// The meta step of the pointwise backward kernels (threshold_backward,
// sigmoid_backward...): out = f(grad_output, other) in their common dtype;
// `floating` restricts it to floating dtypes, bool is refused. body(it, dtype)
// runs the backend's loop.
template <class Body>
Tensor run_pointwise_backward(const Tensor& grad_output, const Tensor& other, const char* other_name, bool floating,
                              const char* name, Body&& body) {
  Tensor out;
  TensorIter it(name);
  it.add_output(out).add_input(grad_output).add_input(other).promote_inputs();
  it.build();
  const ScalarType dt = it.common_dtype();
  TC_CHECK_TYPE(!floating || is_floating(dt), name, ": arguments 'grad_output' and '", other_name,
                "' expected floating point tensors, got ", grad_output.dtype(), " and ", other.dtype());
  TC_CHECK_TYPE(dt != ScalarType::Bool, name, ": arguments 'grad_output' and '", other_name,
                "' expected numeric tensors, got bool");
  body(it, dt);
  return out;
}

// add/sub's alpha against the result dtype (PyTorch's messages).
void check_alpha(ScalarType dtype, const Scalar& alpha, const char* name);
// sub and rsub refuse bool operands.
void check_sub(TensorOrNumber a, TensorOrNumber b, const char* name);
// Integer fmod, remainder and floor division refuse a zero divisor (any
// element of `b`) when a and b promote to an integral dtype; on a device
// this reads one bool back.
void check_no_int_zero_divisor(TensorOrNumber a, TensorOrNumber b, const char* name);
// Bitwise ops take integral and bool operands only.
void check_bitwise(TensorOrNumber a, TensorOrNumber b, const char* name);

// div's rounding_mode: None, "trunc" or "floor" (anything else is
// InvalidArgument naming `name`).
enum class Rounding { None, Trunc, Floor };
Rounding parse_rounding(std::optional<std::string_view> mode, const char* name);

}  // namespace tc::structured
