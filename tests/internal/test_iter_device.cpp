// SPDX-License-Identifier: BSD-3-Clause
// TensorIter's meta step on a device other than the CPU, with a fake
// PrivateUse1 backend whose "device memory" is host memory (so the tests can
// look at it): the iteration's device, outputs made there on the right
// device index, mixed devices refused naming both, 0-dim CPU tensors taken
// as host values, device operands kept in their own dtype (the device loop
// converts) and never read on the host, no CPU loop run over them; and what
// the CUDA loops make of such a plan (geometry, launch arguments), which
// needs no GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/allocator.h"
#include "core/device_hooks.h"
#include "core/error.h"
#include "core/iter.h"
#include "core/tensor.h"
#include "cuda/pointwise.h"

namespace {

using namespace tc;

constexpr DeviceType kFake = DeviceType::PrivateUse1;

class FakeBackend final : public DeviceHooks, public Allocator {
 public:
  int current = 0;
  int allocations = 0;
  int device_count() const override { return 2; }
  int current_device() const override { return current; }
  void set_current_device(int index) override { current = index; }
  void synchronize(int) override {}
  void copy_bytes(void* dst, Device, const void* src, Device, size_t n, bool) override { std::memcpy(dst, src, n); }
  DataPtr allocate(size_t nbytes) override {
    ++allocations;
    void* p = std::malloc(nbytes ? nbytes : 1);
    return DataPtr(
        p, p, [](void* ctx, void*) { std::free(ctx); }, Device(kFake, current));
  }
  Device device() const override { return Device(kFake, current); }
};

class IterOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    set_allocator(kFake, &fake_);
    set_device_hooks(kFake, &fake_);
  }
  void TearDown() override {
    set_device_hooks(kFake, nullptr);
    set_allocator(kFake, nullptr);
  }
  // A tensor on fake device `index`, filled with 0, 1, 2... in its dtype.
  Tensor on_device(IntArrayRef sizes, ScalarType dtype, int index = 0) {
    const int saved = fake_.current;
    fake_.current = index;
    Tensor t = empty_tensor(sizes, dtype, Device(kFake, index));
    fake_.current = saved;
    for (int64_t i = 0; i < t.numel(); ++i)
      write_scalar(static_cast<char*>(t.data_ptr()) + i * int64_t(t.element_size()), dtype, Scalar(double(i)));
    return t;
  }
  FakeBackend fake_;
};

TEST_F(IterOnDevice, OutputsAreMadeOnTheInputsDeviceIndex) {
  Tensor a = on_device({2, 3}, ScalarType::Float32, 1), b = on_device({3}, ScalarType::Float32, 1);
  ASSERT_EQ(fake_.current, 0);
  Tensor out;
  TensorIter it("add");
  it.add_output(out).add_input(a).add_input(b).promote_inputs();
  it.build();
  EXPECT_EQ(it.device(), Device(kFake, 1));
  ASSERT_TRUE(out.defined());
  EXPECT_EQ(out.device(), Device(kFake, 1));
  EXPECT_EQ(out.sizes(), a.sizes());
  EXPECT_EQ(fake_.current, 0) << "the current device is restored after allocating";
}

TEST_F(IterOnDevice, MixedDevicesAreRefusedNamingBoth) {
  Tensor a = on_device({2, 3}, ScalarType::Float32);
  Tensor c = empty_tensor({2, 3}, ScalarType::Float32);
  Tensor out;
  TensorIter it("add");
  it.add_output(out).add_input(a).add_input(c).promote_inputs();
  try {
    it.build();
    FAIL() << "built over a device tensor and a CPU tensor";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Device);
    const std::string m = e.what();
    EXPECT_NE(m.find("add:"), std::string::npos) << m;
    EXPECT_NE(m.find("privateuseone:0 (input 0)"), std::string::npos) << m;
    EXPECT_NE(m.find("cpu (input 1)"), std::string::npos) << m;
  }
  EXPECT_FALSE(out.defined()) << "nothing allocated before the check";
  // Two indices of one type are two devices too; so is a 0-dim device tensor beside a CPU one.
  Tensor other = on_device({2, 3}, ScalarType::Float32, 1);
  TensorIter it2("mul");
  Tensor out2;
  it2.add_output(out2).add_input(a).add_input(other).promote_inputs();
  EXPECT_THROW(it2.build(), Error);
  Tensor zero_dim_dev = on_device({}, ScalarType::Float32);
  TensorIter it3("mul");
  Tensor out3;
  it3.add_output(out3).add_input(c).add_input(zero_dim_dev).promote_inputs();
  EXPECT_THROW(it3.build(), Error);
}

TEST_F(IterOnDevice, AnOutOnAnotherDeviceIsRefused) {
  Tensor a = on_device({4}, ScalarType::Float32);
  Tensor out = empty_tensor({4}, ScalarType::Float32);  // on the CPU
  TensorIter it("add");
  it.add_output(out).add_input(a).add_input(a).promote_inputs();
  EXPECT_THROW(it.build(), Error);
}

