/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA backend through the C ABI, on a machine with a GPU: factories on
 * the device, copies both ways and between dtypes and layouts, item, device
 * indices out of range. Without a usable device it prints why and exits 77,
 * which ctest reports as skipped (never as passed). */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SKIPPED 77

static const tc_device kCpu = {TC_DEVICE_CPU, -1};

/* The float32 values of t (any device) in row-major order. */
static void read_floats(float* out, size_t n, tc_tensor t) {
  CHECK_OK(tc_tensor_copy_to_buffer(out, n * sizeof(float), t));
}

static void check_factories(void) {
  const int64_t size[2] = {3, 5};
  const tc_dtype f32 = TC_FLOAT32, i64 = TC_INT64;
  const tc_device cuda = tc_device_cuda(0);
  tc_tensor ones = NULL, full = NULL, zeros = NULL;
  CHECK_OK(tc_ones(&ones, size, 2, &f32, &cuda));
  CHECK_OK(tc_zeros(&zeros, size, 2, &f32, &cuda));
  tc_scalar v;
  v.tag = TC_SCALAR_INT;
  v.u.i = -4;
  CHECK_OK(tc_full(&full, size, 2, v, &i64, &cuda));
  tc_device where;
  CHECK_OK(tc_tensor_device(&where, ones));
  CHECK(where.type == TC_DEVICE_CUDA && where.index == 0);
  float f[15];
  read_floats(f, 15, ones);
  int ok = 1;
  for (int i = 0; i < 15; ++i) ok &= f[i] == 1.0f;
  CHECK(ok);
  read_floats(f, 15, zeros);
  ok = 1;
  for (int i = 0; i < 15; ++i) ok &= f[i] == 0.0f;
  CHECK(ok);
  int64_t l[15];
  CHECK_OK(tc_tensor_copy_to_buffer(l, sizeof l, full));
  ok = 1;
  for (int i = 0; i < 15; ++i) ok &= l[i] == -4;
  CHECK(ok);
  tc_scalar s;
  tc_tensor first = NULL;
  CHECK_OK(tc_select_int(&first, full, 0, 1));
  tc_tensor elem = NULL;
  CHECK_OK(tc_select_int(&elem, first, 0, 2));
  CHECK_OK(tc_tensor_item(&s, elem));
  CHECK(s.tag == TC_SCALAR_INT && s.u.i == -4);
  tc_tensor_release(elem);
  tc_tensor_release(first);
  tc_tensor_release(ones);
  tc_tensor_release(zeros);
  tc_tensor_release(full);
}

static void check_copies(void) {
  const int64_t size[2] = {4, 6};
  float host[24];
  for (int i = 0; i < 24; ++i) host[i] = (float)i * 0.5f - 3.0f;
  tc_tensor x = NULL, xt = NULL, dev = NULL, devt = NULL, back = NULL, as_int = NULL;
  CHECK_OK(tc_tensor_from_data(&x, host, TC_FLOAT32, size, 2));
  CHECK_OK(tc_to_device(&dev, x, tc_device_cuda(0), TC_FLOAT32, NULL, NULL));
  float f[24];
  read_floats(f, 24, dev);
  CHECK(memcmp(f, host, sizeof f) == 0);
  /* A transposed CPU tensor to the device, and a transposed device tensor back. */
  CHECK_OK(tc_t(&xt, x));
  CHECK_OK(tc_to_device(&devt, xt, tc_device_cuda(0), TC_FLOAT32, NULL, NULL));
  read_floats(f, 24, devt);
  int ok = 1;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) ok &= f[i * 4 + j] == host[j * 6 + i];
  CHECK(ok);
  tc_tensor devtt = NULL;
  CHECK_OK(tc_t(&devtt, dev));
  CHECK_OK(tc_to_device(&back, devtt, kCpu, TC_FLOAT32, NULL, NULL));
  read_floats(f, 24, back);
  ok = 1;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) ok &= f[i * 4 + j] == host[j * 6 + i];
  CHECK(ok);
  /* dtype conversion on the device (float32 -> int32 truncates toward zero). */
  CHECK_OK(tc_to_device(&as_int, dev, tc_device_cuda(0), TC_INT32, NULL, NULL));
  int32_t k[24];
  CHECK_OK(tc_tensor_copy_to_buffer(k, sizeof k, as_int));
  ok = 1;
  for (int i = 0; i < 24; ++i) ok &= k[i] == (int32_t)host[i];
  CHECK(ok);
  tc_tensor_release(devtt);
  tc_tensor_release(as_int);
  tc_tensor_release(back);
  tc_tensor_release(devt);
  tc_tensor_release(dev);
  tc_tensor_release(xt);
  tc_tensor_release(x);
}

static void check_bad_device_index(int count) {
  const int64_t size[1] = {3};
  tc_tensor t = NULL;
  const tc_device past = tc_device_cuda(count);
  CHECK_FAILS_WITH(tc_ones(&t, size, 1, NULL, &past), TC_ERROR_DEVICE, "out of range");
  CHECK(t == NULL);
  CHECK_FAILS_WITH(tc_device_set_current(TC_DEVICE_CUDA, count), TC_ERROR_DEVICE, "out of range");
}

int main(void) {
  if (tc_device_check(TC_DEVICE_CUDA) != TC_OK) {
    printf("SKIPPED: no usable CUDA device: %s\n", tc_last_error_message());
    return SKIPPED;
  }
  int count = 0;
  CHECK_OK(tc_device_count(&count, TC_DEVICE_CUDA));
  CHECK(count >= 1);
  printf("%d CUDA device(s)\n", count);
  check_factories();
  check_copies();
  check_bad_device_index(count);
  CHECK_OK(tc_device_synchronize(tc_device_cuda(-1)));
  return check_summary();
}
