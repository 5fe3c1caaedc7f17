// SPDX-License-Identifier: BSD-3-Clause
// tc::Tensor: a refcounted handle to a TensorImpl. Copying shares the tensor
// (like at::Tensor). Operator functions and methods are generated from the
// schema (tensorc_gen/ops.h, tensorc_gen/tensor_methods.h).
#pragma once
#include <optional>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "core/scalar.h"
#include "core/tensor_impl.h"

namespace tc {

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return bool(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  int64_t use_count() const { return impl_ ? impl_->use_count() : 0; }

  int64_t dim() const { return impl_->dim(); }
  int64_t ndimension() const { return dim(); }
  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  int64_t size(int64_t d) const;    // wraps negative dims
  int64_t stride(int64_t d) const;  // wraps negative dims
  int64_t numel() const { return impl_->numel(); }
  ScalarType scalar_type() const { return impl_->dtype(); }
  ScalarType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  bool is_cpu() const { return device().is_cpu(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  size_t element_size() const { return tc::element_size(dtype()); }
  void* data_ptr() const { return impl_->data(); }
  template <class T>
  T* data_ptr() const {
    return static_cast<T*>(impl_->data());
  }
  const Storage& storage() const { return impl_->storage(); }
  DispatchKeySet key_set() const { return impl_->key_set(); }
  uint32_t version() const { return impl_->version(); }
  void bump_version() const { impl_->bump_version(); }
  bool requires_grad() const {
    auto* m = impl_->autograd_meta();
    return m && m->requires_grad();
  }
  // Gives up this handle's reference without decrementing it (C ABI handoff).
  TensorImpl* unsafe_release() { return impl_.release_ownership(); }

  // The value of a one-element tensor (CPU; other devices copy to host).
  Scalar item() const;
  template <class T>
  T item() const {
    return item().to<T>();
  }

#include "tensorc_gen/tensor_methods.h"

 private:
  intrusive_ptr<TensorImpl> impl_;
};

using TensorList = std::vector<Tensor>;
using OptionalTensor = std::optional<Tensor>;

// Called by item() on this thread, when set, with the tensor read: the
// tracer notes that a value read back makes a trace input-dependent.
using ItemObserver = void (*)(const Tensor&);
void set_item_observer(ItemObserver f);

// --- core construction helpers (no dispatch) ---

// Uninitialised contiguous tensor. Checks sizes (negative, overflow).
Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device = Device(DeviceType::CPU));
Tensor empty_strided_tensor(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device);
// empty_tensor / empty_strided_tensor for a factory op of any backend: dtype
// and size errors name `op`.
Tensor factory_empty(const char* op, IntArrayRef sizes, ScalarType dtype, Device device);
Tensor factory_empty_strided(const char* op, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device);

// Whether t's memory is page-locked host memory from pin_memory.
bool is_pinned(const Tensor& t);
// A contiguous copy of CPU tensor t in page-locked memory, which CUDA copies
// to and from asynchronously (t itself when already pinned). Error(Device)
// when t is not on the CPU, or no usable backend provides such memory (why).
Tensor pin_memory(const Tensor& t);
// full's dtype, as PyTorch's: `dtype` when given, else float32 for a floating
// fill value and the value's own (bool, int64) otherwise. Checks the value fits.
ScalarType full_dtype(const Scalar& fill_value, std::optional<ScalarType> dtype);
// eye's sizes: n and m non-negative.
void check_eye_sizes(int64_t n, int64_t m);
// A view sharing base's storage and version counter.
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
// A tensor over memory the caller owns; `deleter(ctx, data)` runs when the
// last reference goes away. Not resizable.
Tensor tensor_from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device,
                        DeleterFn deleter, void* ctx);
// Zero-dim CPU tensor holding `s` in dtype (default: s.default_dtype()).
Tensor scalar_to_tensor(const Scalar& s, std::optional<ScalarType> dtype = std::nullopt);
// As above, marked as a wrapped number for type promotion.
Tensor wrapped_scalar_tensor(const Scalar& s);
// Offset, in elements, of the element at logical row-major position `flat`
// of a layout with these sizes and strides.
inline int64_t strided_offset(IntArrayRef sizes, IntArrayRef strides, int64_t flat) {
  int64_t off = 0;
  for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
    off += (flat % sizes[size_t(d)]) * strides[size_t(d)];
    flat /= sizes[size_t(d)];
  }
  return off;
}
// Reads element `flat_index` (in logical row-major order) of a CPU tensor.
Scalar read_element(const Tensor& t, int64_t flat_index);
// Throws InvalidArgument naming op and arg when v does not fit dtype dt
// (PyTorch's checked_convert); inf/nan fit only floating dtypes.
void check_scalar_fits(const char* op, const char* arg, const Scalar& v, ScalarType dt);
// Writes the Scalar `v` converted to T into *ptr of type dtype.
void write_scalar(void* ptr, ScalarType dtype, const Scalar& v);
Scalar read_scalar(const void* ptr, ScalarType dtype);

// Printing of non-CPU tensors goes through a host copy that the device's
// backend library installs when it loads.
using PrintHostCopyFn = Tensor (*)(const Tensor&);
void set_print_host_copy(DeviceType type, PrintHostCopyFn fn);

// Printing in PyTorch's format: tensor([[1., 2.], [3., 4.]], dtype=float64)
std::string tensor_to_string(const Tensor& t);
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace tc
