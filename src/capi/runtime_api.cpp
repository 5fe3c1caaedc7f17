// SPDX-License-Identifier: BSD-3-Clause
// Process-wide runtime settings of the C ABI: the library version, the
// thread budget of parallel kernels, and the devices of loadable backends
// (current device, synchronisation, memory statistics, cache).
#include "capi/handles.h"
#include "core/allocator.h"
#include "core/device_hooks.h"
#include "core/parallel.h"
#include "cuda/blas.h"

namespace {

constexpr bool same_text(const char* a, const char* b) {
  for (; *a && *a == *b; ++a, ++b) {}
  return *a == *b;
}
#define TC_STRINGIFY2(x) #x
#define TC_STRINGIFY(x) TC_STRINGIFY2(x)
// The header's version macros must agree with each other and, when the build
// passes it (-DTC_PROJECT_VERSION="x.y.z"), with the build's project version.
static_assert(same_text(TC_VERSION_STRING, TC_STRINGIFY(TC_VERSION_MAJOR) "." TC_STRINGIFY(
                                               TC_VERSION_MINOR) "." TC_STRINGIFY(TC_VERSION_PATCH)),
              "TC_VERSION_STRING disagrees with TC_VERSION_MAJOR/MINOR/PATCH in tensorc.h");
#ifdef TC_PROJECT_VERSION
static_assert(same_text(TC_VERSION_STRING, TC_PROJECT_VERSION),
              "tensorc.h's TC_VERSION_* disagree with the project version in CMakeLists.txt");
#endif

// A TC_DEVICE_* code as a device type; Error(Device) naming `fn` otherwise.
tc::DeviceType device_type_arg(int32_t code, const char* fn) {
  TC_CHECK(tc::is_valid_device_type(code), Device, fn,
           ": argument 'device_type' expected TC_DEVICE_CPU (1), "
           "TC_DEVICE_CUDA (2) or TC_DEVICE_PRIVATEUSE1 (12), got ",
           code);
  return tc::DeviceType(code);
}

// The C codes are the internal enum's values (append-only on both sides).
static_assert(int(tc::MemoryStat::AllocatedBytes) == TC_MEMORY_ALLOCATED_BYTES &&
                  int(tc::MemoryStat::PeakAllocatedBytes) == TC_MEMORY_PEAK_ALLOCATED_BYTES &&
                  int(tc::MemoryStat::ReservedBytes) == TC_MEMORY_RESERVED_BYTES &&
                  int(tc::MemoryStat::PeakReservedBytes) == TC_MEMORY_PEAK_RESERVED_BYTES &&
                  int(tc::MemoryStat::NumDeviceMallocs) == TC_MEMORY_NUM_DEVICE_MALLOCS &&
                  int(tc::MemoryStat::NumDeviceFrees) == TC_MEMORY_NUM_DEVICE_FREES &&
                  int(tc::MemoryStat::NumAllocRetries) == TC_MEMORY_NUM_ALLOC_RETRIES &&
                  int(tc::MemoryStat::NumOoms) == TC_MEMORY_NUM_OOMS,
              "tc_memory_stat disagrees with tc::MemoryStat");
static_assert(int(tc::MemoryStat::Count) == TC_MEMORY_NUM_OOMS + 1, "a tc::MemoryStat without a C code");

// The backend of a non-CPU device and its resolved index; the CPU keeps no
// statistics.
tc::DeviceHooks& stats_backend(tc_device device, int* index, const char* fn) {
  const tc::DeviceType t = device_type_arg(device.type, fn);
  TC_CHECK(t != tc::DeviceType::CPU, NotImplemented, fn,
           ": the CPU allocator keeps no memory statistics (they are per CUDA device)");
  tc::DeviceHooks& h = tc::device_hooks(t, fn);
  *index = tc::resolve_device_index(t, device.index, fn);
  return h;
}

}  // namespace

