// SPDX-License-Identifier: BSD-3-Clause
// Factory kernels (CPU): empty, zeros, ones, full, arange, linspace, eye,
// the *_like family and scalar_tensor. Fills are plain typed loops over
// freshly allocated contiguous memory; no loop planner is needed here.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "core/parallel.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "structured/range.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema

namespace tc::native {
namespace {

constexpr ScalarType kDefaultFloat = ScalarType::Float32;

// Only CPU kernels exist here; another backend registers its own factories.
Device cpu_device(const char* op, std::optional<Device> device) {
  TC_CHECK(!device || device->is_cpu(), Device, op, ": argument 'device' expected cpu, got ", *device, " (no ", op,
           " kernel for that device)");
  return Device(DeviceType::CPU);
}

// Writes n copies of v into contiguous memory at p.
void fill_contiguous(void* p, int64_t n, ScalarType dt, const Scalar& v) {
  TC_DISPATCH_ALL_TYPES_AND_BOOL(dt, "fill", [&] {
    scalar_t x = v.to<scalar_t>();
    auto* out = static_cast<scalar_t*>(p);
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) { std::fill(out + b, out + e, x); });
  });
}

void zero_contiguous(void* p, int64_t n, size_t elem) {
  auto* out = static_cast<char*>(p);
  parallel_for(0, n, kGrainSize * 4,
               [&](int64_t b, int64_t e) { std::memset(out + size_t(b) * elem, 0, size_t(e - b) * elem); });
}

// PyTorch's preserve_format: a non-overlapping, dense self keeps its strides
// (so a transposed or channels-last input gives a like-laid-out result).
bool non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<size_t> perm(sizes.size());
  std::iota(perm.begin(), perm.end(), 0);
  // Innermost (smallest stride) first; dims of size < 2 go last, their strides do not matter.
  std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (size_t i : perm) {
    if (sizes[i] < 2) return true;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

Tensor empty_like_impl(const char* op, const Tensor& self, std::optional<ScalarType> dtype,
                       std::optional<Device> device) {
  TC_CHECK_ARG(self.defined(), op, ": argument 'self' is an undefined tensor");
  Device dev = cpu_device(op, device ? device : std::optional<Device>(self.device()));
  ScalarType dt = dtype.value_or(self.dtype());
  if (self.numel() > 0 && !self.is_contiguous() && non_overlapping_and_dense(self.sizes(), self.strides()))
    return empty_strided_tensor(self.sizes(), self.strides(), dt, dev);
  return empty_tensor(self.sizes(), dt, dev);
}

// A like-result is dense, so its numel elements are one block from data_ptr.
Tensor fill_new(Tensor t, const Scalar& v) {
  if (t.numel() == 0) return t;
  bool zero = v.is_floating_point() ? (v.to_double() == 0 && !std::signbit(v.to_double())) : v.to_int() == 0;
  if (zero)
    zero_contiguous(t.data_ptr(), t.numel(), t.element_size());
  else
    fill_contiguous(t.data_ptr(), t.numel(), t.dtype(), v);
  return t;
}

}  // namespace

Tensor empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return factory_empty("empty", size, dtype.value_or(kDefaultFloat), cpu_device("empty", device));
}

Tensor empty_strided_cpu(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                         std::optional<Device> device) {
  return factory_empty_strided("empty_strided", size, stride, dtype.value_or(kDefaultFloat),
                               cpu_device("empty_strided", device));
}

Tensor zeros_cpu(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor t = factory_empty("zeros", size, dtype.value_or(kDefaultFloat), cpu_device("zeros", device));
  zero_contiguous(t.data_ptr(), t.numel(), t.element_size());
  return t;
}

Tensor ones_cpu(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor t = factory_empty("ones", size, dtype.value_or(kDefaultFloat), cpu_device("ones", device));
  return fill_new(std::move(t), Scalar(int64_t(1)));
}

// As PyTorch: without dtype, a bool fill gives bool and an integer fill int64.
Tensor full_cpu(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype,
                std::optional<Device> device) {
  const Device dev = cpu_device("full", device);
  return fill_new(factory_empty("full", size, full_dtype(fill_value, dtype), dev), fill_value);
}

Tensor scalar_tensor_cpu(const Scalar& s, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Device dev = cpu_device("scalar_tensor", device);
  ScalarType dt = dtype.value_or(kDefaultFloat);  // always the default dtype, as in PyTorch
  check_scalar_fits("scalar_tensor", "s", s, dt);
  Tensor t = empty_tensor({}, dt, dev);
  write_scalar(t.data_ptr(), dt, s);
  return t;
}

