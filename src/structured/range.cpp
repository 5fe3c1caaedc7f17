// SPDX-License-Identifier: BSD-3-Clause
#include "structured/range.h"

#include <cmath>

#include "core/error.h"
#include "core/tensor.h"

namespace tc::structured {

ArangeMeta arange_meta(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype) {
  const bool all_int = !start.is_floating_point() && !end.is_floating_point() && !step.is_floating_point();
  ArangeMeta m;
  m.dtype = dtype.value_or(all_int ? ScalarType::Int64 : ScalarType::Float32);
  TC_CHECK_TYPE(m.dtype != ScalarType::Bool, "arange: argument 'dtype' expected a numeric dtype, got bool");
  TC_CHECK_ARG(std::isfinite(start.to_double()) && std::isfinite(end.to_double()), "arange: unsupported range ", start,
               " -> ", end, " (expected finite bounds)");
  TC_CHECK_ARG(!std::isnan(step.to_double()), "arange: argument 'step' expected a nonzero value, got ", step);
  // As PyTorch, the bounds are first converted to the result's accumulate
  // type: an integral result truncates fractional bounds and step.
  m.integral = is_integral(m.dtype, false);
  if (m.integral) {
    check_scalar_fits("arange", "start", start, ScalarType::Int64);
    check_scalar_fits("arange", "end", end, ScalarType::Int64);
    check_scalar_fits("arange", "step", step, ScalarType::Int64);
    const int64_t s0 = start.to_int(), e0 = end.to_int(), st = step.to_int();
    TC_CHECK_ARG(st != 0, "arange: argument 'step' expected a nonzero value, got ", step);
    TC_CHECK_ARG((st > 0 && e0 >= s0) || (st < 0 && e0 <= s0), "arange: the range ", start, " -> ", end,
                 " is inconsistent with the sign of argument 'step' (", step, ")");
    int64_t span = 0;
    TC_CHECK_ARG(!__builtin_sub_overflow(e0, s0, &span), "arange: the range ", start, " -> ", end, " overflows int64");
    // Exact ceil(span / st): span and st have one sign, and no element passes end.
    m.numel = span / st + (span % st != 0);
  } else {
    const double s = start.to_double(), e = end.to_double(), st = step.to_double();
    TC_CHECK_ARG(st != 0, "arange: argument 'step' expected a nonzero value, got ", step);
    TC_CHECK_ARG((st > 0 && e >= s) || (st < 0 && e <= s), "arange: the range ", start, " -> ", end,
                 " is inconsistent with the sign of argument 'step' (", step, ")");
    const double size_d = std::ceil((e - s) / st);
    TC_CHECK_ARG(size_d >= 0 && size_d < 9223372036854775808.0, "arange: the range ", start, " -> ", end, " with step ",
                 step, " has too many elements (", size_d, ")");
    m.numel = int64_t(size_d);
  }
  return m;
}

ScalarType linspace_meta(int64_t steps, std::optional<ScalarType> dtype) {
  TC_CHECK_ARG(steps >= 0, "linspace: argument 'steps' expected a non-negative number, got ", steps);
  return dtype.value_or(ScalarType::Float32);
}

}  // namespace tc::structured
