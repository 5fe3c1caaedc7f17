// SPDX-License-Identifier: BSD-3-Clause
// A flat, refcounted buffer shared by a tensor and all its views.
#pragma once
#include <cstddef>

#include "core/allocator.h"
#include "core/intrusive_ptr.h"

namespace tc {

class StorageImpl : public RefCounted {
 public:
  // Library-owned, resizable storage of nbytes from `alloc`.
  StorageImpl(size_t nbytes, Allocator* alloc);
  // Storage over memory someone else owns; freed by the DataPtr's deleter.
  // Never resizable.
  StorageImpl(DataPtr data, size_t nbytes);

  void* data() const { return data_.data; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return data_.device; }
  bool resizable() const { return allocator_ != nullptr; }
  Allocator* allocator() const { return allocator_; }
  // Grows to at least nbytes, keeping contents. Throws if not resizable.
  void resize(size_t nbytes);

 private:
  DataPtr data_;
  size_t nbytes_;
  Allocator* allocator_;
};

using Storage = intrusive_ptr<StorageImpl>;

}  // namespace tc
