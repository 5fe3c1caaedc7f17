// SPDX-License-Identifier: BSD-3-Clause
// Factories on CUDA devices: allocation through the caching allocator on the
// requested device, then fill_ (CUDA) for the constant ones.
#include <optional>

#include "core/tensor.h"
#include "cuda/runtime.h"
#include "tensorc_gen/native_functions.h"

namespace tc::native {
namespace {

constexpr ScalarType kDefaultFloat = ScalarType::Float32;

// The CUDA device a factory allocates on: `device` with -1 resolved.
Device cuda_device(const char* op, std::optional<Device> device) {
  TC_CHECK(device && device->is_cuda(), Internal, op, ": CUDA kernel called for device ",
           device ? device->str() : std::string("(none)"));
  return Device(DeviceType::CUDA, cuda::resolve_device(device->index, op));
}

Tensor new_tensor(const char* op, IntArrayRef size, ScalarType dt, Device dev) {
  cuda::DeviceGuard g(dev.index);  // the allocator takes the current device
  return factory_empty(op, size, dt, dev);
}

Tensor filled(Tensor t, const Scalar& v) {
  fill_inplace_cuda(t, v);
  return t;
}

}  // namespace

Tensor empty_cuda(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return new_tensor("empty", size, dtype.value_or(kDefaultFloat), cuda_device("empty", device));
}

Tensor empty_strided_cuda(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                          std::optional<Device> device) {
  const Device dev = cuda_device("empty_strided", device);
  cuda::DeviceGuard g(dev.index);  // the allocator takes the current device
  return factory_empty_strided("empty_strided", size, stride, dtype.value_or(kDefaultFloat), dev);
}

Tensor zeros_cuda(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return filled(new_tensor("zeros", size, dtype.value_or(kDefaultFloat), cuda_device("zeros", device)),
                Scalar(int64_t(0)));
}

Tensor ones_cuda(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return filled(new_tensor("ones", size, dtype.value_or(kDefaultFloat), cuda_device("ones", device)),
                Scalar(int64_t(1)));
}

Tensor full_cuda(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype,
                 std::optional<Device> device) {
  const Device dev = cuda_device("full", device);
  return filled(new_tensor("full", size, full_dtype(fill_value, dtype), dev), fill_value);
}

}  // namespace tc::native
