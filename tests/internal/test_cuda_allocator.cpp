// SPDX-License-Identifier: BSD-3-Clause
// The CUDA caching allocator (src/cuda/caching_allocator.cpp) over a fake
// device made of host memory, so it runs without a GPU or libcudart: size
// rounding and pools, splitting and merging, best fit, per-stream reuse and
// record_stream, empty_cache, the out-of-memory retry and message, the
// statistics, bad frees, several threads at once, and the tc::Allocator
// adapter. Also prints what a cached malloc+free costs.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <chrono>
#include <thread>
#include <vector>

#include "core/allocator.h"
#include "core/error.h"
#include "cuda/caching_allocator.h"

namespace {

using namespace tc::cuda;
using BlockState = SegmentInfo::BlockState;

constexpr size_t KiB = size_t(1) << 10;
constexpr size_t MiB = size_t(1) << 20;

// A device over host memory with a fixed capacity. Events complete only when
// the test says so (complete_stream, or auto_complete_events), in the order
// recorded on each stream, as on a real device; synchronize completes all.
class FakeDevice final : public DeviceMemoryApi {
 public:
  explicit FakeDevice(size_t capacity = 256 * MiB) : capacity_(capacity) {}
  ~FakeDevice() override {
    for (auto& [ptr, size] : segments_) std::free(ptr);
  }

  bool malloc(void** ptr, size_t nbytes) override {
    std::lock_guard<std::mutex> g(mu_);
    ++malloc_calls_;
    if (fail_mallocs_ > 0) {
      --fail_mallocs_;
      return false;
    }
    if (nbytes > capacity_ - used_) return false;
    void* p = std::aligned_alloc(kMinBlockSize, nbytes);
    if (!p) return false;
    segments_[p] = nbytes;
    used_ += nbytes;
    *ptr = p;
    return true;
  }
  void free(void* ptr) override {
    std::lock_guard<std::mutex> g(mu_);
    auto it = segments_.find(ptr);
    if (it == segments_.end()) {
      ADD_FAILURE() << "device free of " << ptr << ", which is not a segment";
      return;
    }
    used_ -= it->second;
    segments_.erase(it);
    std::free(ptr);
    ++free_calls_;
  }
  void mem_info(size_t* free_bytes, size_t* total_bytes) override {
    std::lock_guard<std::mutex> g(mu_);
    *free_bytes = capacity_ - used_;
    *total_bytes = capacity_;
  }
  EventHandle record_event(StreamHandle stream) override {
    std::lock_guard<std::mutex> g(mu_);
    const EventHandle e = ++last_event_;
    events_[e] = Event{stream, auto_complete_};
    return e;
  }
  bool event_done(EventHandle e) override {
    std::lock_guard<std::mutex> g(mu_);
    auto it = events_.find(e);
    if (it == events_.end()) {
      ADD_FAILURE() << "query of event " << e << ", which does not exist";
      return true;
    }
    return it->second.done;
  }
  void destroy_event(EventHandle e) override {
    std::lock_guard<std::mutex> g(mu_);
    if (events_.erase(e) != 1) ADD_FAILURE() << "destroy of event " << e << ", which does not exist";
  }
  void synchronize() override {
    std::lock_guard<std::mutex> g(mu_);
    ++synchronize_calls_;
    for (auto& [e, ev] : events_) ev.done = true;
  }

  // Controls and observations for the tests.
  void complete_stream(StreamHandle stream) {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [e, ev] : events_)
      if (ev.stream == stream) ev.done = true;
  }
  void set_auto_complete_events(bool on) {
    std::lock_guard<std::mutex> g(mu_);
    auto_complete_ = on;
  }
  void fail_next_mallocs(int n) {
    std::lock_guard<std::mutex> g(mu_);
    fail_mallocs_ = n;
  }
  size_t used() {
    std::lock_guard<std::mutex> g(mu_);
    return used_;
  }
  int malloc_calls() {
    std::lock_guard<std::mutex> g(mu_);
    return malloc_calls_;
  }
  int free_calls() {
    std::lock_guard<std::mutex> g(mu_);
    return free_calls_;
  }
  int synchronize_calls() {
    std::lock_guard<std::mutex> g(mu_);
    return synchronize_calls_;
  }
  size_t live_events() {
    std::lock_guard<std::mutex> g(mu_);
    return events_.size();
  }

