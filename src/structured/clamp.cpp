// SPDX-License-Identifier: BSD-3-Clause
#include "structured/clamp.h"

#include <limits>

#include "core/error.h"
#include "core/promotion.h"

namespace tc::structured {
namespace {

void check_bound_fits(const Scalar& s, ScalarType dt, const char* name) {
  if (!s.is_integral() || !is_integral(dt, false)) return;
  const int64_t v = s.to_int();
  TC_DISPATCH_INTEGRAL_TYPES(dt, name, [&] {
    TC_CHECK_ARG(
        v >= int64_t(std::numeric_limits<scalar_t>::lowest()) && v <= int64_t(std::numeric_limits<scalar_t>::max()),
        name, ": value ", v, " cannot be converted to type ", dt, " without overflow");
  });
}

}  // namespace

ScalarType clamp_meta(const Tensor& self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi,
                      const char* name) {
  TC_CHECK_ARG(self.defined(), name, ": argument 'self' is an undefined tensor");
  TC_CHECK_ARG(lo || hi, name, ": at least one of 'min' or 'max' must not be None");
  ResultTypeState st;
  st.add(self);
  if (lo) st.add(*lo);
  if (hi) st.add(*hi);
  const ScalarType dt = st.result();
  TC_CHECK_TYPE(dt != ScalarType::Bool, name, ": unsupported dtype ", dt);
  if (lo) check_bound_fits(*lo, dt, name);
  if (hi) check_bound_fits(*hi, dt, name);
  return dt;
}

ScalarType clamp_tensors_meta(const Tensor& self, const Tensor* lo, const Tensor* hi, const char* name) {
  const bool has_lo = lo && lo->defined(), has_hi = hi && hi->defined();
  TC_CHECK_ARG(self.defined(), name, ": argument 'self' is an undefined tensor");
  TC_CHECK_ARG(has_lo || has_hi, name, ": at least one of 'min' or 'max' must not be None");
  const ScalarType dt = has_lo && has_hi ? result_type({self, *lo, *hi}) : result_type({self, has_lo ? *lo : *hi});
  TC_CHECK_TYPE(dt != ScalarType::Bool, name, ": unsupported dtype ", dt);
  return dt;
}

}  // namespace tc::structured
