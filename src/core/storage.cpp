// SPDX-License-Identifier: BSD-3-Clause
#include "core/storage.h"

#include <cstring>

#include "core/error.h"

namespace tc {

StorageImpl::StorageImpl(size_t nbytes, Allocator* alloc)
    : data_(alloc->allocate(nbytes)), nbytes_(nbytes), allocator_(alloc) {}

StorageImpl::StorageImpl(DataPtr data, size_t nbytes) : data_(std::move(data)), nbytes_(nbytes), allocator_(nullptr) {}

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
