// SPDX-License-Identifier: BSD-3-Clause
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

}  // namespace tc::structured
