// SPDX-License-Identifier: BSD-3-Clause
// Page-locked host memory for pin_memory and asynchronous copies. A block
// that an asynchronous copy used is not returned to the system before the
// copy is done: the copy records an event on its stream against the block
// (record_use), and a freed block waits until its events have happened
// (PyTorch's CachingHostAllocator keeps the same promise; this one does not
// cache).
#pragma once
#include <cstddef>

#include "core/allocator.h"
#include "cuda/driver_api.h"

namespace tc::cuda {

// The process's page-locked host allocator (CPU memory); the CUDA driver
// must be loaded.
Allocator& host_allocator();
// If p lies in a page-locked block of host_allocator(), work just queued on
// `stream` uses it: the block is freed only after that work. True when p is
// in such a block.
bool record_host_use(const void* p, Stream stream);

}  // namespace tc::cuda
