// SPDX-License-Identifier: BSD-3-Clause
// Helpers used by the generated op functions: key sets of optional/list
// tensors, and the "all tensors on one device" check (device_check in the
// schema). Zero-dim CPU tensors may mix with any device, as in PyTorch.
#pragma once
#include <optional>
#include <vector>

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

// The device a kernel runs on (what the device guard makes current): that of
// the first tensor seen that is not a 0-dim CPU tensor (those act as
// scalars); CPU when there is none.
class KernelDevice {
 public:
  void see(const Tensor& t) {
    if (!found_ && t.defined() && !(t.dim() == 0 && t.is_cpu())) {
      device_ = t.device();
      found_ = true;
    }
  }
  void see(const std::optional<Tensor>& t) {
    if (t) see(*t);
  }
  void see(const std::vector<Tensor>& ts) {
    for (const Tensor& t : ts) see(t);
  }
  void see(const std::vector<std::optional<Tensor>>& ts) {
    for (const auto& t : ts) see(t);
  }
  void see(Device d) {
    if (!found_) {
      device_ = d;
      found_ = true;
    }
  }
  Device get() const { return device_; }

 private:
  bool found_ = false;
  Device device_ = Device(DeviceType::CPU);
};

}  // namespace tc
