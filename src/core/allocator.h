// SPDX-License-Identifier: BSD-3-Clause
// Memory for storages. An Allocator hands out DataPtrs that know how to free
// themselves, so storages over external memory (a user's buffer with a
// deleter, DLPack) and library memory look the same to everything above.
#pragma once
#include <cstddef>

#include "core/device.h"

namespace tc {

using DeleterFn = void (*)(void* ctx, void* data);

struct DataPtr {
  void* data = nullptr;
  void* ctx = nullptr;  // passed to deleter
  DeleterFn deleter = nullptr;
  Device device;

  DataPtr() = default;
  DataPtr(void* d, void* c, DeleterFn del, Device dev) : data(d), ctx(c), deleter(del), device(dev) {}
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& o) noexcept { *this = std::move(o); }
  DataPtr& operator=(DataPtr&& o) noexcept {
    if (this != &o) {
      clear();
      data = o.data;
      ctx = o.ctx;
      deleter = o.deleter;
      device = o.device;
      o.data = nullptr;
      o.ctx = nullptr;
      o.deleter = nullptr;
    }
    return *this;
  }
  ~DataPtr() { clear(); }
  void clear() {
    if (deleter) deleter(ctx, data);
    data = nullptr;
    ctx = nullptr;
    deleter = nullptr;
  }
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Throws Error(OutOfMemory) on failure. nbytes == 0 gives a null DataPtr.
  virtual DataPtr allocate(size_t nbytes) = 0;
  virtual Device device() const = 0;
};

// The CPU allocator: 64-byte aligned, reusing large freed blocks so that fresh
// large outputs do not pay first-touch page faults every time.
Allocator* cpu_allocator();
// Per-device-type registry (the CUDA library installs its allocator here).
Allocator* get_allocator(DeviceType t);
void set_allocator(DeviceType t, Allocator* a);
// Frees every cached block held by the CPU allocator.
void cpu_allocator_empty_cache();

}  // namespace tc
