// SPDX-License-Identifier: BSD-3-Clause
#include "core/allocator.h"
#include "core/device_hooks.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

#include <sys/mman.h>

#include "core/error.h"

namespace tc {
namespace {

constexpr size_t kAlignment = 64;
// Blocks at least this big are cached on free: below it malloc is cheap and
// page faults are not the cost that matters.
constexpr size_t kCacheMin = size_t(1) << 20;
// Blocks at least this big are 2 MiB-aligned, rounded up to whole 2 MiB pages
// and marked for transparent huge pages (where the kernel's setting is
// "madvise", as on Debian, nothing else gets them): a streaming loop over
// 4 KiB pages pays a TLB miss every 4 KiB, which costs 10-25% of a
// memory-bound op's time. At most a third of a block is rounding.
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kHugeMin = size_t(4) << 20;
// Cached bytes beyond this are returned to the system.
constexpr size_t kCacheLimit = size_t(1) << 30;
// malloc's alignment is at least alignof(max_align_t): that much less than
// kAlignment more is enough to find an aligned address inside its block.
constexpr size_t kMallocSlack = kAlignment - alignof(std::max_align_t);

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::CPU));
    // No machine has half the address space to give; below that, the
    // roundings cannot wrap around.
    TC_CHECK(nbytes <= SIZE_MAX / 2, OutOfMemory, "allocate: ", nbytes, " bytes is too large");
    size_t rounded = (nbytes + kAlignment - 1) & ~(kAlignment - 1);
    if (rounded >= kHugeMin) rounded = (rounded + kHugePage - 1) & ~(kHugePage - 1);
    if (rounded >= kCacheMin) {
      std::lock_guard<std::mutex> g(mu_);
      auto it = cache_.find(rounded);  // exact size only: no fragmentation games
      if (it != cache_.end()) {
        void* p = it->second;
        cache_.erase(it);
        cached_bytes_ -= rounded;
        return DataPtr(p, reinterpret_cast<void*>(rounded), &CpuAllocator::free_cached, Device(DeviceType::CPU));
      }
    }
    if (rounded >= kCacheMin) {
      const bool huge = rounded >= kHugeMin;
      void* p = std::aligned_alloc(huge ? kHugePage : kAlignment, rounded);
      TC_CHECK(p != nullptr, OutOfMemory, "allocate: out of memory allocating ", nbytes, " bytes on cpu");
      if (huge) madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failure (no THP) changes nothing
      return DataPtr(p, reinterpret_cast<void*>(rounded), &CpuAllocator::free_cached, Device(DeviceType::CPU));
    }
    // Smaller blocks: plain malloc, over-allocated by enough to align inside
    // it. aligned_alloc would be glibc's memalign path, which allocates more,
    // splits and frees the slack on every call and bypasses the per-thread
    // cache; malloc's fast path is much cheaper for the many small tensors.
    void* raw = std::malloc(rounded + kMallocSlack);
    TC_CHECK(raw != nullptr, OutOfMemory, "allocate: out of memory allocating ", nbytes, " bytes on cpu");
    const auto addr = reinterpret_cast<std::uintptr_t>(raw);
    void* p = reinterpret_cast<void*>((addr + kAlignment - 1) & ~std::uintptr_t(kAlignment - 1));
    return DataPtr(p, raw, &CpuAllocator::free_plain, Device(DeviceType::CPU));
  }
  Device device() const override { return Device(DeviceType::CPU); }

  void empty_cache() {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& kv : cache_) std::free(kv.second);
    cache_.clear();
    cached_bytes_ = 0;
  }

 private:
  static void free_plain(void* raw, void*) { std::free(raw); }  // ctx: what malloc returned
  static void free_cached(void* ctx, void* data);

  std::mutex mu_;
  std::multimap<size_t, void*> cache_;
  size_t cached_bytes_ = 0;
  friend CpuAllocator& instance();
};

CpuAllocator& instance() {
  static CpuAllocator* a = new CpuAllocator();  // leaked: outlives static destructors
  return *a;
}

void CpuAllocator::free_cached(void* ctx, void* data) {
  size_t size = reinterpret_cast<size_t>(ctx);
  CpuAllocator& a = instance();
  std::lock_guard<std::mutex> g(a.mu_);
  if (a.cached_bytes_ + size > kCacheLimit) {
    std::free(data);
    return;
  }
  a.cache_.emplace(size, data);
  a.cached_bytes_ += size;
}

Allocator* g_allocators[16] = {};

int slot(DeviceType t) { return int(t) & 15; }

}  // namespace

Allocator* cpu_allocator() { return &instance(); }
void cpu_allocator_empty_cache() { instance().empty_cache(); }

Allocator* get_allocator(DeviceType t) {
  if (t == DeviceType::CPU) return cpu_allocator();
  Allocator* a = g_allocators[slot(t)];
  if (a == nullptr && t == DeviceType::CUDA) {
    // The first CUDA allocation loads the backend, which installs its allocator.
    std::string why;
    TC_CHECK(load_backend(t, &why), Device, "cuda is not available: ", why);
    a = g_allocators[slot(t)];
  }
  TC_CHECK(a != nullptr, Device, "no allocator for device type ", device_type_name(t),
           " (is its backend library loaded?)");
  return a;
}

void set_allocator(DeviceType t, Allocator* a) { g_allocators[slot(t)] = a; }

}  // namespace tc
