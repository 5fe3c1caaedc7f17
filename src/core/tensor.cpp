// SPDX-License-Identifier: BSD-3-Clause
#include "core/tensor.h"

#include <cmath>
#include <limits>

#include "core/device_hooks.h"
#include "core/sanitize.h"
#include "core/shape.h"

namespace tc {

int64_t Tensor::size(int64_t d) const {
  TC_CHECK_INDEX(dim() > 0, "size: argument 'dim' (", d, ") is out of range for a zero-dim tensor");
  return sizes()[size_t(wrap_dim(d, dim(), "size"))];
}
int64_t Tensor::stride(int64_t d) const {
  TC_CHECK_INDEX(dim() > 0, "stride: argument 'dim' (", d, ") is out of range for a zero-dim tensor");
  return strides()[size_t(wrap_dim(d, dim(), "stride"))];
}

namespace {
thread_local ItemObserver t_item_observer = nullptr;
}  // namespace

void set_item_observer(ItemObserver f) { t_item_observer = f; }

Scalar Tensor::item() const {
  TC_CHECK_ARG(defined(), "item: the tensor is undefined");
  if (t_item_observer) t_item_observer(*this);
  TC_CHECK_ARG(numel() == 1, "item: a tensor with ", numel(), " elements cannot be converted to a Scalar");
  if (is_cpu()) return read_scalar(data_ptr(), dtype());
  // Device memory: one element to the host through the backend (this synchronises).
  alignas(8) unsigned char buf[8];
  device_hooks(device().type, "item")
      .copy_bytes(buf, Device(DeviceType::CPU), data_ptr(), device(), element_size(), false);
  return read_scalar(buf, dtype());
}

Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device) {
  TC_CHECK_TYPE(is_valid_dtype(int(dtype)), "empty: unsupported dtype ", dtype);
  int64_t n = checked_numel(sizes, "empty");
  size_t es = element_size(dtype);
  TC_CHECK(n <= int64_t(INT64_MAX / int64_t(es)), OutOfMemory, "empty: ", n, " elements of ", dtype,
           " exceed the addressable size");
  auto storage = StorageImpl::create(size_t(n) * es, get_allocator(device.type));
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, TensorImpl::Contiguous{n}));
}

Tensor factory_empty(const char* op, IntArrayRef sizes, ScalarType dtype, Device device) {
  TC_CHECK_TYPE(is_valid_dtype(int(dtype)), op, ": argument 'dtype' expected a supported dtype, got ", dtype);
  checked_numel(sizes, op);
  return empty_tensor(sizes, dtype, device);
}

Tensor factory_empty_strided(const char* op, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device) {
  TC_CHECK_TYPE(is_valid_dtype(int(dtype)), op, ": argument 'dtype' expected a supported dtype, got ", dtype);
  return empty_strided_tensor(sizes, strides, dtype, device);
}

ScalarType full_dtype(const Scalar& fill_value, std::optional<ScalarType> dtype) {
  const ScalarType dt =
      dtype.value_or(fill_value.is_floating_point() ? ScalarType::Float32 : fill_value.default_dtype());
  check_scalar_fits("full", "fill_value", fill_value, dt);
  return dt;
}

void check_eye_sizes(int64_t n, int64_t m) {
  TC_CHECK_ARG(n >= 0, "eye: argument 'n' expected a non-negative number, got ", n);
  TC_CHECK_ARG(m >= 0, "eye: argument 'm' expected a non-negative number, got ", m);
}

bool is_pinned(const Tensor& t) {
  const Allocator* pinned = pinned_host_allocator();
  return pinned != nullptr && t.defined() && t.impl()->storage() && t.impl()->storage()->allocator() == pinned;
}

Tensor pin_memory(const Tensor& t) {
  TC_CHECK_ARG(t.defined(), "pin_memory: argument 'self' is an undefined tensor");
  TC_CHECK(t.is_cpu(), Device, "pin_memory: only CPU tensors can be pinned, got a tensor on ", t.device());
  if (is_pinned(t)) return t;
  Allocator* pinned = device_hooks(DeviceType::CUDA, "pin_memory").host_allocator();
  TC_CHECK(pinned != nullptr, Device, "pin_memory: the CUDA backend provides no page-locked host memory");
  const int64_t n = t.numel();
  auto storage = StorageImpl::create(size_t(n) * t.element_size(), pinned);
  Tensor out(make_intrusive<TensorImpl>(std::move(storage), t.dtype(), t.sizes(), TensorImpl::Contiguous{n}));
  out.copy_(t);
  return out;
}

Tensor empty_strided_tensor(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device) {
  TC_CHECK_ARG(sizes.size() == strides.size(), "empty_strided: sizes ", sizes, " and strides ", strides,
               " differ in length");
  checked_numel(sizes, "empty_strided");
  const int64_t nbytes =
      checked_storage_nbytes(sizes, strides, int64_t(element_size(dtype)), "empty_strided", "stride");
  auto storage = StorageImpl::create(size_t(nbytes), get_allocator(device.type));
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  // Same storage, so the same version counter.
  return Tensor(make_intrusive<TensorImpl>(base.storage(), base.dtype(), sizes, strides, storage_offset));
}

