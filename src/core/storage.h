// SPDX-License-Identifier: BSD-3-Clause
// A flat, refcounted buffer shared by a tensor and all its views.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/allocator.h"
#include "core/intrusive_ptr.h"

namespace tc {

// Bumped by every write so autograd can detect that a tensor saved for
// backward was modified. It lives in the storage: a tensor and all its views
// (every tensor over the same memory) share it, and making a tensor costs no
// allocation for it.
struct VersionCounter {
  std::atomic<uint32_t> version{0};
};

class StorageImpl : public RefCounted {
 public:
  // Library-owned, resizable storage of nbytes from `alloc`. Small CPU
  // storages keep their bytes in the storage's own allocation (one malloc
  // and free per tensor, not two); the allocator's alignment holds for them.
  static intrusive_ptr<StorageImpl> create(size_t nbytes, Allocator* alloc);
  // Library-owned, resizable storage of nbytes from `alloc`.
  StorageImpl(size_t nbytes, Allocator* alloc);
  // Storage over memory someone else owns; freed by the DataPtr's deleter.
  // Never resizable.
  StorageImpl(DataPtr data, size_t nbytes);

  void* data() const { return data_.data; }
  const DataPtr& data_ptr() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return data_.device; }
  bool resizable() const { return allocator_ != nullptr; }
  Allocator* allocator() const { return allocator_; }
  // Grows to at least nbytes, keeping contents. Throws if not resizable.
  void resize(size_t nbytes);

  // Shared by every tensor over this storage (see VersionCounter).
  VersionCounter& version_counter() const { return version_; }

  // Plain operator new, and an unsized delete: create() allocates some
  // storages with their bytes after them.
  static void* operator new(size_t n) { return ::operator new(n); }
  static void operator delete(void* p) noexcept { ::operator delete(p); }

 private:
  StorageImpl(DataPtr data, size_t nbytes, Allocator* alloc);

  DataPtr data_;
  size_t nbytes_;
  Allocator* allocator_;
  mutable VersionCounter version_;
};

using Storage = intrusive_ptr<StorageImpl>;

}  // namespace tc
