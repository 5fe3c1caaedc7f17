// SPDX-License-Identifier: BSD-3-Clause
// The CUDA backend's entry point and runtime: tc_backend_init checks the
// driver and the devices, then installs the caching allocator, the device
// hooks and the kernels. Device and stream state lives in the CUDA runtime
// (the current device is per thread there already).
#include "cuda/runtime.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/device_hooks.h"
#include "cuda/cuda_check.h"
#include "core/tensor.h"
#include "dispatch/dispatcher.h"
#include "tensorc_gen/ops.h"

namespace tc {
void register_cuda_kernels(Dispatcher& d);  // generated (register_cuda.cpp)
}

namespace tc::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* what, const char* call) {
  cudaGetLastError();  // clear a sticky launch error so the next call starts clean
  TC_FAIL(Runtime, what, ": ", call, " failed: ", cudaGetErrorName(err), " (", cudaGetErrorString(err), ")");
}

namespace {

// One device's memory for the caching allocator, over cudaMalloc and events.
class CudaDeviceMemory final : public DeviceMemoryApi {
 public:
  explicit CudaDeviceMemory(int device) : device_(device) {}
  bool malloc(void** ptr, size_t nbytes) override {
    DeviceGuard g(device_);
    const cudaError_t e = cudaMalloc(ptr, nbytes);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      return false;
    }
    TC_CUDA_CHECK(e, "CUDA caching allocator");
    return true;
  }
  void free(void* ptr) override {
    DeviceGuard g(device_);
    TC_CUDA_CHECK(cudaFree(ptr), "CUDA caching allocator");
  }
  void mem_info(size_t* free_bytes, size_t* total_bytes) override {
    DeviceGuard g(device_);
    TC_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes), "CUDA caching allocator");
  }
  EventHandle record_event(StreamHandle stream) override {
    DeviceGuard g(device_);
    cudaEvent_t ev = nullptr;
    TC_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "CUDA caching allocator");
    TC_CUDA_CHECK(cudaEventRecord(ev, reinterpret_cast<cudaStream_t>(stream)), "CUDA caching allocator");
    return reinterpret_cast<EventHandle>(ev);
  }
  bool event_done(EventHandle event) override {
    const cudaError_t e = cudaEventQuery(reinterpret_cast<cudaEvent_t>(event));
    if (e == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    TC_CUDA_CHECK(e, "CUDA caching allocator");
    return true;
  }
  void destroy_event(EventHandle event) override { cudaEventDestroy(reinterpret_cast<cudaEvent_t>(event)); }
  void synchronize() override {
    DeviceGuard g(device_);
    TC_CUDA_CHECK(cudaDeviceSynchronize(), "CUDA caching allocator");
  }

 private:
  int device_;
};

class CudaHooks final : public DeviceHooks {
 public:
  int device_count() const override { return cuda::device_count(); }
  int current_device() const override { return cuda::current_device(); }
  void set_current_device(int index) override {
    TC_CUDA_CHECK(cudaSetDevice(resolve_device(index, "set_device")), "set_device");
  }
  void synchronize(int index) override {
    DeviceGuard g(resolve_device(index, "synchronize"));
    TC_CUDA_CHECK(cudaDeviceSynchronize(), "synchronize");
  }
  void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t n,
                  bool non_blocking) override {
    if (n == 0) return;
    // The copy runs on the stream of the CUDA side (the destination's when both are).
    const int dev =
        dst_device.is_cuda() ? resolve_device(dst_device.index, "copy_") : resolve_device(src_device.index, "copy_");
    DeviceGuard g(dev);
    cudaStream_t s = current_stream(dev);
    if (dst_device.is_cuda() && src_device.is_cuda() && dst_device.index != src_device.index)
      TC_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_device.index, src, src_device.index, n, s), "copy_");
    else
      TC_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s), "copy_");
    if (!non_blocking) TC_CUDA_CHECK(cudaStreamSynchronize(s), "copy_");
  }
};