Tensor tensor_from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device,
                        DeleterFn deleter, void* ctx) {
  TC_CHECK_TYPE(is_valid_dtype(int(dtype)), "from_blob: unsupported dtype ", dtype);
  checked_numel(sizes, "from_blob");
  DimVector st = strides.empty() && !sizes.empty() ? contiguous_strides(sizes) : DimVector(strides);
  TC_CHECK_ARG(st.size() == sizes.size(), "from_blob: sizes ", sizes, " and strides ", strides, " differ in length");
  const int64_t nbytes = checked_storage_nbytes(sizes, st, int64_t(element_size(dtype)), "from_blob", "strides");
  auto storage = make_intrusive<StorageImpl>(DataPtr(data, ctx, deleter, device), size_t(nbytes));
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, st, 0));
}

// PyTorch's checked_convert: a fill value that does not fit the dtype is an
// error, except that inf/nan may go to floating types and negative integers
// may wrap into unsigned ones (down to -max, as c10::overflows allows).
void check_scalar_fits(const char* op, const char* arg, const Scalar& v, ScalarType dt) {
  if (dt == ScalarType::Bool) return;
  bool ok = true;
  TC_DISPATCH_ALL_TYPES(dt, op, [&] {
    if constexpr (std::is_integral_v<scalar_t>) {
      // Every integral dtype's bounds fit int64 (no uint64 dtype).
      const int64_t hi = int64_t(std::numeric_limits<scalar_t>::max());
      const int64_t lo = std::is_unsigned_v<scalar_t> ? -hi : int64_t(std::numeric_limits<scalar_t>::lowest());
      if (v.is_floating_point()) {
        double d = v.to_double();
        ok = d >= double(lo) && d <= double(hi);  // false for nan
      } else {
        ok = v.to_int() >= lo && v.to_int() <= hi;
      }
    } else {
      const double hi = std::is_same_v<scalar_t, Half>       ? 65504.0
                        : std::is_same_v<scalar_t, BFloat16> ? 3.3895313892515355e38
                                                             : double(std::numeric_limits<scalar_t>::max());
      double d = v.to_double();
      ok = !std::isfinite(d) || std::fabs(d) <= hi;
    }
  });
  TC_CHECK_ARG(ok, op, ": argument '", arg, "' (", v, ") cannot be converted to ", dt, " without overflow");
}

void write_scalar(void* p, ScalarType dtype, const Scalar& v) {
  TC_DISPATCH_ALL_TYPES_AND_BOOL(dtype, "write_scalar", [&] { *static_cast<scalar_t*>(p) = v.to<scalar_t>(); });
}

Scalar read_scalar(const void* p, ScalarType dtype) {
  Scalar out;
  // A bool is read as its byte: memory from empty() may hold any value, and
  // loading a byte other than 0 or 1 as a C++ bool is undefined.
  if (dtype == ScalarType::Bool) return Scalar(*static_cast<const uint8_t*>(p) != 0);
  TC_DISPATCH_ALL_TYPES(dtype, "read_scalar", [&] {
    scalar_t v = *static_cast<const scalar_t*>(p);
    if constexpr (std::is_integral_v<scalar_t>)
      out = Scalar(int64_t(v));
    else
      out = Scalar(double(v));
  });
  return out;
}

Tensor scalar_to_tensor(const Scalar& s, std::optional<ScalarType> dtype) {
  Tensor t = empty_tensor({}, dtype.value_or(s.default_dtype()));
  write_scalar(t.data_ptr(), t.dtype(), s);
  return t;
}

Tensor wrapped_scalar_tensor(const Scalar& s) {
  ScalarType dt = s.is_floating_point() ? ScalarType::Float64 : s.is_integral() ? ScalarType::Int64 : ScalarType::Bool;
  Tensor t = scalar_to_tensor(s, dt);
  t.impl()->set_wrapped_number(true);
  return t;
}

Scalar read_element(const Tensor& t, int64_t flat) {
  TC_CHECK(t.is_cpu(), Device, "read_element: tensor is on ", t.device());
  const int64_t off = strided_offset(t.sizes(), t.strides(), flat);
  return read_scalar(static_cast<const char*>(t.data_ptr()) + off * int64_t(t.element_size()), t.dtype());
}

TC_NO_SANITIZE_INTEGER Scalar Scalar::operator-() const {
  if (tag_ == Tag::Float) return Scalar(-v_.d);
  // Integers negate modulo 2^64 as tensors of int64 do: -INT64_MIN is INT64_MIN.
  const int64_t neg = int64_t(uint64_t(0) - uint64_t(v_.i));
  return Scalar(neg);  // a bool negates to an int, as in PyTorch
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.is_bool()) return os << (s.to_bool() ? "True" : "False");
  if (s.is_integral()) return os << s.to_int();
  return os << s.to_double();
}

}  // namespace tc