 private:
  struct Event {
    StreamHandle stream;
    bool done;
  };
  std::mutex mu_;
  size_t capacity_;
  size_t used_ = 0;
  std::map<void*, size_t> segments_;
  std::map<EventHandle, Event> events_;
  EventHandle last_event_ = 0;
  bool auto_complete_ = false;
  int fail_mallocs_ = 0;
  int malloc_calls_ = 0;
  int free_calls_ = 0;
  int synchronize_calls_ = 0;
};

char* at(void* p, size_t offset) { return static_cast<char*>(p) + offset; }

// The one segment the allocator holds.
SegmentInfo only_segment(const DeviceCachingAllocator& a) {
  auto segments = a.snapshot();
  EXPECT_EQ(segments.size(), 1u);
  return segments.empty() ? SegmentInfo{} : segments[0];
}

void expect_whole_and_free(const DeviceCachingAllocator& a, size_t segment_bytes) {
  SegmentInfo s = only_segment(a);
  EXPECT_EQ(s.size, segment_bytes);
  ASSERT_EQ(s.blocks.size(), 1u);
  EXPECT_EQ(s.blocks[0].size, segment_bytes);
  EXPECT_EQ(s.blocks[0].state, BlockState::Free);
}

TEST(CudaCachingAllocator, RoundingAndSegmentSizes) {
  EXPECT_EQ(round_size(1), 512u);
  EXPECT_EQ(round_size(512), 512u);
  EXPECT_EQ(round_size(513), 1024u);
  EXPECT_EQ(round_size(MiB + 1), MiB + 512);
  EXPECT_EQ(segment_size(512), 2 * MiB);
  EXPECT_EQ(segment_size(MiB), 2 * MiB);
  EXPECT_EQ(segment_size(MiB + 512), 20 * MiB);
  EXPECT_EQ(segment_size(10 * MiB - 512), 20 * MiB);
  EXPECT_EQ(segment_size(10 * MiB), 10 * MiB);
  EXPECT_EQ(segment_size(10 * MiB + 512), 12 * MiB);
  EXPECT_EQ(segment_size(31 * MiB), 32 * MiB);

  FakeDevice dev;
  DeviceCachingAllocator a(&dev, 0);
  void* p = a.malloc(1, 0);
  void* q = a.malloc(513, 0);
  EXPECT_EQ(a.stats().allocated_bytes.current, int64_t(512 + 1024));
  EXPECT_EQ(at(q, 0), at(p, 512));  // carved one after the other
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 512, 0u);
  a.free(p);
  a.free(q);
}

TEST(CudaCachingAllocator, SmallAndLargePools) {
  FakeDevice dev;
  DeviceCachingAllocator a(&dev, 0);
  struct Case {
    size_t request, segment;
    bool small;
  };
  const Case cases[] = {
      {MiB, 2 * MiB, true}, {MiB + 1, 20 * MiB, false}, {10 * MiB, 10 * MiB, false}, {11 * MiB, 12 * MiB, false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.request);
    void* p = a.malloc(c.request, 0);
    SegmentInfo s = only_segment(a);
    EXPECT_EQ(s.address, reinterpret_cast<std::uintptr_t>(p));
    EXPECT_EQ(s.size, c.segment);
    EXPECT_EQ(s.small_pool, c.small);
    a.free(p);
    a.empty_cache();
  }
  // A small request never takes a block from the large pool and vice versa.
  void* large = a.malloc(2 * MiB, 0);
  a.free(large);
  void* small = a.malloc(4 * KiB, 0);
  EXPECT_EQ(a.stats().segments.current, 2);
  a.free(small);
  void* large_again = a.malloc(2 * MiB, 0);
  EXPECT_EQ(large_again, large);
  a.free(large_again);
  EXPECT_EQ(a.stats().num_device_mallocs, 4 + 2);
}

