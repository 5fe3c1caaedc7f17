// SPDX-License-Identifier: BSD-3-Clause
#include "cuda/host_allocator.h"

#include <iterator>
#include <map>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "cuda/runtime.h"

namespace tc::cuda {
namespace {

struct Block {
  size_t size = 0;
  std::vector<Event> uses;  // events recorded after asynchronous copies
  bool freed = false;       // the tensor let go; waiting for `uses`
};

class HostAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr();
    const DriverApi& drv = driver("pin_memory");
    void* p = nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    release_finished();
    int err = drv.host_alloc(&p, nbytes);
    TC_CHECK(err == 0, OutOfMemory, "pin_memory: cudaHostAlloc of ", nbytes,
             " bytes of page-locked host memory failed: ", drv.error_string(err));
    blocks_[p].size = nbytes;
    return DataPtr(p, this, &HostAllocator::deleter, Device(DeviceType::CPU));
  }
  Device device() const override { return Device(DeviceType::CPU); }

  bool record_use(const void* p, Stream stream) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = containing(p);
    if (it == blocks_.end()) return false;
    Event e = 0;
    if (g_driver_api().event_record(&e, stream) != 0) {
      // No event: wait for the copy now rather than risk freeing under it.
      g_driver_api().stream_synchronize(stream);
      return true;
    }
    it->second.uses.push_back(e);
    return true;
  }

 private:
  static const DriverApi& g_driver_api() { return driver("pin_memory"); }

  static void deleter(void* ctx, void* p) noexcept {
    auto* self = static_cast<HostAllocator*>(ctx);
    std::lock_guard<std::mutex> lock(self->mu_);
    auto it = self->blocks_.find(p);
    if (it == self->blocks_.end()) return;
    it->second.freed = true;
    self->release_finished();
  }

  // The block holding p, or end().
  std::map<void*, Block>::iterator containing(const void* p) {
    auto it = blocks_.upper_bound(const_cast<void*>(p));
    if (it == blocks_.begin()) return blocks_.end();
    --it;
    const char* start = static_cast<const char*>(it->first);
    return static_cast<const char*>(p) < start + it->second.size ? it : blocks_.end();
  }

  // Drops finished events; returns freed blocks with none left to the system.
  void release_finished() noexcept {
    const DriverApi& drv = g_driver_api();
    for (auto it = blocks_.begin(); it != blocks_.end();) {
      Block& b = it->second;
      std::vector<Event> pending;
      for (Event e : b.uses) {
        if (drv.event_query(e) == 0)
          drv.event_destroy(e);
        else
          pending.push_back(e);  // not done (or an error: keep it, never free early)
      }
      b.uses.swap(pending);
      if (b.freed && b.uses.empty()) {
        drv.host_free(it->first);
        it = blocks_.erase(it);
      } else {
        ++it;
      }
    }
  }

  std::mutex mu_;
  std::map<void*, Block> blocks_;
};

HostAllocator& instance() {
  static HostAllocator* a = new HostAllocator;  // lives as long as the process, as the runtime
  return *a;
}

}  // namespace

Allocator& host_allocator() { return instance(); }

bool record_host_use(const void* p, Stream stream) { return instance().record_use(p, stream); }

}  // namespace tc::cuda
