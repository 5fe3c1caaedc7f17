// SPDX-License-Identifier: BSD-3-Clause
// copy_ and fill_ on CUDA tensors. copy_ is reached for every pair that has
// a CUDA side (CUDA outranks CPU in dispatch): same device through the
// element loop, other devices and the host through the device hooks' byte
// copies, staged through a dense buffer where a side is not dense.
#include <cstring>

#include "core/device_hooks.h"
#include "core/overlap.h"
#include "core/tensor.h"
#include "cuda/driver_api.h"
#include "cuda/pointwise.h"
#include "cuda/runtime.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

using cuda::Geometry;

bool dense(const Tensor& t) { return t.is_contiguous(); }

// dst = src on one CUDA device, with broadcasting and dtype conversion.
void copy_on_device(Tensor& dst, const Tensor& src) {
  const Geometry g = cuda::tensor_geometry(dst, &src, "copy_");
  const int dev = dst.device().index;
  const cuda::DriverApi& drv = cuda::driver("copy_");
  cuda::DeviceGuard guard(dev);
  cuda::check(
      drv.launch_copy(static_cast<char*>(dst.data_ptr()), int(dst.dtype()), static_cast<const char*>(src.data_ptr()),
                      int(src.dtype()), &g, cuda::current_stream(dev)),
      "copy_", "the copy kernel's launch");
}

// src as a dense tensor of its dtype on its own device (itself when dense).
Tensor dense_on_own_device(const Tensor& src) {
  if (dense(src)) return src;
  if (src.is_cpu()) return tc::contiguous(src);
  Tensor out = cuda::empty_on(src.sizes(), src.dtype(), src.device());
  copy_on_device(out, src);
  return out;
}

void check_no_partial_overlap(const Tensor& self, const Tensor& src) {
  if (self.device() != src.device() || self.storage().get() != src.storage().get()) return;
  const MemLayout a{self.storage_offset(), self.sizes(), self.strides(), int64_t(self.element_size())};
  const MemLayout b{src.storage_offset(), src.sizes(), src.strides(), int64_t(src.element_size())};
  TC_CHECK(memory_overlap(a, b) == Overlap::None, InvalidArgument,
           "copy_: unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
           "single memory location. Please clone() the tensor before performing the operation.");
}

}  // namespace

Tensor& copy_inplace_cuda(Tensor& self, const Tensor& src, bool non_blocking) {
  TC_CHECK_ARG(self.defined(), "copy_: argument 'self' is an undefined tensor");
  TC_CHECK_ARG(src.defined(), "copy_: argument 'src' is an undefined tensor");
  if (self.is_same(src)) return self;
  const Device sd = self.device(), rd = src.device();
  TC_CHECK(sd.is_cuda() || sd.is_cpu(), Device, "copy_: cannot copy between ", rd, " and ", sd);
  TC_CHECK(rd.is_cuda() || rd.is_cpu(), Device, "copy_: cannot copy between ", rd, " and ", sd);
  (void)cuda::tensor_geometry(self, &src, "copy_");  // shape check before anything moves
  check_no_partial_overlap(self, src);
  if (self.numel() == 0) return self;
  DeviceHooks& hooks = device_hooks(DeviceType::CUDA, "copy_");

  if (sd.is_cuda() && rd.is_cuda() && sd.index == rd.index) {
    copy_on_device(self, src);
  } else if (sd.is_cpu()) {
    // Device to host: src dense on its device, its bytes to the host, then the CPU's copy_.
    const Tensor d = dense_on_own_device(src);
    if (non_blocking && is_pinned(self) && dense(self) && self.dtype() == d.dtype() && self.sizes() == d.sizes()) {
      // Straight into page-locked memory, returning before the copy ends (read
      // self after synchronizing, as in PyTorch).
      hooks.copy_bytes(self.data_ptr(), sd, d.data_ptr(), d.device(), size_t(d.numel()) * d.element_size(), true);
      self.bump_version();
      return self;
    }
    Tensor host = empty_tensor(d.sizes(), d.dtype(), Device(DeviceType::CPU));
    hooks.copy_bytes(host.data_ptr(), host.device(), d.data_ptr(), d.device(), size_t(d.numel()) * d.element_size(),
                     false);
    copy_inplace_cpu(self, host, false);
  } else {
    // Host or another device to this device: src dense in self's dtype where it is, its bytes
    // here, then the element loop when self is not that same dense layout.
    Tensor staged = src;
    if (rd.is_cpu() && src.dtype() != self.dtype()) staged = tc::to(src, self.dtype());
    staged = dense_on_own_device(staged);
    const bool direct = dense(self) && self.dtype() == staged.dtype() && self.sizes() == staged.sizes();
    if (direct) {
      hooks.copy_bytes(self.data_ptr(), sd, staged.data_ptr(), staged.device(),
                       size_t(staged.numel()) * staged.element_size(), non_blocking);
    } else {
      Tensor here = cuda::empty_on(staged.sizes(), staged.dtype(), sd);
      hooks.copy_bytes(here.data_ptr(), sd, staged.data_ptr(), staged.device(),
                       size_t(staged.numel()) * staged.element_size(), false);
      copy_on_device(self, here);
    }
  }
  self.bump_version();
  return self;
}

Tensor& fill_inplace_cuda(Tensor& self, const Scalar& value) {
  TC_CHECK_ARG(self.defined(), "fill_: argument 'self' is an undefined tensor");
  check_scalar_fits("fill_", "value", value, self.dtype());
  const Geometry g = cuda::tensor_geometry(self, nullptr, "fill_");
  unsigned char buf[8] = {0};
  write_scalar(buf, self.dtype(), value);
  uint64_t bits = 0;
  std::memcpy(&bits, buf, self.element_size());
  const int dev = self.device().index;
  const cuda::DriverApi& drv = cuda::driver("fill_");
  cuda::DeviceGuard guard(dev);
  cuda::check(drv.launch_fill(static_cast<char*>(self.data_ptr()), int(self.element_size()), bits, &g,
                              cuda::current_stream(dev)),
              "fill_", "the fill kernel's launch");
  self.bump_version();
  return self;
}

}  // namespace tc::native
