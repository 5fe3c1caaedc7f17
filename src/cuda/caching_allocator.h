// SPDX-License-Identifier: BSD-3-Clause
// The CUDA caching allocator, after PyTorch's CUDACachingAllocator: device
// memory is taken from the driver in segments, carved into blocks, and freed
// blocks stay cached for the stream that allocated them. Plain C++ with no
// CUDA headers: the device is reached through DeviceMemoryApi, which the
// backend implements over cudaMalloc/cudaEvent and the tests over host memory.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/allocator.h"

namespace tc::cuda {

// A cudaStream_t / cudaEvent_t as an integer. Stream 0 is the legacy default stream.
using StreamHandle = std::uintptr_t;
using EventHandle = std::uintptr_t;

// What the caching allocator needs from one device. Every call is made with
// the allocator's lock held and the device current, one instance per device.
class DeviceMemoryApi {
 public:
  virtual ~DeviceMemoryApi();
  // False when the device is out of memory (and the error is cleared); any
  // other failure throws tc::Error.
  virtual bool malloc(void** ptr, size_t nbytes) = 0;
  // Must not return before the device is done with the memory (cudaFree
  // synchronizes the device).
  virtual void free(void* ptr) = 0;
  virtual void mem_info(size_t* free_bytes, size_t* total_bytes) = 0;
  // Records a new event on `stream`; destroy_event releases it.
  virtual EventHandle record_event(StreamHandle stream) = 0;
  virtual bool event_done(EventHandle event) = 0;
  virtual void destroy_event(EventHandle event) = 0;
  // Waits for all work on the device.
  virtual void synchronize() = 0;
};

struct StatValue {
  int64_t current = 0;
  int64_t peak = 0;
};

struct AllocatorStats {
  StatValue allocated_bytes;  // blocks handed out, at their rounded sizes
  StatValue reserved_bytes;   // segments held from the device, used or cached
  StatValue allocations;      // blocks handed out
  StatValue segments;         // segments held from the device
  // Accumulated counts (reset_accumulated_stats):
  int64_t num_device_mallocs = 0;  // successful DeviceMemoryApi::malloc calls
  int64_t num_device_frees = 0;
  int64_t num_alloc_retries = 0;  // device mallocs retried after releasing the cache
  int64_t num_ooms = 0;           // allocations that failed with OutOfMemory
};

// One segment as seen by snapshot(), its blocks in address order.
struct SegmentInfo {
  enum class BlockState { Allocated, Free, AwaitingEvents };
  struct BlockInfo {
    size_t size;
    BlockState state;
  };
  std::uintptr_t address = 0;
  size_t size = 0;
  StreamHandle stream = 0;
  bool small_pool = false;
  std::vector<BlockInfo> blocks;
};

// The sizing policy (PyTorch's). Public for the tests and for messages.
constexpr size_t kMinBlockSize = 512;                // every size is rounded up to this
constexpr size_t kSmallSize = size_t(1) << 20;       // requests up to this use the small pool
constexpr size_t kSmallBuffer = size_t(2) << 20;     // small-pool segment size
constexpr size_t kLargeBuffer = size_t(20) << 20;    // large-pool segment for requests below kMinLargeAlloc
constexpr size_t kMinLargeAlloc = size_t(10) << 20;  // from here, segments are the request rounded to kRoundLarge
constexpr size_t kRoundLarge = size_t(2) << 20;
size_t round_size(size_t nbytes);        // the block size a request of nbytes gets
size_t segment_size(size_t block_size);  // the device allocation made when no cached block fits

// The cache of one device. Thread-safe: one lock per device.
class DeviceCachingAllocator {
 public:
  // `api` is not owned and must outlive the allocator.
  DeviceCachingAllocator(DeviceMemoryApi* api, int device_index);
  ~DeviceCachingAllocator();
  DeviceCachingAllocator(const DeviceCachingAllocator&) = delete;
  DeviceCachingAllocator& operator=(const DeviceCachingAllocator&) = delete;

  // nullptr for 0 bytes (the device is not touched). Throws Error(OutOfMemory)
  // when the device has no room even after the cache is released.
  void* malloc(size_t nbytes, StreamHandle stream);
  // Returns the block to the cache of the stream it was allocated on, once
  // the streams passed to record_stream are done with it. free(nullptr) does
  // nothing; a pointer this allocator did not hand out is InvalidArgument.
  void free(void* ptr);
  // Marks the block as used by `stream` too: free() then records an event on
  // it and reuse waits for that event.
  void record_stream(void* ptr, StreamHandle stream);
  // Returns every wholly free segment to the device (waiting first for
  // blocks still awaiting events).
  void empty_cache();

  AllocatorStats stats() const;
  void reset_peak_stats();
  void reset_accumulated_stats();
  std::vector<SegmentInfo> snapshot() const;
  int device_index() const { return device_index_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int device_index_;
};

using CurrentDeviceFn = int (*)();
using CurrentStreamFn = StreamHandle (*)(int device);

// The tc::Allocator for DeviceType::CUDA over one DeviceCachingAllocator per
// device. allocate() uses the current device and its current stream, asked
// from two hooks that the stream machinery sets (by default device 0 and the
// default stream). The DataPtr's deleter returns the block to its cache.
class CachingDeviceAllocator final : public Allocator {
 public:
  // devices[i] is device i's API; not owned, must outlive this allocator.
  explicit CachingDeviceAllocator(const std::vector<DeviceMemoryApi*>& devices);
  ~CachingDeviceAllocator() override;

  DataPtr allocate(size_t nbytes) override;
  Device device() const override;  // the current device
  DataPtr allocate_on(int device, size_t nbytes, StreamHandle stream);
  // Memory from elsewhere (from_blob, DLPack) is left alone.
  void record_stream(const DataPtr& data, StreamHandle stream);
  void empty_cache();  // every device

  void set_current_device_fn(CurrentDeviceFn fn);
  void set_current_stream_fn(CurrentStreamFn fn);
  int device_count() const { return int(devices_.size()); }
  DeviceCachingAllocator& device_allocator(int device);

 private:
  static void release(void* ctx, void* data);
  std::vector<std::unique_ptr<DeviceCachingAllocator>> devices_;
  std::atomic<CurrentDeviceFn> current_device_fn_;
  std::atomic<CurrentStreamFn> current_stream_fn_;
};

}  // namespace tc::cuda
