/* SPDX-License-Identifier: BSD-3-Clause */
/* Devices through the C ABI: the runtime calls' bad input, and CUDA's answer
 * on a machine without a usable GPU: every CUDA call is TC_ERROR_DEVICE with
 * the reason the backend gave, nothing aborts. Run twice by ctest: as is, and
 * with TC_CUDA_LIBRARY naming a missing file (argument "missing-library"),
 * which must say the backend library could not be loaded. Where CUDA works,
 * the unavailable-path checks do not apply and test_cuda_runtime.c runs. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Hooks that are never called: registration is refused before any use. */
static tc_status fake_allocate(void** out, int index, size_t nbytes, void* user_data) {
  (void)out, (void)index, (void)nbytes, (void)user_data;
  return TC_ERROR_INTERNAL;
}
static void fake_release(void* data, int index, void* user_data) { (void)data, (void)index, (void)user_data; }
static tc_status fake_copy(void* dst, tc_device dst_device, const void* src, tc_device src_device, size_t nbytes,
                           void* user_data) {
  (void)dst, (void)dst_device, (void)src, (void)src_device, (void)nbytes, (void)user_data;
  return TC_ERROR_INTERNAL;
}
static tc_status fake_stream_create(uint64_t* out, int index, int32_t priority, void* user_data) {
  (void)out, (void)index, (void)priority, (void)user_data;
  return TC_ERROR_INTERNAL;
}

