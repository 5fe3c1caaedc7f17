// SPDX-License-Identifier: BSD-3-Clause
// Devices, streams and events: torch.cuda's runtime calls for any device
// type (CUDA, or an out-of-tree PrivateUse1 backend), a Stream value, an
// owning Event, and scope guards for the current device and stream.
// Part of the header-only wrapper over the C ABI; include <tensorc.hpp>.
#ifndef TENSORC_DEVICE_HPP
#define TENSORC_DEVICE_HPP

#include <cstdint>
#include <memory>
#include <string>

#include "tensorc/core.hpp"
#include "tensorc/tensor.hpp"

namespace tensorc {

// Whether tensors can be made on `type`; the backend's reason otherwise.
inline bool is_available(DeviceType type) noexcept { return tc_device_check(static_cast<int32_t>(type)) == TC_OK; }
inline std::string unavailable_reason(DeviceType type) {
  return tc_device_check(static_cast<int32_t>(type)) == TC_OK ? std::string() : tc_last_error_message();
}
// 0 when the backend is unavailable; 1 for the CPU.
inline int device_count(DeviceType type) {
  int n = 0;
  detail::check(tc_device_count(&n, static_cast<int32_t>(type)));
  return n;
}
inline int current_device(DeviceType type) {
  int n = 0;
  detail::check(tc_device_current(&n, static_cast<int32_t>(type)));
  return n;
}
inline void set_device(Device device) {
  detail::check(tc_device_set_current(static_cast<int32_t>(device.type()), device.index()));
}
// Waits until all work queued on `device` is done.
inline void synchronize(Device device) { detail::check(tc_device_synchronize(detail::to_c(device))); }

class Event;

// A stream of a device: a value (streams live as long as the process).
class Stream {
 public:
  // A stream from the device's pool; priority 0 normal, below 0 higher.
  static Stream create(Device device, int32_t priority = 0) {
    tc_stream s;
    detail::check(tc_stream_create(&s, detail::to_c(device), priority));
    return Stream(s);
  }
  static Stream default_stream(Device device) {
    tc_stream s;
    detail::check(tc_stream_default(&s, detail::to_c(device)));
    return Stream(s);
  }
  // The calling thread's current stream for `device`.
  static Stream current(Device device) {
    tc_stream s;
    detail::check(tc_stream_current(&s, detail::to_c(device)));
    return Stream(s);
  }
  // A stream made outside tensorc (a cudaStream_t); the caller keeps it alive.
  static Stream from_external(Device device, uint64_t handle) {
    tc_stream s;
    detail::check(tc_stream_from_external(&s, detail::to_c(device), handle));
    return Stream(s);
  }

  Device device() const noexcept { return detail::from_c(s_.device); }
  uint64_t id() const noexcept { return s_.id; }  // the backend's handle; 0: the default stream
  const tc_stream& get() const noexcept { return s_; }

  void synchronize() const { detail::check(tc_stream_synchronize(s_)); }
  bool query() const {
    bool done = false;
    detail::check(tc_stream_query(&done, s_));
    return done;
  }
  inline void wait_event(const Event& event) const;
  // Work queued here from now on waits for the work queued on `other` so far.
  inline void wait_stream(const Stream& other) const;

  bool operator==(const Stream& o) const noexcept { return device() == o.device() && s_.id == o.s_.id; }
  bool operator!=(const Stream& o) const noexcept { return !(*this == o); }

 private:
  explicit Stream(tc_stream s) noexcept : s_(s) {}
  tc_stream s_;
};

// An event (owning, shared on copy): a point in a stream's work to wait for,
// query or time. It belongs to the device of the first stream it is recorded on.
class Event {
 public:
  explicit Event(bool enable_timing = false) {
    tc_event e = nullptr;
    detail::check(tc_event_create(&e, enable_timing));
    e_.reset(e, &tc_event_release);
  }
  void record(const Stream& stream) { detail::check(tc_event_record(get(), stream.get())); }
  // True when the work before the last record is done (true if never recorded).
  bool query() const {
    bool done = false;
    detail::check(tc_event_query(&done, get()));
    return done;
  }
  void synchronize() const { detail::check(tc_event_synchronize(get())); }
  // Milliseconds from this event to `end` (both made with enable_timing).
  double elapsed_time(const Event& end) const {
    double ms = 0;
    detail::check(tc_event_elapsed_time(&ms, get(), end.get()));
    return ms;
  }
  tc_event get() const noexcept { return e_.get(); }

 private:
  std::shared_ptr<tc_event_s> e_;
};

inline void Stream::wait_event(const Event& event) const { detail::check(tc_stream_wait_event(s_, event.get())); }
inline void Stream::wait_stream(const Stream& other) const {
  Event e;
  e.record(other);
  wait_event(e);
}

// Marks t's memory as used by `stream` too (Tensor.record_stream).
inline void record_stream(const Tensor& t, const Stream& stream) {
  detail::check(tc_tensor_record_stream(t.get(), stream.get()));
}

// A contiguous copy of CPU tensor t in page-locked memory, which CUDA copies
// to and from asynchronously (t itself if already pinned); throws without a
// usable CUDA device.
inline Tensor pin_memory(const Tensor& t) {
  tc_tensor out = nullptr;
  detail::check(tc_tensor_pin_memory(&out, t.get()));
  return Tensor::adopt(out);
}
// Whether t's memory is page-locked (from pin_memory).
inline bool is_pinned(const Tensor& t) {
  bool out = false;
  detail::check(tc_tensor_is_pinned(&out, t.get()));
  return out;
}

// Makes `device` current for a scope and restores the previous device.
class DeviceGuard {
 public:
  explicit DeviceGuard(Device device) : type_(device.type()), previous_(current_device(device.type())) {
    set_device(device);
  }
  ~DeviceGuard() { tc_device_set_current(static_cast<int32_t>(type_), previous_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  DeviceType type_;
  int previous_;
};

// Makes `stream` the current stream of its device for a scope, and restores
// the one before (c10::StreamGuard without the device switch).
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream) : previous_(Stream::current(stream.device())) {
    detail::check(tc_stream_set_current(stream.get()));
  }
  ~StreamGuard() { tc_stream_set_current(previous_.get()); }
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
};

}  // namespace tensorc

#endif  // TENSORC_DEVICE_HPP
