// SPDX-License-Identifier: BSD-3-Clause
// Comparisons (eq ne lt le gt ge), logical ops (and or xor not) and bitwise
// ops (and or xor not). Comparisons and logical ops compute in the promoted
// dtype and write bool; bitwise ops accept integral and bool dtypes only.
#include "cpu/loops.h"
#include "tensorc_gen/native_functions.h"

namespace tc::native {
namespace {

using cpu::cpu_kernel;
using cpu::opmath_t;
using cpu::TensorOrNumber;

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

template <Cmp C, class T>
bool compare(T a, T b) {
  const opmath_t<T> x = a, y = b;
  if constexpr (C == Cmp::Eq)
    return x == y;
  else if constexpr (C == Cmp::Ne)
    return x != y;
  else if constexpr (C == Cmp::Lt)
    return x < y;
  else if constexpr (C == Cmp::Le)
    return x <= y;
  else if constexpr (C == Cmp::Gt)
    return x > y;
  else
    return x >= y;
}

// out(bool) = body(it) over (a, b) promoted to their common dtype.
template <class Body>
Tensor bool_result(TensorOrNumber a, TensorOrNumber b, const char* name, Body body) {
  Tensor out;
  TensorIter it(name);
  it.add_output(out);
  a.add_to(it);
  b.add_to(it);
  it.promote_inputs().output_dtype(ScalarType::Bool);
  it.build();
  body(it);
  return out;
}

template <Cmp C>
void compare_loop(TensorIter& it) {
  TC_DISPATCH_ALL_TYPES_AND_BOOL(it.common_dtype(), it.op_name(), [&] {
    cpu_kernel(it, [](scalar_t x, scalar_t y) -> bool { return compare<C>(x, y); });
  });
}

template <class T>
bool truth(T a) {
  if constexpr (std::is_same_v<T, bool>)
    return a;
  else
    return opmath_t<T>(a) != opmath_t<T>(0);
}

enum class Logic { And, Or, Xor };

template <Logic L>
Tensor logical_op(const Tensor& a, const Tensor& b, const char* name) {
  return bool_result(a, b, name, [name](TensorIter& it) {
    TC_DISPATCH_ALL_TYPES_AND_BOOL(it.common_dtype(), name, [&] {
      cpu_kernel(it, [](scalar_t x, scalar_t y) -> bool {
        if constexpr (L == Logic::And)
          return truth(x) && truth(y);
        else if constexpr (L == Logic::Or)
          return truth(x) || truth(y);
        else
          return truth(x) != truth(y);
      });
    });
  });
}

template <Logic L, class T>
T bitwise(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    if constexpr (L == Logic::And)
      return a && b;
    else if constexpr (L == Logic::Or)
      return a || b;
    else
      return a != b;
  } else {
    if constexpr (L == Logic::And)
      return T(a & b);
    else if constexpr (L == Logic::Or)
      return T(a | b);
    else
      return T(a ^ b);
  }
}

void check_bitwise_dtype(ScalarType dt, const char* name) {
  TC_CHECK_TYPE(is_integral(dt, true), name, ": expected integral or bool tensors, got ", dt);
}

template <Logic L>
void bitwise_loop(TensorIter& it) {
  const ScalarType dt = it.common_dtype();
  check_bitwise_dtype(dt, it.op_name());
  if (dt == ScalarType::Bool) {
    cpu_kernel(it, [](bool x, bool y) -> bool { return bitwise<L>(x, y); });
  } else {
    TC_DISPATCH_INTEGRAL_TYPES(
        dt, it.op_name(), [&] { cpu_kernel(it, [](scalar_t x, scalar_t y) -> scalar_t { return bitwise<L>(x, y); }); });
  }
}

// bitwise_*(Scalar, Tensor): the family's check, plan and loop by hand.
template <Logic L>
Tensor bitwise_op(TensorOrNumber a, TensorOrNumber b, const char* name) {
  structured::check_bitwise(a, b, name);
  Tensor out;
  TensorIter it(name);
  cpu::setup_binary(it, out, a, b, cpu::Write::Functional);
  it.build();
  bitwise_loop<L>(it);
  return out;
}

}  // namespace

// ---- the comparison family's loops ----
void eq_loop_cpu(TensorIter& it) { compare_loop<Cmp::Eq>(it); }
void ne_loop_cpu(TensorIter& it) { compare_loop<Cmp::Ne>(it); }
void lt_loop_cpu(TensorIter& it) { compare_loop<Cmp::Lt>(it); }
void le_loop_cpu(TensorIter& it) { compare_loop<Cmp::Le>(it); }
void gt_loop_cpu(TensorIter& it) { compare_loop<Cmp::Gt>(it); }
void ge_loop_cpu(TensorIter& it) { compare_loop<Cmp::Ge>(it); }

// ---- logical ----
Tensor logical_and_cpu(const Tensor& self, const Tensor& other) {
  return logical_op<Logic::And>(self, other, "logical_and");
}
Tensor logical_or_cpu(const Tensor& self, const Tensor& other) {
  return logical_op<Logic::Or>(self, other, "logical_or");
}
Tensor logical_xor_cpu(const Tensor& self, const Tensor& other) {
  return logical_op<Logic::Xor>(self, other, "logical_xor");
}
Tensor logical_not_cpu(const Tensor& self) {
  Tensor out;
  TensorIter it("logical_not");
  it.add_output(out).add_input(self).promote_inputs().output_dtype(ScalarType::Bool);
  it.build();
  TC_DISPATCH_ALL_TYPES_AND_BOOL(it.common_dtype(), "logical_not",
                                 [&] { cpu_kernel(it, [](scalar_t x) -> bool { return !truth(x); }); });
  return out;
}

// ---- bitwise: the family's loops, and the (Scalar, Tensor) overloads ----
void bitwise_and_loop_cpu(TensorIter& it) { bitwise_loop<Logic::And>(it); }
void bitwise_or_loop_cpu(TensorIter& it) { bitwise_loop<Logic::Or>(it); }
void bitwise_xor_loop_cpu(TensorIter& it) { bitwise_loop<Logic::Xor>(it); }
Tensor bitwise_and_scalar_tensor_cpu(const Scalar& self, const Tensor& other) {
  return bitwise_op<Logic::And>(self, other, "bitwise_and");
}
Tensor bitwise_or_scalar_tensor_cpu(const Scalar& self, const Tensor& other) {
  return bitwise_op<Logic::Or>(self, other, "bitwise_or");
}
Tensor bitwise_xor_scalar_tensor_cpu(const Scalar& self, const Tensor& other) {
  return bitwise_op<Logic::Xor>(self, other, "bitwise_xor");
}
Tensor bitwise_not_cpu(const Tensor& self) {
  cpu::check_defined(self, "bitwise_not", "self");
  check_bitwise_dtype(self.dtype(), "bitwise_not");
  Tensor out;
  TensorIter it("bitwise_not");
  it.add_output(out).add_input(self).promote_inputs();
  it.build();
  if (it.common_dtype() == ScalarType::Bool) {
    cpu_kernel(it, [](bool x) -> bool { return !x; });
  } else {
    TC_DISPATCH_INTEGRAL_TYPES(it.common_dtype(), "bitwise_not",
                               [&] { cpu_kernel(it, [](scalar_t x) -> scalar_t { return scalar_t(~x); }); });
  }
  return out;
}

}  // namespace tc::native