static void check_runtime_bad_input(void) {
  int n = -1;
  CHECK_OK(tc_device_count(&n, TC_DEVICE_CPU));
  CHECK(n == 1);
  CHECK_OK(tc_device_check(TC_DEVICE_CPU));
  CHECK_OK(tc_device_current(&n, TC_DEVICE_CPU));
  CHECK(n == 0);
  CHECK_OK(tc_device_synchronize(tc_device_cpu()));
  CHECK_FAILS_WITH(tc_device_count(NULL, TC_DEVICE_CPU), TC_ERROR_INVALID_ARGUMENT, "'out'");
  CHECK_FAILS_WITH(tc_device_count(&n, 99), TC_ERROR_DEVICE, "'device_type'");
  CHECK_FAILS_WITH(tc_device_check(-1), TC_ERROR_DEVICE, "'device_type'");
  CHECK_FAILS_WITH(tc_device_set_current(TC_DEVICE_CPU, 3), TC_ERROR_DEVICE, "'index'");
  CHECK_FAILS_WITH(tc_device_set_current(TC_DEVICE_CUDA, -2), TC_ERROR_DEVICE, "'index'");
  tc_device bad = {42, 0};
  CHECK_FAILS_WITH(tc_device_synchronize(bad), TC_ERROR_DEVICE, "'device_type'");
  /* Memory statistics: kept per CUDA device, not for the CPU. */
  int64_t v = -1;
  CHECK_FAILS_WITH(tc_device_memory_stat(&v, tc_device_cpu(), TC_MEMORY_ALLOCATED_BYTES), TC_ERROR_NOT_IMPLEMENTED,
                   "CPU");
  CHECK(v == -1);
  CHECK_FAILS_WITH(tc_device_memory_stat(NULL, tc_device_cuda(0), TC_MEMORY_ALLOCATED_BYTES), TC_ERROR_INVALID_ARGUMENT,
                   "'out'");
  CHECK_FAILS_WITH(tc_device_memory_stat(&v, tc_device_cuda(0), 99), TC_ERROR_INVALID_ARGUMENT, "'which'");
  CHECK_FAILS_WITH(tc_device_memory_stat(&v, tc_device_cuda(0), -1), TC_ERROR_INVALID_ARGUMENT, "'which'");
  CHECK_FAILS_WITH(tc_device_memory_stat(&v, bad, TC_MEMORY_ALLOCATED_BYTES), TC_ERROR_DEVICE, "'device_type'");
  CHECK_FAILS_WITH(tc_device_reset_peak_memory_stats(tc_device_cpu()), TC_ERROR_NOT_IMPLEMENTED, "CPU");
  CHECK_OK(tc_device_empty_cache(TC_DEVICE_CPU));
  CHECK_FAILS_WITH(tc_device_empty_cache(99), TC_ERROR_DEVICE, "'device_type'");
  /* Device hooks: refused unless complete, for PrivateUse1 only. */
  tc_device_hooks hooks;
  memset(&hooks, 0, sizeof hooks);
  CHECK_FAILS_WITH(tc_device_register_hooks(TC_DEVICE_PRIVATEUSE1, NULL), TC_ERROR_INVALID_ARGUMENT, "'hooks'");
  CHECK_FAILS_WITH(tc_device_register_hooks(TC_DEVICE_PRIVATEUSE1, &hooks), TC_ERROR_INVALID_ARGUMENT, "struct_size");
  hooks.struct_size = sizeof hooks;
  hooks.device_count = 1;
  CHECK_FAILS_WITH(tc_device_register_hooks(TC_DEVICE_PRIVATEUSE1, &hooks), TC_ERROR_INVALID_ARGUMENT, "copy_bytes");
  CHECK_FAILS_WITH(tc_device_register_hooks(TC_DEVICE_CUDA, &hooks), TC_ERROR_INVALID_ARGUMENT, "'device_type'");
  /* A struct from before the stream functions is accepted as far as its size
   * goes (checked up to copy_bytes here); one shorter than that is not; stream
   * functions come all together. */
  hooks.struct_size = TC_DEVICE_HOOKS_BASE_SIZE;
  CHECK_FAILS_WITH(tc_device_register_hooks(TC_DEVICE_PRIVATEUSE1, &hooks), TC_ERROR_INVALID_ARGUMENT, "copy_bytes");
  hooks.struct_size = TC_DEVICE_HOOKS_BASE_SIZE - 1;
  CHECK_FAILS_WITH(tc_device_register_hooks(TC_DEVICE_PRIVATEUSE1, &hooks), TC_ERROR_INVALID_ARGUMENT,
                   "TC_DEVICE_HOOKS_BASE_SIZE");
  hooks.struct_size = sizeof hooks;
  hooks.allocate = fake_allocate;
  hooks.release = fake_release;
  hooks.copy_bytes = fake_copy;
  hooks.stream_create = fake_stream_create;
  CHECK_FAILS_WITH(tc_device_register_hooks(TC_DEVICE_PRIVATEUSE1, &hooks), TC_ERROR_INVALID_ARGUMENT,
                   "every stream and event function");
  hooks.allocate = NULL;
  hooks.release = NULL;
  hooks.copy_bytes = NULL;
  hooks.stream_create = NULL;
  /* Without hooks, the PrivateUse1 device cannot hold tensors, and says why. */
  const int64_t two[1] = {2};
  tc_device pu1 = {TC_DEVICE_PRIVATEUSE1, 0};
  tc_tensor none = NULL;
  CHECK_FAILS_WITH(tc_empty(&none, two, 1, NULL, &pu1), TC_ERROR_DEVICE,
                   "argument 'device' is on privateuseone:0, which is not available");
  CHECK(none == NULL);
  /* The TF32 switch is a setting: it needs no device. */
  bool tf32 = true;
  CHECK_OK(tc_cuda_matmul_allow_tf32(&tf32));
  CHECK(!tf32);
  CHECK_OK(tc_cuda_matmul_set_allow_tf32(true));
  CHECK_OK(tc_cuda_matmul_allow_tf32(&tf32));
  CHECK(tf32);
  CHECK_OK(tc_cuda_matmul_set_allow_tf32(false));
  CHECK_FAILS_WITH(tc_cuda_matmul_allow_tf32(NULL), TC_ERROR_INVALID_ARGUMENT, "'out'");

  /* The CPU's streams: only the default one, on which everything is done. */
  tc_stream cpu_stream;
  CHECK_OK(tc_stream_current(&cpu_stream, tc_device_cpu()));
  CHECK(cpu_stream.device.type == TC_DEVICE_CPU && cpu_stream.id == 0);
  CHECK_OK(tc_stream_synchronize(cpu_stream));
  CHECK_FAILS_WITH(tc_stream_create(&cpu_stream, tc_device_cpu(), 0), TC_ERROR_NOT_IMPLEMENTED, "CPU");
  CHECK_FAILS_WITH(tc_stream_current(NULL, tc_device_cpu()), TC_ERROR_INVALID_ARGUMENT, "'out'");
  const tc_device unknown = {99, 0};
  CHECK_FAILS_WITH(tc_stream_default(&cpu_stream, unknown), TC_ERROR_DEVICE, "'device'");
  CHECK_FAILS_WITH(tc_event_create(NULL, false), TC_ERROR_INVALID_ARGUMENT, "'out'");
  CHECK_FAILS_WITH(tc_event_synchronize(NULL), TC_ERROR_INVALID_ARGUMENT, "'event'");
  double ms = 0;
  CHECK_FAILS_WITH(tc_event_elapsed_time(&ms, NULL, NULL), TC_ERROR_INVALID_ARGUMENT, "'start'");
}