TEST(CudaCachingAllocator, SplitThresholds) {
  FakeDevice dev;
  DeviceCachingAllocator a(&dev, 0);
  // Large pool: a remainder of exactly 1 MiB is not split off.
  void* p = a.malloc(19 * MiB, 0);
  EXPECT_EQ(only_segment(a).blocks.size(), 1u);
  EXPECT_EQ(a.stats().allocated_bytes.current, int64_t(20 * MiB));
  a.free(p);
  p = a.malloc(18 * MiB, 0);  // 2 MiB left: split
  ASSERT_EQ(only_segment(a).blocks.size(), 2u);
  EXPECT_EQ(only_segment(a).blocks[1].size, 2 * MiB);
  EXPECT_EQ(a.stats().allocated_bytes.current, int64_t(18 * MiB));
  a.free(p);
  a.empty_cache();
  // Small pool: any remainder of 512 bytes or more is split off.
  void* b1 = a.malloc(MiB, 0);
  void* b2 = a.malloc(MiB - 512, 0);
  void* b3 = a.malloc(512, 0);
  EXPECT_EQ(b2, at(b1, MiB));
  EXPECT_EQ(b3, at(b1, 2 * MiB - 512));
  EXPECT_EQ(a.stats().segments.current, 1);
  void* b4 = a.malloc(512, 0);  // the segment is full
  EXPECT_EQ(a.stats().segments.current, 2);
  for (void* b : {b1, b2, b3, b4}) a.free(b);
}

// A, B, C from one segment, freed in every order: the segment is whole again
// and serves a request as big as the pool allows without a device call.
TEST(CudaCachingAllocator, SplitAndMergeInEveryOrder) {
  struct Pool {
    size_t piece, segment, big_request;
  };
  for (Pool pool : {Pool{1000, 2 * MiB, MiB}, Pool{3 * MiB, 20 * MiB, 19 * MiB}}) {
    SCOPED_TRACE(pool.piece);
    std::vector<int> order = {0, 1, 2};
    do {
      FakeDevice dev;
      DeviceCachingAllocator a(&dev, 0);
      void* blocks[3];
      for (void*& b : blocks) b = a.malloc(pool.piece, 0);
      const size_t step = round_size(pool.piece);
      EXPECT_EQ(blocks[1], at(blocks[0], step));
      EXPECT_EQ(blocks[2], at(blocks[0], 2 * step));
      ASSERT_EQ(only_segment(a).blocks.size(), 4u);  // A, B, C and the rest
      for (int i : order) a.free(blocks[i]);
      expect_whole_and_free(a, pool.segment);
      void* big = a.malloc(pool.big_request, 0);
      EXPECT_EQ(big, blocks[0]);
      EXPECT_EQ(a.stats().num_device_mallocs, 1);
      a.free(big);
      expect_whole_and_free(a, pool.segment);
    } while (std::next_permutation(order.begin(), order.end()));
  }
}

TEST(CudaCachingAllocator, BestFitPicksTheSmallestBlockThatFits) {
  FakeDevice dev;
  DeviceCachingAllocator a(&dev, 0);
  // Free blocks of 4, 8 and 16 KiB kept apart by allocated 512-byte blocks.
  void* k4 = a.malloc(4 * KiB, 0);
  void* fence1 = a.malloc(512, 0);
  void* k8 = a.malloc(8 * KiB, 0);
  void* fence2 = a.malloc(512, 0);
  void* k16 = a.malloc(16 * KiB, 0);
  void* fence3 = a.malloc(512, 0);
  a.free(k16);
  a.free(k4);
  a.free(k8);
  void* p = a.malloc(6 * KiB, 0);
  EXPECT_EQ(p, k8);
  void* q = a.malloc(2 * KiB, 0);  // the 2 KiB left of the 8 KiB block
  EXPECT_EQ(q, at(k8, 6 * KiB));
  void* r = a.malloc(4 * KiB, 0);
  EXPECT_EQ(r, k4);
  for (void* b : {fence1, fence2, fence3, p, q, r}) a.free(b);
  expect_whole_and_free(a, 2 * MiB);
}

TEST(CudaCachingAllocator, BlocksAreReusedOnlyOnTheirStream) {
  FakeDevice dev;
  DeviceCachingAllocator a(&dev, 0);
  const StreamHandle s1 = 0x100, s2 = 0x200;
  void* p = a.malloc(1000, s1);
  a.free(p);
  void* q = a.malloc(1000, s2);
  EXPECT_NE(q, p);
  EXPECT_EQ(a.stats().num_device_mallocs, 2);
  void* r = a.malloc(1000, s1);
  EXPECT_EQ(r, p);
  auto segments = a.snapshot();
  ASSERT_EQ(segments.size(), 2u);
  EXPECT_NE(segments[0].stream, segments[1].stream);
  a.free(q);
  a.free(r);
  EXPECT_EQ(dev.live_events(), 0u);  // no record_stream, no events
}

