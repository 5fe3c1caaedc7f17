// SPDX-License-Identifier: BSD-3-Clause
// The CUDA backend's runtime state: the devices, each thread's current device
// and stream, the caching allocator. Set up by tc_backend_init once the
// driver and at least one device answer.
#pragma once
#include <cuda_runtime_api.h>

#include "core/device.h"
#include "cuda/caching_allocator.h"

namespace tc::cuda {

int device_count();
// The calling thread's current device (cudaGetDevice).
int current_device();
// `index` with -1 resolved to the current device; Error(Device) naming `what`
// when out of range.
int resolve_device(int index, const char* what);
// The stream kernels of the calling thread run on for `device` (the legacy
// default stream until streams are exposed).
cudaStream_t current_stream(int device);
CachingDeviceAllocator& caching_allocator();

// Makes `index` current for a scope and restores the previous device.
class DeviceGuard {
 public:
  explicit DeviceGuard(int index);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_;
};

}  // namespace tc::cuda