TEST_F(IterOnDevice, ZeroDimCpuTensorsAreHostValuesInTheComputeDtype) {
  Tensor a = on_device({4}, ScalarType::Float32);
  Tensor s = empty_tensor({}, ScalarType::Int64);
  write_scalar(s.data_ptr(), ScalarType::Int64, Scalar(int64_t(3)));
  Tensor out;
  TensorIter it("mul");
  it.add_output(out).add_input(a).add_input(s).promote_inputs();
  it.build();
  EXPECT_EQ(it.device(), Device(kFake, 0));
  EXPECT_EQ(it.common_dtype(), ScalarType::Float32);
  EXPECT_TRUE(it.on_host(2));
  EXPECT_TRUE(it.is_scalar(2));
  EXPECT_EQ(it.dtype(2), ScalarType::Float32);
  EXPECT_EQ(read_scalar(it.data(2), ScalarType::Float32).to_double(), 3.0);
  EXPECT_FALSE(it.on_host(1));
  EXPECT_EQ(out.device(), Device(kFake, 0));
}

TEST_F(IterOnDevice, DeviceOperandsKeepTheirDtypesAndMemory) {
  // int32 + float64 -> float64: on the CPU the int32 input is cast into a
  // temporary; on a device the loop reads it as int32 where it lies.
  Tensor a = on_device({2, 3}, ScalarType::Int32), b = on_device({2, 3}, ScalarType::Float64);
  Tensor out = on_device({2, 3}, ScalarType::Float32);  // float64 result written into float32
  const int before = fake_.allocations;
  TensorIter it("add");
  it.add_output(out).add_input(a).add_input(b).promote_inputs();
  it.build();
  EXPECT_EQ(fake_.allocations, before) << "no temporaries on the device";
  EXPECT_EQ(it.common_dtype(), ScalarType::Float64);
  EXPECT_EQ(it.dtype(0), ScalarType::Float32);
  EXPECT_EQ(it.dtype(1), ScalarType::Int32);
  EXPECT_EQ(it.dtype(2), ScalarType::Float64);
  EXPECT_EQ(it.data(0), static_cast<char*>(out.data_ptr()));
  EXPECT_EQ(it.data(1), static_cast<char*>(a.data_ptr()));
  EXPECT_EQ(it.byte_stride(1, 0), 4) << "strides in the operand's own element size";
  EXPECT_EQ(it.byte_stride(2, 0), 8);
  // An out= the result type cannot be cast to is still refused.
  Tensor int_out = on_device({2, 3}, ScalarType::Int64);
  TensorIter bad("add");
  bad.add_output(int_out).add_input(a).add_input(b).promote_inputs();
  EXPECT_THROW(bad.build(), Error);
}

TEST_F(IterOnDevice, OneElementDeviceInputsAreNotReadOnTheHost) {
  Tensor a = on_device({5}, ScalarType::Float32), one = on_device({1}, ScalarType::Float32);
  Tensor out;
  TensorIter it("add");
  it.add_output(out).add_input(a).add_input(one).promote_inputs();
  it.build();
  EXPECT_FALSE(it.on_host(2));
  EXPECT_EQ(it.data(2), static_cast<char*>(one.data_ptr()));
  EXPECT_TRUE(it.is_scalar(2)) << "broadcast: stride 0 in device memory";
}

TEST_F(IterOnDevice, ACpuLoopOverDeviceTensorsIsAnInternalError) {
  Tensor a = on_device({4}, ScalarType::Float32);
  Tensor out;
  TensorIter it("neg");
  it.add_output(out).add_input(a).promote_inputs();
  it.build();
  try {
    it.for_each([](char**, const int64_t*, int64_t) {});
    FAIL() << "ran a host loop over device memory";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Internal);
  }
}

TEST_F(IterOnDevice, CpuIterationsAreUnchanged) {
  // All on the CPU, including a 0-dim input: converted on the host as before.
  Tensor a = empty_tensor({3}, ScalarType::Int32);
  for (int i = 0; i < 3; ++i) static_cast<int32_t*>(a.data_ptr())[i] = i;
  Tensor s = empty_tensor({}, ScalarType::Float64);
  write_scalar(s.data_ptr(), ScalarType::Float64, Scalar(0.5));
  Tensor out;
  TensorIter it("add");
  it.add_output(out).add_input(a).add_input(s).promote_inputs();
  it.build();
  EXPECT_TRUE(it.device().is_cpu());
  EXPECT_EQ(it.dtype(1), it.common_dtype()) << "CPU loops see the compute dtype";
  EXPECT_TRUE(out.is_cpu());
}