/* Every way into CUDA fails with the same reason, and keeps failing. */
static void check_cuda_unavailable(const char* reason_needle) {
  CHECK_FAILS_WITH(tc_device_check(TC_DEVICE_CUDA), TC_ERROR_DEVICE, reason_needle);
  char why[512];
  snprintf(why, sizeof why, "%s", tc_last_error_message());
  printf("CUDA unavailable: %s\n", why);
  int n = -1;
  CHECK_OK(tc_device_count(&n, TC_DEVICE_CUDA));
  CHECK(n == 0);
  CHECK_FAILS_WITH(tc_device_current(&n, TC_DEVICE_CUDA), TC_ERROR_DEVICE, reason_needle);
  CHECK_FAILS_WITH(tc_device_set_current(TC_DEVICE_CUDA, 0), TC_ERROR_DEVICE, reason_needle);
  CHECK_FAILS_WITH(tc_device_synchronize(tc_device_cuda(0)), TC_ERROR_DEVICE, reason_needle);
  int64_t stat = -1;
  CHECK_FAILS_WITH(tc_device_memory_stat(&stat, tc_device_cuda(0), TC_MEMORY_ALLOCATED_BYTES), TC_ERROR_DEVICE,
                   reason_needle);
  CHECK(stat == -1);
  CHECK_FAILS_WITH(tc_device_reset_peak_memory_stats(tc_device_cuda(-1)), TC_ERROR_DEVICE, reason_needle);
  CHECK_FAILS_WITH(tc_device_empty_cache(TC_DEVICE_CUDA), TC_ERROR_DEVICE, reason_needle);
  tc_stream stream;
  stream.id = 42;
  CHECK_FAILS_WITH(tc_stream_create(&stream, tc_device_cuda(0), 0), TC_ERROR_DEVICE, reason_needle);
  CHECK(stream.id == 42);
  CHECK_FAILS_WITH(tc_stream_current(&stream, tc_device_cuda(-1)), TC_ERROR_DEVICE, reason_needle);
  CHECK_FAILS_WITH(tc_stream_default(&stream, tc_device_cuda(0)), TC_ERROR_DEVICE, reason_needle);
  stream.device = tc_device_cuda(0);
  stream.id = 0;
  CHECK_FAILS_WITH(tc_stream_synchronize(stream), TC_ERROR_DEVICE, reason_needle);
  CHECK_FAILS_WITH(tc_stream_set_current(stream), TC_ERROR_DEVICE, reason_needle);
  tc_event event = NULL;
  CHECK_OK(tc_event_create(&event, true)); /* an event needs no device until it is recorded */
  CHECK_FAILS_WITH(tc_event_record(event, stream), TC_ERROR_DEVICE, reason_needle);
  bool done = false;
  CHECK_OK(tc_event_query(&done, event));
  CHECK(done);
  tc_event_release(event);

  const int64_t size[2] = {2, 3};
  const tc_device cuda = tc_device_cuda(0), any_cuda = tc_device_cuda(-1);
  const tc_dtype f32 = TC_FLOAT32;
  tc_tensor t = NULL;
  CHECK_FAILS_WITH(tc_ones(&t, size, 2, &f32, &cuda), TC_ERROR_DEVICE, reason_needle);
  CHECK(t == NULL);
  CHECK_FAILS_WITH(tc_empty(&t, size, 2, NULL, &any_cuda), TC_ERROR_DEVICE, reason_needle);
  tc_scalar seven;
  seven.tag = TC_SCALAR_INT;
  seven.u.i = 7;
  CHECK_FAILS_WITH(tc_full(&t, size, 2, seven, NULL, &cuda), TC_ERROR_DEVICE, reason_needle);

  /* A CPU tensor moved to CUDA, and a CUDA-labelled blob (memory the backend
   * would own) read back: errors, never a host read of device memory. */
  tc_tensor x = NULL;
  const tc_device cpu = tc_device_cpu();
  CHECK_OK(tc_ones(&x, size, 2, &f32, &cpu));
  CHECK_FAILS_WITH(tc_to_device(&t, x, cuda, TC_FLOAT32, NULL, NULL), TC_ERROR_DEVICE, reason_needle);
  float host[6] = {0};
  tc_tensor blob = NULL;
  CHECK_OK(tc_tensor_from_blob(&blob, host, TC_FLOAT32, size, NULL, 2, cuda, NULL, NULL));
  float out[6];
  CHECK_FAILS_WITH(tc_tensor_copy_to_buffer(out, sizeof out, blob), TC_ERROR_DEVICE, reason_needle);
  tc_scalar s;
  tc_tensor one = NULL;
  const int64_t one_size[1] = {1};
  CHECK_OK(tc_tensor_from_blob(&one, host, TC_FLOAT32, one_size, NULL, 1, cuda, NULL, NULL));
  CHECK_FAILS_WITH(tc_tensor_item(&s, one), TC_ERROR_DEVICE, reason_needle);
  tc_tensor sum = NULL;
  CHECK_FAILS_WITH(tc_add_Tensor(&sum, blob, blob, NULL), TC_ERROR_DEVICE, reason_needle);
  /* Page-locked memory needs CUDA: pin_memory says why; nothing is pinned. */
  bool pinned = true;
  CHECK_OK(tc_tensor_is_pinned(&pinned, x));
  CHECK(!pinned);
  tc_tensor p = NULL;
  CHECK_FAILS_WITH(tc_tensor_pin_memory(&p, x), TC_ERROR_DEVICE, reason_needle);
  CHECK(p == NULL);
  CHECK_FAILS_WITH(tc_tensor_pin_memory(&p, blob), TC_ERROR_DEVICE, "only CPU tensors can be pinned");
  CHECK_FAILS_WITH(tc_tensor_pin_memory(NULL, x), TC_ERROR_INVALID_ARGUMENT, "out");
  CHECK_FAILS_WITH(tc_tensor_pin_memory(&p, NULL), TC_ERROR_INVALID_ARGUMENT, "'t'");
  CHECK_FAILS_WITH(tc_tensor_is_pinned(NULL, x), TC_ERROR_INVALID_ARGUMENT, "out");
  tc_tensor_release(one);
  tc_tensor_release(blob);
  tc_tensor_release(x);
}

int main(int argc, char** argv) {
  const int missing_library = argc > 1 && strcmp(argv[1], "missing-library") == 0;
  check_runtime_bad_input();
  if (missing_library) {
    check_cuda_unavailable("could not be loaded");
  } else if (tc_device_check(TC_DEVICE_CUDA) == TC_OK) {
    printf("CUDA is available here: the unavailable-path checks do not apply (test_cuda_runtime covers it)\n");
  } else {
    check_cuda_unavailable("is not available");
  }
  return check_summary();
}