Tensor empty_like_cpu(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return empty_like_impl("empty_like", self, dtype, device);
}

Tensor zeros_like_cpu(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return fill_new(empty_like_impl("zeros_like", self, dtype, device), Scalar(int64_t(0)));
}

Tensor ones_like_cpu(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return fill_new(empty_like_impl("ones_like", self, dtype, device), Scalar(int64_t(1)));
}

Tensor full_like_cpu(const Tensor& self, const Scalar& fill_value, std::optional<ScalarType> dtype,
                     std::optional<Device> device) {
  Tensor t = empty_like_impl("full_like", self, dtype, device);
  check_scalar_fits("full_like", "fill_value", fill_value, t.dtype());
  return fill_new(std::move(t), fill_value);
}

// ---- ranges -----------------------------------------------------------------

Tensor arange_start_step_cpu(const Scalar& start, const Scalar& end, const Scalar& step,
                             std::optional<ScalarType> dtype, std::optional<Device> device) {
  Device dev = cpu_device("arange", device);
  const structured::ArangeMeta meta = structured::arange_meta(start, end, step, dtype);
  const ScalarType dt = meta.dtype;
  const int64_t n = meta.numel;
  Tensor t = empty_tensor({n}, dt, dev);
  TC_DISPATCH_ALL_TYPES(dt, "arange", [&] {
    auto* out = t.data_ptr<scalar_t>();
    if constexpr (std::is_integral_v<scalar_t>) {
      int64_t s0 = start.to_int(), d = step.to_int();
      parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t en) {
        for (int64_t i = b; i < en; ++i) out[i] = scalar_t(s0 + d * i);
      });
    } else {
      const double s = start.to_double(), st = step.to_double();
      parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t en) {
        for (int64_t i = b; i < en; ++i) out[i] = scalar_t(s + st * double(i));
      });
    }
  });
  return t;
}

Tensor arange_start_cpu(const Scalar& start, const Scalar& end, std::optional<ScalarType> dtype,
                        std::optional<Device> device) {
  return arange_start_step_cpu(start, end, Scalar(int64_t(1)), dtype, device);
}

Tensor arange_cpu(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return arange_start_step_cpu(Scalar(int64_t(0)), end, Scalar(int64_t(1)), dtype, device);
}

// Symmetric formula (as ATen): the first half steps up from start, the second
// half steps down from end, so both endpoints are exact.
Tensor linspace_cpu(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                    std::optional<Device> device) {
  Device dev = cpu_device("linspace", device);
  const ScalarType dt = structured::linspace_meta(steps, dtype);
  Tensor t = empty_tensor({steps}, dt, dev);
  if (steps == 0) return t;
  TC_DISPATCH_ALL_TYPES_AND_BOOL(dt, "linspace", [&] {
    // Accumulate in float for float32 and narrower floats, else double.
    using acc_t = std::conditional_t<std::is_same_v<scalar_t, double> || std::is_integral_v<scalar_t>, double, float>;
    auto* out = t.data_ptr<scalar_t>();
    acc_t a = acc_t(start.to_double()), z = acc_t(end.to_double());
    if (steps == 1) {
      out[0] = scalar_t(a);
      return;
    }
    acc_t step = (z - a) / acc_t(steps - 1);
    parallel_for(0, steps, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = scalar_t(structured::linspace_value(a, z, step, steps, i));
    });
  });
  return t;
}

Tensor eye_m_cpu(int64_t n, int64_t m, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Device dev = cpu_device("eye", device);
  check_eye_sizes(n, m);
  Tensor t = empty_tensor({n, m}, dtype.value_or(kDefaultFloat), dev);
  if (t.numel() == 0) return t;
  zero_contiguous(t.data_ptr(), t.numel(), t.element_size());
  TC_DISPATCH_ALL_TYPES_AND_BOOL(t.dtype(), "eye", [&] {
    auto* out = t.data_ptr<scalar_t>();
    scalar_t one = Scalar(int64_t(1)).to<scalar_t>();
    for (int64_t i = 0, k = std::min(n, m); i < k; ++i) out[i * m + i] = one;
  });
  return t;
}

Tensor eye_cpu(int64_t n, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return eye_m_cpu(n, n, dtype, device);
}

}  // namespace tc::native
