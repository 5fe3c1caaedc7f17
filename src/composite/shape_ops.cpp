// SPDX-License-Identifier: BSD-3-Clause
// Copy-based shape ops: contiguous, clone, _to_copy / to, and resize_. They
// allocate through the dispatched factories and move data with tc::copy_, so
// one kernel serves every backend; cross-device and cross-dtype copies are
// copy_'s job.
#include "composite/view_helpers.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "tensorc_gen/ops.h"
#include "tensorc_gen/native_functions.h"  // checks these definitions against the schema

namespace tc::native {
namespace {

// A fresh tensor holding self's values as `dtype` on `device`, laid out like
// PyTorch's preserve_format (self's strides if dense, else row-major).
Tensor copy_preserving_layout(const Tensor& self, ScalarType dtype, Device device, bool non_blocking) {
  Tensor out = tc::empty_strided(self.sizes(), views::preserved_strides(self), dtype, device);
  tc::copy_(out, self, non_blocking);
  return out;
}

// An index of -1 means "the current device of that type": treat it as a match
// rather than copy (the CUDA floor may refine this with its current device).
bool same_device(Device requested, Device actual) {
  return requested.type == actual.type && (requested.index < 0 || requested == actual);
}

}  // namespace

// contiguous(Tensor(a) self) -> Tensor(a): self itself when already row-major.
// (CompositeImplicitAutograd: autograd sees empty + copy_.)
Tensor contiguous(const Tensor& self) {
  if (self.is_contiguous()) return self;
  Tensor out = tc::empty(self.sizes(), self.dtype(), self.device());
  tc::copy_(out, self);
  return out;
}

// clone(Tensor self) -> Tensor (CompositeExplicitAutograd)
Tensor clone(const Tensor& self) { return copy_preserving_layout(self, self.dtype(), self.device(), false); }

// _to_copy(Tensor self, *, ScalarType? dtype=None, Device? device=None, bool non_blocking=False) -> Tensor
// (CompositeExplicitAutograd) The one op behind every copying `to`, so
// autograd needs a single derivative for dtype and device changes.
Tensor _to_copy(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device, bool non_blocking) {
  return copy_preserving_layout(self, dtype.value_or(self.dtype()), device.value_or(self.device()), non_blocking);
}

// to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False) -> Tensor(a)
Tensor to_dtype(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy) {
  if (!copy && self.dtype() == dtype) return self;
  return tc::_to_copy(self, dtype, std::nullopt, non_blocking);
}

// to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False) -> Tensor(a)
Tensor to_device(const Tensor& self, Device device, ScalarType dtype, bool non_blocking, bool copy) {
  if (!copy && self.dtype() == dtype && same_device(device, self.device())) return self;
  return tc::_to_copy(self, dtype, device, non_blocking);
}

// to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False) -> Tensor(a)
Tensor to_other(const Tensor& self, const Tensor& other, bool non_blocking, bool copy) {
  if (!copy && self.dtype() == other.dtype() && self.device() == other.device()) return self;
  return tc::_to_copy(self, other.dtype(), other.device(), non_blocking);
}

// resize_(Tensor(a!) self, int[] size) -> Tensor(a!) (CompositeExplicitAutograd)
// New elements are uninitialised; the storage grows, never shrinks. The
// same size keeps self's strides (as PyTorch), any other size makes it row-major.
Tensor& resize_(Tensor& self, IntArrayRef size) {
  const int64_t numel = checked_numel(size, "resize_");
  if (self.sizes() == size) return self;
  const int64_t itemsize = int64_t(self.element_size());
  int64_t elems = 0, need = 0;
  TC_CHECK(
      !__builtin_add_overflow(self.storage_offset(), numel, &elems) && !__builtin_mul_overflow(elems, itemsize, &need),
      OutOfMemory, "resize_: argument 'size' ", size, " needs more bytes than fit in int64");
  const Storage& st = self.storage();
  TC_CHECK(size_t(need) <= st->nbytes() || st->resizable(), Runtime, "resize_: cannot grow to size ", size, " (", need,
           " bytes) because the tensor's storage of ", st->nbytes(),
           " bytes wraps external memory, which tensorc cannot reallocate");
  self.impl()->resize_contiguous(size);
  return self;
}

}  // namespace tc::native
