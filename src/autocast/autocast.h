// SPDX-License-Identifier: BSD-3-Clause
// Autocast (automatic mixed precision): per thread and device type, whether
// a region is on and its lower-precision dtype; the casts its kernels apply
// (generated from ops.yaml's `autocast:` policies); and the cache of casts
// of leaf tensors that require grad (weights are cast once per region).
// The Autocast dispatch key is in this thread's included set while any
// device type's region is on.
#pragma once
#include <optional>
#include <vector>

#include "core/tensor.h"
#include "dispatch/device_check.h"

namespace tc::autocast {

struct State {
  bool enabled = false;
  ScalarType dtype = ScalarType::BFloat16;  // the lower-precision dtype
  bool cache_enabled = true;
};

// The calling thread's state for CPU or CUDA (others: never enabled).
const State& state(DeviceType t);
// Enters a region (enabled or not) for device type t; leave() restores the
// state as it was. Leaving the outermost region clears the cast cache.
// Errors: InvalidArgument for a device type other than CPU and CUDA, a dtype
// other than float16 and bfloat16, or leave() without a region.
void enter(DeviceType t, const State& s);
void leave(DeviceType t);
// Casts made and cached on this thread so far (for tests).
int64_t cache_size();

// What the generated kernels call. The device type an op runs on is
// KernelDevice's (dispatch/device_check.h): the device guard's rule.

// Whether autocast casts t on device type d: defined, floating, not
// float64, on d.
bool eligible(const Tensor& t, DeviceType d);

// t in dtype `to` when it is eligible (defined, floating, not float64, on
// device type d, not already `to`), else t itself. Leaf tensors that require
// grad are cast once per region while the cache is on.
Tensor cast(const Tensor& t, ScalarType to, DeviceType d);
std::optional<Tensor> cast(const std::optional<Tensor>& t, ScalarType to, DeviceType d);
std::vector<Tensor> cast(const std::vector<Tensor>& ts, ScalarType to, DeviceType d);
std::vector<std::optional<Tensor>> cast(const std::vector<std::optional<Tensor>>& ts, ScalarType to, DeviceType d);

// The widest floating dtype among the eligible tensors (promote policy);
// float32 narrower than float64 and float16 and bfloat16 meet at float32.
struct Widest {
  std::optional<ScalarType> dtype;
  DeviceType device;
  explicit Widest(DeviceType d) : device(d) {}
  void see(const Tensor& t);
  void see(const std::optional<Tensor>& t) {
    if (t) see(*t);
  }
  void see(const std::vector<Tensor>& ts) {
    for (const Tensor& t : ts) see(t);
  }
  void see(const std::vector<std::optional<Tensor>>& ts) {
    for (const auto& t : ts) see(t);
  }
};

}  // namespace tc::autocast
