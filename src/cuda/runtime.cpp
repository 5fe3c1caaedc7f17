// SPDX-License-Identifier: BSD-3-Clause
// The CUDA backend's loader and runtime. libtensorc never links the CUDA
// runtime: the first CUDA use (a CUDA kernel, a CUDA allocation, the device
// hooks, tc_device_check) dlopens libtensorc_cuda.so beside libtensorc.so (or
// $TC_CUDA_LIBRARY) and asks it for its driver table, which checks the
// driver and the devices. Then the caching allocator, the device hooks and
// the print host copy are installed here. Whatever fails is remembered by
// load_backend and reported by every later CUDA call.
#include "cuda/runtime.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/allocator.h"
#include "core/device_hooks.h"
#include "core/error.h"
#include "core/tensor.h"
#include "cuda/host_allocator.h"
#include "tensorc_gen/ops.h"

namespace tc::cuda {
namespace {

const DriverApi* g_driver = nullptr;  // set once, under load_backend's once-flag

// The directory this library was loaded from ("" when unknown).
std::string own_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_directory), &info) == 0 || info.dli_fname == nullptr) return "";
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

bool open_driver(std::string* why) {
  const char* env = std::getenv("TC_CUDA_LIBRARY");
  const std::string path = env && *env ? std::string(env) : own_directory() + "libtensorc_cuda.so";
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr && !(env && *env)) handle = dlopen("libtensorc_cuda.so", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    *why = str("the CUDA backend library could not be loaded (", err ? err : path,
               "); tensorc was built without CUDA or libtensorc_cuda.so is not installed beside libtensorc.so");
    return false;
  }
  auto open = reinterpret_cast<tc_cuda_driver_open_fn>(dlsym(handle, "tc_cuda_driver_open"));
  if (open == nullptr) {
    *why = str(path, " has no tc_cuda_driver_open: not tensorc's CUDA driver library");
    dlclose(handle);
    return false;
  }
  char reason[512] = {0};
  const DriverApi* api = nullptr;
  const std::string version = str(TC_PROJECT_VERSION, "+layout.", kDriverLayout);
  if (open(version.c_str(), &api, reason, sizeof reason) != 0 || api == nullptr) {
    *why = reason[0] ? reason : "the CUDA driver library failed to start";
    dlclose(handle);
    return false;
  }
  g_driver = api;  // the library stays loaded for the process's life
  return true;
}

// One device's memory for the caching allocator.
class DeviceMemory final : public DeviceMemoryApi {
 public:
  explicit DeviceMemory(int device) : device_(device) {}
  bool malloc(void** ptr, size_t nbytes) override {
    DeviceGuard g(device_);
    const int e = g_driver->malloc(ptr, nbytes);
    if (e == kErrorMemoryAllocation) return false;
    check(e, "CUDA caching allocator", "cudaMalloc");
    return true;
  }
  void free(void* ptr) override {
    DeviceGuard g(device_);
    check(g_driver->free(ptr), "CUDA caching allocator", "cudaFree");
  }
  void mem_info(size_t* free_bytes, size_t* total_bytes) override {
    DeviceGuard g(device_);
    check(g_driver->mem_info(free_bytes, total_bytes), "CUDA caching allocator", "cudaMemGetInfo");
  }
  EventHandle record_event(StreamHandle stream) override {
    DeviceGuard g(device_);
    Event ev = 0;
    check(g_driver->event_record(&ev, stream), "CUDA caching allocator", "cudaEventRecord");
    return ev;
  }
  bool event_done(EventHandle event) override {
    const int e = g_driver->event_query(event);
    if (e == kErrorNotReady) return false;
    check(e, "CUDA caching allocator", "cudaEventQuery");
    return true;
  }
  void destroy_event(EventHandle event) override { g_driver->event_destroy(event); }
  void synchronize() override {
    DeviceGuard g(device_);
    check(g_driver->device_synchronize(), "CUDA caching allocator", "cudaDeviceSynchronize");
  }

