// SPDX-License-Identifier: BSD-3-Clause
// The CUDA backend's runtime inside libtensorc: the driver table of
// libtensorc_cuda.so (loaded on first use), the devices, each thread's
// current device and stream, and the caching allocator over the driver.
#pragma once
#include "core/device.h"
#include "core/tensor.h"
#include "cuda/caching_allocator.h"
#include "cuda/driver_api.h"

namespace tc::cuda {

// The driver table; loads libtensorc_cuda.so on first use and throws
// Error(Device) "<what>: cuda is not available: <why>" when it cannot.
const DriverApi& driver(const char* what);
// Throws Error(Runtime) "<what>: <call> failed: <name> (<text>)" unless err is 0.
void check(int err, const char* what, const char* call);

int device_count();
int current_device();
// `index` with -1 resolved to the current device; Error(Device) naming `what`
// when out of range.
int resolve_device(int index, const char* what);
// The stream the calling thread's kernels run on for `device`: the legacy
// default stream (0) until tc_stream_set_current picks another.
Stream current_stream(int device);

// A fresh contiguous tensor on `device` (a CUDA device, made current for the
// allocation, or the CPU).
Tensor empty_on(IntArrayRef sizes, ScalarType dtype, Device device);

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
