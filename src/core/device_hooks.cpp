// SPDX-License-Identifier: BSD-3-Clause
// The device-hook registry, and the one-time loading of backends that need
// it (CUDA's loader, in cuda/runtime.cpp, dlopens the driver library).
// Whatever goes wrong is remembered and reported by every later call as
// Error(Device) with the reason; nothing aborts.
#include "core/device_hooks.h"

#include <array>
#include <atomic>
#include <mutex>

#include "core/error.h"

namespace tc {
namespace {

constexpr size_t kNumTypeCodes = 16;  // DLPack device type codes in use stay below this

std::array<std::atomic<DeviceHooks*>, kNumTypeCodes>& hooks_table() {
  static std::array<std::atomic<DeviceHooks*>, kNumTypeCodes> table{};
  return table;
}

size_t slot(DeviceType t) {
  const size_t s = size_t(t);
  TC_INTERNAL_ASSERT(s < kNumTypeCodes, "device type code ", s);
  return s;
}

struct LoadState {
  std::once_flag once;
  bool ok = false;
  std::string why;
};

std::array<std::atomic<BackendLoader>, kNumTypeCodes>& loaders() {
  static std::array<std::atomic<BackendLoader>, kNumTypeCodes> table{};
  return table;
}

LoadState& state_of(DeviceType t) {
  static std::array<LoadState, kNumTypeCodes> states;
  return states[slot(t)];
}

}  // namespace

bool load_backend(DeviceType t, std::string* why) {
  if (t == DeviceType::CPU) return true;
  if (BackendLoader loader = loaders()[slot(t)].load(std::memory_order_acquire)) {
    LoadState& s = state_of(t);
    std::call_once(s.once, [&s, loader] { s.ok = loader(&s.why); });
    if (!s.ok && why) *why = s.why;
    return s.ok;
  }
  const bool ok = hooks_table()[slot(t)].load(std::memory_order_acquire) != nullptr;
  if (!ok && why)
    *why = str("no backend has registered itself for device type ", device_type_name(t),
               " (load the backend's library first)");
  return ok;
}

void set_backend_loader(DeviceType t, BackendLoader loader) {
  loaders()[slot(t)].store(loader, std::memory_order_release);
}

DeviceHooks* try_device_hooks(DeviceType t, std::string* why) {
  if (t == DeviceType::CPU) {
    if (why) *why = "the CPU has no device hooks";
    return nullptr;
  }
  if (!load_backend(t, why)) return nullptr;
  DeviceHooks* h = hooks_table()[slot(t)].load(std::memory_order_acquire);
  if (h == nullptr && why) *why = str("the ", device_type_name(t), " backend registered no device hooks");
  return h;
}

DeviceHooks& device_hooks(DeviceType t, const char* what) {
  std::string why;
  DeviceHooks* h = try_device_hooks(t, &why);
  if (h == nullptr) TC_FAIL(Device, what, ": ", device_type_name(t), " is not available: ", why);
  return *h;
}

void set_device_hooks(DeviceType t, DeviceHooks* hooks) {
  TC_CHECK(t != DeviceType::CPU, InvalidArgument, "set_device_hooks: the CPU takes no device hooks");
  hooks_table()[slot(t)].store(hooks, std::memory_order_release);
}

int resolve_device_index(DeviceType t, int index, const char* what) {
  if (t == DeviceType::CPU) return -1;
  DeviceHooks& h = device_hooks(t, what);
  if (index < 0) return h.current_device();
  const int n = h.device_count();
  TC_CHECK(index < n, Device, what, ": device ", device_type_name(t), ":", index, " is out of range (",
           n == 1 ? "there is 1 device" : str("there are ", n, " devices"), ")");
  return index;
}

int64_t DeviceHooks::memory_stat(int, MemoryStat) {
  TC_FAIL(NotImplemented, "memory statistics: this backend keeps none");
}
void DeviceHooks::reset_peak_memory_stats(int) {
  TC_FAIL(NotImplemented, "memory statistics: this backend keeps none");
}

namespace {
[[noreturn]] void no_streams(const char* what) {
  TC_FAIL(NotImplemented, what, ": this backend has no streams or events besides its default stream");
}
}  // namespace

StreamId DeviceHooks::create_stream(int, int) { no_streams("stream"); }
void DeviceHooks::adopt_stream(int, StreamId) { no_streams("external stream"); }
void DeviceHooks::set_current_stream(int, StreamId s) {
  TC_CHECK(s == 0, InvalidArgument, "set_current_stream: this backend has only its default stream");
}
bool DeviceHooks::query_stream(int index, StreamId) {
  synchronize(index);
  return true;
}
EventId DeviceHooks::create_event(int, bool) { no_streams("event"); }
void DeviceHooks::record_event(int, EventId, StreamId) { no_streams("event record"); }
bool DeviceHooks::query_event(int, EventId) { no_streams("event query"); }
void DeviceHooks::synchronize_event(int, EventId) { no_streams("event synchronize"); }
void DeviceHooks::stream_wait_event(int, StreamId, EventId) { no_streams("stream wait_event"); }
double DeviceHooks::event_elapsed_ms(int, EventId, EventId) { no_streams("event elapsed_time"); }

void DeviceGuard::enter(Device device) {
  DeviceHooks* h = try_device_hooks(device.type);
  if (h == nullptr) return;
  const int current = h->current_device();
  if (current == device.index) return;
  h->set_current_device(device.index);
  hooks_ = h;
  previous_ = current;
}

void DeviceGuard::leave() noexcept {
  try {
    hooks_->set_current_device(previous_);
  } catch (...) {  // a destructor cannot report it; the previous device was valid a moment ago
  }
}

namespace {
std::atomic<Allocator*> g_pinned_host_allocator{nullptr};
}  // namespace

Allocator* pinned_host_allocator() { return g_pinned_host_allocator.load(std::memory_order_acquire); }
void set_pinned_host_allocator(Allocator* a) { g_pinned_host_allocator.store(a, std::memory_order_release); }

}  // namespace tc