 private:
  int device_;
};

class Hooks final : public DeviceHooks {
 public:
  int device_count() const override { return cuda::device_count(); }
  int current_device() const override { return cuda::current_device(); }
  void set_current_device(int index) override {
    check(g_driver->set_device(resolve_device(index, "set_device")), "set_device", "cudaSetDevice");
  }
  void synchronize(int index) override {
    DeviceGuard g(resolve_device(index, "synchronize"));
    check(g_driver->device_synchronize(), "synchronize", "cudaDeviceSynchronize");
  }
  void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t n,
                  bool non_blocking) override {
    if (n == 0) return;
    // The copy runs on the stream of the CUDA side (the destination's when both are).
    const int dev = resolve_device(dst_device.is_cuda() ? dst_device.index : src_device.index, "copy_");
    DeviceGuard g(dev);
    const Stream s = current_stream(dev);
    if (dst_device.is_cuda() && src_device.is_cuda() && dst_device.index != src_device.index)
      check(g_driver->memcpy_peer_async(dst, dst_device.index, src, src_device.index, n, s), "copy_",
            "cudaMemcpyPeerAsync");
    else
      check(g_driver->memcpy_async(dst, src, n, s), "copy_", "cudaMemcpyAsync");
    if (!non_blocking) {
      check(g_driver->stream_synchronize(s), "copy_", "cudaStreamSynchronize");
    } else if (const void* host = dst_device.is_cpu() ? dst : src_device.is_cpu() ? src : nullptr) {
      // A page-locked block stays allocated until this copy is done. (From
      // or to pageable memory the copy has finished with the host side when
      // cudaMemcpyAsync returns.)
      record_host_use(host, s);
    }
  }
  Allocator* host_allocator() override { return &cuda::host_allocator(); }
  int64_t memory_stat(int index, MemoryStat which) override;
  void reset_peak_memory_stats(int index) override;
  void empty_cache() override;

  StreamId create_stream(int index, int priority) override;
  bool is_stream(int index, StreamId s) override;
  void adopt_stream(int index, StreamId s) override;
  StreamId current_stream(int index) override { return cuda::current_stream(index); }
  void set_current_stream(int index, StreamId s) override;
  void synchronize_stream(int index, StreamId s) override {
    DeviceGuard g(index);
    check(g_driver->stream_synchronize(s), "stream synchronize", "cudaStreamSynchronize");
  }
  bool query_stream(int index, StreamId s) override {
    DeviceGuard g(index);
    return done(g_driver->stream_query(s), "stream query", "cudaStreamQuery");
  }
  EventId create_event(int index, bool timing) override {
    DeviceGuard g(index);
    Event e = 0;
    check(g_driver->event_create(&e, timing), "event", "cudaEventCreateWithFlags");
    return e;
  }
  void destroy_event(int index, EventId e) noexcept override {
    int now = -1;
    if (g_driver->get_device(&now) != 0) return;
    if (now != index) g_driver->set_device(index);
    g_driver->event_destroy(e);
    if (now != index) g_driver->set_device(now);
  }
  void record_event(int index, EventId e, StreamId s) override {
    DeviceGuard g(index);
    check(g_driver->event_record_on(e, s), "event record", "cudaEventRecord");
  }
  bool query_event(int index, EventId e) override {
    DeviceGuard g(index);
    return done(g_driver->event_query(e), "event query", "cudaEventQuery");
  }
  void synchronize_event(int index, EventId e) override {
    DeviceGuard g(index);
    check(g_driver->event_synchronize(e), "event synchronize", "cudaEventSynchronize");
  }
  void stream_wait_event(int index, StreamId s, EventId e) override {
    DeviceGuard g(index);
    check(g_driver->stream_wait_event(s, e), "stream wait_event", "cudaStreamWaitEvent");
  }
  double event_elapsed_ms(int index, EventId start, EventId end) override {
    DeviceGuard g(index);
    float ms = 0;
    check(g_driver->event_elapsed_ms(&ms, start, end), "event elapsed_time", "cudaEventElapsedTime");
    return ms;
  }
  void record_stream(const DataPtr& data, int index, StreamId s) override;

 private:
  static bool done(int err, const char* what, const char* call) {
    if (err == kErrorNotReady) return false;
    check(err, what, call);
    return true;
  }
};

