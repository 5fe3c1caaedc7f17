/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the hand-written C API: errors, version, tensor creation and
 * accessors, lists, generators and threads. Plain C99, no framework. */
#include <stdio.h>
#include <string.h>

#include "tensorc.h"

#include "check.h"

/* A call that must fail with `code`, and a last error naming `fn` and `arg`
 * (arg is matched as 'arg', with the quotes). */
#define CHECK_ERR(call, code, fn, arg) check_err_((call), (code), (fn), (arg), #call, __FILE__, __LINE__)

static void check_err_(tc_status st, tc_status code, const char* fn, const char* arg, const char* text,
                       const char* file, int line) {
  char quoted[128];
  const char* msg = tc_last_error_message();
  snprintf(quoted, sizeof quoted, "'%s'", arg);
  if (st == code && tc_last_error_code() == code && strstr(msg, fn) && strstr(msg, quoted)) {
    ++g_passed;
    return;
  }
  ++g_failed;
  fprintf(stderr, "%s:%d: %s: expected %s naming %s and %s, got %s: \"%s\"\n", file, line, text, tc_status_name(code),
          fn, quoted, tc_status_name(st), msg);
}

static int g_deleted = 0;
static void *g_deleted_data = NULL, *g_deleted_ctx = NULL;
static void counting_deleter(void* data, void* ctx) {
  ++g_deleted;
  g_deleted_ctx = ctx;
  g_deleted_data = data;
}

/* ---- version and errors ------------------------------------------------- */

static void test_version(void) {
  int major = -1, minor = -1, patch = -1;
  tc_version(&major, &minor, &patch);
  CHECK(major == TC_VERSION_MAJOR && minor == TC_VERSION_MINOR && patch == TC_VERSION_PATCH);
  tc_version(NULL, NULL, NULL); /* must not crash */
  CHECK(strcmp(tc_version_string(), TC_VERSION_STRING) == 0);
}

static void test_errors(void) {
  tc_error_clear();
  CHECK(tc_last_error_code() == TC_OK);
  CHECK(strcmp(tc_last_error_message(), "") == 0);

  CHECK(tc_error_set(TC_ERROR_RUNTIME, "my_kernel: the device fell over") == TC_ERROR_RUNTIME);
  CHECK(tc_last_error_code() == TC_ERROR_RUNTIME);
  CHECK(strcmp(tc_last_error_message(), "my_kernel: the device fell over") == 0);

  /* Re-reporting the current message (it aliases the stored one). */
  CHECK(tc_error_set(TC_ERROR_INDEX, tc_last_error_message()) == TC_ERROR_INDEX);
  CHECK(strcmp(tc_last_error_message(), "my_kernel: the device fell over") == 0);
  CHECK(tc_last_error_code() == TC_ERROR_INDEX);

  /* A successful call leaves the last error alone. */
  {
    int n = 0;
    CHECK_OK(tc_get_num_threads(&n));
    CHECK(tc_last_error_code() == TC_ERROR_INDEX);
  }

  CHECK(tc_error_set(TC_ERROR_TYPE, NULL) == TC_ERROR_TYPE);
  CHECK(strcmp(tc_last_error_message(), "") == 0);
  CHECK(tc_error_set(TC_OK, "ignored") == TC_OK);
  CHECK(tc_last_error_code() == TC_OK);
  CHECK(strcmp(tc_last_error_message(), "") == 0);

  CHECK(strcmp(tc_status_name(TC_OK), "ok") == 0);
  CHECK(strcmp(tc_status_name(TC_ERROR_INVALID_ARGUMENT), "invalid argument") == 0);
  CHECK(strcmp(tc_status_name(TC_ERROR_INTERNAL), "internal error") == 0);
  CHECK(strcmp(tc_status_name(1234), "unknown error") == 0);
  CHECK(strcmp(tc_status_name(-1), "unknown error") == 0);
}

static void test_dtypes(void) {
  size_t sz = 0;
  CHECK(strcmp(tc_dtype_name(TC_FLOAT32), "float32") == 0);
  CHECK(strcmp(tc_dtype_name(TC_BOOL), "bool") == 0);
  CHECK(strcmp(tc_dtype_name(TC_BFLOAT16), "bfloat16") == 0);
  CHECK(strcmp(tc_dtype_name(TC_COMPLEX64), "complex64") == 0);
  CHECK(strcmp(tc_dtype_name(42), "invalid") == 0);
  CHECK(strcmp(tc_dtype_name(-1), "invalid") == 0);
  CHECK_OK(tc_dtype_size(&sz, TC_FLOAT32));
  CHECK(sz == 4);
  CHECK_OK(tc_dtype_size(&sz, TC_FLOAT16));
  CHECK(sz == 2);
  CHECK_OK(tc_dtype_size(&sz, TC_INT64));
  CHECK(sz == 8);
  CHECK_OK(tc_dtype_size(&sz, TC_BOOL));
  CHECK(sz == 1);
  CHECK_ERR(tc_dtype_size(&sz, 42), TC_ERROR_TYPE, "tc_dtype_size", "dtype");
  CHECK_ERR(tc_dtype_size(&sz, -3), TC_ERROR_TYPE, "tc_dtype_size", "dtype");
  CHECK_ERR(tc_dtype_size(NULL, TC_FLOAT32), TC_ERROR_INVALID_ARGUMENT, "tc_dtype_size", "out");
}