TEST(CudaCachingAllocator, RecordStreamDefersReuseUntilTheEventIsDone) {
  FakeDevice dev;
  DeviceCachingAllocator a(&dev, 0);
  const StreamHandle s1 = 0x100, s2 = 0x200;
  void* p = a.malloc(1000, s1);
  a.record_stream(p, s2);
  a.record_stream(p, s2);  // once is enough
  a.record_stream(p, s1);  // the allocation stream needs no event
  a.free(p);
  EXPECT_EQ(dev.live_events(), 1u);
  EXPECT_EQ(a.stats().allocated_bytes.current, 0);  // no longer handed out...
  EXPECT_EQ(only_segment(a).blocks[0].state, BlockState::AwaitingEvents);

  void* q = a.malloc(1000, s1);  // ...but not reusable yet
  EXPECT_NE(q, p);
  EXPECT_EQ(q, at(p, 1024));
  a.free(q);
  EXPECT_EQ(only_segment(a).blocks.size(), 2u);  // q merged with the rest; p not

  dev.complete_stream(s2);
  void* r = a.malloc(1000, s1);  // events are looked at on malloc
  EXPECT_EQ(r, p);
  EXPECT_EQ(dev.live_events(), 0u);
  a.free(r);
  expect_whole_and_free(a, 2 * MiB);
  EXPECT_EQ(a.stats().num_device_mallocs, 1);
  EXPECT_EQ(dev.synchronize_calls(), 0);
}

TEST(CudaCachingAllocator, RecordStreamWaitsForEveryStream) {
  FakeDevice dev;
  DeviceCachingAllocator a(&dev, 0);
  const StreamHandle s2 = 2, s3 = 3;
  void* p = a.malloc(3 * MiB, 0);
  a.record_stream(p, s2);
  a.record_stream(p, s3);
  a.free(p);
  EXPECT_EQ(dev.live_events(), 2u);
  dev.complete_stream(s2);
  void* q = a.malloc(3 * MiB, 0);
  EXPECT_NE(q, p);
  EXPECT_EQ(dev.live_events(), 1u);  // s2's event is released once seen done
  dev.complete_stream(s3);
  void* r = a.malloc(3 * MiB, 0);
  EXPECT_EQ(r, p);
  EXPECT_EQ(dev.live_events(), 0u);
  a.free(q);
  a.free(r);
  expect_whole_and_free(a, 20 * MiB);
}

TEST(CudaCachingAllocator, EmptyCacheWaitsForPendingEvents) {
  FakeDevice dev;
  DeviceCachingAllocator a(&dev, 0);
  void* p = a.malloc(1000, 0);
  a.record_stream(p, 5);
  a.free(p);
  a.empty_cache();
  EXPECT_EQ(dev.synchronize_calls(), 1);
  EXPECT_EQ(dev.live_events(), 0u);
  EXPECT_EQ(a.stats().reserved_bytes.current, 0);
  EXPECT_TRUE(a.snapshot().empty());
  a.empty_cache();  // nothing pending: no synchronize
  EXPECT_EQ(dev.synchronize_calls(), 1);
}

TEST(CudaCachingAllocator, EmptyCacheReleasesOnlyWhollyFreeSegments) {
  FakeDevice dev;
  DeviceCachingAllocator a(&dev, 0);
  void* small_used = a.malloc(1000, 0);      // 2 MiB segment, partly used
  void* large_used = a.malloc(2 * MiB, 0);   // 20 MiB segment, partly used
  void* large_free = a.malloc(30 * MiB, 0);  // 30 MiB segment
  void* small_free = a.malloc(1000, 7);      // 2 MiB segment on stream 7
  void* split_free = a.malloc(3 * MiB, 0);   // from the 20 MiB segment, then freed
  a.free(large_free);
  a.free(small_free);
  a.free(split_free);
  EXPECT_EQ(a.stats().reserved_bytes.current, int64_t(2 * MiB + 20 * MiB + 30 * MiB + 2 * MiB));
  a.empty_cache();
  EXPECT_EQ(a.stats().reserved_bytes.current, int64_t(2 * MiB + 20 * MiB));
  EXPECT_EQ(a.stats().num_device_frees, 2);
  EXPECT_EQ(dev.free_calls(), 2);
  EXPECT_EQ(dev.used(), 22 * MiB);
  a.free(small_used);
  a.free(large_used);
  a.empty_cache();
  EXPECT_EQ(a.stats().reserved_bytes.current, 0);
  EXPECT_EQ(a.stats().segments.current, 0);
  EXPECT_EQ(dev.free_calls(), 4);
  EXPECT_EQ(dev.used(), 0u);
}