// Each device's streams, as PyTorch's pool: created on first use, handed out
// round robin, never destroyed (so a tc_stream stays valid for the process
// and needs no release), plus the streams adopted from outside.
constexpr int kPoolSize = 32;
struct DeviceStreams {
  std::mutex mu;
  Stream normal[kPoolSize] = {}, high[kPoolSize] = {};
  unsigned next_normal = 0, next_high = 0;
  std::unordered_set<Stream> known;
};

struct Runtime {
  int devices = 0;
  std::unique_ptr<DeviceStreams[]> streams;
  std::vector<std::unique_ptr<DeviceMemory>> memory;
  std::unique_ptr<CachingDeviceAllocator> allocator;
  Hooks hooks;
};

Runtime& runtime() {
  static Runtime* r = new Runtime;  // lives as long as the process: kernels may run during exit
  return *r;
}

int64_t Hooks::memory_stat(int index, MemoryStat which) {
  const AllocatorStats st = runtime().allocator->device_allocator(index).stats();
  switch (which) {
    case MemoryStat::AllocatedBytes: return st.allocated_bytes.current;
    case MemoryStat::PeakAllocatedBytes: return st.allocated_bytes.peak;
    case MemoryStat::ReservedBytes: return st.reserved_bytes.current;
    case MemoryStat::PeakReservedBytes: return st.reserved_bytes.peak;
    case MemoryStat::NumDeviceMallocs: return st.num_device_mallocs;
    case MemoryStat::NumDeviceFrees: return st.num_device_frees;
    case MemoryStat::NumAllocRetries: return st.num_alloc_retries;
    case MemoryStat::NumOoms: return st.num_ooms;
    case MemoryStat::Count: break;
  }
  TC_FAIL(InvalidArgument, "memory_stat: unknown statistic ", int(which));
}
void Hooks::reset_peak_memory_stats(int index) { runtime().allocator->device_allocator(index).reset_peak_stats(); }
void Hooks::empty_cache() { runtime().allocator->empty_cache(); }

// The calling thread's current stream per device (0 beyond the vector's end).
thread_local std::vector<Stream> t_current_streams;

StreamId Hooks::create_stream(int index, int priority) {
  TC_CHECK_ARG(priority <= 0, "stream: argument 'priority' expected 0 (normal) or below 0 (higher), got ", priority);
  DeviceStreams& d = runtime().streams[size_t(index)];
  std::lock_guard<std::mutex> lock(d.mu);
  const bool high = priority < 0;
  Stream& slot = high ? d.high[d.next_high++ % kPoolSize] : d.normal[d.next_normal++ % kPoolSize];
  if (slot == 0) {
    DeviceGuard g(index);
    int least = 0, greatest = 0;
    check(g_driver->stream_priority_range(&least, &greatest), "stream", "cudaDeviceGetStreamPriorityRange");
    Stream s = 0;
    check(g_driver->stream_create(&s, high ? greatest : least), "stream", "cudaStreamCreateWithPriority");
    slot = s;
    d.known.insert(s);
  }
  return slot;
}

bool Hooks::is_stream(int index, StreamId s) {
  if (index < 0 || index >= runtime().devices) return false;
  if (s == 0) return true;
  DeviceStreams& d = runtime().streams[size_t(index)];
  std::lock_guard<std::mutex> lock(d.mu);
  return d.known.count(s) != 0;
}

