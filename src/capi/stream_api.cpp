// SPDX-License-Identifier: BSD-3-Clause
// Streams and events of the C ABI over a backend's device hooks: a tc_stream
// is a value (device, backend handle) checked against the backend on every
// use; a tc_event is a small object that takes its device and backend event
// on first record, as PyTorch's Event does.
#include <mutex>

#include "capi/handles.h"
#include "core/device_hooks.h"

namespace {

struct EventState {
  std::mutex mu;
  bool timing = false;
  bool recorded = false;
  tc::Device device;  // set by the first record
  tc::DeviceHooks* hooks = nullptr;
  tc::EventId id = 0;
};

EventState* state_of(tc_event e) { return reinterpret_cast<EventState*>(e); }

// What a query or a wait needs, read under the event's lock; the backend
// call then runs without it, so a thread waiting on the GPU never blocks
// another thread's record or query of the same event.
struct Recorded {
  bool recorded = false;
  tc::DeviceHooks* hooks = nullptr;
  int index = 0;
  tc::EventId id = 0;
};
Recorded recorded(EventState& e) {
  std::lock_guard<std::mutex> lock(e.mu);
  return {e.recorded, e.hooks, e.device.index, e.id};
}

// The device a stream or tc_device argument names, resolved (index >= 0),
// and its backend's hooks (nullptr for the CPU).
tc::Device resolve(const tc_device& d, tc::DeviceHooks** hooks, const char* fn, const char* arg) {
  const tc::Device dev = tc::capi::to_device(d, fn, arg);
  if (dev.is_cpu()) {
    *hooks = nullptr;
    return tc::Device(tc::DeviceType::CPU);
  }
  *hooks = &tc::device_hooks(dev.type, fn);
  return tc::Device(dev.type, int16_t(tc::resolve_device_index(dev.type, dev.index, fn)));
}

// A stream argument: its device resolved and its id known to the backend.
tc::Device checked_stream(const tc_stream& s, tc::DeviceHooks** hooks, const char* fn, const char* arg = "stream") {
  TC_CHECK_ARG(s.device.index >= 0 || s.device.type == TC_DEVICE_CPU, fn, ": argument '", arg, "' has device index ",
               s.device.index, " (a tc_stream's index is resolved; make streams with tc_stream_*)");
  const tc::Device dev = resolve(s.device, hooks, fn, arg);
  if (*hooks == nullptr)
    TC_CHECK_ARG(s.id == 0, fn, ": argument '", arg, "' names CPU stream ", s.id, " (the CPU has only stream 0)");
  else
    TC_CHECK_ARG((*hooks)->is_stream(dev.index, s.id), fn, ": argument '", arg, "' is not a stream of ", dev.str(),
                 " that tensorc knows (id ", s.id, ")");
  return dev;
}

tc_stream make_stream(tc::Device dev, uint64_t id) {
  tc_stream s;
  s.device.type = int32_t(dev.type);
  s.device.index = dev.is_cpu() ? 0 : dev.index;
  s.id = id;
  return s;
}

}  // namespace