struct Runtime {
  int devices = 0;
  std::vector<std::unique_ptr<CudaDeviceMemory>> memory;
  std::unique_ptr<CachingDeviceAllocator> allocator;
  CudaHooks hooks;
};

Runtime& runtime() {
  static Runtime* r = new Runtime;  // lives as long as the process: kernels may run during exit
  return *r;
}

int current_device_fn() { return current_device(); }
StreamHandle current_stream_fn(int device) { return reinterpret_cast<StreamHandle>(current_stream(device)); }

// Why CUDA is unusable, from cudaGetDeviceCount's error.
std::string driver_problem(cudaError_t err) {
  if (err == cudaErrorInsufficientDriver) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    if (driver == 0) return "no NVIDIA driver was found (libcuda.so.1 is not installed or could not be loaded)";
    return "the NVIDIA driver supports CUDA " + std::to_string(driver / 1000) + "." +
           std::to_string(driver % 1000 / 10) + " but this build of tensorc needs CUDA " +
           std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10) +
           " (update the driver)";
  }
  if (err == cudaErrorNoDevice) return "the NVIDIA driver found no CUDA device";
  return std::string("the CUDA runtime could not start: ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
         ")";
}

}  // namespace

int device_count() { return runtime().devices; }

int current_device() {
  int d = 0;
  TC_CUDA_CHECK(cudaGetDevice(&d), "current_device");
  return d;
}

int resolve_device(int index, const char* what) {
  if (index < 0) return current_device();
  const int n = device_count();
  TC_CHECK(index < n, Device, what, ": device cuda:", index, " is out of range (",
           n == 1 ? std::string("there is 1 CUDA device") : "there are " + std::to_string(n) + " CUDA devices", ")");
  return index;
}

cudaStream_t current_stream(int) { return nullptr; }

CachingDeviceAllocator& caching_allocator() { return *runtime().allocator; }

DeviceGuard::DeviceGuard(int index) : previous_(current_device()) {
  if (index != previous_) TC_CUDA_CHECK(cudaSetDevice(index), "device guard");
}
DeviceGuard::~DeviceGuard() {
  int now = -1;
  if (cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
}

}  // namespace tc::cuda

// Called once by libtensorc's loader. 0: usable and registered; otherwise the
// reason in `why` and nothing registered.
extern "C" __attribute__((visibility("default"))) int tc_backend_init(const char* version, char* why, size_t why_cap) {
  using namespace tc::cuda;
  auto fail = [&](const std::string& msg) {
    std::snprintf(why, why_cap, "%s", msg.c_str());
    return 1;
  };
  if (std::strcmp(version, TC_PROJECT_VERSION) != 0)
    return fail(std::string("libtensorc_cuda.so is version ") + TC_PROJECT_VERSION + " but libtensorc.so is " +
                version + ": install both from one build");
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) return fail(driver_problem(err));
  if (n == 0) return fail("the NVIDIA driver found no CUDA device");
  try {
    Runtime& r = runtime();
    r.devices = n;
    std::vector<DeviceMemoryApi*> apis;
    for (int i = 0; i < n; ++i) {
      r.memory.push_back(std::make_unique<CudaDeviceMemory>(i));
      apis.push_back(r.memory.back().get());
    }
    r.allocator = std::make_unique<CachingDeviceAllocator>(apis);
    r.allocator->set_current_device_fn(&current_device_fn);
    r.allocator->set_current_stream_fn(&current_stream_fn);
    tc::set_allocator(tc::DeviceType::CUDA, r.allocator.get());
    tc::set_device_hooks(tc::DeviceType::CUDA, &r.hooks);
    tc::set_print_host_copy(tc::DeviceType::CUDA, [](const tc::Tensor& t) {
      return tc::_to_copy(t, std::nullopt, tc::Device(tc::DeviceType::CPU), false);
    });
    tc::register_cuda_kernels(tc::Dispatcher::singleton());
  } catch (const std::exception& e) {
    return fail(std::string("the CUDA backend failed to initialise: ") + e.what());
  }
  return 0;
}