TEST(CudaCachingAllocator, DeviceOutOfMemoryReleasesTheCacheAndRetries) {
  FakeDevice dev(40 * MiB);
  DeviceCachingAllocator a(&dev, 0);
  void* big = a.malloc(30 * MiB, 0);
  a.free(big);  // 30 MiB cached on stream 0
  // Another stream cannot use it, and the device has only 10 MiB left.
  void* p = a.malloc(20 * MiB, 1);
  ASSERT_NE(p, nullptr);
  AllocatorStats s = a.stats();
  EXPECT_EQ(s.num_device_mallocs, 2);
  EXPECT_EQ(s.num_device_frees, 1);
  EXPECT_EQ(s.num_alloc_retries, 1);
  EXPECT_EQ(s.num_ooms, 0);
  EXPECT_EQ(s.reserved_bytes.current, int64_t(20 * MiB));
  EXPECT_EQ(dev.malloc_calls(), 3);  // 30 MiB, 20 MiB refused, 20 MiB again
  a.free(p);

  // The failure switch: one refusal, then the retry succeeds.
  dev.fail_next_mallocs(1);
  void* q = a.malloc(50 * KiB, 0);
  ASSERT_NE(q, nullptr);
  s = a.stats();
  EXPECT_EQ(s.num_device_mallocs, 3);
  EXPECT_EQ(s.num_device_frees, 2);  // the cached 20 MiB went back first
  EXPECT_EQ(s.num_alloc_retries, 2);
  EXPECT_EQ(s.reserved_bytes.current, int64_t(2 * MiB));
  EXPECT_EQ(dev.malloc_calls(), 5);
  a.free(q);
}

TEST(CudaCachingAllocator, OutOfMemoryErrorSaysWhatWasAskedAndWhatIsHeld) {
  FakeDevice dev(64 * MiB);
  DeviceCachingAllocator a(&dev, 0);
  void* held = a.malloc(8 * MiB, 0);  // a 20 MiB segment, 8 MiB of it used
  void* cached = a.malloc(30 * MiB, 0);
  a.free(cached);  // released by the retry
  try {
    a.malloc(100 * MiB, 0);
    FAIL() << "expected an out-of-memory error";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), tc::ErrorCode::OutOfMemory);
    const std::string msg = e.what();
    SCOPED_TRACE(msg);
    EXPECT_NE(msg.find("cuda:0"), std::string::npos);
    EXPECT_NE(msg.find("100.00 MiB (104857600 bytes)"), std::string::npos);                  // asked
    EXPECT_NE(msg.find("44.00 MiB (46137344 bytes) free of 64.00 MiB"), std::string::npos);  // device
    EXPECT_NE(msg.find("20.00 MiB (20971520 bytes) reserved"), std::string::npos);           // cache
    EXPECT_NE(msg.find("8.00 MiB (8388608 bytes) is allocated"), std::string::npos);
    EXPECT_NE(msg.find("12.00 MiB (12582912 bytes) is cached"), std::string::npos);
  }
  AllocatorStats s = a.stats();
  EXPECT_EQ(s.num_ooms, 1);
  EXPECT_EQ(s.num_alloc_retries, 1);
  EXPECT_EQ(s.num_device_frees, 1);
  EXPECT_EQ(dev.malloc_calls(), 4);

  // Both tries refused by the switch: the same error, and still usable after.
  dev.fail_next_mallocs(2);
  EXPECT_THROW(a.malloc(4 * KiB, 0), tc::Error);
  EXPECT_EQ(a.stats().num_ooms, 2);
  void* p = a.malloc(4 * KiB, 0);
  a.free(p);
  a.free(held);
  // Sizes that cannot be rounded fail before the device is asked.
  const int calls = dev.malloc_calls();
  try {
    a.malloc(SIZE_MAX, 0);
    FAIL() << "expected an out-of-memory error";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), tc::ErrorCode::OutOfMemory);
  }
  EXPECT_EQ(dev.malloc_calls(), calls);
}

