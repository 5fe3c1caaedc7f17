// SPDX-License-Identifier: BSD-3-Clause
// tc_device_register_hooks: an out-of-tree backend's C hooks as tensorc's
// DeviceHooks and Allocator for PrivateUse1 (src/privateuse1/ has the
// kernels that use them). A failing hook's status and message come back as
// an Error naming the hook.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "capi/handles.h"
#include "core/allocator.h"
#include "core/device_hooks.h"

namespace {

using tc::Device;
using tc::DeviceType;

class CDeviceHooks final : public tc::DeviceHooks, public tc::Allocator {
 public:
  // h: struct_size bytes of the caller's struct, the rest zero.
  explicit CDeviceHooks(const tc_device_hooks& h) : h_(h) {}

  int device_count() const override { return h_.device_count; }
  int current_device() const override { return current_; }
  void set_current_device(int index) override {
    TC_CHECK(index >= 0 && index < h_.device_count, Device, "privateuseone: device ", index, " is out of range (",
             h_.device_count, " devices)");
    current_ = index;
  }
  void synchronize(int index) override {
    if (h_.synchronize) check(h_.synchronize(index, h_.user_data), "synchronize");
  }
  void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t n, bool) override {
    check(
        h_.copy_bytes(dst, tc::capi::from_device(dst_device), src, tc::capi::from_device(src_device), n, h_.user_data),
        "copy_bytes");
  }

  // ---- streams and events: the backend's, when it has them ----
  tc::StreamId create_stream(int index, int priority) override {
    if (!h_.stream_create) return DeviceHooks::create_stream(index, priority);
    uint64_t s = 0;
    check(h_.stream_create(&s, index, priority, h_.user_data), "stream_create");
    know(index, s);
    return s;
  }
  bool is_stream(int index, tc::StreamId s) override {
    if (index < 0 || index >= h_.device_count) return false;
    if (s == 0) return true;
    std::lock_guard<std::mutex> lock(mu_);
    return known_.count({index, s}) != 0;
  }
  void adopt_stream(int index, tc::StreamId s) override {
    if (!h_.stream_create) return DeviceHooks::adopt_stream(index, s);
    know(index, s);
  }
  tc::StreamId current_stream(int index) override {
    auto it = current_stream_.find({this, index});
    return it == current_stream_.end() ? 0 : it->second;
  }
  void set_current_stream(int index, tc::StreamId s) override {
    if (!h_.stream_create) return DeviceHooks::set_current_stream(index, s);
    current_stream_[{this, index}] = s;
  }
  void synchronize_stream(int index, tc::StreamId s) override {
    if (!h_.stream_create) return DeviceHooks::synchronize_stream(index, s);
    check(h_.stream_synchronize(index, s, h_.user_data), "stream_synchronize");
  }
  bool query_stream(int index, tc::StreamId s) override {
    if (!h_.stream_create) return DeviceHooks::query_stream(index, s);
    bool done = false;
    check(h_.stream_query(&done, index, s, h_.user_data), "stream_query");
    return done;
  }
  tc::EventId create_event(int index, bool timing) override {
    if (!h_.stream_create) return DeviceHooks::create_event(index, timing);
    uint64_t e = 0;
    check(h_.event_create(&e, index, timing, h_.user_data), "event_create");
    return e;
  }
  void destroy_event(int index, tc::EventId e) noexcept override {
    if (h_.event_destroy) h_.event_destroy(index, e, h_.user_data);
  }
  void record_event(int index, tc::EventId e, tc::StreamId s) override {
    if (!h_.stream_create) return DeviceHooks::record_event(index, e, s);
    check(h_.event_record(index, e, s, h_.user_data), "event_record");
  }
  bool query_event(int index, tc::EventId e) override {
    if (!h_.stream_create) return DeviceHooks::query_event(index, e);
    bool done = false;
    check(h_.event_query(&done, index, e, h_.user_data), "event_query");
    return done;
  }
  void synchronize_event(int index, tc::EventId e) override {
    if (!h_.stream_create) return DeviceHooks::synchronize_event(index, e);
    check(h_.event_synchronize(index, e, h_.user_data), "event_synchronize");
  }
  void stream_wait_event(int index, tc::StreamId s, tc::EventId e) override {
    if (!h_.stream_create) return DeviceHooks::stream_wait_event(index, s, e);
    check(h_.stream_wait_event(index, s, e, h_.user_data), "stream_wait_event");
  }
  double event_elapsed_ms(int index, tc::EventId start, tc::EventId end) override {
    if (!h_.stream_create) return DeviceHooks::event_elapsed_ms(index, start, end);
    double ms = 0;
    check(h_.event_elapsed_ms(&ms, index, start, end, h_.user_data), "event_elapsed_ms");
    return ms;
  }

