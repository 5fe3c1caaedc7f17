// SPDX-License-Identifier: BSD-3-Clause
// The kernels tensorc gives an out-of-tree backend's device (PrivateUse1)
// over the hooks and allocator it registers (tc_device_register_hooks):
// empty and empty_strided allocate through its allocator; copy_ moves data
// between its memory and the host's by staging through host memory, so any
// dtypes, strides and broadcasting work with only a byte copy from the
// backend. A backend's own kernels for these ops take precedence.
#include <algorithm>
#include <optional>
#include <string>

#include "core/device_hooks.h"
#include "core/error.h"
#include "core/tensor.h"
#include "tensorc_gen/native_functions.h"

namespace tc::native {
namespace {

constexpr DeviceType kType = DeviceType::PrivateUse1;

// The backend's hooks; Error(Device) naming the argument on its device when
// no backend has registered any.
DeviceHooks& hooks_for(const char* op, const char* arg, Device device) {
  std::string why;
  DeviceHooks* h = try_device_hooks(kType, &why);
  TC_CHECK(h != nullptr, Device, op, ": argument '", arg, "' is on ", device, ", which is not available: ", why);
  return *h;
}

// The backend's device for a factory: `device` with -1 resolved.
Device hooked_device(const char* op, std::optional<Device> device) {
  TC_CHECK(device && device->type == kType, Internal, op, ": PrivateUse1 kernel called for device ",
           device ? device->str() : std::string("(none)"));
  hooks_for(op, "device", *device);
  return Device(kType, resolve_device_index(kType, device->index, op));
}

// The elements a tensor's view reaches, relative to its first element:
// [lo, hi] (hi < lo when it has none).
struct Extent {
  int64_t lo = 0, hi = -1;
};
Extent extent_of(const Tensor& t) {
  if (t.numel() == 0) return {};
  Extent e{0, 0};
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t reach = (t.sizes()[size_t(d)] - 1) * t.strides()[size_t(d)];
    (reach < 0 ? e.lo : e.hi) += reach;
  }
  return e;
}

// A host tensor standing for `t` (on the backend's device): a buffer for
// t's extent, filled from the device when `read`, viewed with t's strides.
struct Mirror {
  Tensor buffer, view;
  Extent extent;
};
Mirror mirror_on_host(const Tensor& t, bool read, DeviceHooks& hooks) {
  Mirror m;
  m.extent = extent_of(t);
  const int64_t n = m.extent.hi - m.extent.lo + 1;
  m.buffer = empty_tensor({std::max<int64_t>(n, 0)}, t.dtype(), Device(DeviceType::CPU));
  m.view = make_view(m.buffer, t.sizes(), t.strides(), -m.extent.lo);
  if (read && n > 0)
    hooks.copy_bytes(m.buffer.data_ptr(), Device(DeviceType::CPU),
                     static_cast<const char*>(t.data_ptr()) + m.extent.lo * int64_t(t.element_size()), t.device(),
                     size_t(n) * t.element_size(), false);
  return m;
}

}  // namespace

Tensor empty_privateuse1(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const Device dev = hooked_device("empty", device);
  DeviceGuard guard(dev);  // the backend's allocator takes the current device
  return factory_empty("empty", size, dtype.value_or(ScalarType::Float32), dev);
}

Tensor empty_strided_privateuse1(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                                 std::optional<Device> device) {
  const Device dev = hooked_device("empty_strided", device);
  DeviceGuard guard(dev);
  return factory_empty_strided("empty_strided", size, stride, dtype.value_or(ScalarType::Float32), dev);
}

// self <- src where either side (or both) is on the backend's device and the
// other on it or the CPU: src's values come to the host, the CPU's copy_
// converts and broadcasts them into a host mirror of self, and the mirror's
// bytes go back. Any failure leaves self as it was.
Tensor& copy_inplace_privateuse1(Tensor& self, const Tensor& src, bool non_blocking) {
  TC_CHECK_ARG(self.defined(), "copy_: argument 'self' is an undefined tensor");
  TC_CHECK_ARG(src.defined(), "copy_: argument 'src' is an undefined tensor");
  const Device sd = self.device(), rd = src.device();
  TC_CHECK((sd.type == kType || sd.is_cpu()) && (rd.type == kType || rd.is_cpu()), Device,
           "copy_: cannot copy between ", sd, " and ", rd, " (copy through the CPU)");
  if (self.is_same(src)) return self;
  DeviceHooks& hooks = hooks_for("copy_", sd.type == kType ? "self" : "src", sd.type == kType ? sd : rd);
  Tensor host_src = src;
  if (!rd.is_cpu()) host_src = mirror_on_host(src, true, hooks).view;
  if (sd.is_cpu()) {
    copy_inplace_cpu(self, host_src, non_blocking);
    return self;
  }
  // A contiguous self covers its extent exactly; any other may have gaps
  // whose bytes must survive the write-back, so they are read first.
  Mirror dst = mirror_on_host(self, !self.is_contiguous(), hooks);
  copy_inplace_cpu(dst.view, host_src, false);
  const int64_t n = dst.extent.hi - dst.extent.lo + 1;
  if (n > 0)
    hooks.copy_bytes(static_cast<char*>(self.data_ptr()) + dst.extent.lo * int64_t(self.element_size()), sd,
                     dst.buffer.data_ptr(), Device(DeviceType::CPU), size_t(n) * self.element_size(), false);
  self.bump_version();
  return self;
}

}  // namespace tc::native
