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
  tc_device_register_hooks(TC_DEVICE_PRIVATEUSE1, &hooks);
}
