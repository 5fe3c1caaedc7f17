// SPDX-License-Identifier: BSD-3-Clause
// Factories on CUDA devices: allocation through the caching allocator on the
// requested device, then fill_ (CUDA) for the constant ones and eye's
// diagonal, and the driver's range kernel for arange and linspace.
#include <optional>

#include "core/tensor.h"
#include "cuda/runtime.h"
#include "structured/range.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

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

// Always the default float dtype without one, as in PyTorch.
Tensor scalar_tensor_cuda(const Scalar& s, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const ScalarType dt = dtype.value_or(kDefaultFloat);
  check_scalar_fits("scalar_tensor", "s", s, dt);
  return filled(new_tensor("scalar_tensor", IntArrayRef(), dt, cuda_device("scalar_tensor", device)), s);
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

// eye: zeros, then fill_ on the diagonal view.
Tensor eye_m_cuda(int64_t n, int64_t m, std::optional<ScalarType> dtype, std::optional<Device> device) {
  check_eye_sizes(n, m);
  Tensor t = zeros_cuda({n, m}, dtype, device);
  if (t.numel() == 0) return t;
  Tensor diagonal = tc::diagonal(t);
  fill_inplace_cuda(diagonal, Scalar(int64_t(1)));
  return t;
}

Tensor eye_cuda(int64_t n, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return eye_m_cuda(n, n, dtype, device);
}

// ---- arange / linspace: the CPU's meta step, then the driver's range kernel ----
namespace {

Tensor fill_range(const char* op, cuda::RangeArgs args, int64_t n, ScalarType dt, Device dev) {
  Tensor t = new_tensor(op, {n}, dt, dev);
  if (n == 0) return t;
  args.dtype = int(dt);
  args.n = n;
  args.data = static_cast<char*>(t.data_ptr());
  const cuda::DriverApi& drv = cuda::driver(op);
  cuda::DeviceGuard guard(dev.index);
  cuda::check(drv.launch_range(&args, cuda::current_stream(dev.index)), op, "the range kernel's launch");
  return t;
}

}  // namespace

Tensor arange_start_step_cuda(const Scalar& start, const Scalar& end, const Scalar& step,
                              std::optional<ScalarType> dtype, std::optional<Device> device) {
  const structured::ArangeMeta meta = structured::arange_meta(start, end, step, dtype);
  cuda::RangeArgs args;
  args.integral = meta.integral;
  if (meta.integral) {
    args.istart = start.to_int();
    args.istep = step.to_int();
  } else {
    args.start = start.to_double();
    args.step = step.to_double();
  }
  return fill_range("arange", args, meta.numel, meta.dtype, cuda_device("arange", device));
}

Tensor arange_start_cuda(const Scalar& start, const Scalar& end, std::optional<ScalarType> dtype,
                         std::optional<Device> device) {
  return arange_start_step_cuda(start, end, Scalar(int64_t(1)), dtype, device);
}

Tensor arange_cuda(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return arange_start_step_cuda(Scalar(int64_t(0)), end, Scalar(int64_t(1)), dtype, device);
}

Tensor linspace_cuda(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                     std::optional<Device> device) {
  const ScalarType dt = structured::linspace_meta(steps, dtype);
  cuda::RangeArgs args;
  args.linspace = true;
  args.in_double = structured::linspace_in_double(dt);
  // The CPU kernel's a, z and step, in its accumulate type (exact as doubles).
  if (args.in_double) {
    args.start = start.to_double();
    args.end = end.to_double();
    args.step = steps > 1 ? (args.end - args.start) / double(steps - 1) : 0.0;
  } else {
    const float a = float(start.to_double()), z = float(end.to_double());
    args.start = a;
    args.end = z;
    args.step = steps > 1 ? double((z - a) / float(steps - 1)) : 0.0;
  }
  if (steps == 1) args.end = args.start;  // the one element is start
  return fill_range("linspace", args, steps, dt, cuda_device("linspace", device));
}

}  // namespace tc::native