extern "C" {

TC_API void tc_version(int* major, int* minor, int* patch) {
  if (major) *major = TC_VERSION_MAJOR;
  if (minor) *minor = TC_VERSION_MINOR;
  if (patch) *patch = TC_VERSION_PATCH;
}

TC_API const char* tc_version_string(void) { return TC_VERSION_STRING; }

TC_API tc_status tc_set_num_threads(int n) {
  constexpr const char* fn = "tc_set_num_threads";
  TC_CAPI_BEGIN
  TC_CHECK_ARG(n >= 1, fn, ": argument 'n' expected a thread count >= 1, got ", n);
  tc::set_num_threads(n);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_get_num_threads(int* out) {
  constexpr const char* fn = "tc_get_num_threads";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  *out = tc::get_num_threads();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_device_check(int32_t device_type) {
  constexpr const char* fn = "tc_device_check";
  TC_CAPI_BEGIN
  const tc::DeviceType t = device_type_arg(device_type, fn);
  if (t != tc::DeviceType::CPU) (void)tc::device_hooks(t, fn);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_device_count(int* out, int32_t device_type) {
  constexpr const char* fn = "tc_device_count";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  const tc::DeviceType t = device_type_arg(device_type, fn);
  if (t == tc::DeviceType::CPU) {
    *out = 1;
  } else {
    tc::DeviceHooks* h = tc::try_device_hooks(t);
    *out = h ? h->device_count() : 0;
  }
  TC_CAPI_END(fn)
}

TC_API tc_status tc_device_current(int* out, int32_t device_type) {
  constexpr const char* fn = "tc_device_current";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  const tc::DeviceType t = device_type_arg(device_type, fn);
  *out = t == tc::DeviceType::CPU ? 0 : tc::device_hooks(t, fn).current_device();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_device_set_current(int32_t device_type, int index) {
  constexpr const char* fn = "tc_device_set_current";
  TC_CAPI_BEGIN
  const tc::DeviceType t = device_type_arg(device_type, fn);
  if (t == tc::DeviceType::CPU) {
    TC_CHECK(index == 0 || index == -1, Device, fn, ": argument 'index' expected 0 for the CPU, got ", index);
  } else {
    TC_CHECK(index >= 0, Device, fn, ": argument 'index' expected a device index >= 0, got ", index);
    tc::device_hooks(t, fn).set_current_device(tc::resolve_device_index(t, index, fn));
  }
  TC_CAPI_END(fn)
}

TC_API tc_status tc_device_synchronize(tc_device device) {
  constexpr const char* fn = "tc_device_synchronize";
  TC_CAPI_BEGIN
  const tc::DeviceType t = device_type_arg(device.type, fn);
  if (t != tc::DeviceType::CPU) tc::device_hooks(t, fn).synchronize(tc::resolve_device_index(t, device.index, fn));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_device_memory_stat(int64_t* out, tc_device device, int32_t which) {
  constexpr const char* fn = "tc_device_memory_stat";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  TC_CHECK_ARG(which >= 0 && which < int32_t(tc::MemoryStat::Count), fn,
               ": argument 'which' expected a tc_memory_stat (0 to ", int(tc::MemoryStat::Count) - 1, "), got ", which);
  int index = 0;
  tc::DeviceHooks& h = stats_backend(device, &index, fn);
  *out = h.memory_stat(index, tc::MemoryStat(which));
  TC_CAPI_END(fn)
}

TC_API tc_status tc_device_reset_peak_memory_stats(tc_device device) {
  constexpr const char* fn = "tc_device_reset_peak_memory_stats";
  TC_CAPI_BEGIN
  int index = 0;
  stats_backend(device, &index, fn).reset_peak_memory_stats(index);
  TC_CAPI_END(fn)
}

TC_API tc_status tc_device_empty_cache(int32_t device_type) {
  constexpr const char* fn = "tc_device_empty_cache";
  TC_CAPI_BEGIN
  const tc::DeviceType t = device_type_arg(device_type, fn);
  if (t == tc::DeviceType::CPU)
    tc::cpu_allocator_empty_cache();
  else
    tc::device_hooks(t, fn).empty_cache();
  TC_CAPI_END(fn)
}

TC_API tc_status tc_cuda_matmul_set_allow_tf32(bool allow) {
  TC_CAPI_BEGIN
  tc::cuda::set_matmul_allow_tf32(allow);
  TC_CAPI_END("tc_cuda_matmul_set_allow_tf32")
}

TC_API tc_status tc_cuda_matmul_allow_tf32(bool* out) {
  constexpr const char* fn = "tc_cuda_matmul_allow_tf32";
  TC_CAPI_BEGIN
  TC_CAPI_NULL_CHECK(out, fn, "out");
  *out = tc::cuda::matmul_allow_tf32();
  TC_CAPI_END(fn)
}

}  // extern "C"
