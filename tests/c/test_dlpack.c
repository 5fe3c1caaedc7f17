/* SPDX-License-Identifier: BSD-3-Clause */
/* DLPack through the C ABI: export, import, the round trip without a copy,
 * deleters called exactly once, and bad input. */
#include <dlpack/dlpack.h>
#include <stdlib.h>

#include "check.h"

static int g_deleted = 0;
static void count_delete(DLManagedTensor* self) {
  ++g_deleted;
  (void)self;
}

/* A DLManagedTensor over caller memory; every field set by the test. */
static DLManagedTensor make_managed(void* data, int ndim, int64_t* shape, int64_t* strides, uint8_t code,
                                    uint8_t bits) {
  DLManagedTensor m;
  memset(&m, 0, sizeof m);
  m.dl_tensor.data = data;
  m.dl_tensor.device.device_type = kDLCPU;
  m.dl_tensor.device.device_id = 0;
  m.dl_tensor.ndim = ndim;
  m.dl_tensor.dtype.code = code;
  m.dl_tensor.dtype.bits = bits;
  m.dl_tensor.dtype.lanes = 1;
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = strides;
  m.dl_tensor.byte_offset = 0;
  m.deleter = count_delete;
  return m;
}

static void test_export(void) {
  float xs[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[2] = {2, 3};
  tc_tensor x = NULL, xt = NULL;
  DLManagedTensor* m = NULL;
  void* ptr = NULL;
  int64_t uses = 0;
  CHECK_OK(tc_tensor_from_data(&x, xs, TC_FLOAT32, shape, 2));
  CHECK_OK(tc_t(&xt, x)); /* a transposed view: strides (1, 3) */
  CHECK_OK(tc_tensor_to_dlpack(&m, xt));
  CHECK_OK(tc_tensor_data_ptr(&ptr, x));
  CHECK(m != NULL && m->dl_tensor.data == ptr && m->dl_tensor.byte_offset == 0);
  CHECK(m->dl_tensor.device.device_type == kDLCPU && m->dl_tensor.device.device_id == 0);
  CHECK(m->dl_tensor.ndim == 2 && m->dl_tensor.shape[0] == 3 && m->dl_tensor.shape[1] == 2);
  CHECK(m->dl_tensor.strides != NULL && m->dl_tensor.strides[0] == 1 && m->dl_tensor.strides[1] == 3);
  CHECK(m->dl_tensor.dtype.code == kDLFloat && m->dl_tensor.dtype.bits == 32 && m->dl_tensor.dtype.lanes == 1);
  /* The export holds a reference of its own. */
  CHECK_OK(tc_tensor_use_count(&uses, xt));
  CHECK(uses == 2);
  tc_tensor_release(xt);
  tc_tensor_release(x);
  CHECK(((float*)m->dl_tensor.data)[5] == 6.f); /* still alive: ASan would see a use after free */
  m->deleter(m);

  /* bool goes out as kDLBool (code 6), 8 bits. */
  {
    bool bs[2] = {true, false};
    int64_t n = 2;
    tc_tensor b = NULL;
    CHECK_OK(tc_tensor_from_data(&b, bs, TC_BOOL, &n, 1));
    CHECK_OK(tc_tensor_to_dlpack(&m, b));
    CHECK(m->dl_tensor.dtype.code == 6 && m->dl_tensor.dtype.bits == 8);
    m->deleter(m);
    tc_tensor_release(b);
  }
  /* A zero-dim tensor: ndim 0, no shape needed. */
  {
    tc_tensor s = NULL;
    CHECK_OK(tc_tensor_from_scalar(&s, tc_scalar_int(7), NULL));
    CHECK_OK(tc_tensor_to_dlpack(&m, s));
    CHECK(m->dl_tensor.ndim == 0 && m->dl_tensor.dtype.code == kDLInt && m->dl_tensor.dtype.bits == 64);
    CHECK(*(int64_t*)m->dl_tensor.data == 7);
    m->deleter(m);
    tc_tensor_release(s);
  }
}

static void test_import(void) {
  /* A 2x3 int32 view with a byte offset and row stride 4 over a 3x4 buffer. */
  int32_t buf[12] = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
  int64_t shape[2] = {2, 3}, strides[2] = {4, 1};
  DLManagedTensor m = make_managed(buf, 2, shape, strides, kDLInt, 32);
  tc_tensor t = NULL, s = NULL;
  tc_scalar total;
  tc_dtype dt;
  void* ptr = NULL;
  m.dl_tensor.byte_offset = 4 * sizeof(int32_t); /* starts at row 1 */
  g_deleted = 0;
  CHECK_OK(tc_tensor_from_dlpack(&t, &m));
  CHECK_OK(tc_tensor_dtype(&dt, t));
  CHECK(dt == TC_INT32);
  CHECK_OK(tc_tensor_data_ptr(&ptr, t));
  CHECK(ptr == (void*)(buf + 4)); /* no copy */
  CHECK_OK(tc_sum(&s, t, NULL));
  CHECK_OK(tc_tensor_item(&total, s));
  CHECK(total.tag == TC_SCALAR_INT && total.u.i == 10 + 11 + 12 + 20 + 21 + 22);
  buf[4] = 100; /* shared memory: the tensor sees the write */
  tc_tensor_release(s);
  CHECK_OK(tc_sum(&s, t, NULL));
  CHECK_OK(tc_tensor_item(&total, s));
  CHECK(total.u.i == 100 + 11 + 12 + 20 + 21 + 22);
  tc_tensor_release(s);
  CHECK(g_deleted == 0);
  tc_tensor_release(t);
  CHECK(g_deleted == 1); /* the deleter ran with the last reference */

  /* NULL strides: compact row-major. */
  {
    double ds[4] = {1, 2, 3, 4};
    int64_t n[2] = {2, 2};
    size_t nd = 0;
    int64_t st[2];
    DLManagedTensor c = make_managed(ds, 2, n, NULL, kDLFloat, 64);
    CHECK_OK(tc_tensor_from_dlpack(&t, &c));
    CHECK_OK(tc_tensor_strides(st, 2, &nd, t));
    CHECK(nd == 2 && st[0] == 2 && st[1] == 1);
    tc_tensor_release(t);
    CHECK(g_deleted == 2);
  }
}

static void test_round_trip(void) {
  float xs[3] = {1, 2, 3};
  int64_t n = 3;
  tc_tensor x = NULL, y = NULL;
  DLManagedTensor* m = NULL;
  void *px = NULL, *py = NULL;
  CHECK_OK(tc_tensor_from_data(&x, xs, TC_FLOAT32, &n, 1));
  CHECK_OK(tc_tensor_to_dlpack(&m, x));
  CHECK_OK(tc_tensor_from_dlpack(&y, m)); /* y now owns m */
  CHECK_OK(tc_tensor_data_ptr(&px, x));
  CHECK_OK(tc_tensor_data_ptr(&py, y));
  CHECK(px == py);
  tc_tensor_release(x);
  tc_tensor_release(y); /* calls m's deleter, which drops the export's reference */
}

static void test_bad_input(void) {
  int32_t buf[4] = {0};
  int64_t shape[1] = {4}, neg_strides[1] = {-1};
  tc_tensor t = NULL, g = NULL;
  DLManagedTensor* m = NULL;
  DLManagedTensor bad;
  g_deleted = 0;

  CHECK_FAILS_WITH(tc_tensor_to_dlpack(NULL, NULL), TC_ERROR_INVALID_ARGUMENT, "'out'");
  CHECK_FAILS_WITH(tc_tensor_to_dlpack(&m, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_to_dlpack: argument 't'");
  CHECK_FAILS_WITH(tc_tensor_from_dlpack(&t, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_from_dlpack: argument 'src'");

  bad = make_managed(buf, 1, shape, NULL, kDLInt, 32);
  bad.dl_tensor.dtype.lanes = 4;
  CHECK_FAILS_WITH(tc_tensor_from_dlpack(&t, &bad), TC_ERROR_TYPE, "lanes 4");
  bad = make_managed(buf, 1, shape, NULL, kDLUInt, 32);
  CHECK_FAILS_WITH(tc_tensor_from_dlpack(&t, &bad), TC_ERROR_TYPE, "'src' has DLPack dtype (code 1, bits 32");
  bad = make_managed(buf, 1, shape, NULL, kDLComplex, 64);
  CHECK_FAILS_WITH(tc_tensor_from_dlpack(&t, &bad), TC_ERROR_TYPE, "tc_tensor_from_dlpack");
  bad = make_managed(buf, 1, shape, NULL, kDLInt, 32);
  bad.dl_tensor.device.device_type = kDLOpenCL;
  CHECK_FAILS_WITH(tc_tensor_from_dlpack(&t, &bad), TC_ERROR_DEVICE, "DLPack device type 4");
  bad = make_managed(buf, 1, NULL, NULL, kDLInt, 32);
  CHECK_FAILS_WITH(tc_tensor_from_dlpack(&t, &bad), TC_ERROR_INVALID_ARGUMENT, "NULL shape");
  bad = make_managed(buf, -1, shape, NULL, kDLInt, 32);
  CHECK_FAILS_WITH(tc_tensor_from_dlpack(&t, &bad), TC_ERROR_INVALID_ARGUMENT, "ndim -1");
  bad = make_managed(buf, 1, shape, neg_strides, kDLInt, 32);
  CHECK_FAILS_WITH(tc_tensor_from_dlpack(&t, &bad), TC_ERROR_INVALID_ARGUMENT, "non-negative strides");
  bad = make_managed(NULL, 1, shape, NULL, kDLInt, 32);
  CHECK_FAILS_WITH(tc_tensor_from_dlpack(&t, &bad), TC_ERROR_INVALID_ARGUMENT, "'data' is NULL");
  CHECK(t == NULL);
  CHECK(g_deleted == 0); /* a failed import leaves src to the caller */

  /* A tensor with history cannot leave through DLPack. */
  {
    double one = 1.0;
    CHECK_OK(tc_tensor_from_data(&g, &one, TC_FLOAT64, NULL, 0));
    CHECK_OK(tc_tensor_set_requires_grad(g, true));
    CHECK_FAILS_WITH(tc_tensor_to_dlpack(&m, g), TC_ERROR_RUNTIME, "detach");
    tc_tensor_release(g);
  }
}

int main(void) {
  test_export();
  test_import();
  test_round_trip();
  test_bad_input();
  return check_summary();
}