TEST_F(IterOnDevice, CudaGeometryAndArgumentsFromThePlan) {
  // [4, 3] float32 * [3] float64 + a broadcast: two dims, outermost first.
  Tensor a = on_device({4, 3}, ScalarType::Float32), c = on_device({3}, ScalarType::Float64);
  Tensor out;
  TensorIter it("mul");
  it.add_output(out).add_input(a).add_input(c).promote_inputs();
  it.build();
  const cuda::Geometry g = cuda::iteration_geometry(it, "mul");
  EXPECT_EQ(g.numel, 12);
  ASSERT_EQ(g.ndim, 2);
  EXPECT_EQ(g.sizes[0], 4);
  EXPECT_EQ(g.sizes[1], 3);
  EXPECT_EQ(g.strides[0][0], 24);  // float64 output, rows of 3
  EXPECT_EQ(g.strides[0][1], 8);
  EXPECT_EQ(g.strides[1][0], 12);  // float32 input
  EXPECT_EQ(g.strides[1][1], 4);
  EXPECT_EQ(g.strides[2][0], 0);  // broadcast over rows
  EXPECT_EQ(g.strides[2][1], 8);
  const cuda::PointwiseArgs args = cuda::pointwise_args(it, cuda::PointwiseOp::Mul, Scalar(int64_t(1)));
  EXPECT_EQ(args.op, int(cuda::PointwiseOp::Mul));
  EXPECT_EQ(args.compute, int(ScalarType::Float64));
  EXPECT_EQ(args.noperands, 3);
  EXPECT_EQ(args.data[1], static_cast<char*>(a.data_ptr()));
  EXPECT_EQ(args.dtype[1], int(ScalarType::Float32));
  EXPECT_EQ(args.dtype[2], int(ScalarType::Float64));

  // Contiguous operands merge into one dim; a 0-dim CPU tensor is a value.
  Tensor s = empty_tensor({}, ScalarType::Float64);
  write_scalar(s.data_ptr(), ScalarType::Float64, Scalar(2.5));
  Tensor out2;
  TensorIter it2("add");
  it2.add_output(out2).add_input(a).add_input(s).promote_inputs();
  it2.build();
  const cuda::Geometry g2 = cuda::iteration_geometry(it2, "add");
  ASSERT_EQ(g2.ndim, 1);
  EXPECT_EQ(g2.sizes[0], 12);
  EXPECT_EQ(g2.strides[2][0], 0);
  const cuda::PointwiseArgs a2 = cuda::pointwise_args(it2, cuda::PointwiseOp::Add, Scalar(-3.0));
  EXPECT_EQ(a2.compute, int(ScalarType::Float32));
  EXPECT_EQ(a2.data[2], nullptr);
  EXPECT_EQ(a2.fvalue[2], 2.5);
  EXPECT_EQ(a2.alpha, -3.0);

  // Integer operands compute in int64, alpha and values as integers.
  Tensor i = on_device({5}, ScalarType::Int16);
  Tensor out3;
  TensorIter it3("add");
  it3.add_output(out3).add_input(i).add_scalar_input(Scalar(int64_t(7))).promote_inputs();
  it3.build();
  const cuda::PointwiseArgs a3 = cuda::pointwise_args(it3, cuda::PointwiseOp::Add, Scalar(int64_t(2)));
  EXPECT_EQ(a3.compute, int(ScalarType::Int64));
  EXPECT_EQ(a3.dtype[0], int(ScalarType::Int16));
  EXPECT_EQ(a3.ivalue[2], 7);
  EXPECT_EQ(a3.ialpha, 2);

  // Every input is rounded to the common dtype first, as the CPU loop casts
  // it: the driver gets the common dtype, and a host value arrives rounded
  // (0.1 as float16; 300 as int8 wraps to 44).
  Tensor h = on_device({4}, ScalarType::Float16);
  Tensor tenth = empty_tensor({}, ScalarType::Float64), out4;
  write_scalar(tenth.data_ptr(), ScalarType::Float64, Scalar(0.1));
  TensorIter it4("mul");
  it4.add_output(out4).add_input(h).add_input(tenth).promote_inputs();
  it4.build();
  const cuda::PointwiseArgs a4 = cuda::pointwise_args(it4, cuda::PointwiseOp::Mul, Scalar(int64_t(1)));
  EXPECT_EQ(a4.common, int(ScalarType::Float16));
  EXPECT_EQ(a4.compute, int(ScalarType::Float32));
  EXPECT_EQ(a4.fvalue[2], 0.0999755859375);
  Tensor i8 = on_device({4}, ScalarType::Int8);
  Tensor big = empty_tensor({}, ScalarType::Int64), out5;
  write_scalar(big.data_ptr(), ScalarType::Int64, Scalar(int64_t(300)));
  TensorIter it5("add");
  it5.add_output(out5).add_input(i8).add_input(big).promote_inputs();
  it5.build();
  const cuda::PointwiseArgs a5 = cuda::pointwise_args(it5, cuda::PointwiseOp::Add, Scalar(int64_t(1)));
  EXPECT_EQ(a5.common, int(ScalarType::Int8));
  EXPECT_EQ(a5.ivalue[2], 44);
}

TEST_F(IterOnDevice, CudaLoopsRefuseOtherDevices) {
  // The fake device is not CUDA: the launch is an internal error before any driver call.
  Tensor a = on_device({3}, ScalarType::Float32);
  Tensor out;
  TensorIter it("exp");
  it.add_output(out).add_input(a).promote_inputs();
  it.build();
  try {
    cuda::launch_pointwise(it, cuda::PointwiseOp::Exp, "exp");
    FAIL() << "launched a CUDA kernel over " << it.device();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Internal);
  }
}

}  // namespace
