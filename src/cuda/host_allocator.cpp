// SPDX-License-Identifier: BSD-3-Clause
#include "cuda/host_allocator.h"

#include <atomic>
#include <map>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "cuda/runtime.h"

namespace tc::cuda {
namespace {

struct Block {
  size_t size = 0;
  std::vector<Event> uses;  // events recorded after asynchronous copies, not yet seen done
  bool freed = false;       // the tensors let go; waiting for `uses`
};

class HostAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr();
    const DriverApi& drv = api();
    void* p = nullptr;
    int err = drv.host_alloc(&p, nbytes);
    if (err != 0) {  // blocks waiting for their copies may be holding the memory
      free_blocks(sweep());
      err = drv.host_alloc(&p, nbytes);
    }
    TC_CHECK(err == 0, OutOfMemory, "pin_memory: cudaHostAlloc of ", nbytes,
             " bytes of page-locked host memory failed: ", drv.error_string(err));
    try {
      std::lock_guard<std::mutex> lock(mu_);
      blocks_[p].size = nbytes;
    } catch (...) {
      drv.host_free(p);
      throw;
    }
    return DataPtr(p, this, &HostAllocator::deleter, Device(DeviceType::CPU));
  }
  Device device() const override { return Device(DeviceType::CPU); }

  bool record_use(const void* p, Stream stream) {
    const DriverApi& drv = api();
    std::lock_guard<std::mutex> lock(mu_);
    auto it = containing(p);
    if (it == blocks_.end()) return false;
    drop_done(it->second);  // a buffer reused for many copies keeps few events
    Event e = 0;
    if (drv.event_record(&e, stream) != 0) {
      if (e != 0) drv.event_destroy(e);
      // No event: wait for the copy now rather than risk freeing under it.
      drv.stream_synchronize(stream);
      return true;
    }
    it->second.uses.push_back(e);
    return true;
  }

 private:
  // The driver table, kept from the first allocation: the deleter may run at
  // exit, when looking it up again is not safe.
  const DriverApi& api() {
    const DriverApi* d = api_.load(std::memory_order_acquire);
    if (d == nullptr) {
      d = &driver("pin_memory");
      api_.store(d, std::memory_order_release);
    }
    return *d;
  }

  static void deleter(void* ctx, void* p) noexcept {
    auto* self = static_cast<HostAllocator*>(ctx);
    std::vector<void*> done;
    {
      std::lock_guard<std::mutex> lock(self->mu_);
      auto it = self->blocks_.find(p);
      if (it == self->blocks_.end()) return;
      it->second.freed = true;
      done = self->sweep_locked();
    }
    self->free_blocks(done);
  }

  // The block holding p, or end().
  std::map<void*, Block>::iterator containing(const void* p) {
    auto it = blocks_.upper_bound(const_cast<void*>(p));
    if (it == blocks_.begin()) return blocks_.end();
    --it;
    const char* start = static_cast<const char*>(it->first);
    return static_cast<const char*>(p) < start + it->second.size ? it : blocks_.end();
  }

  // Destroys b's events that have happened. Any other answer than "done"
  // (not ready, or an error) keeps the event: a block is never freed early.
  void drop_done(Block& b) noexcept {
    const DriverApi& drv = *api_.load(std::memory_order_acquire);
    std::vector<Event> pending;
    for (Event e : b.uses) {
      if (drv.event_query(e) == 0)
        drv.event_destroy(e);
      else
        pending.push_back(e);
    }
    b.uses.swap(pending);
  }

  // Under mu_: forgets the freed blocks whose copies are all done and returns
  // them, for free_blocks to hand back outside the lock (cudaFreeHost waits
  // for the device).
  std::vector<void*> sweep_locked() noexcept {
    std::vector<void*> done;
    for (auto it = blocks_.begin(); it != blocks_.end();) {
      if (!it->second.freed) {
        ++it;
        continue;
      }
      drop_done(it->second);
      if (it->second.uses.empty()) {
        done.push_back(it->first);
        it = blocks_.erase(it);
      } else {
        ++it;
      }
    }
    return done;
  }
  std::vector<void*> sweep() {
    std::lock_guard<std::mutex> lock(mu_);
    return sweep_locked();
  }
  void free_blocks(const std::vector<void*>& blocks) noexcept {
    const DriverApi* drv = api_.load(std::memory_order_acquire);
    for (void* p : blocks) drv->host_free(p);
  }

  std::mutex mu_;
  std::map<void*, Block> blocks_;
  std::atomic<const DriverApi*> api_{nullptr};
};

HostAllocator& instance() {
  static HostAllocator* a = new HostAllocator;  // lives as long as the process, as the runtime
  return *a;
}

}  // namespace

Allocator& host_allocator() { return instance(); }

bool record_host_use(const void* p, Stream stream) { return instance().record_use(p, stream); }

}  // namespace tc::cuda
