/* SPDX-License-Identifier: BSD-3-Clause */
/* A tiny out-of-tree backend on the PrivateUse1 key, built as its own shared
 * library and loaded with dlopen after tensorc is running. Its "device memory"
 * is host memory; what matters is that dispatch reaches its kernels. When
 * loaded it registers add.Tensor for PrivateUse1 with the op's natural C
 * signature (called through libffi), and device hooks, so that tensorc's
 * own empty / copy_ / to(device) work on its device. */
#include <stdlib.h>
#include <string.h>
#include <tensorc.h>

static void free_buffer(void* data, void* ctx) {
  (void)ctx;
  free(data);
}

static uint64_t last_add_stream = 0; /* the current stream the add kernel saw */
static int last_add_device = -1;     /* and the current device */

/* add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor, float32 only;
 * other has self's size or one element. */
static tc_status privateuse1_add(tc_tensor* out, tc_tensor self, tc_tensor other, tc_scalar alpha) {
  int64_t n = 0, m = 0, sizes[8];
  size_t ndim = 0;
  tc_dtype dt;
  void *a = NULL, *b = NULL;
  tc_device dev = {TC_DEVICE_PRIVATEUSE1, 0};
  if (tc_tensor_dtype(&dt, self) != TC_OK || dt != TC_FLOAT32)
    return tc_error_set(TC_ERROR_TYPE, "test backend add: only float32 tensors are supported");
  tc_tensor_numel(&n, self);
  tc_tensor_numel(&m, other);
  if (n != m && m != 1)
    return tc_error_set(TC_ERROR_INVALID_ARGUMENT,
                        "test backend add: sizes differ and other has more than one element");
  tc_tensor_sizes(sizes, 8, &ndim, self);
  tc_device_current(&last_add_device, TC_DEVICE_PRIVATEUSE1);
  {
    tc_stream current;
    tc_device self_device;
    if (tc_tensor_device(&self_device, self) == TC_OK && tc_stream_current(&current, self_device) == TC_OK)
      last_add_stream = current.id; /* a real backend would queue its work there */
  }
  /* Device memory is host memory here: read it through the blob pointers. */
  if (tc_tensor_data_ptr(&a, self) != TC_OK || tc_tensor_data_ptr(&b, other) != TC_OK) return tc_last_error_code();
  float* r = malloc((size_t)(n ? n : 1) * sizeof(float));
  double al = alpha.tag == TC_SCALAR_FLOAT ? alpha.u.f : (double)alpha.u.i;
  for (int64_t i = 0; i < n; ++i) r[i] = ((float*)a)[i] + (float)al * ((float*)b)[m == 1 ? 0 : i];
  tc_status st = tc_tensor_from_blob(out, r, TC_FLOAT32, sizes, NULL, ndim, dev, free_buffer, NULL);
  if (st != TC_OK) free(r);
  return st;
}

/* Device hooks: "device memory" from malloc, copies by memcpy; counts live
 * allocations so the test can see every tensor released, and can make copies
 * fail to see the error reach the caller. */
static int live_allocations = 0;
static int fail_copies = 0;

static tc_status hook_allocate(void** out, int index, size_t nbytes, void* user_data) {
  (void)index;
  (void)user_data;
  *out = malloc(nbytes);
  if (!*out) return tc_error_set(TC_ERROR_OUT_OF_MEMORY, "test backend: out of memory");
  __atomic_add_fetch(&live_allocations, 1, __ATOMIC_RELAXED);
  return TC_OK;
}

static void hook_release(void* data, int index, void* user_data) {
  (void)index;
  (void)user_data;
  free(data);
  __atomic_sub_fetch(&live_allocations, 1, __ATOMIC_RELAXED);
}

static tc_status hook_copy(void* dst, tc_device dst_device, const void* src, tc_device src_device, size_t nbytes,
                           void* user_data) {
  (void)dst_device;
  (void)src_device;
  (void)user_data;
  if (fail_copies) return tc_error_set(TC_ERROR_RUNTIME, "test backend: the copy engine is down");
  memcpy(dst, src, nbytes);
  return TC_OK;
}

/* Streams and events: handles from counters; an event remembers the stream
 * and the tick it was recorded at; each record advances a stream's tick by
 * one (a "millisecond"). The add kernel and stream_wait_event note what they
 * were given, for the test to read. */
#define MAX_HANDLES 64
static uint64_t next_stream = 100, next_event = 500;
static int64_t stream_ticks[MAX_HANDLES];
static int64_t event_ticks[MAX_HANDLES];
static uint64_t last_wait_stream = 0, last_wait_event = 0;

