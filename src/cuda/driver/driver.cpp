// SPDX-License-Identifier: BSD-3-Clause
// libtensorc_cuda.so's one export: the CUDA runtime behind the plain table of
// cuda/driver_api.h. Nothing here throws or knows tensors; libtensorc turns
// the returned codes into errors.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "cuda/driver/elementwise.h"

namespace tc::cuda {
namespace {

cudaStream_t stream_of(Stream s) { return reinterpret_cast<cudaStream_t>(s); }
cudaEvent_t event_of(Event e) { return reinterpret_cast<cudaEvent_t>(e); }

int device_count(int* n) { return int(cudaGetDeviceCount(n)); }
int get_device(int* d) { return int(cudaGetDevice(d)); }
int set_device(int d) { return int(cudaSetDevice(d)); }
int device_malloc(void** p, size_t n) {
  const cudaError_t e = cudaMalloc(p, n);
  if (e == cudaErrorMemoryAllocation) cudaGetLastError();  // not sticky: the caller may retry
  return int(e);
}
int device_free(void* p) { return int(cudaFree(p)); }
int host_alloc(void** p, size_t n) {
  const cudaError_t e = cudaHostAlloc(p, n, cudaHostAllocPortable);
  if (e == cudaErrorMemoryAllocation) cudaGetLastError();  // not sticky
  return int(e);
}
int host_free(void* p) { return int(cudaFreeHost(p)); }
int mem_info(size_t* free_bytes, size_t* total_bytes) { return int(cudaMemGetInfo(free_bytes, total_bytes)); }
int event_record(Event* event, Stream stream) {
  cudaEvent_t ev = nullptr;
  cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  if (e == cudaSuccess) e = cudaEventRecord(ev, stream_of(stream));
  *event = reinterpret_cast<Event>(ev);
  return int(e);
}
int event_query(Event event) { return int(cudaEventQuery(event_of(event))); }
int event_destroy(Event event) { return int(cudaEventDestroy(event_of(event))); }
int device_synchronize() { return int(cudaDeviceSynchronize()); }
int stream_synchronize(Stream s) { return int(cudaStreamSynchronize(stream_of(s))); }
int stream_create(Stream* stream, int priority) {
  cudaStream_t s = nullptr;
  const cudaError_t e = cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority);
  *stream = reinterpret_cast<Stream>(s);
  return int(e);
}
int stream_query(Stream s) { return int(cudaStreamQuery(stream_of(s))); }
int stream_wait_event(Stream s, Event ev) { return int(cudaStreamWaitEvent(stream_of(s), event_of(ev), 0)); }
int stream_priority_range(int* least, int* greatest) { return int(cudaDeviceGetStreamPriorityRange(least, greatest)); }
int event_create(Event* event, bool timing) {
  cudaEvent_t ev = nullptr;
  const cudaError_t e = cudaEventCreateWithFlags(&ev, timing ? cudaEventDefault : cudaEventDisableTiming);
  *event = reinterpret_cast<Event>(ev);
  return int(e);
}
int event_record_on(Event ev, Stream s) { return int(cudaEventRecord(event_of(ev), stream_of(s))); }
int event_synchronize(Event ev) { return int(cudaEventSynchronize(event_of(ev))); }
int event_elapsed_ms(float* ms, Event start, Event end) {
  return int(cudaEventElapsedTime(ms, event_of(start), event_of(end)));
}
int memcpy_async(void* dst, const void* src, size_t n, Stream s) {
  return int(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, stream_of(s)));
}
int memcpy_peer_async(void* dst, int dd, const void* src, int sd, size_t n, Stream s) {
  return int(cudaMemcpyPeerAsync(dst, dd, src, sd, n, stream_of(s)));
}
const char* error_string(int code) {
  if (code >= kCublasErrorBase) return cublas_error_string(code);
  thread_local std::string text;
  const cudaError_t e = cudaError_t(code);
  text = std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
  return text.c_str();
}

constexpr DriverApi kApi = {device_count,
                            get_device,
                            set_device,
                            device_malloc,
                            device_free,
                            host_alloc,
                            host_free,
                            mem_info,
                            event_record,
                            event_query,
                            event_destroy,
                            device_synchronize,
                            stream_synchronize,
                            stream_create,
                            stream_query,
                            stream_wait_event,
                            stream_priority_range,
                            event_create,
                            event_record_on,
                            event_synchronize,
                            event_elapsed_ms,
                            memcpy_async,
                            memcpy_peer_async,
                            launch_fill,
                            launch_copy,
                            launch_pointwise,
                            launch_gather,
                            launch_scatter,
                            launch_reduce,
                            launch_random,
                            launch_range,
                            launch_scan,
                            sort_pairs,
                            gemm,
                            error_string};
// One initializer per entry, in the table's order: a new entry must be added
// above too (this count moves with it).
static_assert(sizeof(DriverApi) == 35 * sizeof(void*), "kApi must list every DriverApi entry");

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
}  // namespace tc::cuda

extern "C" __attribute__((visibility("default"))) int tc_cuda_driver_open(const char* version,
                                                                          const tc::cuda::DriverApi** api, char* why,
                                                                          size_t why_cap) {
  auto fail = [&](const std::string& msg) {
    std::snprintf(why, why_cap, "%s", msg.c_str());
    return 1;
  };
  // The version and the table's layout (driver_layout): both from one build.
  const std::string mine = std::string(TC_PROJECT_VERSION) + "+layout." + std::to_string(tc::cuda::kDriverLayout);
  if (mine != version)
    return fail(std::string("libtensorc_cuda.so is version ") + mine + " but libtensorc.so is " + version +
                ": install both from one build");
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) return fail(tc::cuda::driver_problem(err));
  if (n == 0) return fail("the NVIDIA driver found no CUDA device");
  *api = &tc::cuda::kApi;
  return 0;
}
