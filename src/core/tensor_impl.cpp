// SPDX-License-Identifier: BSD-3-Clause
#include "core/tensor_impl.h"

#include "core/error.h"
#include "core/shape.h"

namespace tc {

DispatchKey backend_key_for(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return DispatchKey::CPU;
    case DeviceType::CUDA: return DispatchKey::CUDA;
    case DeviceType::PrivateUse1: return DispatchKey::PrivateUse1;
  }
  return DispatchKey::CPU;
}

const char* dispatch_key_name(DispatchKey k) {
  switch (k) {
    case DispatchKey::CPU: return "CPU";
    case DispatchKey::CUDA: return "CUDA";
    case DispatchKey::PrivateUse1: return "PrivateUse1";
    case DispatchKey::Autograd: return "Autograd";
    case DispatchKey::Tracer: return "Tracer";
    case DispatchKey::Autocast: return "Autocast";
    case DispatchKey::Batched: return "Batched";
    case DispatchKey::CompositeExplicitAutograd: return "CompositeExplicitAutograd";
    case DispatchKey::CompositeImplicitAutograd: return "CompositeImplicitAutograd";
    case DispatchKey::Undefined: break;
  }
  return "Undefined";
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(strides),
      storage_offset_(storage_offset),
      dtype_(dtype),
      device_(storage_->device()),
      key_set_(backend_key_for(storage_->device().type)) {
  refresh();
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, Contiguous c)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(sizes.size()),
      numel_(c.numel),
      dtype_(dtype),
      device_(storage_->device()),
      key_set_(backend_key_for(storage_->device().type)) {
  // As contiguous_strides().
  int64_t s = 1;
  for (int64_t i = int64_t(sizes.size()) - 1; i >= 0; --i) {
    strides_[i] = s;
    if (__builtin_mul_overflow(s, sizes[i] > 1 ? sizes[i] : 1, &s)) s = INT64_MAX;
  }
}

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  sizes_.assign(sizes);
  strides_.assign(strides);
  storage_offset_ = storage_offset;
  refresh();
}

void TensorImpl::resize_contiguous(IntArrayRef sizes) {
  int64_t n = checked_numel(sizes, "resize_"), elems = 0, need = 0;
  TC_CHECK(!__builtin_add_overflow(storage_offset_, n, &elems) &&
               !__builtin_mul_overflow(elems, int64_t(element_size(dtype_)), &need),
           OutOfMemory, "resize_: sizes ", sizes, " need more bytes than fit in int64");
  if (size_t(need) > storage_->nbytes()) storage_->resize(size_t(need));
  sizes_.assign(sizes);
  strides_ = contiguous_strides(sizes);
  refresh();
}

void TensorImpl::refresh() {
  numel_ = 1;
  for (int64_t s : sizes_) numel_ *= s;
  is_contiguous_ = compute_is_contiguous(sizes_, strides_);
}

}  // namespace tc