static int64_t* ticks_of(uint64_t stream) {
  return stream >= 100 && stream < 100 + MAX_HANDLES ? &stream_ticks[stream - 100] : &stream_ticks[0];
}

static tc_status hook_stream_create(uint64_t* out, int index, int32_t priority, void* user_data) {
  (void)index, (void)priority, (void)user_data;
  if (next_stream >= 100 + MAX_HANDLES) return tc_error_set(TC_ERROR_RUNTIME, "test backend: out of streams");
  *out = next_stream++;
  return TC_OK;
}
static tc_status hook_stream_query(bool* done, int index, uint64_t stream, void* user_data) {
  (void)index, (void)stream, (void)user_data;
  *done = true;
  return TC_OK;
}
static tc_status hook_stream_synchronize(int index, uint64_t stream, void* user_data) {
  (void)index, (void)stream, (void)user_data;
  return TC_OK;
}
static tc_status hook_stream_wait_event(int index, uint64_t stream, uint64_t event, void* user_data) {
  (void)index, (void)user_data;
  last_wait_stream = stream;
  last_wait_event = event;
  return TC_OK;
}
static tc_status hook_event_create(uint64_t* out, int index, bool timing, void* user_data) {
  (void)index, (void)timing, (void)user_data;
  if (next_event >= 500 + MAX_HANDLES) return tc_error_set(TC_ERROR_RUNTIME, "test backend: out of events");
  *out = next_event++;
  return TC_OK;
}
static void hook_event_destroy(int index, uint64_t event, void* user_data) {
  (void)index, (void)event, (void)user_data;
}
static tc_status hook_event_record(int index, uint64_t event, uint64_t stream, void* user_data) {
  (void)index, (void)user_data;
  if (event < 500 || event >= 500 + MAX_HANDLES) return tc_error_set(TC_ERROR_RUNTIME, "test backend: no such event");
  event_ticks[event - 500] = ++*ticks_of(stream);
  return TC_OK;
}
static tc_status hook_event_query(bool* done, int index, uint64_t event, void* user_data) {
  (void)index, (void)event, (void)user_data;
  *done = true;
  return TC_OK;
}
static tc_status hook_event_synchronize(int index, uint64_t event, void* user_data) {
  (void)index, (void)event, (void)user_data;
  return TC_OK;
}
static tc_status hook_event_elapsed_ms(double* out, int index, uint64_t start, uint64_t end, void* user_data) {
  (void)index, (void)user_data;
  *out = (double)(event_ticks[end - 500] - event_ticks[start - 500]);
  return TC_OK;
}

__attribute__((visibility("default"))) void tc_test_backend_last_wait(uint64_t* stream, uint64_t* event) {
  *stream = last_wait_stream;
  *event = last_wait_event;
}
__attribute__((visibility("default"))) uint64_t tc_test_backend_last_add_stream(void) { return last_add_stream; }
__attribute__((visibility("default"))) int tc_test_backend_last_add_device(void) { return last_add_device; }

__attribute__((visibility("default"))) int tc_test_backend_live_allocations(void) {
  return __atomic_load_n(&live_allocations, __ATOMIC_RELAXED);
}
__attribute__((visibility("default"))) void tc_test_backend_fail_copies(int on) { fail_copies = on; }

__attribute__((constructor)) static void register_backend(void) {
  tc_library_impl("add.Tensor", TC_KEY_PRIVATEUSE1, (tc_fn_ptr)privateuse1_add);
  tc_device_hooks hooks;
  memset(&hooks, 0, sizeof hooks);
  hooks.struct_size = sizeof hooks;
  hooks.device_count = 2;
  hooks.allocate = hook_allocate;
  hooks.release = hook_release;
  hooks.copy_bytes = hook_copy;
  hooks.stream_create = hook_stream_create;
  hooks.stream_query = hook_stream_query;
  hooks.stream_synchronize = hook_stream_synchronize;
  hooks.stream_wait_event = hook_stream_wait_event;
  hooks.event_create = hook_event_create;
  hooks.event_destroy = hook_event_destroy;
  hooks.event_record = hook_event_record;
  hooks.event_query = hook_event_query;
  hooks.event_synchronize = hook_event_synchronize;
  hooks.event_elapsed_ms = hook_event_elapsed_ms;
  tc_device_register_hooks(TC_DEVICE_PRIVATEUSE1, &hooks);
}
