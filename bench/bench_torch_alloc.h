// SPDX-License-Identifier: BSD-3-Clause
// "libtorch keeps freed memory" rows: the peer's call runs with a CPU
// allocator that keeps freed blocks of 128 KiB (glibc's default mmap
// threshold) or more for reuse by size, as tensorc's own allocator does from
// 1 MiB (src/core/allocator.cpp). libtorch's default
// CPU allocator hands every block to glibc, which returns blocks of 32 MiB or
// more to the kernel on free, so a fresh 64 MiB output costs page faults on
// every call. glibc cannot be told to keep them: 32 MiB is the highest
// M_MMAP_THRESHOLD it accepts (MALLOC_MMAP_THRESHOLD_=1G is ignored), and with
// M_MMAP_MAX 0 and trimming off its heap fragments (memalign's slack) and the
// times swung between 38 and 555 ms. The allocator is installed only around
// the peer's call (c10::SetCPUAllocator), so the plain libtorch rows and
// tensorc are untouched; a tensor frees through its own deleter.
#pragma once

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <new>

namespace bench {

class KeepingCpuAllocator final : public c10::Allocator {
 public:
  static KeepingCpuAllocator& instance() {
    static KeepingCpuAllocator a;
    return a;
  }
  c10::DataPtr allocate(size_t n) const override {
    if (n < kMin) return c10::GetDefaultCPUAllocator()->allocate(n);
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> g(mu_);
      auto it = cache_.find(n);
      if (it != cache_.end()) {
        p = it->second;
        cache_.erase(it);
      }
    }
    if (!p && posix_memalign(&p, 64, n) != 0) throw std::bad_alloc();
    return {p, new Block{p, n}, &KeepingCpuAllocator::release, c10::Device(c10::DeviceType::CPU)};
  }

 private:
  static constexpr size_t kMin = size_t(128) << 10;
  struct Block {
    void* p;
    size_t n;
  };
  static void release(void* ctx) {
    auto* b = static_cast<Block*>(ctx);
    {
      std::lock_guard<std::mutex> g(instance().mu_);
      instance().cache_.emplace(b->n, b->p);
    }
    delete b;
  }
  mutable std::mutex mu_;
  mutable std::multimap<size_t, void*> cache_;
};

// f, run with the keeping allocator installed as libtorch's CPU allocator.
inline std::function<void()> keeping_memory(std::function<void()> f) {
  return [f] {
    c10::SetCPUAllocator(&KeepingCpuAllocator::instance());
    f();
    c10::SetCPUAllocator(c10::GetDefaultCPUAllocator());
  };
}

}  // namespace bench
