// SPDX-License-Identifier: BSD-3-Clause
// The binary families: one plan per variant (structured/binary.h), then the
// op's loop.
#include "structured/binary.h"

#include "core/promotion.h"
#include "tensorc_gen/ops.h"

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

ScalarType promoted(TensorOrNumber a, TensorOrNumber b) {
  if (a.tensor && b.tensor) return result_type({*a.tensor, *b.tensor});
  if (a.tensor) return result_type(*a.tensor, *b.number);
  return result_type(*b.tensor, *a.number);
}

bool defined(TensorOrNumber x) { return x.number || x.tensor->defined(); }

}  // namespace

namespace {

// Whether integer v is 0 once converted to integral dtype dt (C++'s
// wrapping conversion: 256 is 0 as uint8), or false as bool.
bool zero_in(int64_t v, ScalarType dt) {
  if (dt == ScalarType::Bool) return v == 0;
  const size_t bits = 8 * element_size(dt);
  return bits >= 64 ? v == 0 : (uint64_t(v) & ((uint64_t(1) << bits) - 1)) == 0;
}

}  // namespace

void check_no_int_zero_divisor(TensorOrNumber a, TensorOrNumber b, const char* name) {
  if (!defined(a) || !defined(b)) return;  // planning reports it
  const ScalarType dt = promoted(a, b);
  if (!is_integral(dt, true)) return;
  // The divisor as the loop will see it: converted to the computation's dtype.
  bool zero;
  if (b.number) {
    zero = zero_in(b.number->is_bool() ? int64_t(b.number->to_bool()) : b.number->to_int(), dt);
  } else {
    const Tensor divisor = b.tensor->dtype() == dt ? *b.tensor : tc::_to_copy(*b.tensor, dt);
    zero = tc::any(tc::eq(divisor, Scalar(int64_t(0)))).item().to_bool();
  }
  TC_CHECK_ARG(!zero, name, ": integer division by zero");
}

Rounding parse_rounding(std::optional<std::string_view> mode, const char* name) {
  if (!mode) return Rounding::None;
  if (*mode == "trunc") return Rounding::Trunc;
  if (*mode == "floor") return Rounding::Floor;
  TC_FAIL(InvalidArgument, name, ": argument 'rounding_mode' expected one of None, 'trunc', or 'floor' but found '",
          *mode, "'");
}

void check_bitwise(TensorOrNumber a, TensorOrNumber b, const char* name) {
  if (!defined(a) || !defined(b)) return;
  const ScalarType dt = promoted(a, b);
  TC_CHECK_TYPE(is_integral(dt, true), name, ": expected integral or bool tensors, got ", dt);
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

// ---- binary_modulo / bitwise: checks first, then the plain plan ----
Tensor binary_modulo(const Tensor& self, const Tensor& other, const char* op, Loop loop) {
  check_no_int_zero_divisor(self, other, op);
  return binary(self, other, op, loop);
}
Tensor binary_modulo(const Tensor& self, const Scalar& other, const char* op, Loop loop) {
  check_no_int_zero_divisor(self, other, op);
  return binary(self, other, op, loop);
}
Tensor& binary_modulo_(Tensor& self, const Tensor& other, const char* op, Loop loop) {
  check_no_int_zero_divisor(self, other, op);
  return binary_(self, other, op, loop);
}
Tensor& binary_modulo_(Tensor& self, const Scalar& other, const char* op, Loop loop) {
  check_no_int_zero_divisor(self, other, op);
  return binary_(self, other, op, loop);
}
Tensor& binary_modulo_out(const Tensor& self, const Tensor& other, Tensor& out, const char* op, Loop loop) {
  check_no_int_zero_divisor(self, other, op);
  return plain(out, self, other, Write::Out, op, false, loop);
}
Tensor& binary_modulo_out(const Tensor& self, const Scalar& other, Tensor& out, const char* op, Loop loop) {
  check_no_int_zero_divisor(self, other, op);
  return plain(out, self, other, Write::Out, op, false, loop);
}

Tensor bitwise(const Tensor& self, const Tensor& other, const char* op, Loop loop) {
  check_bitwise(self, other, op);
  return binary(self, other, op, loop);
}
Tensor bitwise(const Tensor& self, const Scalar& other, const char* op, Loop loop) {
  check_bitwise(self, other, op);
  return binary(self, other, op, loop);
}
Tensor& bitwise_(Tensor& self, const Tensor& other, const char* op, Loop loop) {
  check_bitwise(self, other, op);
  return binary_(self, other, op, loop);
}
Tensor& bitwise_(Tensor& self, const Scalar& other, const char* op, Loop loop) {
  check_bitwise(self, other, op);
  return binary_(self, other, op, loop);
}
Tensor& bitwise_out(const Tensor& self, const Tensor& other, Tensor& out, const char* op, Loop loop) {
  check_bitwise(self, other, op);
  return plain(out, self, other, Write::Out, op, false, loop);
}
Tensor& bitwise_out(const Tensor& self, const Scalar& other, Tensor& out, const char* op, Loop loop) {
  check_bitwise(self, other, op);
  return plain(out, self, other, Write::Out, op, false, loop);
}

}  // namespace tc::structured