extern "C" {

TC_API tc_status tc_stream_create(tc_stream* out, tc_device device, int32_t priority) {
  constexpr const char* fn = "tc_stream_create";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  tc::DeviceHooks* h = nullptr;
  const tc::Device dev = resolve(device, &h, fn, "device");
  TC_CHECK(h != nullptr, NotImplemented, fn, ": the CPU has no streams besides its default one");
  *out = make_stream(dev, h->create_stream(dev.index, priority));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_stream_default(tc_stream* out, tc_device device) {
  constexpr const char* fn = "tc_stream_default";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  tc::DeviceHooks* h = nullptr;
  *out = make_stream(resolve(device, &h, fn, "device"), 0);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_stream_current(tc_stream* out, tc_device device) {
  constexpr const char* fn = "tc_stream_current";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  tc::DeviceHooks* h = nullptr;
  const tc::Device dev = resolve(device, &h, fn, "device");
  *out = make_stream(dev, h ? h->current_stream(dev.index) : 0);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_stream_set_current(tc_stream stream) {
  constexpr const char* fn = "tc_stream_set_current";
  TC_CAPI_BEGIN
  tc::DeviceHooks* h = nullptr;
  const tc::Device dev = checked_stream(stream, &h, fn);
  if (h) h->set_current_stream(dev.index, stream.id);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_stream_from_external(tc_stream* out, tc_device device, uint64_t handle) {
  constexpr const char* fn = "tc_stream_from_external";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CHECK_ARG(handle != 0, fn, ": argument 'handle' is 0 (the default stream is tc_stream_default's)");
  tc::DeviceHooks* h = nullptr;
  const tc::Device dev = resolve(device, &h, fn, "device");
  TC_CHECK(h != nullptr, NotImplemented, fn, ": the CPU has no streams besides its default one");
  h->adopt_stream(dev.index, handle);
  *out = make_stream(dev, handle);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_stream_synchronize(tc_stream stream) {
  constexpr const char* fn = "tc_stream_synchronize";
  TC_CAPI_BEGIN
  tc::DeviceHooks* h = nullptr;
  const tc::Device dev = checked_stream(stream, &h, fn);
  if (h) h->synchronize_stream(dev.index, stream.id);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_stream_query(bool* out, tc_stream stream) {
  constexpr const char* fn = "tc_stream_query";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  tc::DeviceHooks* h = nullptr;
  const tc::Device dev = checked_stream(stream, &h, fn);
  *out = h ? h->query_stream(dev.index, stream.id) : true;
  TC_CAPI_END(fn)
}

TC_API tc_status tc_stream_wait_event(tc_stream stream, tc_event event) {
  constexpr const char* fn = "tc_stream_wait_event";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(event, fn, "event");
  tc::DeviceHooks* h = nullptr;
  const tc::Device dev = checked_stream(stream, &h, fn);
  EventState& e = *state_of(event);
  std::lock_guard<std::mutex> lock(e.mu);
  if (!e.recorded) return TC_OK;
  TC_CHECK(e.device == dev, Device, fn, ": argument 'event' belongs to ", e.device.str(), " but 'stream' to ",
           dev.str());
  h->stream_wait_event(dev.index, stream.id, e.id);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_event_create(tc_event* out, bool enable_timing) {
  constexpr const char* fn = "tc_event_create";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  auto* e = new EventState;
  e->timing = enable_timing;
  *out = reinterpret_cast<tc_event>(e);
  TC_CAPI_END(fn)
}

TC_API void tc_event_release(tc_event event) {
  if (!event) return;
  EventState* e = state_of(event);
  if (e->id != 0) e->hooks->destroy_event(e->device.index, e->id);
  delete e;
}

TC_API tc_status tc_event_record(tc_event event, tc_stream stream) {
  constexpr const char* fn = "tc_event_record";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(event, fn, "event");
  tc::DeviceHooks* h = nullptr;
  const tc::Device dev = checked_stream(stream, &h, fn);
  TC_CHECK(h != nullptr, NotImplemented, fn, ": the CPU has no events (its ops finish before they return)");
  EventState& e = *state_of(event);
  std::lock_guard<std::mutex> lock(e.mu);
  if (e.id == 0) {
    e.id = h->create_event(dev.index, e.timing);
    e.device = dev;
    e.hooks = h;
  }
  TC_CHECK(e.device == dev, Device, fn, ": argument 'event' belongs to ", e.device.str(), " but 'stream' to ",
           dev.str());
  h->record_event(dev.index, e.id, stream.id);
  e.recorded = true;
  TC_CAPI_END(fn)
}

TC_API tc_status tc_event_query(bool* out, tc_event event) {
  constexpr const char* fn = "tc_event_query";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(event, fn, "event");
  const Recorded r = recorded(*state_of(event));
  *out = !r.recorded || r.hooks->query_event(r.index, r.id);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_event_synchronize(tc_event event) {
  constexpr const char* fn = "tc_event_synchronize";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(event, fn, "event");
  const Recorded r = recorded(*state_of(event));
  if (r.recorded) r.hooks->synchronize_event(r.index, r.id);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_event_elapsed_time(double* out, tc_event start, tc_event end) {
  constexpr const char* fn = "tc_event_elapsed_time";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CAPI_NULL_CHECK(start, fn, "start");
  TC_CAPI_NULL_CHECK(end, fn, "end");
  EventState& a = *state_of(start);
  EventState& b = *state_of(end);
  // Both locks, in address order (the same event twice: one).
  std::unique_lock<std::mutex> first(&a < &b ? a.mu : b.mu), second;
  if (&a != &b) second = std::unique_lock<std::mutex>(&a < &b ? b.mu : a.mu);
  for (auto [ev, name] : {std::pair<EventState*, const char*>{&a, "start"}, {&b, "end"}}) {
    TC_CHECK_ARG(ev->timing, fn, ": argument '", name, "' was created without enable_timing");
    TC_CHECK_ARG(ev->recorded, fn, ": argument '", name, "' was never recorded");
  }
  TC_CHECK(a.device == b.device, Device, fn, ": argument 'start' belongs to ", a.device.str(), " but 'end' to ",
           b.device.str());
  *out = a.hooks->event_elapsed_ms(a.device.index, a.id, b.id);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_tensor_record_stream(tc_tensor t, tc_stream stream) {
  constexpr const char* fn = "tc_tensor_record_stream";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(t, fn, "t");
  tc::DeviceHooks* h = nullptr;
  const tc::Device dev = checked_stream(stream, &h, fn);
  tc::capi::Borrowed borrowed(t);
  const tc::Tensor& x = borrowed.get();
  TC_CHECK(x.device() == dev, Device, fn, ": argument 'stream' is on ", dev.str(), " but 't' on ", x.device().str());
  if (h && x.impl()->storage()) h->record_stream(x.impl()->storage()->data_ptr(), dev.index, stream.id);
  TC_CAPI_END(fn)
}

}  // extern "C"
