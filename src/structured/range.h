// SPDX-License-Identifier: BSD-3-Clause
// The meta steps of arange and linspace, shared by the CPU and CUDA kernels:
// the result dtype, the element count and ATen's argument checks. The
// values: arange's element i is start + step * i (in int64 for an integral
// dtype, double otherwise); linspace's the symmetric formula of
// linspace_value.
#pragma once
#include <optional>

#include "core/scalar.h"
#include "core/dtype.h"

namespace tc::structured {

struct ArangeMeta {
  ScalarType dtype = ScalarType::Undefined;
  int64_t numel = 0;
  bool integral = false;  // computed in int64 (the bounds and step truncated), else in double
};
ArangeMeta arange_meta(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype);

// linspace: steps >= 0; the dtype (float32 by default).
ScalarType linspace_meta(int64_t steps, std::optional<ScalarType> dtype);
// Whether linspace accumulates in double for dtype (float64 and integers) or float.
inline bool linspace_in_double(ScalarType dt) { return dt == ScalarType::Float64 || is_integral(dt, true); }
// Element i of `steps` from a to z with step = (z - a) / (steps - 1) in the
// accumulate type A: the first half steps up from a, the second half down
// from z, so both ends are exact.
template <class A>
A linspace_value(A a, A z, A step, int64_t steps, int64_t i) {
  return i < steps / 2 ? a + step * A(i) : z - step * A(steps - i - 1);
}

}  // namespace tc::structured
