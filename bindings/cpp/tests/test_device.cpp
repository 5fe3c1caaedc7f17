// SPDX-License-Identifier: BSD-3-Clause
// tensorc/device.hpp: the device runtime, Stream, Event and the guards. The
// CPU's answers and CUDA's errors run everywhere; the CUDA test runs where a
// device is (and is skipped, saying so, elsewhere).
#include <gtest/gtest.h>

#include <tensorc.hpp>

using namespace tensorc;

TEST(Device, TheCpuHasOneDeviceAndOnlyItsDefaultStream) {
  EXPECT_TRUE(is_available(kCPU));
  EXPECT_EQ(device_count(kCPU), 1);
  EXPECT_EQ(current_device(kCPU), 0);
  synchronize(Device(kCPU));
  Stream s = Stream::current(Device(kCPU));
  EXPECT_EQ(s.id(), 0u);
  EXPECT_TRUE(s.device().is_cpu());
  EXPECT_EQ(s, Stream::default_stream(Device(kCPU)));
  EXPECT_TRUE(s.query());
  { StreamGuard g(s); }
  EXPECT_THROW(Stream::create(Device(kCPU)), NotImplementedError);
  Event e(true);
  EXPECT_TRUE(e.query());  // never recorded
  EXPECT_THROW(e.record(s), NotImplementedError);
  EXPECT_THROW(e.elapsed_time(Event(true)), InvalidArgumentError);
  Tensor t = ones({3});
  record_stream(t, s);  // nothing to do on the CPU
}

TEST(Device, CudaErrorsSayWhyWhenUnavailable) {
  if (is_available(kCUDA)) GTEST_SKIP() << "a CUDA device is present: the unavailable path does not apply";
  const std::string why = unavailable_reason(kCUDA);
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(device_count(kCUDA), 0);
  EXPECT_THROW(Stream::create(Device(kCUDA, 0)), DeviceError);
  EXPECT_THROW(Stream::current(Device(kCUDA)), DeviceError);
  EXPECT_THROW(synchronize(Device(kCUDA, 0)), DeviceError);
  EXPECT_THROW(DeviceGuard(Device(kCUDA, 0)), DeviceError);
  const Tensor t = ones({3});
  EXPECT_FALSE(is_pinned(t));
  EXPECT_THROW(pin_memory(t), DeviceError);
}

TEST(Device, CudaStreamsOrderWorkAndTimeIt) {
  if (!is_available(kCUDA)) GTEST_SKIP() << "no usable CUDA device: " << unavailable_reason(kCUDA);
  const Device cuda(kCUDA, 0);
  DeviceGuard device_guard(cuda);
  Stream side = Stream::create(cuda);
  Stream main = Stream::current(cuda);
  EXPECT_NE(side, main);
  Tensor x = ones({1 << 20}, std::nullopt, cuda);
  side.wait_stream(main);
  Event start(true), end(true);
  Tensor y;
  {
    StreamGuard g(side);
    EXPECT_EQ(Stream::current(cuda), side);
    start.record(side);
    y = x * 3;
    end.record(side);
  }
  record_stream(x, side);
  const Tensor pinned = pin_memory(ones({4}));
  EXPECT_TRUE(is_pinned(pinned));
  EXPECT_EQ(Stream::current(cuda), main);
  main.wait_stream(side);
  end.synchronize();
  EXPECT_TRUE(end.query());
  EXPECT_GE(start.elapsed_time(end), 0.0);
  EXPECT_EQ(y.to(Device(kCPU)).to_vector<float>()[0], 3.0f);
}
