// SPDX-License-Identifier: BSD-3-Clause
// The CUDA caching allocator's logic (see caching_allocator.h): block pools,
// best-fit search, splitting and merging, deferred reuse after record_stream,
// the out-of-memory retry and the statistics. No CUDA calls: those are
// behind DeviceMemoryApi.
#include "cuda/caching_allocator.h"

#include <cstdint>
#include <cstdio>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/error.h"

namespace tc::cuda {

DeviceMemoryApi::~DeviceMemoryApi() = default;

namespace {

// Requests beyond this are refused before any rounding could overflow.
constexpr size_t kMaxRequest = SIZE_MAX / 2;

struct BlockPool;

// A piece of a segment. The blocks of one segment form a list in address
// order (prev/next); a segment is wholly free when its only block is free.
struct Block {
  Block(StreamHandle s, size_t n, char* p, BlockPool* owner) : stream(s), size(n), ptr(p), pool(owner) {}
  StreamHandle stream;  // the stream it was allocated on; reused only there
  size_t size;
  char* ptr;
  BlockPool* pool;
  Block* prev = nullptr;
  Block* next = nullptr;
  bool allocated = false;
  int event_count = 0;                    // events recorded at free() and not yet seen done
  std::vector<StreamHandle> stream_uses;  // other streams that used it (record_stream)
};

// Best fit: the smallest free block of the stream that is big enough, the
// lowest address among equals.
struct BlockLess {
  bool operator()(const Block* a, const Block* b) const {
    if (a->stream != b->stream) return a->stream < b->stream;
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<std::uintptr_t>(a->ptr) < reinterpret_cast<std::uintptr_t>(b->ptr);
  }
};

using FreeBlockSet = std::set<Block*, BlockLess>;
using BlockMap = std::unordered_map<void*, Block*>;

struct BlockPool {
  explicit BlockPool(bool is_small) : small(is_small) {}
  FreeBlockSet free_blocks;
  const bool small;
};

// Nodes taken out of the free sets and the map of allocated blocks are kept
// for reuse, so that a malloc+free served from the cache calls no heap
// allocator: the containers' own node allocations were a third of its cost.
template <class NodeHandle>
class SpareNodes {
 public:
  SpareNodes() { nodes_.reserve(kMax); }
  void put(NodeHandle&& node) {
    if (nodes_.size() < kMax) nodes_.push_back(std::move(node));
  }
  bool empty() const { return nodes_.empty(); }
  NodeHandle take() {
    NodeHandle node = std::move(nodes_.back());
    nodes_.pop_back();
    return node;
  }

