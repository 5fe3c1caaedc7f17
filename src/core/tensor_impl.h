// SPDX-License-Identifier: BSD-3-Clause
// The tensor's body: storage + metadata. Views share the storage of their
// base, and with it the version counter.
#pragma once
#include <atomic>
#include <memory>

#include "core/dims.h"
#include "core/dispatch_key.h"
#include "core/dtype.h"
#include "core/storage.h"

namespace tc {

// Opaque to core: the autograd floor stores its per-tensor state here.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
  virtual bool requires_grad() const = 0;
};

class TensorImpl : public RefCounted {
 public:
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  // A fresh contiguous tensor at offset 0 whose element count (checked) is
  // known: strides, numel and contiguity without a second pass.
  struct Contiguous {
    int64_t numel;
  };
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, Contiguous c);

  // Metadata.
  int64_t dim() const { return int64_t(sizes_.size()); }
  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return device_; }
  bool is_contiguous() const { return is_contiguous_; }
  const Storage& storage() const { return storage_; }
  // Null for an empty storage, whatever the offset: views of empty tensors
  // (split, unbind) may carry an offset, and null + offset is undefined.
  void* data() const {
    char* base = static_cast<char*>(storage_->data());
    return base ? base + storage_offset_ * int64_t(element_size(dtype_)) : nullptr;
  }

  // Changes shape in place (views: metadata only; the caller checks bounds).
  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  // Resizes to a contiguous shape, growing the storage if needed.
  void resize_contiguous(IntArrayRef sizes);

  DispatchKeySet key_set() const { return key_set_; }
  void add_key(DispatchKey k) { key_set_ = key_set_.add(k); }
  void remove_key(DispatchKey k) { key_set_ = key_set_.remove(k); }

  // The storage's: shared with every view.
  VersionCounter& version_counter() const { return storage_->version_counter(); }
  uint32_t version() const { return version_counter().version.load(std::memory_order_relaxed); }
  void bump_version() { version_counter().version.fetch_add(1, std::memory_order_relaxed); }

  // Created lazily by the autograd floor while other threads may read it
  // (a shared leaf): published with release, read with acquire. Owned.
  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.load(std::memory_order_acquire); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) {
    delete autograd_meta_.exchange(m.release(), std::memory_order_acq_rel);
  }
  // For a tensor that has none, by one thread at a time (the caller
  // serializes creation): a plain release store, no exchange.
  void init_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) {
    autograd_meta_.store(m.release(), std::memory_order_release);
  }
  ~TensorImpl() override { delete autograd_meta_.load(std::memory_order_relaxed); }

  // A zero-dim tensor made from a Python/C number: loses to dimensioned and
  // zero-dim tensors in type promotion.
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool v) { wrapped_number_ = v; }

 private:
  void refresh();  // recompute numel and contiguity

  Storage storage_;
  DimVector sizes_, strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  Device device_;  // cached from the storage: read on every dispatch
  bool is_contiguous_ = true;
  bool wrapped_number_ = false;
  DispatchKeySet key_set_;
  std::atomic<AutogradMetaInterface*> autograd_meta_{nullptr};
};

DispatchKey backend_key_for(DeviceType t);

}  // namespace tc
