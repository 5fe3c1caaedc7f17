// SPDX-License-Identifier: BSD-3-Clause
// Streams and events through the C ABI (tc_stream_*, tc_event_*,
// tc_tensor_record_stream) over a fake PrivateUse1 backend that records what
// it is asked, so the device-agnostic layer is tested without a GPU: the
// current stream per thread and per device, index resolution, unknown
// streams refused, an event taking its device on first record and refusing
// another, elapsed time's checks, waits on never-recorded events skipped,
// events destroyed once, record_stream reaching the backend with the
// tensor's memory; and the CPU, which has only its default stream.
#include <gtest/gtest.h>
#include <tensorc.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/allocator.h"
#include "core/device_hooks.h"
#include "core/tensor.h"

namespace {

using namespace tc;

constexpr DeviceType kFake = DeviceType::PrivateUse1;
constexpr tc_device kFake0 = {TC_DEVICE_PRIVATEUSE1, 0};
constexpr tc_device kFake1 = {TC_DEVICE_PRIVATEUSE1, 1};
constexpr tc_device kFakeCurrent = {TC_DEVICE_PRIVATEUSE1, -1};
constexpr tc_device kCpu = {TC_DEVICE_CPU, 0};

class FakeStreams final : public DeviceHooks, public Allocator {
 public:
  std::mutex mu;
  int current = 0;
  StreamId next_stream = 100;
  EventId next_event = 1000;
  std::set<std::pair<int, StreamId>> streams;
  std::map<EventId, int> event_device;
  std::map<EventId, StreamId> recorded_on;
  std::set<EventId> pending;  // recorded events whose work is "not done"
  std::vector<EventId> destroyed;
  std::vector<std::pair<StreamId, EventId>> waits;
  std::vector<std::pair<void*, StreamId>> recorded_memory;

  int device_count() const override { return 2; }
  int current_device() const override { return current; }
  void set_current_device(int index) override { current = index; }
  void synchronize(int) override {}
  void copy_bytes(void* dst, Device, const void* src, Device, size_t n, bool) override { std::memcpy(dst, src, n); }
  DataPtr allocate(size_t nbytes) override {
    void* p = std::malloc(nbytes ? nbytes : 1);
    return DataPtr(
        p, p, [](void* ctx, void*) { std::free(ctx); }, Device(kFake, current));
  }
  Device device() const override { return Device(kFake, current); }

  StreamId create_stream(int index, int) override {
    std::lock_guard<std::mutex> g(mu);
    streams.insert({index, ++next_stream});
    return next_stream;
  }
  bool is_stream(int index, StreamId s) override {
    std::lock_guard<std::mutex> g(mu);
    return s == 0 || streams.count({index, s}) != 0;
  }
  void adopt_stream(int index, StreamId s) override {
    std::lock_guard<std::mutex> g(mu);
    streams.insert({index, s});
  }
  StreamId current_stream(int index) override { return index < 2 ? current_streams()[index] : 0; }
  void set_current_stream(int index, StreamId s) override { current_streams()[index] = s; }
  bool query_stream(int, StreamId) override { return true; }
  EventId create_event(int index, bool) override {
    std::lock_guard<std::mutex> g(mu);
    event_device[++next_event] = index;
    return next_event;
  }
  void destroy_event(int, EventId e) noexcept override {
    std::lock_guard<std::mutex> g(mu);
    destroyed.push_back(e);
  }
  void record_event(int index, EventId e, StreamId s) override {
    std::lock_guard<std::mutex> g(mu);
    EXPECT_EQ(event_device.at(e), index);
    recorded_on[e] = s;
  }
  bool query_event(int, EventId e) override {
    std::lock_guard<std::mutex> g(mu);
    return pending.count(e) == 0;
  }
  void synchronize_event(int, EventId e) override {
    std::lock_guard<std::mutex> g(mu);
    pending.erase(e);
  }
  void stream_wait_event(int, StreamId s, EventId e) override {
    std::lock_guard<std::mutex> g(mu);
    waits.emplace_back(s, e);
  }
  double event_elapsed_ms(int, EventId start, EventId end) override { return double(end - start) * 1.5; }
  void record_stream(const DataPtr& data, int, StreamId s) override {
    std::lock_guard<std::mutex> g(mu);
    recorded_memory.emplace_back(data.data, s);
  }