void Hooks::adopt_stream(int index, StreamId s) {
  DeviceStreams& d = runtime().streams[size_t(index)];
  std::lock_guard<std::mutex> lock(d.mu);
  d.known.insert(s);
}

void Hooks::set_current_stream(int index, StreamId s) {
  TC_CHECK_ARG(is_stream(index, s), "set_current_stream: ", s, " is not a stream of cuda:", index);
  if (t_current_streams.size() <= size_t(index)) t_current_streams.resize(size_t(index) + 1, 0);
  t_current_streams[size_t(index)] = s;
}

void Hooks::record_stream(const DataPtr& data, int, StreamId s) { runtime().allocator->record_stream(data, s); }

int current_device_fn() { return current_device(); }
StreamHandle current_stream_fn(int device) { return current_stream(device); }

// The loader load_backend(CUDA) runs once.
bool load(std::string* why) {
  if (!open_driver(why)) return false;
  try {
    Runtime& r = runtime();
    check(g_driver->device_count(&r.devices), "CUDA backend", "cudaGetDeviceCount");
    r.streams = std::make_unique<DeviceStreams[]>(size_t(r.devices));
    std::vector<DeviceMemoryApi*> apis;
    for (int i = 0; i < r.devices; ++i) {
      r.memory.push_back(std::make_unique<DeviceMemory>(i));
      apis.push_back(r.memory.back().get());
    }
    r.allocator = std::make_unique<CachingDeviceAllocator>(apis);
    r.allocator->set_current_device_fn(&current_device_fn);
    r.allocator->set_current_stream_fn(&current_stream_fn);
    set_allocator(DeviceType::CUDA, r.allocator.get());
    set_device_hooks(DeviceType::CUDA, &r.hooks);
    set_pinned_host_allocator(&cuda::host_allocator());
    set_print_host_copy(DeviceType::CUDA,
                        [](const Tensor& t) { return tc::_to_copy(t, std::nullopt, Device(DeviceType::CPU), false); });
  } catch (const std::exception& e) {
    *why = str("the CUDA backend failed to initialise: ", e.what());
    return false;
  }
  return true;
}

[[maybe_unused]] const bool kLoaderSet = (set_backend_loader(DeviceType::CUDA, &load), true);

}  // namespace

const DriverApi& driver(const char* what) {
  std::string why;
  if (!load_backend(DeviceType::CUDA, &why)) TC_FAIL(Device, what, ": cuda is not available: ", why);
  return *g_driver;
}

void check(int err, const char* what, const char* call) {
  if (err != 0) TC_FAIL(Runtime, what, ": ", call, " failed: ", g_driver->error_string(err));
}

int device_count() {
  driver("device_count");
  return runtime().devices;
}

int current_device() {
  int d = 0;
  check(driver("current_device").get_device(&d), "current_device", "cudaGetDevice");
  return d;
}

int resolve_device(int index, const char* what) {
  driver(what);
  if (index < 0) return current_device();
  const int n = device_count();
  TC_CHECK(index < n, Device, what, ": device cuda:", index, " is out of range (",
           n == 1 ? std::string("there is 1 CUDA device") : str("there are ", n, " CUDA devices"), ")");
  return index;
}

Stream current_stream(int device) {
  return size_t(device) < t_current_streams.size() ? t_current_streams[size_t(device)] : 0;
}

Tensor empty_on(IntArrayRef sizes, ScalarType dtype, Device device) {
  tc::DeviceGuard guard(device);  // core's: the CUDA allocator takes the current device; nothing for the CPU
  return empty_tensor(sizes, dtype, device);
}

DeviceGuard::DeviceGuard(int index) : previous_(current_device()) {
  if (index != previous_) check(g_driver->set_device(index), "device guard", "cudaSetDevice");
}
DeviceGuard::~DeviceGuard() {
  int now = -1;
  if (g_driver->get_device(&now) == 0 && now != previous_) g_driver->set_device(previous_);
}

}  // namespace tc::cuda