 private:
  static constexpr size_t kMax = 64;
  std::vector<NodeHandle> nodes_;
};

struct PendingEvent {
  EventHandle event;
  Block* block;
};

void add_to(StatValue& stat, int64_t delta) {
  stat.current += delta;
  if (stat.current > stat.peak) stat.peak = stat.current;
}

// "1.50 GiB (1610612736 bytes)": readable, and exact for whoever compares numbers.
std::string format_bytes(size_t n) {
  char buf[64];
  const double x = double(n);
  if (n < 1024)
    std::snprintf(buf, sizeof buf, "%zu bytes", n);
  else if (n < (size_t(1) << 20))
    std::snprintf(buf, sizeof buf, "%.2f KiB (%zu bytes)", x / 1024.0, n);
  else if (n < (size_t(1) << 30))
    std::snprintf(buf, sizeof buf, "%.2f MiB (%zu bytes)", x / 1048576.0, n);
  else
    std::snprintf(buf, sizeof buf, "%.2f GiB (%zu bytes)", x / 1073741824.0, n);
  return buf;
}

}  // namespace

size_t round_size(size_t nbytes) {
  if (nbytes < kMinBlockSize) return kMinBlockSize;
  return (nbytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t segment_size(size_t block_size) {
  if (block_size <= kSmallSize) return kSmallBuffer;
  // Mid-sized requests share 20 MiB segments, so that a stream of such sizes
  // splits a few segments instead of pinning one device allocation each.
  if (block_size < kMinLargeAlloc) return kLargeBuffer;
  return (block_size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

struct DeviceCachingAllocator::Impl {
  Impl(DeviceMemoryApi* device_api, int device_index) : api(device_api), device(device_index) {}

  DeviceMemoryApi* api;
  int device;
  mutable std::mutex mu;
  BlockPool small_pool{true};
  BlockPool large_pool{false};
  BlockMap allocated_blocks;
  SpareNodes<FreeBlockSet::node_type> spare_set_nodes;
  SpareNodes<BlockMap::node_type> spare_map_nodes;
  // Per stream, in the order recorded: events on one stream complete in that
  // order, so the scan of a stream stops at its first unfinished event.
  std::map<StreamHandle, std::deque<PendingEvent>> pending_events;
  AllocatorStats stats;

  std::string device_name() const { return "cuda:" + std::to_string(device); }

  void* malloc(size_t nbytes, StreamHandle stream) {
    TC_CHECK(nbytes <= kMaxRequest, OutOfMemory, "allocate: ", nbytes, " bytes is too large for ", device_name());
    const size_t size = round_size(nbytes);
    BlockPool& pool = size <= kSmallSize ? small_pool : large_pool;
    std::lock_guard<std::mutex> guard(mu);
    if (!pending_events.empty()) process_events();
    Block* block = take_free_block(pool, stream, size);
    if (!block) {
      const size_t alloc_size = segment_size(size);
      block = alloc_segment(pool, stream, alloc_size);
      if (!block) {
        // Cached segments may be what the device is missing: give them back
        // and try once more.
        release_cached_segments();
        ++stats.num_alloc_retries;
        block = alloc_segment(pool, stream, alloc_size);
      }
      if (!block) {
        ++stats.num_ooms;
        fail_out_of_memory(nbytes);
      }
    }
    const size_t remaining = block->size - size;
    if (pool.small ? remaining >= kMinBlockSize : remaining > kSmallSize) {
      Block* rest = new Block(stream, remaining, block->ptr + size, &pool);
      rest->prev = block;
      rest->next = block->next;
      if (rest->next) rest->next->prev = rest;
      block->next = rest;
      block->size = size;
      insert_free(rest);
    }
    block->allocated = true;
    if (spare_map_nodes.empty()) {
      allocated_blocks.emplace(block->ptr, block);
    } else {
      BlockMap::node_type node = spare_map_nodes.take();
      node.key() = block->ptr;
      node.mapped() = block;
      allocated_blocks.insert(std::move(node));
    }
    add_to(stats.allocated_bytes, int64_t(block->size));
    add_to(stats.allocations, 1);
    return block->ptr;
  }

  void free(void* ptr) {
    std::lock_guard<std::mutex> guard(mu);
    auto it = allocated_blocks.find(ptr);
    TC_CHECK_ARG(it != allocated_blocks.end(), "free: pointer ", ptr, " was not allocated by the caching allocator of ",
                 device_name(), " (or was freed already)");
    Block* block = it->second;
    spare_map_nodes.put(allocated_blocks.extract(it));
    block->allocated = false;
    add_to(stats.allocated_bytes, -int64_t(block->size));
    add_to(stats.allocations, -1);
    if (block->stream_uses.empty()) {
      free_block(block);
      return;
    }
    // Kernels queued on the other streams may still use the memory: it is
    // reusable once each of them reaches this point.
    for (StreamHandle s : block->stream_uses) {
      pending_events[s].push_back(PendingEvent{api->record_event(s), block});
      ++block->event_count;
    }
    block->stream_uses.clear();
  }

  void record_stream(void* ptr, StreamHandle stream) {
    std::lock_guard<std::mutex> guard(mu);
    auto it = allocated_blocks.find(ptr);
    TC_CHECK_ARG(it != allocated_blocks.end(), "record_stream: pointer ", ptr,
                 " was not allocated by the caching allocator of ", device_name());
    Block* block = it->second;
    // Work on the allocation stream is ordered before any reuse already.
    if (stream == block->stream) return;
    for (StreamHandle s : block->stream_uses)
      if (s == stream) return;
    block->stream_uses.push_back(stream);
  }

  Block* take_free_block(BlockPool& pool, StreamHandle stream, size_t size) {
    Block key(stream, size, nullptr, &pool);
    auto it = pool.free_blocks.lower_bound(&key);
    if (it == pool.free_blocks.end() || (*it)->stream != stream) return nullptr;
    Block* block = *it;
    spare_set_nodes.put(pool.free_blocks.extract(it));
    return block;
  }

  void insert_free(Block* block) {
    if (spare_set_nodes.empty()) {
      block->pool->free_blocks.insert(block);
      return;
    }
    FreeBlockSet::node_type node = spare_set_nodes.take();
    node.value() = block;
    block->pool->free_blocks.insert(std::move(node));
  }

  Block* alloc_segment(BlockPool& pool, StreamHandle stream, size_t size) {
    void* ptr = nullptr;
    if (!api->malloc(&ptr, size)) return nullptr;
    ++stats.num_device_mallocs;
    add_to(stats.reserved_bytes, int64_t(size));
    add_to(stats.segments, 1);
    return new Block(stream, size, static_cast<char*>(ptr), &pool);
  }

  // Merges the block with free neighbours and puts it in its pool.
  void free_block(Block* block) {
    merge_into(block, block->prev);
    merge_into(block, block->next);
    insert_free(block);
  }

  void merge_into(Block* block, Block* neighbour) {
    if (!neighbour || neighbour->allocated || neighbour->event_count > 0) return;
    if (neighbour == block->prev) {
      block->ptr = neighbour->ptr;
      block->prev = neighbour->prev;
      if (block->prev) block->prev->next = block;
    } else {
      block->next = neighbour->next;
      if (block->next) block->next->prev = block;
    }
    block->size += neighbour->size;
    spare_set_nodes.put(block->pool->free_blocks.extract(neighbour));
    delete neighbour;
  }

  // Blocks whose events are all done go back to their pools.
  void process_events() {
    for (auto it = pending_events.begin(); it != pending_events.end();) {
      std::deque<PendingEvent>& queue = it->second;
      while (!queue.empty() && api->event_done(queue.front().event)) {
        const PendingEvent done = queue.front();
        queue.pop_front();
        api->destroy_event(done.event);
        if (--done.block->event_count == 0) free_block(done.block);
      }
      it = queue.empty() ? pending_events.erase(it) : std::next(it);
    }
  }

  void synchronize_and_free_events() {
    if (pending_events.empty()) return;
    api->synchronize();
    for (auto& [stream, queue] : pending_events) {
      for (const PendingEvent& pending : queue) {
        api->destroy_event(pending.event);
        if (--pending.block->event_count == 0) free_block(pending.block);
      }
    }
    pending_events.clear();
  }

  // Gives every wholly free segment back to the device.
  void release_cached_segments() {
    synchronize_and_free_events();
    for (BlockPool* pool : {&small_pool, &large_pool}) {
      for (auto it = pool->free_blocks.begin(); it != pool->free_blocks.end();) {
        Block* block = *it;
        if (block->prev || block->next) {
          ++it;
          continue;
        }
        api->free(block->ptr);
        ++stats.num_device_frees;
        add_to(stats.reserved_bytes, -int64_t(block->size));
        add_to(stats.segments, -1);
        it = pool->free_blocks.erase(it);
        delete block;
      }
    }
  }

  [[noreturn]] void fail_out_of_memory(size_t nbytes) {
    size_t device_free = 0, device_total = 0;
    api->mem_info(&device_free, &device_total);
    const size_t reserved = size_t(stats.reserved_bytes.current);
    const size_t allocated = size_t(stats.allocated_bytes.current);
    TC_FAIL(OutOfMemory, "allocate: out of memory allocating ", format_bytes(nbytes), " on ", device_name(),
            ": the device has ", format_bytes(device_free), " free of ", format_bytes(device_total),
            " in total; tensorc's cache has ", format_bytes(reserved), " reserved, of which ", format_bytes(allocated),
            " is allocated to tensors and ", format_bytes(reserved - allocated),
            " is cached in partly used segments (free tensors, or call empty_cache, to release memory)");
  }

  std::vector<SegmentInfo> snapshot() const {
    std::lock_guard<std::mutex> guard(mu);
    std::set<Block*> heads;
    auto add_head = [&](Block* b) {
      while (b->prev) b = b->prev;
      heads.insert(b);
    };
    for (const BlockPool* pool : {&small_pool, &large_pool})
      for (Block* b : pool->free_blocks) add_head(b);
    for (const auto& [ptr, b] : allocated_blocks) add_head(b);
    for (const auto& [stream, queue] : pending_events)
      for (const PendingEvent& pending : queue) add_head(pending.block);
    std::map<std::uintptr_t, SegmentInfo> by_address;
    for (Block* head : heads) {
      SegmentInfo info;
      info.address = reinterpret_cast<std::uintptr_t>(head->ptr);
      info.stream = head->stream;
      info.small_pool = head->pool->small;
      for (Block* b = head; b; b = b->next) {
        const auto state = b->allocated         ? SegmentInfo::BlockState::Allocated
                           : b->event_count > 0 ? SegmentInfo::BlockState::AwaitingEvents
                                                : SegmentInfo::BlockState::Free;
        info.blocks.push_back(SegmentInfo::BlockInfo{b->size, state});
        info.size += b->size;
      }
      by_address.emplace(info.address, std::move(info));
    }
    std::vector<SegmentInfo> out;
    for (auto& [address, info] : by_address) out.push_back(std::move(info));
    return out;
  }

  // Host bookkeeping only: memory still handed out stays with its owners.
  ~Impl() {
    release_cached_segments();
    std::set<Block*> blocks;
    for (BlockPool* pool : {&small_pool, &large_pool})
      blocks.insert(pool->free_blocks.begin(), pool->free_blocks.end());
    for (const auto& [ptr, b] : allocated_blocks) blocks.insert(b);
    for (Block* b : blocks) delete b;
  }
};

DeviceCachingAllocator::DeviceCachingAllocator(DeviceMemoryApi* api, int device_index)
    : impl_(std::make_unique<Impl>(api, device_index)), device_index_(device_index) {}

DeviceCachingAllocator::~DeviceCachingAllocator() = default;

void* DeviceCachingAllocator::malloc(size_t nbytes, StreamHandle stream) {
  if (nbytes == 0) return nullptr;
  return impl_->malloc(nbytes, stream);
}

void DeviceCachingAllocator::free(void* ptr) {
  if (ptr) impl_->free(ptr);
}

void DeviceCachingAllocator::record_stream(void* ptr, StreamHandle stream) {
  if (ptr) impl_->record_stream(ptr, stream);
}

void DeviceCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> guard(impl_->mu);
  impl_->release_cached_segments();
}

AllocatorStats DeviceCachingAllocator::stats() const {
  std::lock_guard<std::mutex> guard(impl_->mu);
  return impl_->stats;
}

void DeviceCachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> guard(impl_->mu);
  AllocatorStats& s = impl_->stats;
  for (StatValue* v : {&s.allocated_bytes, &s.reserved_bytes, &s.allocations, &s.segments}) v->peak = v->current;
}

void DeviceCachingAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> guard(impl_->mu);
  AllocatorStats& s = impl_->stats;
  s.num_device_mallocs = s.num_device_frees = s.num_alloc_retries = s.num_ooms = 0;
}

std::vector<SegmentInfo> DeviceCachingAllocator::snapshot() const { return impl_->snapshot(); }

// ---- the tc::Allocator adapter ---------------------------------------------

namespace {
int default_current_device() { return 0; }
StreamHandle default_current_stream(int) { return 0; }
}  // namespace

CachingDeviceAllocator::CachingDeviceAllocator(const std::vector<DeviceMemoryApi*>& devices)
    : current_device_fn_(&default_current_device), current_stream_fn_(&default_current_stream) {
  devices_.reserve(devices.size());
  for (size_t i = 0; i < devices.size(); ++i)
    devices_.push_back(std::make_unique<DeviceCachingAllocator>(devices[i], int(i)));
}

CachingDeviceAllocator::~CachingDeviceAllocator() = default;

void CachingDeviceAllocator::release(void* ctx, void* data) { static_cast<DeviceCachingAllocator*>(ctx)->free(data); }

DataPtr CachingDeviceAllocator::allocate(size_t nbytes) {
  const int device = current_device_fn_.load(std::memory_order_relaxed)();
  return allocate_on(device, nbytes, current_stream_fn_.load(std::memory_order_relaxed)(device));
}

DataPtr CachingDeviceAllocator::allocate_on(int device, size_t nbytes, StreamHandle stream) {
  DeviceCachingAllocator& cache = device_allocator(device);
  const Device where(DeviceType::CUDA, int16_t(device));
  if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, where);
  return DataPtr(cache.malloc(nbytes, stream), &cache, &CachingDeviceAllocator::release, where);
}

Device CachingDeviceAllocator::device() const {
  return Device(DeviceType::CUDA, int16_t(current_device_fn_.load(std::memory_order_relaxed)()));
}

void CachingDeviceAllocator::record_stream(const DataPtr& data, StreamHandle stream) {
  // Memory tensorc does not manage (from_blob, DLPack) is its owner's to
  // keep alive: nothing to record, as in PyTorch.
  if (!data.data || data.deleter != &CachingDeviceAllocator::release) return;
  static_cast<DeviceCachingAllocator*>(data.ctx)->record_stream(data.data, stream);
}

void CachingDeviceAllocator::empty_cache() {
  for (auto& cache : devices_) cache->empty_cache();
}

void CachingDeviceAllocator::set_current_device_fn(CurrentDeviceFn fn) {
  current_device_fn_.store(fn ? fn : &default_current_device, std::memory_order_relaxed);
}

void CachingDeviceAllocator::set_current_stream_fn(CurrentStreamFn fn) {
  current_stream_fn_.store(fn ? fn : &default_current_stream, std::memory_order_relaxed);
}

DeviceCachingAllocator& CachingDeviceAllocator::device_allocator(int device) {
  TC_CHECK(device >= 0 && device < int(devices_.size()), Device, "allocate: cuda:", device, " is not a device (",
           devices_.size(), " visible)");
  return *devices_[size_t(device)];
}

}  // namespace tc::cuda