 private:
  static StreamId* current_streams() {
    thread_local StreamId mine[2] = {0, 0};
    return mine;
  }
};

class Streams : public ::testing::Test {
 protected:
  void SetUp() override {
    set_allocator(kFake, &fake_);
    set_device_hooks(kFake, &fake_);
  }
  void TearDown() override {
    set_device_hooks(kFake, nullptr);
    set_allocator(kFake, nullptr);
  }
  FakeStreams fake_;
};

std::string last_error() { return tc_last_error_message(); }

#define EXPECT_FAILS_WITH(call, status, text)                                             \
  do {                                                                                    \
    EXPECT_EQ((call), (status));                                                          \
    EXPECT_NE(last_error().find(text), std::string::npos) << "message: " << last_error(); \
  } while (0)

TEST_F(Streams, CurrentStreamIsPerThreadAndPerDevice) {
  tc_stream s{}, cur{};
  ASSERT_EQ(tc_stream_current(&cur, kFake0), TC_OK);
  EXPECT_EQ(cur.id, 0u);
  EXPECT_EQ(cur.device.index, 0);
  ASSERT_EQ(tc_stream_create(&s, kFake0, 0), TC_OK);
  EXPECT_NE(s.id, 0u);
  EXPECT_EQ(s.device.type, TC_DEVICE_PRIVATEUSE1);
  ASSERT_EQ(tc_stream_set_current(s), TC_OK);
  ASSERT_EQ(tc_stream_current(&cur, kFake0), TC_OK);
  EXPECT_EQ(cur.id, s.id);
  ASSERT_EQ(tc_stream_current(&cur, kFake1), TC_OK);  // device 1 keeps its default
  EXPECT_EQ(cur.id, 0u);
  std::thread([] {
    tc_stream other{};
    ASSERT_EQ(tc_stream_current(&other, kFake0), TC_OK);
    EXPECT_EQ(other.id, 0u);  // another thread keeps its own
  }).join();
  tc_stream def{};
  ASSERT_EQ(tc_stream_default(&def, kFake0), TC_OK);
  ASSERT_EQ(tc_stream_set_current(def), TC_OK);
  ASSERT_EQ(tc_stream_current(&cur, kFake0), TC_OK);
  EXPECT_EQ(cur.id, 0u);
}

TEST_F(Streams, DeviceIndexMinusOneIsTheCurrentDevice) {
  fake_.current = 1;
  tc_stream s{};
  ASSERT_EQ(tc_stream_create(&s, kFakeCurrent, -1), TC_OK);
  EXPECT_EQ(s.device.index, 1);
  ASSERT_EQ(tc_stream_default(&s, kFakeCurrent), TC_OK);
  EXPECT_EQ(s.device.index, 1);
}

TEST_F(Streams, BadStreamsAreRefused) {
  tc_stream s{};
  ASSERT_EQ(tc_stream_create(&s, kFake0, 0), TC_OK);
  tc_stream wrong_device = s;
  wrong_device.device.index = 1;  // a stream of device 0 named as device 1's
  EXPECT_FAILS_WITH(tc_stream_set_current(wrong_device), TC_ERROR_INVALID_ARGUMENT, "'stream'");
  tc_stream made_up = s;
  made_up.id = 77;
  EXPECT_FAILS_WITH(tc_stream_synchronize(made_up), TC_ERROR_INVALID_ARGUMENT, "not a stream");
  tc_stream unresolved = s;
  unresolved.device.index = -1;
  EXPECT_FAILS_WITH(tc_stream_set_current(unresolved), TC_ERROR_INVALID_ARGUMENT, "index -1");
  tc_stream out_of_range = s;
  out_of_range.device.index = 5;
  EXPECT_FAILS_WITH(tc_stream_query(nullptr, s), TC_ERROR_INVALID_ARGUMENT, "'out'");
  bool done = false;
  EXPECT_FAILS_WITH(tc_stream_query(&done, out_of_range), TC_ERROR_DEVICE, "out of range");
  tc_stream bad_type = s;
  bad_type.device.type = 99;
  EXPECT_FAILS_WITH(tc_stream_synchronize(bad_type), TC_ERROR_DEVICE, "'stream'");
  EXPECT_FAILS_WITH(tc_stream_create(nullptr, kFake0, 0), TC_ERROR_INVALID_ARGUMENT, "'out'");
  EXPECT_FAILS_WITH(tc_stream_create(&s, tc_device{TC_DEVICE_PRIVATEUSE1, 2}, 0), TC_ERROR_DEVICE, "out of range");
  tc_stream cur{};
  ASSERT_EQ(tc_stream_current(&cur, kFake0), TC_OK);
  EXPECT_EQ(cur.id, 0u);  // nothing above changed it
}

TEST_F(Streams, ExternalStreamsAreAdopted) {
  tc_stream s{};
  EXPECT_FAILS_WITH(tc_stream_from_external(&s, kFake0, 0), TC_ERROR_INVALID_ARGUMENT, "'handle'");
  ASSERT_EQ(tc_stream_from_external(&s, kFake1, 0xabc0), TC_OK);
  EXPECT_EQ(s.id, 0xabc0u);
  EXPECT_EQ(s.device.index, 1);
  EXPECT_EQ(tc_stream_set_current(s), TC_OK);
  tc_stream cur{};
  ASSERT_EQ(tc_stream_current(&cur, kFake1), TC_OK);
  EXPECT_EQ(cur.id, 0xabc0u);
  tc_stream def{};
  ASSERT_EQ(tc_stream_default(&def, kFake1), TC_OK);
  ASSERT_EQ(tc_stream_set_current(def), TC_OK);
}

TEST_F(Streams, EventsTakeTheirDeviceOnFirstRecord) {
  tc_stream s0{}, s1{};
  ASSERT_EQ(tc_stream_create(&s0, kFake0, 0), TC_OK);
  ASSERT_EQ(tc_stream_create(&s1, kFake1, 0), TC_OK);
  tc_event e = nullptr;
  ASSERT_EQ(tc_event_create(&e, false), TC_OK);
  bool done = false;
  ASSERT_EQ(tc_event_query(&done, e), TC_OK);
  EXPECT_TRUE(done);  // never recorded
  EXPECT_EQ(tc_event_synchronize(e), TC_OK);
  EXPECT_TRUE(fake_.event_device.empty());  // no backend event until the first record

  ASSERT_EQ(tc_event_record(e, s0), TC_OK);
  ASSERT_EQ(fake_.event_device.size(), 1u);
  const EventId id = fake_.event_device.begin()->first;
  EXPECT_EQ(fake_.event_device.at(id), 0);
  EXPECT_EQ(fake_.recorded_on.at(id), s0.id);
  EXPECT_FAILS_WITH(tc_event_record(e, s1), TC_ERROR_DEVICE, "privateuseone:0");
  EXPECT_EQ(fake_.recorded_on.at(id), s0.id);  // the failed record changed nothing

  fake_.pending.insert(id);
  ASSERT_EQ(tc_event_query(&done, e), TC_OK);
  EXPECT_FALSE(done);
  ASSERT_EQ(tc_event_synchronize(e), TC_OK);
  ASSERT_EQ(tc_event_query(&done, e), TC_OK);
  EXPECT_TRUE(done);

  ASSERT_EQ(tc_event_record(e, s0), TC_OK);  // again: the same backend event
  EXPECT_EQ(fake_.event_device.size(), 1u);
  tc_event_release(e);
  EXPECT_EQ(fake_.destroyed, std::vector<EventId>{id});
  tc_event_release(nullptr);
}

TEST_F(Streams, StreamsWaitOnlyForRecordedEvents) {
  tc_stream s0{}, s1{};
  ASSERT_EQ(tc_stream_create(&s0, kFake0, 0), TC_OK);
  ASSERT_EQ(tc_stream_create(&s1, kFake0, 0), TC_OK);
  tc_event e = nullptr;
  ASSERT_EQ(tc_event_create(&e, false), TC_OK);
  ASSERT_EQ(tc_stream_wait_event(s1, e), TC_OK);
  EXPECT_TRUE(fake_.waits.empty());
  ASSERT_EQ(tc_event_record(e, s0), TC_OK);
  ASSERT_EQ(tc_stream_wait_event(s1, e), TC_OK);
  ASSERT_EQ(fake_.waits.size(), 1u);
  EXPECT_EQ(fake_.waits[0].first, s1.id);
  tc_stream other_device{};
  ASSERT_EQ(tc_stream_create(&other_device, kFake1, 0), TC_OK);
  EXPECT_FAILS_WITH(tc_stream_wait_event(other_device, e), TC_ERROR_DEVICE, "'event'");
  EXPECT_FAILS_WITH(tc_stream_wait_event(s1, nullptr), TC_ERROR_INVALID_ARGUMENT, "'event'");
  EXPECT_EQ(fake_.waits.size(), 1u);
  tc_event_release(e);
}

TEST_F(Streams, ElapsedTimeChecksBothEvents) {
  tc_stream s{};
  ASSERT_EQ(tc_stream_create(&s, kFake0, 0), TC_OK);
  tc_event a = nullptr, b = nullptr, untimed = nullptr;
  ASSERT_EQ(tc_event_create(&a, true), TC_OK);
  ASSERT_EQ(tc_event_create(&b, true), TC_OK);
  ASSERT_EQ(tc_event_create(&untimed, false), TC_OK);
  double ms = -1;
  ASSERT_EQ(tc_event_record(a, s), TC_OK);
  EXPECT_FAILS_WITH(tc_event_elapsed_time(&ms, a, b), TC_ERROR_INVALID_ARGUMENT, "'end' was never recorded");
  ASSERT_EQ(tc_event_record(b, s), TC_OK);
  ASSERT_EQ(tc_event_record(untimed, s), TC_OK);
  EXPECT_FAILS_WITH(tc_event_elapsed_time(&ms, untimed, b), TC_ERROR_INVALID_ARGUMENT, "'start'");
  EXPECT_FAILS_WITH(tc_event_elapsed_time(nullptr, a, b), TC_ERROR_INVALID_ARGUMENT, "'out'");
  ASSERT_EQ(tc_event_elapsed_time(&ms, a, b), TC_OK);
  EXPECT_DOUBLE_EQ(ms, 1.5);                           // the fake's clock: 1.5 ms per event made
  ASSERT_EQ(tc_event_elapsed_time(&ms, a, a), TC_OK);  // the same event twice locks once
  EXPECT_DOUBLE_EQ(ms, 0.0);
  tc_stream other{};
  ASSERT_EQ(tc_stream_create(&other, kFake1, 0), TC_OK);
  tc_event c = nullptr;
  ASSERT_EQ(tc_event_create(&c, true), TC_OK);
  ASSERT_EQ(tc_event_record(c, other), TC_OK);
  EXPECT_FAILS_WITH(tc_event_elapsed_time(&ms, a, c), TC_ERROR_DEVICE, "privateuseone:1");
  for (tc_event e : {a, b, untimed, c}) tc_event_release(e);
  EXPECT_EQ(fake_.destroyed.size(), 4u);
}

TEST_F(Streams, RecordStreamReachesTheBackendWithTheTensorsMemory) {
  Tensor t = empty_tensor({4}, ScalarType::Float32, Device(kFake, 0));
  tc_tensor h = reinterpret_cast<tc_tensor>(t.impl());
  tc_stream s{}, s1{};
  ASSERT_EQ(tc_stream_create(&s, kFake0, 0), TC_OK);
  ASSERT_EQ(tc_tensor_record_stream(h, s), TC_OK);
  ASSERT_EQ(fake_.recorded_memory.size(), 1u);
  EXPECT_EQ(fake_.recorded_memory[0].first, t.data_ptr());
  EXPECT_EQ(fake_.recorded_memory[0].second, s.id);
  ASSERT_EQ(tc_stream_create(&s1, kFake1, 0), TC_OK);
  EXPECT_FAILS_WITH(tc_tensor_record_stream(h, s1), TC_ERROR_DEVICE, "privateuseone:1");
  EXPECT_FAILS_WITH(tc_tensor_record_stream(nullptr, s), TC_ERROR_INVALID_ARGUMENT, "'t'");
  EXPECT_EQ(fake_.recorded_memory.size(), 1u);
}

TEST_F(Streams, TheCpuHasOnlyItsDefaultStream) {
  tc_stream s{};
  ASSERT_EQ(tc_stream_current(&s, kCpu), TC_OK);
  EXPECT_EQ(s.device.type, TC_DEVICE_CPU);
  EXPECT_EQ(s.id, 0u);
  EXPECT_EQ(tc_stream_set_current(s), TC_OK);
  EXPECT_EQ(tc_stream_synchronize(s), TC_OK);
  bool done = false;
  ASSERT_EQ(tc_stream_query(&done, s), TC_OK);
  EXPECT_TRUE(done);
  EXPECT_FAILS_WITH(tc_stream_create(&s, kCpu, 0), TC_ERROR_NOT_IMPLEMENTED, "CPU");
  tc_stream bogus = s;
  bogus.id = 5;
  EXPECT_FAILS_WITH(tc_stream_synchronize(bogus), TC_ERROR_INVALID_ARGUMENT, "stream 0");
  tc_event e = nullptr;
  ASSERT_EQ(tc_event_create(&e, false), TC_OK);
  EXPECT_FAILS_WITH(tc_event_record(e, s), TC_ERROR_NOT_IMPLEMENTED, "CPU");
  tc_event_release(e);
  Tensor t = empty_tensor({4}, ScalarType::Float32, Device(DeviceType::CPU));
  EXPECT_EQ(tc_tensor_record_stream(reinterpret_cast<tc_tensor>(t.impl()), s), TC_OK);
  tc_stream fake{};
  ASSERT_EQ(tc_stream_default(&fake, kFake0), TC_OK);
  EXPECT_FAILS_WITH(tc_tensor_record_stream(reinterpret_cast<tc_tensor>(t.impl()), fake), TC_ERROR_DEVICE, "cpu");
}

TEST_F(Streams, ABackendWithoutStreamsHasOnlyTheDefault) {
  // DeviceHooks' defaults: what an out-of-tree backend gets without streams.
  class Plain final : public DeviceHooks {
   public:
    int device_count() const override { return 1; }
    int current_device() const override { return 0; }
    void set_current_device(int) override {}
    void synchronize(int) override { ++syncs; }
    void copy_bytes(void*, Device, const void*, Device, size_t, bool) override {}
    int syncs = 0;
  } plain;
  set_device_hooks(kFake, &plain);
  tc_stream s{};
  ASSERT_EQ(tc_stream_current(&s, kFake0), TC_OK);
  EXPECT_EQ(s.id, 0u);
  EXPECT_EQ(tc_stream_set_current(s), TC_OK);
  EXPECT_EQ(tc_stream_synchronize(s), TC_OK);
  EXPECT_EQ(plain.syncs, 1);
  EXPECT_FAILS_WITH(tc_stream_create(&s, kFake0, 0), TC_ERROR_NOT_IMPLEMENTED, "no streams");
  tc_event e = nullptr;
  ASSERT_EQ(tc_event_create(&e, false), TC_OK);
  EXPECT_FAILS_WITH(tc_event_record(e, s), TC_ERROR_NOT_IMPLEMENTED, "no streams");
  tc_event_release(e);
  set_device_hooks(kFake, &fake_);
}

}  // namespace
