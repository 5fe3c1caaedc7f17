// SPDX-License-Identifier: BSD-3-Clause
// Autocast (mixed precision) scopes: torch::autocast's role, over
// tc_autocast_push / tc_autocast_pop.
#ifndef TENSORC_AMP_HPP
#define TENSORC_AMP_HPP

#include "tensorc/core.hpp"

namespace tensorc {

// Within its scope, on this thread, ops with an autocast policy on `device`'s
// type run as the policy says (mm, matmul, linear in `dtype`; losses in
// float32...). enabled = false turns autocast off inside an enabled scope.
// Scopes nest and end in reverse order; the guard is not movable.
//   { tensorc::AutocastGuard amp(tensorc::kCPU); auto y = tensorc::mm(a, b); }  // bfloat16
class AutocastGuard {
 public:
  explicit AutocastGuard(DeviceType device, std::optional<ScalarType> dtype = std::nullopt, bool enabled = true,
                         bool cache_enabled = true)
      : device_(device) {
    tc_autocast_state s;
    s.device_type = static_cast<int32_t>(device);
    s.dtype = static_cast<tc_dtype>(dtype.value_or(device == kCUDA ? kFloat16 : kBFloat16));
    s.enabled = enabled;
    s.cache_enabled = cache_enabled;
    detail::check(tc_autocast_push(&s));
  }
  ~AutocastGuard() { tc_autocast_pop(static_cast<int32_t>(device_)); }
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

  // Whether this thread is in an enabled region for `device`.
  static bool is_enabled(DeviceType device) {
    tc_autocast_state s;
    detail::check(tc_autocast_get(&s, static_cast<int32_t>(device)));
    return s.enabled;
  }

 private:
  DeviceType device_;
};

}  // namespace tensorc

#endif  // TENSORC_AMP_HPP