TEST(CudaCachingAllocator, StatsPeaksAndResets) {
  FakeDevice dev;
  DeviceCachingAllocator a(&dev, 0);
  void* p = a.malloc(1000, 0);     // 1024 of a 2 MiB segment
  void* q = a.malloc(3 * MiB, 0);  // 3 MiB of a 20 MiB segment
  AllocatorStats s = a.stats();
  EXPECT_EQ(s.allocated_bytes.current, int64_t(1024 + 3 * MiB));
  EXPECT_EQ(s.reserved_bytes.current, int64_t(22 * MiB));
  EXPECT_EQ(s.allocations.current, 2);
  EXPECT_EQ(s.segments.current, 2);
  a.free(q);
  s = a.stats();
  EXPECT_EQ(s.allocated_bytes.current, 1024);
  EXPECT_EQ(s.allocated_bytes.peak, int64_t(1024 + 3 * MiB));
  EXPECT_EQ(s.allocations.peak, 2);
  a.empty_cache();
  s = a.stats();
  EXPECT_EQ(s.reserved_bytes.current, int64_t(2 * MiB));
  EXPECT_EQ(s.reserved_bytes.peak, int64_t(22 * MiB));
  EXPECT_EQ(s.num_device_mallocs, 2);
  EXPECT_EQ(s.num_device_frees, 1);

  a.reset_peak_stats();
  s = a.stats();
  EXPECT_EQ(s.allocated_bytes.peak, 1024);
  EXPECT_EQ(s.reserved_bytes.peak, int64_t(2 * MiB));
  EXPECT_EQ(s.segments.peak, 1);
  EXPECT_EQ(s.num_device_mallocs, 2);  // accumulated counts stay

  a.reset_accumulated_stats();
  s = a.stats();
  EXPECT_EQ(s.num_device_mallocs, 0);
  EXPECT_EQ(s.num_device_frees, 0);
  EXPECT_EQ(s.num_alloc_retries, 0);
  EXPECT_EQ(s.num_ooms, 0);
  EXPECT_EQ(s.allocated_bytes.current, 1024);  // current values stay
  a.free(p);
  EXPECT_EQ(a.stats().allocated_bytes.current, 0);
  EXPECT_EQ(a.stats().allocated_bytes.peak, 1024);
}

TEST(CudaCachingAllocator, ZeroBytesAndNullptrDoNotTouchTheDevice) {
  FakeDevice dev;
  DeviceCachingAllocator a(&dev, 0);
  EXPECT_EQ(a.malloc(0, 0), nullptr);
  a.free(nullptr);
  a.record_stream(nullptr, 3);
  EXPECT_EQ(dev.malloc_calls(), 0);
  EXPECT_EQ(a.stats().allocations.peak, 0);
}

TEST(CudaCachingAllocator, FreeingAnUnknownPointerIsAnError) {
  FakeDevice dev;
  DeviceCachingAllocator a(&dev, 0);
  auto expect_invalid = [](auto&& fn, const char* what) {
    try {
      fn();
      ADD_FAILURE() << what << ": expected an error";
    } catch (const tc::Error& e) {
      EXPECT_EQ(e.code(), tc::ErrorCode::InvalidArgument) << what;
      EXPECT_NE(std::string(e.what()).find("not allocated by the caching allocator of cuda:0"), std::string::npos)
          << e.what();
    }
  };
  int on_stack = 0;
  expect_invalid([&] { a.free(&on_stack); }, "a host pointer");
  void* p = a.malloc(1000, 0);
  expect_invalid([&] { a.free(at(p, 512)); }, "inside a block");
  expect_invalid([&] { a.record_stream(&on_stack, 1); }, "record_stream");
  a.free(p);
  expect_invalid([&] { a.free(p); }, "a double free");
  EXPECT_EQ(a.stats().allocated_bytes.current, 0);
  expect_whole_and_free(a, 2 * MiB);
}

