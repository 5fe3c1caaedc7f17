// SPDX-License-Identifier: BSD-3-Clause
#include "core/storage.h"

#include <cstdint>
#include <cstring>
#include <new>

#include "core/error.h"

namespace tc {
namespace {
// Storages up to this many bytes live in one allocation with their bytes.
constexpr size_t kInlineMaxBytes = 512;
// The CPU allocator's alignment, kept for inline bytes.
constexpr size_t kInlineAlignment = 64;
}  // namespace

intrusive_ptr<StorageImpl> StorageImpl::create(size_t nbytes, Allocator* alloc) {
  if (nbytes == 0 || nbytes > kInlineMaxBytes || alloc != cpu_allocator())
    return make_intrusive<StorageImpl>(nbytes, alloc);
  // [StorageImpl][padding to the alignment][nbytes rounded up, as the
  // allocator rounds]. Freed with the storage (operator delete); the DataPtr
  // has no deleter. Growing it later (resize) moves the bytes to the
  // allocator and leaves this space unused.
  const size_t rounded = (nbytes + kInlineAlignment - 1) & ~(kInlineAlignment - 1);
  void* mem = ::operator new(sizeof(StorageImpl) + kInlineAlignment - 1 + rounded);
  const auto after = reinterpret_cast<std::uintptr_t>(mem) + sizeof(StorageImpl);
  void* data = reinterpret_cast<void*>((after + kInlineAlignment - 1) & ~std::uintptr_t(kInlineAlignment - 1));
  return intrusive_ptr<StorageImpl>::adopt(
      ::new (mem) StorageImpl(DataPtr(data, nullptr, nullptr, alloc->device()), nbytes, alloc));
}

StorageImpl::StorageImpl(size_t nbytes, Allocator* alloc)
    : data_(alloc->allocate(nbytes)), nbytes_(nbytes), allocator_(alloc) {}

StorageImpl::StorageImpl(DataPtr data, size_t nbytes) : data_(std::move(data)), nbytes_(nbytes), allocator_(nullptr) {}

StorageImpl::StorageImpl(DataPtr data, size_t nbytes, Allocator* alloc)
    : data_(std::move(data)), nbytes_(nbytes), allocator_(alloc) {}

void StorageImpl::resize(size_t nbytes) {
  TC_CHECK(resizable(), Runtime, "resize: the tensor's storage wraps external memory and cannot be resized");
  if (nbytes <= nbytes_) return;
  DataPtr fresh = allocator_->allocate(nbytes);
  TC_CHECK(fresh.device.is_cpu() || nbytes_ == 0, NotImplemented, "resize: growing a non-empty storage on ",
           fresh.device, " is not supported");
  if (nbytes_) std::memcpy(fresh.data, data_.data, nbytes_);
  data_ = std::move(fresh);
  nbytes_ = nbytes;
}

}  // namespace tc