/* ---- creation and accessors --------------------------------------------- */

static void test_from_data_and_accessors(void) {
  const float data[6] = {1, 2, 3, 4, 5, 6};
  const int64_t sizes[2] = {2, 3};
  int64_t got[4] = {0, 0, 0, 0}, v = -1;
  size_t ndim = 0;
  tc_dtype dt = -1;
  tc_device dev;
  bool contig = false;
  void* ptr = NULL;
  uint32_t version = 99;
  float back[6];
  tc_tensor t = NULL;

  CHECK_OK(tc_tensor_from_data(&t, data, TC_FLOAT32, sizes, 2));
  CHECK(t != NULL);
  CHECK_OK(tc_tensor_dim(&v, t));
  CHECK(v == 2);
  CHECK_OK(tc_tensor_sizes(got, 4, &ndim, t));
  CHECK(ndim == 2 && got[0] == 2 && got[1] == 3);
  CHECK_OK(tc_tensor_strides(got, 4, &ndim, t));
  CHECK(ndim == 2 && got[0] == 3 && got[1] == 1);
  /* Query ndim only, then a short buffer. */
  ndim = 0;
  CHECK_OK(tc_tensor_sizes(NULL, 0, &ndim, t));
  CHECK(ndim == 2);
  got[0] = got[1] = -7;
  CHECK_OK(tc_tensor_sizes(got, 1, &ndim, t));
  CHECK(ndim == 2 && got[0] == 2 && got[1] == -7);
  CHECK_OK(tc_tensor_size(&v, t, 1));
  CHECK(v == 3);
  CHECK_OK(tc_tensor_size(&v, t, -2));
  CHECK(v == 2);
  CHECK_OK(tc_tensor_numel(&v, t));
  CHECK(v == 6);
  CHECK_OK(tc_tensor_dtype(&dt, t));
  CHECK(dt == TC_FLOAT32);
  CHECK_OK(tc_tensor_device(&dev, t));
  CHECK(dev.type == TC_DEVICE_CPU);
  CHECK_OK(tc_tensor_storage_offset(&v, t));
  CHECK(v == 0);
  CHECK_OK(tc_tensor_is_contiguous(&contig, t));
  CHECK(contig);
  CHECK_OK(tc_tensor_data_ptr(&ptr, t));
  CHECK(ptr != NULL && ptr != (const void*)data && memcmp(ptr, data, sizeof data) == 0);
  CHECK_OK(tc_tensor_copy_to_buffer(back, sizeof back, t));
  CHECK(memcmp(back, data, sizeof data) == 0);
  CHECK_OK(tc_tensor_version(&version, t));
  CHECK(version == 0);
  {
    int64_t uses = 0;
    CHECK_OK(tc_tensor_use_count(&uses, t));
    CHECK(uses == 1);
    tc_tensor_retain(t);
    CHECK_OK(tc_tensor_use_count(&uses, t));
    CHECK(uses == 2);
    tc_tensor_release(t);
    CHECK_OK(tc_tensor_use_count(&uses, t));
    CHECK(uses == 1);
  }

  /* The copy is the tensor's own: changing the source changes nothing. */
  {
    float src[2] = {1.5f, 2.5f};
    int64_t n2 = 2;
    tc_tensor u = NULL;
    CHECK_OK(tc_tensor_from_data(&u, src, TC_FLOAT32, &n2, 1));
    src[0] = 100.f;
    CHECK_OK(tc_tensor_copy_to_buffer(back, 2 * sizeof(float), u));
    CHECK(back[0] == 1.5f && back[1] == 2.5f);
    tc_tensor_release(u);
  }

  /* Retain / release keep the tensor alive in between. */
  tc_tensor_retain(t);
  tc_tensor_release(t);
  CHECK_OK(tc_tensor_numel(&v, t));
  CHECK(v == 6);

  /* Accessor errors. */
  CHECK_ERR(tc_tensor_size(&v, t, 2), TC_ERROR_INDEX, "tc_tensor_size", "dim");
  CHECK_ERR(tc_tensor_size(&v, t, -3), TC_ERROR_INDEX, "tc_tensor_size", "dim");
  CHECK_ERR(tc_tensor_copy_to_buffer(back, sizeof back - 1, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_copy_to_buffer",
            "dst_nbytes");
  CHECK_ERR(tc_tensor_copy_to_buffer(NULL, sizeof back, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_copy_to_buffer",
            "dst");
  CHECK_ERR(tc_tensor_sizes(NULL, 2, &ndim, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_sizes", "out");
  CHECK_ERR(tc_tensor_strides(NULL, 1, &ndim, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_strides", "out");
  CHECK_ERR(tc_tensor_item(NULL, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_item", "out");
  {
    tc_scalar s;
    CHECK_ERR(tc_tensor_item(&s, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_item", "t");
  }
  tc_tensor_release(t);
}

static void test_null_arguments(void) {
  const float one = 1.0f;
  int64_t v = 0;
  size_t n = 0;
  tc_dtype dt;
  tc_device dev;
  bool b;
  void* p;
  uint32_t ver;
  tc_scalar s;
  char buf[8];
  tc_tensor t = NULL;

  CHECK_OK(tc_tensor_from_data(&t, &one, TC_FLOAT32, NULL, 0));

  CHECK_ERR(tc_tensor_dim(NULL, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_dim", "out");
  CHECK_ERR(tc_tensor_dim(&v, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_dim", "t");
  CHECK_ERR(tc_tensor_sizes(&v, 1, NULL, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_sizes", "ndim");
  CHECK_ERR(tc_tensor_sizes(&v, 1, &n, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_sizes", "t");
  CHECK_ERR(tc_tensor_strides(&v, 1, NULL, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_strides", "ndim");
  CHECK_ERR(tc_tensor_strides(&v, 1, &n, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_strides", "t");
  CHECK_ERR(tc_tensor_size(NULL, t, 0), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_size", "out");
  CHECK_ERR(tc_tensor_size(&v, NULL, 0), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_size", "t");
  CHECK_ERR(tc_tensor_numel(NULL, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_numel", "out");
  CHECK_ERR(tc_tensor_numel(&v, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_numel", "t");
  CHECK_ERR(tc_tensor_dtype(NULL, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_dtype", "out");
  CHECK_ERR(tc_tensor_dtype(&dt, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_dtype", "t");
  CHECK_ERR(tc_tensor_device(NULL, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_device", "out");
  CHECK_ERR(tc_tensor_device(&dev, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_device", "t");
  CHECK_ERR(tc_tensor_storage_offset(NULL, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_storage_offset", "out");
  CHECK_ERR(tc_tensor_storage_offset(&v, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_storage_offset", "t");
  CHECK_ERR(tc_tensor_is_contiguous(NULL, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_is_contiguous", "out");
  CHECK_ERR(tc_tensor_is_contiguous(&b, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_is_contiguous", "t");
  CHECK_ERR(tc_tensor_data_ptr(NULL, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_data_ptr", "out");
  CHECK_ERR(tc_tensor_data_ptr(&p, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_data_ptr", "t");
  CHECK_ERR(tc_tensor_copy_to_buffer(buf, 4, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_copy_to_buffer", "t");
  CHECK_ERR(tc_tensor_item(&s, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_item", "t");
  CHECK_OK(tc_tensor_to_string(buf, sizeof buf, NULL, t)); /* needed is optional */
  CHECK_ERR(tc_tensor_to_string(buf, sizeof buf, &n, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_to_string", "t");
  CHECK_ERR(tc_tensor_to_string(NULL, 4, &n, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_to_string", "buf");
  CHECK_ERR(tc_tensor_version(NULL, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_version", "out");
  CHECK_ERR(tc_tensor_version(&ver, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_version", "t");
  CHECK_ERR(tc_tensor_use_count(NULL, t), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_use_count", "out");
  CHECK_ERR(tc_tensor_use_count(&v, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_use_count", "t");

  CHECK_ERR(tc_tensor_from_data(NULL, &one, TC_FLOAT32, NULL, 0), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_from_data",
            "out");
  CHECK_ERR(tc_tensor_from_blob(NULL, (void*)&one, TC_FLOAT32, NULL, NULL, 0, tc_device_cpu(), NULL, NULL),
            TC_ERROR_INVALID_ARGUMENT, "tc_tensor_from_blob", "out");
  CHECK_ERR(tc_tensor_from_scalar(NULL, tc_scalar_int(1), NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_from_scalar",
            "out");

  /* Releasing or retaining NULL is a no-op. */
  tc_tensor_retain(NULL);
  tc_tensor_release(NULL);
  tc_tensor_list_release(NULL);
  tc_generator_release(NULL);
  CHECK(1);

  tc_tensor_release(t);
}

static void test_creation_errors(void) {
  const double data[4] = {1, 2, 3, 4};
  const int64_t good[2] = {2, 2};
  const int64_t negative[2] = {2, -1};
  const int64_t huge[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
  const int64_t too_many_bytes[1] = {INT64_C(1) << 61}; /* fits int64 as a count, not as float64 bytes */
  const int64_t empty[2] = {0, 3};
  const int64_t neg_strides[2] = {-1, 1};
  const int64_t huge_strides[2] = {INT64_C(1) << 62, 1};
  tc_tensor t = NULL;
  int64_t numel = -1;

  CHECK_ERR(tc_tensor_from_data(&t, data, 42, good, 2), TC_ERROR_TYPE, "tc_tensor_from_data", "dtype");
  CHECK_ERR(tc_tensor_from_data(&t, data, -1, good, 2), TC_ERROR_TYPE, "tc_tensor_from_data", "dtype");
  CHECK_ERR(tc_tensor_from_data(&t, data, TC_COMPLEX64, good, 2), TC_ERROR_TYPE, "tc_tensor_from_data", "dtype");
  CHECK(strstr(tc_last_error_message(), "reserved") != NULL);
  /* 'size' also matches a message naming 'sizes'. */
  CHECK(tc_tensor_from_data(&t, data, TC_FLOAT64, negative, 2) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tc_last_error_message(), "tc_tensor_from_data") && strstr(tc_last_error_message(), "'size"));
  CHECK(tc_tensor_from_data(&t, data, TC_FLOAT64, huge, 2) == TC_ERROR_OUT_OF_MEMORY);
  CHECK(strstr(tc_last_error_message(), "tc_tensor_from_data") && strstr(tc_last_error_message(), "'size"));
  CHECK(tc_tensor_from_data(&t, data, TC_FLOAT64, too_many_bytes, 1) == TC_ERROR_OUT_OF_MEMORY);
  CHECK(strstr(tc_last_error_message(), "tc_tensor_from_data") && strstr(tc_last_error_message(), "'size"));
  CHECK_ERR(tc_tensor_from_data(&t, data, TC_FLOAT64, NULL, 2), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_from_data",
            "sizes");
  CHECK_ERR(tc_tensor_from_data(&t, NULL, TC_FLOAT64, good, 2), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_from_data",
            "data");
  CHECK(t == NULL); /* outputs untouched on failure */

  /* An empty tensor needs no data. */
  CHECK_OK(tc_tensor_from_data(&t, NULL, TC_FLOAT64, empty, 2));
  CHECK_OK(tc_tensor_numel(&numel, t));
  CHECK(numel == 0);
  CHECK_OK(tc_tensor_copy_to_buffer(NULL, 0, t));
  tc_tensor_release(t);
  t = NULL;

  /* from_blob failures never call the deleter: the caller keeps the memory. */
  g_deleted = 0;
  CHECK_ERR(tc_tensor_from_blob(&t, (void*)data, 42, good, NULL, 2, tc_device_cpu(), counting_deleter, NULL),
            TC_ERROR_TYPE, "tc_tensor_from_blob", "dtype");
  {
    tc_device bad_type = {5, 0};
    tc_device bad_index = {TC_DEVICE_CUDA, -2};
    CHECK_ERR(tc_tensor_from_blob(&t, (void*)data, TC_FLOAT64, good, NULL, 2, bad_type, counting_deleter, NULL),
              TC_ERROR_DEVICE, "tc_tensor_from_blob", "device");
    CHECK_ERR(tc_tensor_from_blob(&t, (void*)data, TC_FLOAT64, good, NULL, 2, bad_index, counting_deleter, NULL),
              TC_ERROR_DEVICE, "tc_tensor_from_blob", "device");
  }
  CHECK(tc_tensor_from_blob(&t, (void*)data, TC_FLOAT64, negative, NULL, 2, tc_device_cpu(), counting_deleter, NULL) ==
        TC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tc_last_error_message(), "tc_tensor_from_blob") && strstr(tc_last_error_message(), "'size"));
  CHECK(tc_tensor_from_blob(&t, (void*)data, TC_FLOAT64, huge, NULL, 2, tc_device_cpu(), counting_deleter, NULL) ==
        TC_ERROR_OUT_OF_MEMORY);
  CHECK_ERR(
      tc_tensor_from_blob(&t, (void*)data, TC_FLOAT64, good, neg_strides, 2, tc_device_cpu(), counting_deleter, NULL),
      TC_ERROR_INVALID_ARGUMENT, "tc_tensor_from_blob", "strides");
  CHECK_ERR(
      tc_tensor_from_blob(&t, (void*)data, TC_FLOAT64, good, huge_strides, 2, tc_device_cpu(), counting_deleter, NULL),
      TC_ERROR_OUT_OF_MEMORY, "tc_tensor_from_blob", "strides");
  CHECK_ERR(tc_tensor_from_blob(&t, NULL, TC_FLOAT64, good, NULL, 2, tc_device_cpu(), counting_deleter, NULL),
            TC_ERROR_INVALID_ARGUMENT, "tc_tensor_from_blob", "data");
  CHECK_ERR(tc_tensor_from_blob(&t, (void*)data, TC_FLOAT64, NULL, NULL, 2, tc_device_cpu(), counting_deleter, NULL),
            TC_ERROR_INVALID_ARGUMENT, "tc_tensor_from_blob", "sizes");
  CHECK(g_deleted == 0);
  CHECK(t == NULL);

  /* from_scalar errors. */
  {
    tc_scalar bad = tc_scalar_int(1);
    tc_dtype bad_dt = 77;
    bad.tag = 9;
    CHECK_ERR(tc_tensor_from_scalar(&t, bad, NULL), TC_ERROR_TYPE, "tc_tensor_from_scalar", "value");
    CHECK_ERR(tc_tensor_from_scalar(&t, tc_scalar_int(1), &bad_dt), TC_ERROR_TYPE, "tc_tensor_from_scalar", "dtype");
  }
}

static void test_from_blob(void) {
  /* A 3x2 view of a row-major 2x3 buffer (its transpose). */
  float buf[6] = {1, 2, 3, 4, 5, 6};
  const int64_t sizes[2] = {3, 2};
  const int64_t strides[2] = {1, 3};
  const float expect[6] = {1, 4, 2, 5, 3, 6};
  float out[6];
  int64_t got[2];
  size_t ndim = 0;
  bool contig = true;
  void* ptr = NULL;
  int ctx_marker = 0;
  tc_tensor t = NULL;

  g_deleted = 0;
  CHECK_OK(tc_tensor_from_blob(&t, buf, TC_FLOAT32, sizes, strides, 2, tc_device_cpu(), counting_deleter, &ctx_marker));
  CHECK_OK(tc_tensor_strides(got, 2, &ndim, t));
  CHECK(ndim == 2 && got[0] == 1 && got[1] == 3);
  CHECK_OK(tc_tensor_is_contiguous(&contig, t));
  CHECK(!contig);
  CHECK_OK(tc_tensor_data_ptr(&ptr, t));
  CHECK(ptr == (void*)buf); /* no copy */
  CHECK_OK(tc_tensor_copy_to_buffer(out, sizeof out, t));
  CHECK(memcmp(out, expect, sizeof out) == 0);

  /* The deleter runs exactly once, when the last reference goes. */
  tc_tensor_retain(t);
  tc_tensor_release(t);
  CHECK(g_deleted == 0);
  tc_tensor_release(t);
  CHECK(g_deleted == 1);
  CHECK(g_deleted_ctx == &ctx_marker && g_deleted_data == (void*)buf);

  /* Contiguous by default, and no deleter is fine. */
  {
    int32_t ints[4] = {1, 2, 3, 4};
    int32_t back[4];
    int64_t n4 = 4;
    CHECK_OK(tc_tensor_from_blob(&t, ints, TC_INT32, &n4, NULL, 1, tc_device_cpu(), NULL, NULL));
    CHECK_OK(tc_tensor_is_contiguous(&contig, t));
    CHECK(contig);
    ints[2] = 30; /* shares the caller's memory */
    CHECK_OK(tc_tensor_copy_to_buffer(back, sizeof back, t));
    CHECK(back[0] == 1 && back[2] == 30);
    tc_tensor_release(t);
  }

  /* A strided 3-D gather of int16 with a step: every other element. */
  {
    int16_t src[24];
    int16_t back[12];
    const int64_t s3[3] = {2, 3, 2};
    const int64_t st3[3] = {12, 4, 2};
    int i, ok = 1;
    for (i = 0; i < 24; ++i) src[i] = (int16_t)i;
    CHECK_OK(tc_tensor_from_blob(&t, src, TC_INT16, s3, st3, 3, tc_device_cpu(), NULL, NULL));
    CHECK_OK(tc_tensor_copy_to_buffer(back, sizeof back, t));
    for (i = 0; i < 12; ++i) ok = ok && back[i] == 2 * i;
    CHECK(ok);
    tc_tensor_release(t);
  }

  /* A tensor on another device: metadata and the device pointer work, host
   * copies are a device error. */
  {
    int64_t n2 = 2;
    tc_device dev;
    float host[2] = {0, 0};
    CHECK_OK(tc_tensor_from_blob(&t, buf, TC_FLOAT32, &n2, NULL, 1, tc_device_cuda(0), NULL, NULL));
    CHECK_OK(tc_tensor_device(&dev, t));
    CHECK(dev.type == TC_DEVICE_CUDA && dev.index == 0);
    CHECK_OK(tc_tensor_data_ptr(&ptr, t));
    CHECK(ptr == (void*)buf);
    CHECK_ERR(tc_tensor_copy_to_buffer(host, sizeof host, t), TC_ERROR_DEVICE, "tc_tensor_copy_to_buffer", "t");
    tc_tensor_release(t);
  }
  {
    int64_t n1 = 1;
    tc_scalar s;
    CHECK_OK(tc_tensor_from_blob(&t, buf, TC_FLOAT32, &n1, NULL, 1, tc_device_cuda(0), NULL, NULL));
    CHECK_ERR(tc_tensor_item(&s, t), TC_ERROR_DEVICE, "tc_tensor_item", "t");
    tc_tensor_release(t);
  }
}

static void test_scalars_and_item(void) {
  tc_tensor t = NULL;
  tc_scalar s;
  tc_dtype dt = -1;
  int64_t v = -1;
  size_t ndim = 9;

  CHECK_OK(tc_tensor_from_scalar(&t, tc_scalar_int(-7), NULL));
  CHECK_OK(tc_tensor_dtype(&dt, t));
  CHECK(dt == TC_INT64);
  CHECK_OK(tc_tensor_sizes(NULL, 0, &ndim, t));
  CHECK(ndim == 0);
  CHECK_OK(tc_tensor_numel(&v, t));
  CHECK(v == 1);
  CHECK_ERR(tc_tensor_size(&v, t, 0), TC_ERROR_INDEX, "tc_tensor_size", "dim");
  CHECK_ERR(tc_tensor_size(&v, t, -1), TC_ERROR_INDEX, "tc_tensor_size", "dim");
  CHECK_OK(tc_tensor_item(&s, t));
  CHECK(s.tag == TC_SCALAR_INT && s.u.i == -7);
  tc_tensor_release(t);

  CHECK_OK(tc_tensor_from_scalar(&t, tc_scalar_float(2.5), NULL));
  CHECK_OK(tc_tensor_dtype(&dt, t));
  CHECK(dt == TC_FLOAT32);
  CHECK_OK(tc_tensor_item(&s, t));
  CHECK(s.tag == TC_SCALAR_FLOAT && s.u.f == 2.5);
  tc_tensor_release(t);

  CHECK_OK(tc_tensor_from_scalar(&t, tc_scalar_bool(true), NULL));
  CHECK_OK(tc_tensor_dtype(&dt, t));
  CHECK(dt == TC_BOOL);
  CHECK_OK(tc_tensor_item(&s, t));
  CHECK(s.tag == TC_SCALAR_BOOL && s.u.b);
  tc_tensor_release(t);

  {
    tc_dtype f64 = TC_FLOAT64, i32 = TC_INT32, bf16 = TC_BFLOAT16;
    CHECK_OK(tc_tensor_from_scalar(&t, tc_scalar_int(3), &f64));
    CHECK_OK(tc_tensor_dtype(&dt, t));
    CHECK(dt == TC_FLOAT64);
    CHECK_OK(tc_tensor_item(&s, t));
    CHECK(s.tag == TC_SCALAR_FLOAT && s.u.f == 3.0);
    tc_tensor_release(t);

    CHECK_OK(tc_tensor_from_scalar(&t, tc_scalar_float(9.75), &i32));
    CHECK_OK(tc_tensor_item(&s, t));
    CHECK(s.tag == TC_SCALAR_INT && s.u.i == 9);
    tc_tensor_release(t);

    CHECK_OK(tc_tensor_from_scalar(&t, tc_scalar_float(1.5), &bf16));
    CHECK_OK(tc_tensor_item(&s, t));
    CHECK(s.tag == TC_SCALAR_FLOAT && s.u.f == 1.5);
    tc_tensor_release(t);
  }

  /* item works for a one-element tensor of any rank. */
  {
    const uint8_t one = 200;
    const int64_t sizes[3] = {1, 1, 1};
    CHECK_OK(tc_tensor_from_data(&t, &one, TC_UINT8, sizes, 3));
    CHECK_OK(tc_tensor_item(&s, t));
    CHECK(s.tag == TC_SCALAR_INT && s.u.i == 200);
    tc_tensor_release(t);
  }
}

static void test_to_string(void) {
  const double data[3] = {1, 2, 3};
  const int64_t n3 = 3;
  char big[256], small[5];
  size_t needed = 0, needed2 = 0;
  tc_tensor t = NULL;

  CHECK_OK(tc_tensor_from_data(&t, data, TC_FLOAT64, &n3, 1));
  CHECK_OK(tc_tensor_to_string(NULL, 0, &needed, t));
  CHECK(needed > 1 && needed <= sizeof big);
  memset(big, 'x', sizeof big);
  CHECK_OK(tc_tensor_to_string(big, sizeof big, &needed2, t));
  CHECK(needed2 == needed);
  CHECK(strlen(big) + 1 == needed);
  CHECK(strncmp(big, "tensor(", 7) == 0);
  printf("to_string: %s\n", big);
  /* Truncated: a NUL-terminated prefix, and the full length still reported. */
  memset(small, 'x', sizeof small);
  CHECK_OK(tc_tensor_to_string(small, sizeof small, &needed2, t));
  CHECK(needed2 == needed);
  CHECK(small[4] == '\0' && strncmp(small, big, 4) == 0);
  tc_tensor_release(t);
}

/* ---- lists, generators, threads ----------------------------------------- */

static void test_lists(void) {
  size_t n = 0;
  tc_tensor t = NULL;
  /* Lists come only from ops; without one, only the argument checks run here. */
  CHECK_ERR(tc_tensor_list_size(NULL, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_list_size", "out");
  CHECK_ERR(tc_tensor_list_size(&n, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_list_size", "l");
  CHECK_ERR(tc_tensor_list_get(NULL, NULL, 0), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_list_get", "out");
  CHECK_ERR(tc_tensor_list_get(&t, NULL, 0), TC_ERROR_INVALID_ARGUMENT, "tc_tensor_list_get", "l");
}

static void test_generators(void) {
  tc_generator g = NULL, d1 = NULL, d2 = NULL;
  uint64_t seed = 0;

  CHECK_OK(tc_generator_create(&g, 42));
  CHECK_OK(tc_generator_seed(&seed, g));
  CHECK(seed == 42);
  CHECK_OK(tc_generator_set_seed(g, 7));
  CHECK_OK(tc_generator_seed(&seed, g));
  CHECK(seed == 7);
  tc_generator_release(g);

  CHECK_OK(tc_manual_seed(123));
  CHECK_OK(tc_generator_default(&d1));
  CHECK_OK(tc_generator_default(&d2));
  CHECK(d1 != NULL && d1 == d2);
  CHECK_OK(tc_generator_seed(&seed, d1));
  CHECK(seed == 123);
  tc_generator_release(d1);
  tc_generator_release(d2);
  /* The default generator outlives the released references. */
  CHECK_OK(tc_manual_seed(5));
  CHECK_OK(tc_generator_default(&d1));
  CHECK_OK(tc_generator_seed(&seed, d1));
  CHECK(seed == 5);
  tc_generator_release(d1);

  CHECK_ERR(tc_generator_create(NULL, 1), TC_ERROR_INVALID_ARGUMENT, "tc_generator_create", "out");
  CHECK_ERR(tc_generator_set_seed(NULL, 1), TC_ERROR_INVALID_ARGUMENT, "tc_generator_set_seed", "g");
  CHECK_ERR(tc_generator_seed(NULL, g), TC_ERROR_INVALID_ARGUMENT, "tc_generator_seed", "out");
  CHECK_ERR(tc_generator_seed(&seed, NULL), TC_ERROR_INVALID_ARGUMENT, "tc_generator_seed", "g");
  CHECK_ERR(tc_generator_default(NULL), TC_ERROR_INVALID_ARGUMENT, "tc_generator_default", "out");
}

static void test_threads(void) {
  int n = 0, before = 0;
  CHECK_OK(tc_get_num_threads(&before));
  CHECK(before >= 1);
  CHECK_OK(tc_set_num_threads(2));
  CHECK_OK(tc_get_num_threads(&n));
  CHECK(n == 2);
  CHECK_ERR(tc_set_num_threads(0), TC_ERROR_INVALID_ARGUMENT, "tc_set_num_threads", "n");
  CHECK_ERR(tc_set_num_threads(-4), TC_ERROR_INVALID_ARGUMENT, "tc_set_num_threads", "n");
  CHECK_OK(tc_get_num_threads(&n));
  CHECK(n == 2);
  CHECK_ERR(tc_get_num_threads(NULL), TC_ERROR_INVALID_ARGUMENT, "tc_get_num_threads", "out");
  CHECK_OK(tc_set_num_threads(before));
}

static void test_inline_helpers(void) {
  tc_scalar s = tc_scalar_int(INT64_C(-9000000000));
  tc_device d;
  CHECK(s.tag == TC_SCALAR_INT && s.u.i == INT64_C(-9000000000));
  s = tc_scalar_float(-0.25);
  CHECK(s.tag == TC_SCALAR_FLOAT && s.u.f == -0.25);
  s = tc_scalar_bool(false);
  CHECK(s.tag == TC_SCALAR_BOOL && !s.u.b);
  d = tc_device_cpu();
  CHECK(d.type == TC_DEVICE_CPU);
  d = tc_device_cuda(3);
  CHECK(d.type == TC_DEVICE_CUDA && d.index == 3);
}

/* Bool memory holding bytes other than 0 and 1 is refused where it enters:
 * kernels load bool elements as C bools, for which such bytes are undefined
 * (a sum of {0, 2, 24, 1} would give 27). */
static void test_bool_bytes(void) {
  uint8_t bytes[4] = {0, 2, 24, 1}, good[2] = {1, 0};
  int64_t n = 4, two = 2, stride2 = 2;
  tc_tensor t = NULL;
  char buf[64];
  CHECK(tc_tensor_from_blob(&t, bytes, TC_BOOL, &n, NULL, 1, tc_device_cpu(), NULL, NULL) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(t == NULL && strstr(tc_last_error_message(), "tc_tensor_from_blob: argument 'data' holds the byte 2"));
  CHECK(tc_tensor_from_data(&t, bytes, TC_BOOL, &n, 1) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(t == NULL && strstr(tc_last_error_message(), "bool elements must be 0 or 1"));
  /* Only the elements a strided view reaches are checked: {0, 24} is still bad, {1, 0} of good fine. */
  CHECK(tc_tensor_from_blob(&t, bytes, TC_BOOL, &two, &stride2, 1, tc_device_cpu(), NULL, NULL) ==
        TC_ERROR_INVALID_ARGUMENT);
  CHECK_OK(tc_tensor_from_blob(&t, good, TC_BOOL, &two, NULL, 1, tc_device_cpu(), NULL, NULL));
  CHECK_OK(tc_tensor_to_string(buf, sizeof buf, NULL, t));
  CHECK(strcmp(buf, "tensor([ True, False])") == 0);
  tc_tensor_release(t);
}

/* Memory not aligned to the element size is refused, not read misaligned. */
static void test_misaligned_blob(void) {
  double storage[3] = {1, 2, 3};
  int64_t n = 2;
  tc_tensor t = NULL;
  char* p = (char*)storage + 1;
  CHECK(tc_tensor_from_blob(&t, p, TC_FLOAT64, &n, NULL, 1, tc_device_cpu(), NULL, NULL) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(t == NULL && strstr(tc_last_error_message(), "is not aligned to the 8-byte elements"));
  CHECK_OK(tc_tensor_from_blob(&t, p - 1, TC_FLOAT64, &n, NULL, 1, tc_device_cpu(), NULL, NULL));
  tc_tensor_release(t);
}

/* The storage of empty_strided is sized in bytes with every product checked:
 * strides whose extent in elements fits int64 but not in bytes are refused
 * instead of giving a storage too small for the tensor. */
static void test_empty_strided_overflow(void) {
  int64_t sizes[2] = {2, 2}, strides[2] = {(1LL << 62) - 8, 100};
  tc_tensor t = NULL;
  CHECK(tc_empty_strided(&t, sizes, 2, strides, 2, NULL, NULL) == TC_ERROR_OUT_OF_MEMORY);
  CHECK(t == NULL && strstr(tc_last_error_message(), "empty_strided"));
}

/* ---- Scalars held by tensors (TC_SCALAR_TENSOR) ------------------------- */

/* Where the op has a Tensor overload, a tensor Scalar goes there: it promotes
 * as a 0-dim tensor and gets a gradient. Elsewhere its value is read, and it
 * must not require grad. Either way it must be 0-dim and not NULL. */
static void test_tensor_scalars(void) {
  const int32_t iv[3] = {1, 2, 3};
  const int64_t n3[1] = {3};
  const double half = 0.5;
  tc_tensor ints = NULL, h64 = NULL, r = NULL, w = NULL, y = NULL, total = NULL, g = NULL, v = NULL;
  tc_dtype dt = -1;
  CHECK_OK(tc_tensor_from_data(&ints, iv, TC_INT32, n3, 1));
  CHECK_OK(tc_tensor_from_data(&h64, &half, TC_FLOAT64, NULL, 0));

  /* add.Scalar with a float64 0-dim tensor: add.Tensor's promotion (float64),
   * where the number 0.5 gives the default float32 */
  CHECK_OK(tc_add_Scalar(&r, ints, tc_scalar_from_tensor(h64), NULL));
  CHECK_OK(tc_tensor_dtype(&dt, r));
  CHECK(dt == TC_FLOAT64);
  {
    double d[3] = {0};
    CHECK_OK(tc_tensor_copy_to_buffer(d, sizeof d, r));
    CHECK(d[0] == 1.5 && d[1] == 2.5 && d[2] == 3.5);
  }
  tc_tensor_release(r);
  r = NULL;
  CHECK_OK(tc_add_Scalar(&r, ints, tc_scalar_float(0.5), NULL));
  CHECK_OK(tc_tensor_dtype(&dt, r));
  CHECK(dt == TC_FLOAT32);
  tc_tensor_release(r);
  r = NULL;

  /* clamp with one bound a tensor and the other a number */
  {
    const int64_t two = 2;
    tc_tensor lo = NULL;
    tc_scalar lo_s, hi_s = tc_scalar_int(2);
    int32_t c[3] = {0};
    CHECK_OK(tc_tensor_from_data(&lo, &two, TC_INT64, NULL, 0));
    lo_s = tc_scalar_from_tensor(lo);
    CHECK_OK(tc_clamp(&r, ints, &lo_s, &hi_s));
    CHECK_OK(tc_tensor_dtype(&dt, r));
    CHECK(dt == TC_INT32);
    CHECK_OK(tc_tensor_copy_to_buffer(c, sizeof c, r));
    CHECK(c[0] == 2 && c[1] == 2 && c[2] == 2);
    tc_tensor_release(r);
    r = NULL;
    tc_tensor_release(lo);
  }

  /* A gradient reaches a tensor Scalar that requires grad: d(sum(x * w))/dw = sum(x) */
  {
    const float xv[3] = {1, 2, 4}, one = 1;
    tc_tensor x = NULL;
    float gv = 0;
    CHECK_OK(tc_tensor_from_data(&x, xv, TC_FLOAT32, n3, 1));
    CHECK_OK(tc_tensor_from_data(&w, &one, TC_FLOAT32, NULL, 0));
    CHECK_OK(tc_tensor_set_requires_grad(w, true));
    CHECK_OK(tc_mul_Scalar(&y, x, tc_scalar_from_tensor(w)));
    CHECK_OK(tc_sum(&total, y, NULL));
    CHECK_OK(tc_tensor_backward(total, NULL, false, false));
    CHECK_OK(tc_tensor_grad(&g, w));
    CHECK(g != NULL);
    if (g) CHECK_OK(tc_tensor_copy_to_buffer(&gv, sizeof gv, g));
    CHECK(gv == 7);
    /* fill_value has no Tensor overload: the number is read, so a tensor that
     * requires grad is refused (its gradient would be lost), a detached one read */
    CHECK_ERR(tc_full(&v, n3, 1, tc_scalar_from_tensor(w), NULL, NULL), TC_ERROR_INVALID_ARGUMENT, "full",
              "fill_value");
    CHECK(v == NULL);
    CHECK_OK(tc_tensor_set_requires_grad(w, false));
    CHECK_OK(tc_full(&v, n3, 1, tc_scalar_from_tensor(w), NULL, NULL));
    {
      float f[3] = {0};
      CHECK_OK(tc_tensor_copy_to_buffer(f, sizeof f, v));
      CHECK(f[0] == 1 && f[1] == 1 && f[2] == 1);
    }
    tc_tensor_release(x);
  }

  /* Bad tensor Scalars: NULL, or not 0-dim, on both paths; self unchanged */
  {
    tc_scalar null_s = tc_scalar_from_tensor(NULL);
    uint32_t before = 0, after = 1;
    CHECK_ERR(tc_add_Scalar(&r, ints, null_s, NULL), TC_ERROR_INVALID_ARGUMENT, "add", "other");
    CHECK_ERR(tc_add_Scalar(&r, ints, tc_scalar_from_tensor(ints), NULL), TC_ERROR_INVALID_ARGUMENT, "add", "other");
    CHECK(strstr(tc_last_error_message(), "0-dim") != NULL);
    CHECK_ERR(tc_full(&r, n3, 1, tc_scalar_from_tensor(ints), NULL, NULL), TC_ERROR_INVALID_ARGUMENT, "full",
              "fill_value");
    CHECK(r == NULL);
    CHECK_OK(tc_tensor_version(&before, ints));
    CHECK_ERR(tc_fill_inplace_Scalar(ints, tc_scalar_from_tensor(ints)), TC_ERROR_INVALID_ARGUMENT, "fill_", "value");
    CHECK_OK(tc_tensor_version(&after, ints));
    CHECK(before == after);
  }
  tc_tensor_release(v);
  tc_tensor_release(g);
  tc_tensor_release(total);
  tc_tensor_release(y);
  tc_tensor_release(w);
  tc_tensor_release(h64);
  tc_tensor_release(ints);
}

int main(void) {
  test_bool_bytes();
  test_misaligned_blob();
  test_empty_strided_overflow();
  test_version();
  test_errors();
  test_dtypes();
  test_from_data_and_accessors();
  test_null_arguments();
  test_creation_errors();
  test_from_blob();
  test_scalars_and_item();
  test_tensor_scalars();
  test_to_string();
  test_lists();
  test_generators();
  test_threads();
  test_inline_helpers();
  return check_summary();
}
