// SPDX-License-Identifier: BSD-3-Clause
// What a device backend provides besides kernels: its devices, the current
// device per thread, synchronisation, and byte copies between its memory and
// the host's. The CUDA library registers its hooks when it is loaded; an
// out-of-tree PrivateUse1 backend registers its own. Cross-device copy_,
// _to_copy and to(device) go through these hooks, so a backend that has them
// can load and read its tensors through tensorc's ops.
//
// Backends that live in their own shared library (CUDA) are loaded on first
// use (device_hooks(), or a call dispatched to the backend's key), so a
// CPU-only user needs no driver and no CUDA runtime.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/device.h"

namespace tc {

struct DataPtr;
class Allocator;
// A backend's stream and event handles (a cudaStream_t, a cudaEvent_t).
using StreamId = uint64_t;
using EventId = uint64_t;

// A backend's memory statistics for one device (its caching allocator's).
enum class MemoryStat : int {
  AllocatedBytes = 0,      // held by tensors now
  PeakAllocatedBytes = 1,  // the most held at once since the last reset
  ReservedBytes = 2,       // held from the device: allocated plus cached
  PeakReservedBytes = 3,
  NumDeviceMallocs = 4,  // calls to the device's own allocator
  NumDeviceFrees = 5,
  NumAllocRetries = 6,  // allocations that succeeded after emptying the cache
  NumOoms = 7,          // allocations that failed
  Count
};

class DeviceHooks {
 public:
  virtual ~DeviceHooks() = default;
  virtual int device_count() const = 0;
  // The calling thread's current device (-1 in a Device means this one).
  virtual int current_device() const = 0;
  virtual void set_current_device(int index) = 0;
  // Waits for all work queued on `index`.
  virtual void synchronize(int index) = 0;
  // Copies n bytes; each side is this backend's device or the host (CPU).
  // non_blocking: may return before the copy ends (ordered on the current
  // stream); only the backend knows when the host side must stay alive.
  virtual void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t n,
                          bool non_blocking) = 0;
  // Memory statistics of device `index` (resolved), for backends with a
  // caching allocator; the default is Error(NotImplemented).
  virtual int64_t memory_stat(int index, MemoryStat which);
  // Peak statistics start again from the current values.
  virtual void reset_peak_memory_stats(int index);
  // Returns cached, unused memory of every device to the system (default: nothing cached).
  virtual void empty_cache() {}

  // Streams and events (c10::Stream and c10::Event over a backend). A stream
  // is the backend's handle, 0 being device `index`'s default stream; work a
  // thread queues runs on its current stream. The defaults describe a backend
  // with only the default stream, which waits for nothing (synchronize(index)
  // covers it) and has no events (Error(NotImplemented)).
  //
  // A stream from the backend's pool (priority 0 normal, below 0 higher, as CUDA's).
  virtual StreamId create_stream(int index, int priority);
  // Whether `s` names a stream of device `index` that this backend knows.
  virtual bool is_stream(int index, StreamId s) { return s == 0 && index >= 0; }
  // A stream made outside tensorc (a cudaStream_t), accepted from now on.
  virtual void adopt_stream(int index, StreamId s);
  virtual StreamId current_stream(int /*index*/) { return 0; }
  virtual void set_current_stream(int index, StreamId s);
  virtual void synchronize_stream(int index, StreamId /*s*/) { synchronize(index); }
  // True when all work queued on `s` is done.
  virtual bool query_stream(int index, StreamId s);
  virtual EventId create_event(int index, bool timing);
  virtual void destroy_event(int /*index*/, EventId /*e*/) noexcept {}
  virtual void record_event(int index, EventId e, StreamId s);
  virtual bool query_event(int index, EventId e);
  virtual void synchronize_event(int index, EventId e);
  // Later work on `s` waits until `e` has happened.
  virtual void stream_wait_event(int index, StreamId s, EventId e);
  // Milliseconds from `start` to `end`, both recorded with timing.
  virtual double event_elapsed_ms(int index, EventId start, EventId end);
  // The memory of `data` is in use by work on `s` too: it is not reused
  // before that work is done (Tensor.record_stream). Default: nothing to do.
  virtual void record_stream(const DataPtr& /*data*/, int /*index*/, StreamId /*s*/) {}

  // Page-locked host memory (Tensor.pin_memory): CPU memory this backend
  // copies to and from asynchronously; nullptr when it has none (the default).
  virtual Allocator* host_allocator() { return nullptr; }
};

// pin_memory's allocator, once a backend with one has been loaded (nullptr
// before): is_pinned compares a storage's allocator with it, without loading
// any backend.
Allocator* pinned_host_allocator();
void set_pinned_host_allocator(Allocator* a);

// The hooks of device type `t`, loading its library on first use. Throws
// Error(Device) naming `what` and saying why when the backend is unusable
// (no library, no driver, no device).
DeviceHooks& device_hooks(DeviceType t, const char* what);
// Same, without throwing: nullptr when the backend is unusable (why in *why).
DeviceHooks* try_device_hooks(DeviceType t, std::string* why = nullptr);
// Installs (or, with nullptr, removes) the hooks of `t`.
void set_device_hooks(DeviceType t, DeviceHooks* hooks);

// Makes the backend of `t` usable once, through its loader (CUDA's opens
// libtensorc_cuda.so). True when usable; the reason otherwise, kept for every
// later call, in *why. Device types without a loader are usable once their
// hooks are set.
bool load_backend(DeviceType t, std::string* why = nullptr);
// Sets the loader of `t`: called once, on first use; true when the backend is
// usable (and its hooks and allocator installed), else false with *why.
using BackendLoader = bool (*)(std::string* why);
void set_backend_loader(DeviceType t, BackendLoader loader);

// Makes `device` the calling thread's current device of its type for a
// scope, through the backend's hooks, and restores the previous one (PyTorch's
// DeviceGuard, for device-agnostic code such as TensorIter allocating an
// output beside its inputs). CPU, index -1 or a type without hooks: nothing.
class DeviceGuard {
 public:
  explicit DeviceGuard(Device device) {
    if (!device.is_cpu() && device.index >= 0) enter(device);  // CPU: no call at all
  }
  ~DeviceGuard() {
    if (hooks_ != nullptr) leave();
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  void enter(Device device);
  void leave() noexcept;
  DeviceHooks* hooks_ = nullptr;  // set only when the device was changed
  int previous_ = -1;
};

// A device index resolved against the backend: -1 becomes the current device;
// out of range is Error(Device) naming `what` and the device count.
int resolve_device_index(DeviceType t, int index, const char* what);

}  // namespace tc