// Threads allocate, tag, check and free random sizes on their own stream and
// the shared default stream, with record_stream and empty_cache mixed in.
TEST(CudaCachingAllocator, ManyThreads) {
  FakeDevice dev(4096 * MiB);
  dev.set_auto_complete_events(true);
  DeviceCachingAllocator a(&dev, 0);
  constexpr int kThreads = 4, kIterations = 3000, kLive = 24;
  std::atomic<int> failures{0};
  // Each thread, once it first holds kLive blocks, waits (at most 10 s) until
  // every thread does: the threads provably hold blocks at the same time,
  // however the scheduler runs them.
  std::atomic<int> full{0};
  auto wait_for_all_full = [&] {
    full++;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (full.load() < kThreads && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  };
  auto work = [&](int thread) {
    std::mt19937 rng(1234u + unsigned(thread));
    const StreamHandle own_stream = StreamHandle(100 + thread);
    struct Live {
      void* ptr;
      size_t size;
      uint32_t tag;
    };
    std::vector<Live> live;
    bool was_full = false;
    auto check_and_free = [&](size_t i) {
      Live b = live[i];
      uint32_t head, tail;
      std::memcpy(&head, b.ptr, 4);
      std::memcpy(&tail, at(b.ptr, b.size - 4), 4);
      if (head != b.tag || tail != b.tag) ++failures;  // another allocation overlapped it
      a.free(b.ptr);
      live[i] = live.back();
      live.pop_back();
    };
    for (int it = 0; it < kIterations; ++it) {
      const unsigned pick = rng() % 100;
      if (live.size() >= size_t(kLive) || (!live.empty() && pick < 45)) {
        check_and_free(rng() % live.size());
        continue;
      }
      size_t size = pick < 80 ? 4 + rng() % (64 * KiB) : pick < 97 ? MiB + rng() % (4 * MiB) : 10 * MiB + rng() % MiB;
      const StreamHandle stream = rng() % 2 ? own_stream : 0;
      void* p = a.malloc(size, stream);
      const uint32_t tag = uint32_t(thread) << 24 | uint32_t(it);
      std::memcpy(p, &tag, 4);
      std::memcpy(at(p, size - 4), &tag, 4);
      if (rng() % 10 == 0) a.record_stream(p, StreamHandle(100 + (thread + 1) % kThreads));
      live.push_back(Live{p, size, tag});
      if (live.size() == size_t(kLive) && !was_full) {
        was_full = true;
        wait_for_all_full();
      }
      if (it % 500 == 499) a.empty_cache();
    }
    while (!live.empty()) check_and_free(live.size() - 1);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  AllocatorStats s = a.stats();
  EXPECT_EQ(s.allocated_bytes.current, 0);
  EXPECT_EQ(s.allocations.current, 0);
  EXPECT_GT(s.allocations.peak, kLive);
  a.empty_cache();
  s = a.stats();
  EXPECT_EQ(s.reserved_bytes.current, 0);
  EXPECT_EQ(s.segments.current, 0);
  EXPECT_EQ(s.num_device_mallocs, s.num_device_frees);
  EXPECT_EQ(s.num_ooms, 0);
  EXPECT_EQ(dev.used(), 0u);
  EXPECT_EQ(dev.live_events(), 0u);
}

int g_current_device = 0;
StreamHandle g_current_stream = 0;
int current_device() { return g_current_device; }
StreamHandle current_stream(int) { return g_current_stream; }

TEST(CudaCachingAllocator, DataPtrAdapter) {
  FakeDevice dev0, dev1;
  CachingDeviceAllocator alloc({&dev0, &dev1});
  ASSERT_EQ(alloc.device_count(), 2);
  EXPECT_EQ(alloc.device(), tc::Device(tc::DeviceType::CUDA, 0));
  {
    tc::DataPtr d = alloc.allocate(1000);
    ASSERT_NE(d.data, nullptr);
    EXPECT_EQ(d.device, tc::Device(tc::DeviceType::CUDA, 0));
    EXPECT_EQ(alloc.device_allocator(0).stats().allocated_bytes.current, 1024);
    tc::DataPtr moved = std::move(d);
    EXPECT_EQ(d.data, nullptr);
  }  // the deleter gives the block back
  EXPECT_EQ(alloc.device_allocator(0).stats().allocated_bytes.current, 0);
  EXPECT_EQ(alloc.device_allocator(0).stats().segments.current, 1);

  g_current_device = 1;
  g_current_stream = 42;
  alloc.set_current_device_fn(&current_device);
  alloc.set_current_stream_fn(&current_stream);
  EXPECT_EQ(alloc.device(), tc::Device(tc::DeviceType::CUDA, 1));
  {
    tc::DataPtr d = alloc.allocate(5 * MiB);
    EXPECT_EQ(d.device, tc::Device(tc::DeviceType::CUDA, 1));
    EXPECT_EQ(dev1.malloc_calls(), 1);
    auto segments = alloc.device_allocator(1).snapshot();
    ASSERT_EQ(segments.size(), 1u);
    EXPECT_EQ(segments[0].stream, 42u);
    alloc.record_stream(d, 43);
  }
  EXPECT_EQ(dev1.live_events(), 1u);
  EXPECT_EQ(alloc.device_allocator(1).stats().allocated_bytes.current, 0);

  tc::DataPtr empty = alloc.allocate(0);
  EXPECT_EQ(empty.data, nullptr);
  EXPECT_EQ(empty.device, tc::Device(tc::DeviceType::CUDA, 1));
  EXPECT_EQ(dev1.malloc_calls(), 1);

  tc::DataPtr on0 = alloc.allocate_on(0, 1000, 0);
  EXPECT_EQ(on0.device, tc::Device(tc::DeviceType::CUDA, 0));
  EXPECT_EQ(dev0.malloc_calls(), 1);  // the cached segment
  try {
    alloc.allocate_on(2, 1000, 0);
    ADD_FAILURE() << "expected a device error";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), tc::ErrorCode::Device);
  }
  tc::DataPtr from_cpu = tc::cpu_allocator()->allocate(64);
  const size_t events_before = dev0.live_events() + dev1.live_events();
  alloc.record_stream(from_cpu, 1);  // memory it does not manage: left alone, as PyTorch does
  EXPECT_EQ(dev0.live_events() + dev1.live_events(), events_before);
  on0.clear();

  // Installed as the CUDA allocator, storages would use it like this.
  tc::set_allocator(tc::DeviceType::CUDA, &alloc);
  {
    tc::DataPtr d = tc::get_allocator(tc::DeviceType::CUDA)->allocate(100);
    EXPECT_EQ(d.device, tc::Device(tc::DeviceType::CUDA, 1));
  }
  tc::set_allocator(tc::DeviceType::CUDA, nullptr);

  alloc.set_current_device_fn(nullptr);  // back to the defaults
  alloc.set_current_stream_fn(nullptr);
  EXPECT_EQ(alloc.device(), tc::Device(tc::DeviceType::CUDA, 0));
  alloc.empty_cache();
  EXPECT_EQ(dev0.used(), 0u);
  EXPECT_EQ(dev1.used(), 0u);
  EXPECT_EQ(dev1.live_events(), 0u);
}

