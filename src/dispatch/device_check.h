// SPDX-License-Identifier: BSD-3-Clause
// Helpers used by the generated op functions: key sets of optional/list
// tensors, and the "all tensors on one device" check (device_check in the
// schema). Zero-dim CPU tensors may mix with any device, as in PyTorch.
#pragma once
#include <optional>

#include "core/tensor.h"

namespace tc {

inline DispatchKeySet key_set_of(const Tensor& t) { return t.defined() ? t.key_set() : DispatchKeySet(); }
inline DispatchKeySet key_set_of(const std::optional<Tensor>& t) {
  return t && t->defined() ? t->key_set() : DispatchKeySet();
}

class DeviceCheck {
 public:
  explicit DeviceCheck(const char* op) : op_(op) {}
  void add(const char* arg, const Tensor& t) {
    if (!t.defined() || (t.dim() == 0 && t.is_cpu())) return;
    if (!first_arg_) {
      first_arg_ = arg;
      device_ = t.device();
      return;
    }
    if (__builtin_expect(t.device() != device_, 0)) fail(arg, t.device());
  }
  void add(const char* arg, const std::optional<Tensor>& t) {
    if (t) add(arg, *t);
  }

 private:
  [[noreturn]] void fail(const char* arg, Device d) const {
    TC_FAIL(Device, op_, ": expected all tensors to be on the same device, but argument '", arg, "' is on ", d,
            " and argument '", first_arg_, "' is on ", device_);
  }
  const char* op_;
  const char* first_arg_ = nullptr;
  Device device_;
};

}  // namespace tc