  tc::DataPtr allocate(size_t nbytes) override {
    const Device dev(DeviceType::PrivateUse1, current_);
    if (nbytes == 0) return tc::DataPtr(nullptr, nullptr, nullptr, dev);
    void* p = nullptr;
    check(h_.allocate(&p, current_, nbytes, h_.user_data), "allocate");
    TC_CHECK(p != nullptr, OutOfMemory, "privateuseone: the backend's allocate hook returned NULL for ", nbytes,
             " bytes on device ", current_);
    // One small record per allocation: which hooks release it, on which device.
    auto* owner = new Allocation{this, current_};
    return tc::DataPtr(p, owner, &release, dev);
  }
  Device device() const override { return Device(DeviceType::PrivateUse1, current_); }

 private:
  struct Allocation {
    CDeviceHooks* hooks;
    int index;
  };
  static void release(void* ctx, void* data) {
    auto* a = static_cast<Allocation*>(ctx);
    a->hooks->h_.release(data, a->index, a->hooks->h_.user_data);
    delete a;
  }
  static void check(tc_status st, const char* hook) {
    if (st != TC_OK) tc::capi::throw_callback_status(st, std::string("privateuseone: the backend's ") + hook + " hook");
  }

  void know(int index, tc::StreamId s) {
    std::lock_guard<std::mutex> lock(mu_);
    known_.insert({index, s});
  }

  tc_device_hooks h_;
  static thread_local int current_;
  // Each thread's current stream per (hooks, device): a stream handle belongs
  // to the hooks that made it.
  static thread_local std::map<std::pair<const CDeviceHooks*, int>, tc::StreamId> current_stream_;
  std::mutex mu_;
  std::set<std::pair<int, tc::StreamId>> known_;  // (device, stream) from stream_create or adopted
};

thread_local int CDeviceHooks::current_ = 0;
thread_local std::map<std::pair<const CDeviceHooks*, int>, tc::StreamId> CDeviceHooks::current_stream_;

// Every set of hooks ever registered stays alive: tensors allocated through
// it release through it, however late.
std::vector<std::unique_ptr<CDeviceHooks>>& registered() {
  static auto* all = new std::vector<std::unique_ptr<CDeviceHooks>>;
  return *all;
}

}  // namespace

extern "C" {

TC_API tc_status tc_device_register_hooks(int32_t device_type, const tc_device_hooks* hooks) {
  constexpr const char* fn = "tc_device_register_hooks";
  TC_CAPI_BEGIN
  TC_CHECK_ARG(device_type == TC_DEVICE_PRIVATEUSE1, fn, ": argument 'device_type' expected TC_DEVICE_PRIVATEUSE1 (",
               int(TC_DEVICE_PRIVATEUSE1), "), got ", device_type);
  TC_CAPI_NULL_CHECK(hooks, fn, "hooks");
  TC_CHECK_ARG(hooks->struct_size >= TC_DEVICE_HOOKS_BASE_SIZE, fn, ": argument 'hooks' has struct_size ",
               hooks->struct_size, ", expected at least TC_DEVICE_HOOKS_BASE_SIZE = ", TC_DEVICE_HOOKS_BASE_SIZE);
  // What the caller's struct has; fields past its struct_size are NULL.
  tc_device_hooks h;
  std::memset(&h, 0, sizeof h);
  // Whole fields only: a size that ends inside a function pointer drops it.
  const size_t base = TC_DEVICE_HOOKS_BASE_SIZE;
  const size_t known = std::min(hooks->struct_size, sizeof h);
  std::memcpy(&h, hooks, known - (known - base) % sizeof(void*));
  TC_CHECK_ARG(h.allocate && h.release && h.copy_bytes, fn,
               ": argument 'hooks' must set allocate, release and copy_bytes");
  TC_CHECK_ARG(h.device_count >= 1, fn, ": argument 'hooks' expected device_count >= 1, got ", h.device_count);
  TC_CHECK_ARG(!h.stream_create ||
                   (h.stream_query && h.stream_synchronize && h.stream_wait_event && h.event_create &&
                    h.event_destroy && h.event_record && h.event_query && h.event_synchronize && h.event_elapsed_ms),
               fn, ": argument 'hooks' sets stream_create, so it must set every stream and event function");
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  registered().push_back(std::make_unique<CDeviceHooks>(h));
  CDeviceHooks* made = registered().back().get();
  tc::set_allocator(DeviceType::PrivateUse1, made);
  tc::set_device_hooks(DeviceType::PrivateUse1, made);
  TC_CAPI_END(fn)
}

}  // extern "C"