// Not a test of speed (nothing is asserted): prints what malloc+free of a
// cached block costs, directly and through the DataPtr adapter; for a block
// that fits exactly and for one split from (and merged back into) a larger one.
TEST(CudaCachingAllocator, CachedMallocFreeCost) {
  FakeDevice dev;
  CachingDeviceAllocator alloc({&dev});
  DeviceCachingAllocator& a = alloc.device_allocator(0);
  void* exact = a.malloc(MiB, 0);  // two 1 MiB blocks fill a small segment
  void* keep = a.malloc(MiB, 0);
  a.free(exact);
  void* split_keep = a.malloc(4 * KiB, 1);  // a segment on stream 1 that stays split
  constexpr int kRounds = 200000;
  // CPU time of this thread: the machines that run the tests are often busy,
  // and wall time would count the time this thread waited for a core.
  auto cpu_now_ns = [] {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
  };
  auto time_ns = [&](auto&& body) {
    for (int i = 0; i < 1000; ++i) body();
    const double t0 = cpu_now_ns();
    for (int i = 0; i < kRounds; ++i) body();
    return (cpu_now_ns() - t0) / kRounds;
  };
  const double exact_direct = time_ns([&] { a.free(a.malloc(MiB, 0)); });
  const double exact_adapter = time_ns([&] { tc::DataPtr d = alloc.allocate_on(0, MiB, 0); });
  const double split_direct = time_ns([&] { a.free(a.malloc(4 * KiB, 1)); });
  const double split_adapter = time_ns([&] { tc::DataPtr d = alloc.allocate_on(0, 4 * KiB, 1); });
  alloc.set_current_stream_fn([](int) { return StreamHandle(0); });
  const double hooks_adapter = time_ns([&] { tc::DataPtr d = alloc.allocate(MiB); });
  std::printf(
      "cached malloc+free (thread CPU time), exact fit: %.0f ns direct, %.0f ns via allocate_on, %.0f ns via "
      "allocate (hooks); split+merge: %.0f ns direct, %.0f ns via allocate_on\n",
      exact_direct, exact_adapter, hooks_adapter, split_direct, split_adapter);
  EXPECT_EQ(a.stats().num_device_mallocs, 2);
  a.free(keep);
  a.free(split_keep);
}

}  // namespace
