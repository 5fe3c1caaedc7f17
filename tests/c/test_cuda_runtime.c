/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA backend through the C ABI, on a machine with a GPU: factories on
 * the device, copies both ways and between dtypes and layouts, item, device
 * indices out of range, and every pointwise op with a CUDA kernel (the unary
 * families, add/sub/mul/div) against the CPU on the same inputs: dense,
 * transposed, broadcast, with a 0-dim CPU operand and a number, in place and
 * into an out= of another dtype; mixing devices is an error naming both; the
 * caching allocator's statistics and empty_cache; streams and events; random
 * fills against the CPU's. Without a usable device it prints why and
 * exits 77, which ctest reports as skipped (never as passed). */
#include <math.h>
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

/* n float32 values spread over [lo, hi], as a CPU tensor of `size`. */
static tc_tensor spread(const int64_t* size, size_t ndim, float lo, float hi) {
  int64_t n = 1;
  for (size_t d = 0; d < ndim; ++d) n *= size[d];
  float* v = (float*)malloc((size_t)n * sizeof(float));
  for (int64_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * (float)((i * 37) % n) / (float)(n > 1 ? n - 1 : 1);
  tc_tensor t = NULL;
  CHECK_OK(tc_tensor_from_data(&t, v, TC_FLOAT32, size, ndim));
  free(v);
  return t;
}

static tc_tensor to_cuda(tc_tensor t) {
  tc_tensor d = NULL;
  tc_dtype dt;
  CHECK_OK(tc_tensor_dtype(&dt, t));
  CHECK_OK(tc_to_device(&d, t, tc_device_cuda(0), dt, NULL, NULL));
  return d;
}

/* max |a - b| / (1e-6 + |b|) over two float32 tensors of n elements (any device). */
static double max_rel_diff(tc_tensor a, tc_tensor b, size_t n) {
  float* x = (float*)malloc(n * sizeof(float));
  float* y = (float*)malloc(n * sizeof(float));
  read_floats(x, n, a);
  read_floats(y, n, b);
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = fabs((double)x[i] - (double)y[i]) / (1e-6 + fabs((double)y[i]));
    if (!(d <= worst)) worst = d; /* NaN-safe */
  }
  free(x);
  free(y);
  return worst;
}

typedef tc_status (*unary_fn)(tc_tensor* out, tc_tensor self);
static const struct {
  const char* name;
  unary_fn fn;
  float lo, hi;
} kUnary[] = {
    {"abs", tc_abs, -2, 2},         {"sign", tc_sign, -2, 2},       {"floor", tc_floor, -3, 3},
    {"ceil", tc_ceil, -3, 3},       {"round", tc_round, -3, 3},     {"trunc", tc_trunc, -3, 3},
    {"exp", tc_exp, -3, 3},         {"expm1", tc_expm1, -1, 1},     {"log", tc_log, 0.1f, 5},
    {"log1p", tc_log1p, -0.5f, 3},  {"log2", tc_log2, 0.1f, 5},     {"log10", tc_log10, 0.1f, 5},
    {"sqrt", tc_sqrt, 0, 5},        {"rsqrt", tc_rsqrt, 0.1f, 5},   {"reciprocal", tc_reciprocal, 0.5f, 3},
    {"sin", tc_sin, -3, 3},         {"cos", tc_cos, -3, 3},         {"tan", tc_tan, -1, 1},
    {"asin", tc_asin, -0.9f, 0.9f}, {"acos", tc_acos, -0.9f, 0.9f}, {"atan", tc_atan, -3, 3},
    {"asinh", tc_asinh, -3, 3},     {"acosh", tc_acosh, 1.1f, 4},   {"atanh", tc_atanh, -0.9f, 0.9f},
    {"sinh", tc_sinh, -3, 3},       {"cosh", tc_cosh, -3, 3},       {"tanh", tc_tanh, -3, 3},
    {"sigmoid", tc_sigmoid, -5, 5}, {"erf", tc_erf, -3, 3},
};

static void check_unary_ops(void) {
  const int64_t size[2] = {33, 17};
  for (size_t k = 0; k < sizeof kUnary / sizeof kUnary[0]; ++k) {
    tc_tensor x = spread(size, 2, kUnary[k].lo, kUnary[k].hi), xt = NULL, dx = NULL, dxt = NULL;
    tc_tensor want = NULL, got = NULL, want_t = NULL, got_t = NULL;
    CHECK_OK(tc_t(&xt, x));
    dx = to_cuda(x);
    CHECK_OK(tc_t(&dxt, dx));
    CHECK_OK(kUnary[k].fn(&want, x));
    CHECK_OK(kUnary[k].fn(&got, dx));
    CHECK_OK(kUnary[k].fn(&want_t, xt));
    CHECK_OK(kUnary[k].fn(&got_t, dxt));
    const double e = max_rel_diff(got, want, 33 * 17), et = max_rel_diff(got_t, want_t, 33 * 17);
    if (!(e <= 1e-5 && et <= 1e-5))
      printf("  %s: CUDA vs CPU max rel diff %g (transposed %g)\n", kUnary[k].name, e, et);
    CHECK(e <= 1e-5 && et <= 1e-5);
    tc_device where;
    CHECK_OK(tc_tensor_device(&where, got_t));
    CHECK(where.type == TC_DEVICE_CUDA);
    tc_tensor_release(x);
    tc_tensor_release(xt);
    tc_tensor_release(dx);
    tc_tensor_release(dxt);
    tc_tensor_release(want);
    tc_tensor_release(got);
    tc_tensor_release(want_t);
    tc_tensor_release(got_t);
  }
  /* An integer input computes in float32; in place; into a float64 out=. */
  const int64_t n4[1] = {4};
  const int32_t ints[4] = {0, 1, 2, 3};
  tc_tensor i = NULL, di = NULL, e = NULL, x = spread(n4, 1, 0, 1), dx = NULL, out64 = NULL;
  CHECK_OK(tc_tensor_from_data(&i, ints, TC_INT32, n4, 1));
  di = to_cuda(i);
  CHECK_OK(tc_exp(&e, di));
  tc_dtype dt;
  CHECK_OK(tc_tensor_dtype(&dt, e));
  CHECK(dt == TC_FLOAT32);
  float f[4];
  read_floats(f, 4, e);
  CHECK(fabs(f[3] - 20.0855369f) < 1e-4);
  dx = to_cuda(x);
  CHECK_OK(tc_exp_inplace(dx));
  read_floats(f, 4, dx);
  CHECK(fabs(f[0] - 1.0f) < 1e-6 && fabs(f[3] - 2.7182818f) < 1e-5);
  const tc_dtype f64 = TC_FLOAT64;
  const tc_device cuda = tc_device_cuda(0);
  CHECK_OK(tc_empty(&out64, n4, 1, &f64, &cuda));
  CHECK_OK(tc_sqrt_out(out64, di));
  double d[4];
  CHECK_OK(tc_tensor_copy_to_buffer(d, sizeof d, out64));
  CHECK(fabs(d[2] - 1.41421353816986) < 1e-6); /* sqrt computed in float32, stored as float64 */
  /* abs of bool is refused as on the CPU. */
  const int64_t one[1] = {1};
  const unsigned char b1[1] = {1};
  tc_tensor b = NULL, db = NULL, r = NULL;
  CHECK_OK(tc_tensor_from_data(&b, b1, TC_BOOL, one, 1));
  db = to_cuda(b);
  CHECK_FAILS_WITH(tc_abs(&r, db), TC_ERROR_TYPE, "abs");
  CHECK(r == NULL);
  tc_tensor_release(b);
  tc_tensor_release(db);
  tc_tensor_release(i);
  tc_tensor_release(di);
  tc_tensor_release(e);
  tc_tensor_release(x);
  tc_tensor_release(dx);
  tc_tensor_release(out64);
}

static void check_binary_ops(void) {
  const int64_t sa[2] = {8, 5}, sb[1] = {5}, n = 40;
  tc_tensor a = spread(sa, 2, -2, 2), b = spread(sb, 1, 0.5f, 2), da = to_cuda(a), db = to_cuda(b);
  tc_scalar two = tc_scalar_float(2.0), half = tc_scalar_float(0.5);
  tc_tensor want = NULL, got = NULL;
  /* Broadcast tensor operands, alpha, sub, mul, div. */
  CHECK_OK(tc_add_Tensor(&want, a, b, &two));
  CHECK_OK(tc_add_Tensor(&got, da, db, &two));
  CHECK(max_rel_diff(got, want, n) <= 1e-6);
  tc_tensor_release(want);
  tc_tensor_release(got);
  CHECK_OK(tc_sub_Tensor(&want, a, b, &half));
  CHECK_OK(tc_sub_Tensor(&got, da, db, &half));
  CHECK(max_rel_diff(got, want, n) <= 1e-6);
  tc_tensor_release(want);
  tc_tensor_release(got);
  CHECK_OK(tc_mul_Tensor(&want, a, b));
  CHECK_OK(tc_mul_Tensor(&got, da, db));
  CHECK(max_rel_diff(got, want, n) <= 1e-6);
  tc_tensor_release(want);
  tc_tensor_release(got);
  CHECK_OK(tc_div_Tensor(&want, a, b));
  CHECK_OK(tc_div_Tensor(&got, da, db));
  CHECK(max_rel_diff(got, want, n) <= 1e-6);
  tc_tensor_release(want);
  tc_tensor_release(got);
  /* A number, and a 0-dim CPU tensor, as the other operand. */
  CHECK_OK(tc_mul_Scalar(&want, a, two));
  CHECK_OK(tc_mul_Scalar(&got, da, two));
  CHECK(max_rel_diff(got, want, n) <= 1e-6);
  tc_tensor_release(got);
  tc_tensor s = NULL;
  CHECK_OK(tc_scalar_tensor(&s, two, NULL, NULL));
  CHECK_OK(tc_mul_Tensor(&got, da, s));
  CHECK(max_rel_diff(got, want, n) <= 1e-6);
  tc_device where;
  CHECK_OK(tc_tensor_device(&where, got));
  CHECK(where.type == TC_DEVICE_CUDA);
  tc_tensor_release(want);
  tc_tensor_release(got);
  /* In place, and integer arithmetic wrapping as on the CPU. */
  CHECK_OK(tc_add_inplace_Tensor(da, db, NULL));
  CHECK_OK(tc_add_inplace_Tensor(a, b, NULL));
  CHECK(max_rel_diff(da, a, n) <= 1e-6);
  const int64_t n2[1] = {2};
  const int8_t i8[2] = {100, -100};
  tc_tensor i = NULL, di = NULL, ii = NULL;
  CHECK_OK(tc_tensor_from_data(&i, i8, TC_INT8, n2, 1));
  di = to_cuda(i);
  CHECK_OK(tc_add_Tensor(&ii, di, di, NULL));
  int8_t r8[2];
  CHECK_OK(tc_tensor_copy_to_buffer(r8, sizeof r8, ii));
  CHECK(r8[0] == (int8_t)-56 && r8[1] == (int8_t)56);
  /* Devices that do not match: an error naming both, nothing written. */
  tc_tensor mixed = NULL;
  CHECK_FAILS_WITH(tc_add_Tensor(&mixed, da, a, NULL), TC_ERROR_DEVICE, "cpu");
  CHECK(mixed == NULL);
  tc_tensor_release(s);
  tc_tensor_release(i);
  tc_tensor_release(di);
  tc_tensor_release(ii);
  tc_tensor_release(a);
  tc_tensor_release(b);
  tc_tensor_release(da);
  tc_tensor_release(db);
}

/* Comparisons write bool (or 0/1 into self's dtype in place), as on the CPU. */
static void check_comparisons(void) {
  const int64_t sa[2] = {6, 4}, sb[1] = {4}, n = 24;
  tc_tensor a = spread(sa, 2, -2, 2), b = spread(sb, 1, -1, 1), da = to_cuda(a), db = to_cuda(b);
  tc_tensor want = NULL, got = NULL, got_f = NULL, want_f = NULL;
  CHECK_OK(tc_lt_Tensor(&want, a, b));
  CHECK_OK(tc_lt_Tensor(&got, da, db));
  tc_dtype dt;
  CHECK_OK(tc_tensor_dtype(&dt, got));
  CHECK(dt == TC_BOOL);
  CHECK_OK(tc_to_dtype(&want_f, want, TC_FLOAT32, NULL, NULL));
  CHECK_OK(tc_to_dtype(&got_f, got, TC_FLOAT32, NULL, NULL));
  CHECK(max_rel_diff(got_f, want_f, n) == 0);
  CHECK_OK(tc_ge_inplace_Scalar(da, tc_scalar_float(0.5)));
  CHECK_OK(tc_ge_inplace_Scalar(a, tc_scalar_float(0.5)));
  CHECK(max_rel_diff(da, a, n) == 0);
  tc_tensor_release(want);
  tc_tensor_release(got);
  tc_tensor_release(want_f);
  tc_tensor_release(got_f);
  tc_tensor_release(a);
  tc_tensor_release(b);
  tc_tensor_release(da);
  tc_tensor_release(db);
}

/* mm, bmm and addmm on cuBLAS against the CPU's BLIS, with transposed operands. */
static void check_matmul(void) {
  const int64_t sa[2] = {33, 17}, sb[2] = {17, 9}, sbt[2] = {9, 17}, sbias[1] = {9};
  tc_tensor a = spread(sa, 2, -1, 1), b = spread(sb, 2, -1, 1), bt_src = spread(sbt, 2, -1, 1);
  tc_tensor bias = spread(sbias, 1, -1, 1);
  tc_tensor da = to_cuda(a), db = to_cuda(b), dbt_src = to_cuda(bt_src), dbias = to_cuda(bias);
  tc_tensor bt = NULL, dbt = NULL, want = NULL, got = NULL;
  CHECK_OK(tc_t(&bt, bt_src)); /* 17 x 9, column-major */
  CHECK_OK(tc_t(&dbt, dbt_src));
  CHECK_OK(tc_mm(&want, a, b));
  CHECK_OK(tc_mm(&got, da, db));
  CHECK(max_rel_diff(got, want, 33 * 9) <= 1e-4);
  tc_tensor_release(want);
  tc_tensor_release(got);
  CHECK_OK(tc_mm(&want, a, bt));
  CHECK_OK(tc_mm(&got, da, dbt));
  CHECK(max_rel_diff(got, want, 33 * 9) <= 1e-4);
  tc_tensor_release(want);
  tc_tensor_release(got);
  tc_scalar beta = tc_scalar_float(0.5), alpha = tc_scalar_float(2.0);
  CHECK_OK(tc_addmm(&want, bias, a, b, &beta, &alpha));
  CHECK_OK(tc_addmm(&got, dbias, da, db, &beta, &alpha));
  CHECK(max_rel_diff(got, want, 33 * 9) <= 1e-4);
  tc_tensor_release(want);
  tc_tensor_release(got);
  /* beta 1: the bias is added in cuBLASLt's epilogue (alpha still scales the
   * product only); both operand layouts */
  beta = tc_scalar_float(1.0);
  CHECK_OK(tc_addmm(&want, bias, a, b, &beta, &alpha));
  CHECK_OK(tc_addmm(&got, dbias, da, db, &beta, &alpha));
  CHECK(max_rel_diff(got, want, 33 * 9) <= 1e-4);
  tc_tensor_release(want);
  tc_tensor_release(got);
  CHECK_OK(tc_addmm(&want, bias, a, bt, &beta, NULL));
  CHECK_OK(tc_addmm(&got, dbias, da, dbt, &beta, NULL));
  CHECK(max_rel_diff(got, want, 33 * 9) <= 1e-4);
  tc_tensor_release(want);
  tc_tensor_release(got);
  /* bmm over a batch of 3 */
  const int64_t s3a[3] = {3, 5, 7}, s3b[3] = {3, 7, 4};
  tc_tensor x = spread(s3a, 3, -1, 1), y = spread(s3b, 3, -1, 1), dx = to_cuda(x), dy = to_cuda(y);
  CHECK_OK(tc_bmm(&want, x, y));
  CHECK_OK(tc_bmm(&got, dx, dy));
  CHECK(max_rel_diff(got, want, 3 * 5 * 4) <= 1e-4);
  tc_tensor_release(want);
  tc_tensor_release(got);
  /* Integer products are refused on CUDA, as in PyTorch; nothing is returned. */
  tc_tensor di = NULL, bad = NULL;
  CHECK_OK(tc_to_dtype(&di, da, TC_INT64, NULL, NULL));
  CHECK_FAILS_WITH(tc_mm(&bad, di, di), TC_ERROR_TYPE, "mm");
  CHECK(bad == NULL);
  tc_tensor_release(di);
  tc_tensor_release(x);
  tc_tensor_release(y);
  tc_tensor_release(dx);
  tc_tensor_release(dy);
  tc_tensor_release(bt);
  tc_tensor_release(dbt);
  tc_tensor_release(a);
  tc_tensor_release(b);
  tc_tensor_release(bt_src);
  tc_tensor_release(bias);
  tc_tensor_release(da);
  tc_tensor_release(db);
  tc_tensor_release(dbt_src);
  tc_tensor_release(dbias);
}

/* got (CUDA) against want (CPU), both converted to float32 first. */
static double rel_diff_as_float(tc_tensor got, tc_tensor want) {
  int64_t n = 0;
  CHECK_OK(tc_tensor_numel(&n, want));
  tc_tensor g = NULL, w = NULL;
  CHECK_OK(tc_to_dtype(&g, got, TC_FLOAT32, NULL, NULL));
  CHECK_OK(tc_to_dtype(&w, want, TC_FLOAT32, NULL, NULL));
  const double d = n ? max_rel_diff(g, w, (size_t)n) : 0;
  tc_tensor_release(g);
  tc_tensor_release(w);
  return d;
}

/* Reductions over rows, columns, everything (one and two passes), keepdim,
 * transposed inputs and dtypes, against the CPU. */
static void check_reductions(void) {
  const int64_t small[2] = {37, 29}, tall[2] = {70000, 3}, flat[1] = {3000001};
  tc_tensor s = spread(small, 2, -1, 1), t = spread(tall, 2, -1, 1), f = spread(flat, 1, 0, 1);
  tc_tensor ds = to_cuda(s), dt = to_cuda(t), df = to_cuda(f);
  tc_tensor st = NULL, dst = NULL;
  CHECK_OK(tc_t(&st, s));
  CHECK_OK(tc_t(&dst, ds));
  tc_tensor want = NULL, got = NULL;
  const int64_t dim0 = 0, dim1 = 1;
  const bool keep = true;
  struct {
    tc_tensor cpu, dev;
  } inputs[4] = {{s, ds}, {t, dt}, {f, df}, {st, dst}};
  for (int k = 0; k < 4; ++k) {
    tc_tensor a = inputs[k].cpu, da = inputs[k].dev;
    int64_t nd = 0;
    CHECK_OK(tc_tensor_dim(&nd, a));
    CHECK_OK(tc_sum(&want, a, NULL));
    CHECK_OK(tc_sum(&got, da, NULL));
    CHECK(rel_diff_as_float(got, want) <= 1e-4);
    tc_tensor_release(want);
    tc_tensor_release(got);
    CHECK_OK(tc_sum_dim_IntList(&want, a, &dim0, 1, &keep, NULL));
    CHECK_OK(tc_sum_dim_IntList(&got, da, &dim0, 1, &keep, NULL));
    CHECK(rel_diff_as_float(got, want) <= 1e-4);
    tc_tensor_release(want);
    tc_tensor_release(got);
    const int64_t last = nd - 1;
    CHECK_OK(tc_mean_dim(&want, a, &last, 1, NULL, NULL));
    CHECK_OK(tc_mean_dim(&got, da, &last, 1, NULL, NULL));
    CHECK(rel_diff_as_float(got, want) <= 1e-4);
    tc_tensor_release(want);
    tc_tensor_release(got);
    CHECK_OK(tc_amax(&want, a, &last, 1, NULL));
    CHECK_OK(tc_amax(&got, da, &last, 1, NULL));
    CHECK(rel_diff_as_float(got, want) == 0);
    tc_tensor_release(want);
    tc_tensor_release(got);
    CHECK_OK(tc_max(&want, a));
    CHECK_OK(tc_max(&got, da));
    CHECK(rel_diff_as_float(got, want) == 0);
    tc_tensor_release(want);
    tc_tensor_release(got);
    CHECK_OK(tc_all(&want, a));
    CHECK_OK(tc_all(&got, da));
    CHECK(rel_diff_as_float(got, want) == 0);
    tc_tensor_release(want);
    tc_tensor_release(got);
    if (nd == 2) {
      CHECK_OK(tc_any_dim(&want, a, dim1, NULL));
      CHECK_OK(tc_any_dim(&got, da, dim1, NULL));
      CHECK(rel_diff_as_float(got, want) == 0);
      tc_tensor_release(want);
      tc_tensor_release(got);
    }
  }
  /* int32 sums widen to int64; prod of a few values */
  tc_tensor si = NULL, dsi = NULL;
  CHECK_OK(tc_to_dtype(&si, s, TC_INT32, NULL, NULL));
  CHECK_OK(tc_to_dtype(&dsi, ds, TC_INT32, NULL, NULL));
  CHECK_OK(tc_sum(&want, si, NULL));
  CHECK_OK(tc_sum(&got, dsi, NULL));
  tc_dtype kind;
  CHECK_OK(tc_tensor_dtype(&kind, got));
  CHECK(kind == TC_INT64);
  CHECK(rel_diff_as_float(got, want) == 0);
  tc_tensor_release(want);
  tc_tensor_release(got);
  CHECK_OK(tc_prod(&want, s, NULL));
  CHECK_OK(tc_prod(&got, ds, NULL));
  CHECK(rel_diff_as_float(got, want) <= 1e-4);
  tc_tensor_release(want);
  tc_tensor_release(got);
  /* An empty max is refused, as on the CPU, and nothing is returned. */
  const int64_t none[1] = {0};
  tc_tensor e = NULL, de = NULL, bad = NULL;
  CHECK_OK(tc_empty(&e, none, 1, NULL, NULL));
  de = to_cuda(e);
  CHECK_FAILS_WITH(tc_max(&bad, de), TC_ERROR_INVALID_ARGUMENT, "max");
  CHECK(bad == NULL);
  tc_tensor_release(e);
  tc_tensor_release(de);
  tc_tensor_release(si);
  tc_tensor_release(dsi);
  tc_tensor_release(st);
  tc_tensor_release(dst);
  tc_tensor_release(s);
  tc_tensor_release(t);
  tc_tensor_release(f);
  tc_tensor_release(ds);
  tc_tensor_release(dt);
  tc_tensor_release(df);
}

/* The training ops (activations and their backward, softmax, nll_loss,
 * gather / index_select, *_like) against the CPU. */
static void check_nn_ops(void) {
  const int64_t shape[2] = {6, 5}, nt[1] = {6};
  tc_tensor x = spread(shape, 2, -3, 3), dx = to_cuda(x), want = NULL, got = NULL;
  const int64_t labels[6] = {0, 4, 2, -100, 1, 3};
  tc_tensor t = NULL, dt = NULL;
  CHECK_OK(tc_tensor_from_data(&t, labels, TC_INT64, nt, 1));
  dt = to_cuda(t);
  /* log_softmax, softmax and their backward */
  tc_tensor y = NULL, dy = NULL;
  CHECK_OK(tc_log_softmax_int(&y, x, 1, NULL));
  CHECK_OK(tc_log_softmax_int(&dy, dx, 1, NULL));
  CHECK(rel_diff_as_float(dy, y) <= 1e-5);
  CHECK_OK(tc_internal_log_softmax_backward_data(&want, x, y, 1, TC_FLOAT32));
  CHECK_OK(tc_internal_log_softmax_backward_data(&got, dx, dy, 1, TC_FLOAT32));
  CHECK(rel_diff_as_float(got, want) <= 1e-4);
  tc_tensor_release(want);
  tc_tensor_release(got);
  CHECK_OK(tc_softmax_int(&want, x, 0, NULL));
  CHECK_OK(tc_softmax_int(&got, dx, 0, NULL));
  CHECK(rel_diff_as_float(got, want) <= 1e-5);
  tc_tensor_release(want);
  tc_tensor_release(got);
  /* nll_loss with an ignored row, mean and none, and its backward through cross_entropy */
  const int64_t mean = 1, none = 0;
  CHECK_OK(tc_nll_loss(&want, y, t, NULL, &mean, NULL));
  CHECK_OK(tc_nll_loss(&got, dy, dt, NULL, &mean, NULL));
  CHECK(rel_diff_as_float(got, want) <= 1e-5);
  tc_tensor_release(want);
  tc_tensor_release(got);
  CHECK_OK(tc_nll_loss(&want, y, t, NULL, &none, NULL));
  CHECK_OK(tc_nll_loss(&got, dy, dt, NULL, &none, NULL));
  CHECK(rel_diff_as_float(got, want) <= 1e-5);
  tc_tensor_release(want);
  tc_tensor_release(got);
  tc_tensor leaf = NULL, dleaf = NULL, loss = NULL, dloss = NULL, g = NULL, dg = NULL;
  CHECK_OK(tc_tensor_detach(&leaf, x));
  CHECK_OK(tc_tensor_detach(&dleaf, dx));
  CHECK_OK(tc_tensor_set_requires_grad(leaf, true));
  CHECK_OK(tc_tensor_set_requires_grad(dleaf, true));
  CHECK_OK(tc_cross_entropy_loss(&loss, leaf, t, NULL, NULL, NULL, NULL));
  CHECK_OK(tc_cross_entropy_loss(&dloss, dleaf, dt, NULL, NULL, NULL, NULL));
  CHECK_OK(tc_tensor_backward(loss, NULL, false, false));
  CHECK_OK(tc_tensor_backward(dloss, NULL, false, false));
  CHECK_OK(tc_tensor_grad(&g, leaf));
  CHECK_OK(tc_tensor_grad(&dg, dleaf));
  CHECK(g != NULL && dg != NULL);
  if (g && dg) CHECK(rel_diff_as_float(dg, g) <= 1e-4);
  /* A target out of range: an IndexError naming its position, nothing returned */
  const int64_t bad_labels[6] = {0, 1, 2, 7, 1, 3};
  tc_tensor tb = NULL, dtb = NULL, bad = NULL;
  CHECK_OK(tc_tensor_from_data(&tb, bad_labels, TC_INT64, nt, 1));
  dtb = to_cuda(tb);
  CHECK_FAILS_WITH(tc_nll_loss(&bad, dy, dtb, NULL, &mean, NULL), TC_ERROR_INDEX, "position 3");
  CHECK(bad == NULL);
  /* relu, threshold_backward, maximum, gather, index_select, ones_like */
  CHECK_OK(tc_relu(&want, x));
  CHECK_OK(tc_relu(&got, dx));
  CHECK(rel_diff_as_float(got, want) == 0);
  tc_tensor_release(want);
  tc_tensor_release(got);
  CHECK_OK(tc_threshold_backward(&want, y, x, tc_scalar_float(0.5)));
  CHECK_OK(tc_threshold_backward(&got, dy, dx, tc_scalar_float(0.5)));
  CHECK(rel_diff_as_float(got, want) == 0);
  tc_tensor_release(want);
  tc_tensor_release(got);
  CHECK_OK(tc_maximum(&want, x, y));
  CHECK_OK(tc_maximum(&got, dx, dy));
  CHECK(rel_diff_as_float(got, want) == 0);
  tc_tensor_release(want);
  tc_tensor_release(got);
  const int64_t picks[3] = {4, 0, 2}, np[1] = {3};
  tc_tensor pi = NULL, dpi = NULL;
  CHECK_OK(tc_tensor_from_data(&pi, picks, TC_INT64, np, 1));
  dpi = to_cuda(pi);
  CHECK_OK(tc_index_select(&want, x, 1, pi));
  CHECK_OK(tc_index_select(&got, dx, 1, dpi));
  CHECK(rel_diff_as_float(got, want) == 0);
  tc_tensor_release(want);
  tc_tensor_release(got);
  /* A 0-dim CPU index with a CUDA self (it counts as a scalar): moved to the device first */
  const int64_t two_idx[1] = {2};
  tc_tensor cpu_idx = NULL;
  CHECK_OK(tc_tensor_from_data(&cpu_idx, two_idx, TC_INT64, NULL, 0));
  CHECK_OK(tc_index_select(&want, x, 1, cpu_idx));
  CHECK_OK(tc_index_select(&got, dx, 1, cpu_idx));
  CHECK(rel_diff_as_float(got, want) == 0);
  tc_tensor_release(want);
  tc_tensor_release(got);
  tc_tensor_release(cpu_idx);
  CHECK_FAILS_WITH(tc_index_select(&bad, dx, 0, dpi), TC_ERROR_INDEX, "index_select");
  CHECK(bad == NULL);
  CHECK_OK(tc_ones_like(&got, dx, NULL, NULL));
  tc_device where;
  CHECK_OK(tc_tensor_device(&where, got));
  CHECK(where.type == TC_DEVICE_CUDA);
  tc_tensor_release(got);
  tc_tensor_release(pi);
  tc_tensor_release(dpi);
  tc_tensor_release(tb);
  tc_tensor_release(dtb);
  tc_tensor_release(g);
  tc_tensor_release(dg);
  tc_tensor_release(loss);
  tc_tensor_release(dloss);
  tc_tensor_release(leaf);
  tc_tensor_release(dleaf);
  tc_tensor_release(y);
  tc_tensor_release(dy);
  tc_tensor_release(t);
  tc_tensor_release(dt);
  tc_tensor_release(x);
  tc_tensor_release(dx);
}

/* The caching allocator's statistics follow an allocation and its release. */
static void check_memory_stats(void) {
  const tc_device cuda = tc_device_cuda(0);
  const int64_t mib4 = (int64_t)4 << 20;
  int64_t before = 0, now = 0, peak = 0, reserved = 0, reserved_after = 0, mallocs = 0;
  CHECK_OK(tc_device_synchronize(cuda));
  CHECK_OK(tc_device_memory_stat(&before, cuda, TC_MEMORY_ALLOCATED_BYTES));
  const int64_t size[1] = {1 << 20}; /* 4 MiB of float32 */
  tc_tensor t = NULL;
  CHECK_OK(tc_empty(&t, size, 1, NULL, &cuda));
  CHECK_OK(tc_device_memory_stat(&now, cuda, TC_MEMORY_ALLOCATED_BYTES));
  CHECK(now - before >= mib4);
  CHECK_OK(tc_device_memory_stat(&mallocs, cuda, TC_MEMORY_NUM_DEVICE_MALLOCS));
  CHECK(mallocs >= 1);
  tc_tensor_release(t);
  CHECK_OK(tc_device_memory_stat(&now, cuda, TC_MEMORY_ALLOCATED_BYTES));
  CHECK(now == before);
  CHECK_OK(tc_device_memory_stat(&peak, cuda, TC_MEMORY_PEAK_ALLOCATED_BYTES));
  CHECK(peak >= before + mib4);
  CHECK_OK(tc_device_reset_peak_memory_stats(cuda));
  CHECK_OK(tc_device_memory_stat(&peak, cuda, TC_MEMORY_PEAK_ALLOCATED_BYTES));
  CHECK(peak == now);
  CHECK_OK(tc_device_memory_stat(&reserved, cuda, TC_MEMORY_RESERVED_BYTES));
  CHECK(reserved >= now + mib4); /* the freed block stays cached */
  CHECK_OK(tc_device_empty_cache(TC_DEVICE_CUDA));
  CHECK_OK(tc_device_memory_stat(&reserved_after, cuda, TC_MEMORY_RESERVED_BYTES));
  CHECK(reserved_after < reserved);
}

/* Streams and events: work queued on a stream of the pool, ordered after
 * another stream's through an event, timed, and the default stream back. */
static void check_streams(void) {
  const tc_device cuda = tc_device_cuda(0);
  tc_stream producer, consumer, current, def;
  CHECK_OK(tc_stream_default(&def, cuda));
  CHECK(def.id == 0 && def.device.index == 0);
  CHECK_OK(tc_stream_create(&producer, cuda, 0));
  CHECK_OK(tc_stream_create(&consumer, tc_device_cuda(-1), -1));
  CHECK(producer.id != 0 && consumer.id != 0 && producer.id != consumer.id);
  CHECK_FAILS_WITH(tc_stream_create(&current, cuda, 1), TC_ERROR_INVALID_ARGUMENT, "'priority'");
  tc_event produced = NULL, start = NULL, end = NULL;
  CHECK_OK(tc_event_create(&produced, false));
  CHECK_OK(tc_event_create(&start, true));
  CHECK_OK(tc_event_create(&end, true));

  const int64_t size[1] = {1 << 22};
  const tc_dtype f32 = TC_FLOAT32;
  tc_tensor x = NULL, y = NULL;
  CHECK_OK(tc_stream_set_current(producer));
  CHECK_OK(tc_stream_current(&current, cuda));
  CHECK(current.id == producer.id);
  CHECK_OK(tc_event_record(start, producer));
  CHECK_OK(tc_ones(&x, size, 1, &f32, &cuda));
  tc_scalar two;
  two.tag = TC_SCALAR_FLOAT;
  two.u.f = 2.0;
  CHECK_OK(tc_mul_inplace_Scalar(x, two));
  CHECK_OK(tc_event_record(produced, producer));
  CHECK_OK(tc_event_record(end, producer));

  CHECK_OK(tc_stream_set_current(consumer));
  CHECK_OK(tc_stream_wait_event(consumer, produced));
  CHECK_OK(tc_tensor_record_stream(x, consumer));
  CHECK_OK(tc_add_Tensor(&y, x, x, NULL)); /* on the consumer stream, after the producer's work */
  CHECK_OK(tc_stream_synchronize(consumer));
  bool done = false;
  CHECK_OK(tc_stream_query(&done, consumer));
  CHECK(done);
  CHECK_OK(tc_event_synchronize(end));
  CHECK_OK(tc_event_query(&done, end));
  CHECK(done);
  double ms = -1;
  CHECK_OK(tc_event_elapsed_time(&ms, start, end));
  CHECK(ms >= 0);
  CHECK_FAILS_WITH(tc_event_elapsed_time(&ms, produced, end), TC_ERROR_INVALID_ARGUMENT, "enable_timing");

  CHECK_OK(tc_stream_set_current(def));
  float v[4] = {0};
  tc_tensor head = NULL;
  CHECK_OK(tc_narrow(&head, y, 0, 0, 4));
  read_floats(v, 4, head);
  CHECK(v[0] == 4.0f && v[3] == 4.0f);
  tc_tensor_release(head);
  tc_tensor_release(y);
  tc_tensor_release(x);
  tc_event_release(produced);
  tc_event_release(start);
  tc_event_release(end);
  CHECK_OK(tc_stream_current(&current, cuda));
  CHECK(current.id == 0);
}

/* Random fills draw element i as the CPU does: one seed, the same numbers
 * (uniform exactly; normals up to the last bits of log, sin and cos). */
static void check_random(void) {
  const int64_t size[2] = {37, 29};
  const tc_dtype f32 = TC_FLOAT32, f64 = TC_FLOAT64;
  const tc_device cuda = tc_device_cuda(0);
  tc_tensor on_gpu = NULL, on_cpu = NULL;
  static float g[37 * 29], c[37 * 29];
  static double gd[37 * 29], cd[37 * 29];
  for (int normal = 0; normal < 2; ++normal) {
    CHECK_OK(tc_manual_seed(11));
    CHECK_OK((normal ? tc_randn : tc_rand)(&on_gpu, size, 2, NULL, &f32, &cuda));
    CHECK_OK(tc_manual_seed(11));
    CHECK_OK((normal ? tc_randn : tc_rand)(&on_cpu, size, 2, NULL, &f32, &kCpu));
    read_floats(g, 37 * 29, on_gpu);
    read_floats(c, 37 * 29, on_cpu);
    int same = 1;
    for (int i = 0; i < 37 * 29; ++i) same &= normal ? fabsf(g[i] - c[i]) <= 1e-5f * (1 + fabsf(c[i])) : g[i] == c[i];
    CHECK(same);
    tc_tensor_release(on_gpu);
    tc_tensor_release(on_cpu);
    CHECK_OK(tc_manual_seed(12));
    CHECK_OK((normal ? tc_randn : tc_rand)(&on_gpu, size, 2, NULL, &f64, &cuda));
    CHECK_OK(tc_manual_seed(12));
    CHECK_OK((normal ? tc_randn : tc_rand)(&on_cpu, size, 2, NULL, &f64, &kCpu));
    CHECK_OK(tc_tensor_copy_to_buffer(gd, sizeof gd, on_gpu));
    CHECK_OK(tc_tensor_copy_to_buffer(cd, sizeof cd, on_cpu));
    same = 1;
    for (int i = 0; i < 37 * 29; ++i)
      same &= normal ? fabs(gd[i] - cd[i]) <= 1e-12 * (1 + fabs(cd[i])) : gd[i] == cd[i];
    CHECK(same);
    tc_tensor_release(on_gpu);
    tc_tensor_release(on_cpu);
  }
}

/* pin_memory, and non_blocking copies through page-locked memory both ways;
 * the pinned source is released before the copy is waited for (the block
 * must outlive the copy). */
static void check_pinned(void) {
  const int64_t n = 1 << 20;
  float* host = (float*)malloc(sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) host[i] = (float)(i % 1000) - 500.0f;
  tc_tensor x = NULL, p = NULL, again = NULL, dev = NULL, back = NULL;
  CHECK_OK(tc_tensor_from_data(&x, host, TC_FLOAT32, &n, 1));
  bool pinned = true;
  CHECK_OK(tc_tensor_is_pinned(&pinned, x));
  CHECK(!pinned);
  CHECK_OK(tc_tensor_pin_memory(&p, x));
  CHECK_OK(tc_tensor_is_pinned(&pinned, p));
  CHECK(pinned);
  CHECK_OK(tc_tensor_pin_memory(&again, p)); /* already pinned: itself */
  void *a = NULL, *b = NULL;
  CHECK_OK(tc_tensor_data_ptr(&a, p));
  CHECK_OK(tc_tensor_data_ptr(&b, again));
  CHECK(a == b);
  const bool yes = true;
  CHECK_OK(tc_to_device(&dev, p, tc_device_cuda(0), TC_FLOAT32, &yes, NULL));
  tc_tensor_release(again);
  tc_tensor_release(p); /* freed while the copy may still run: kept until it is done */
  CHECK_OK(tc_empty(&back, &n, 1, NULL, &kCpu));
  tc_tensor pinned_back = NULL;
  CHECK_OK(tc_tensor_pin_memory(&pinned_back, back));
  CHECK_OK(tc_copy_inplace(pinned_back, dev, &yes));
  CHECK_OK(tc_device_synchronize(tc_device_cuda(0)));
  float* got = (float*)malloc(sizeof(float) * (size_t)n);
  CHECK_OK(tc_tensor_copy_to_buffer(got, sizeof(float) * (size_t)n, pinned_back));
  CHECK(memcmp(got, host, sizeof(float) * (size_t)n) == 0);
  CHECK_FAILS_WITH(tc_tensor_pin_memory(&again, dev), TC_ERROR_DEVICE, "only CPU tensors can be pinned");
  free(got);
  free(host);
  tc_tensor_release(pinned_back);
  tc_tensor_release(back);
  tc_tensor_release(dev);
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

/* A CUDA 0-dim tensor as a Scalar (TC_SCALAR_TENSOR): add.Scalar and clamp
 * take it through their Tensor overloads, on the device; full() reads it. On a
 * CPU tensor it is a device error, as a CUDA tensor operand is. */
static void check_device_scalars(void) {
  const int64_t n4[1] = {4};
  const float half = 0.5f;
  tc_tensor x = spread(n4, 1, -1, 2), xd = to_cuda(x), h = NULL, hd = NULL, r = NULL, want = NULL, f = NULL;
  tc_device where = {0, 0};
  CHECK_OK(tc_tensor_from_data(&h, &half, TC_FLOAT32, NULL, 0));
  hd = to_cuda(h);
  CHECK_OK(tc_add_Scalar(&r, xd, tc_scalar_from_tensor(hd), NULL));
  CHECK_OK(tc_tensor_device(&where, r));
  CHECK(where.type == TC_DEVICE_CUDA);
  CHECK_OK(tc_add_Scalar(&want, x, tc_scalar_float(0.5), NULL));
  CHECK(max_rel_diff(r, want, 4) == 0);
  tc_tensor_release(r);
  tc_tensor_release(want);
  {
    tc_scalar lo = tc_scalar_from_tensor(hd), lo_num = tc_scalar_float(0.5);
    CHECK_OK(tc_clamp(&r, xd, &lo, NULL));
    CHECK_OK(tc_clamp(&want, x, &lo_num, NULL));
    CHECK(max_rel_diff(r, want, 4) == 0);
    tc_tensor_release(r);
    tc_tensor_release(want);
  }
  CHECK_OK(tc_full(&f, n4, 1, tc_scalar_from_tensor(hd), NULL, NULL));
  {
    float v[4] = {0};
    read_floats(v, 4, f);
    CHECK(v[0] == 0.5f && v[3] == 0.5f);
  }
  r = NULL;
  CHECK(tc_add_Scalar(&r, x, tc_scalar_from_tensor(hd), NULL) == TC_ERROR_DEVICE);
  CHECK(r == NULL);
  tc_tensor_release(f);
  tc_tensor_release(hd);
  tc_tensor_release(h);
  tc_tensor_release(xd);
  tc_tensor_release(x);
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
  check_unary_ops();
  check_binary_ops();
  check_comparisons();
  check_matmul();
  check_reductions();
  check_nn_ops();
  check_memory_stats();
  check_streams();
  check_random();
  check_pinned();
  check_device_scalars();
  check_bad_device_index(count);
  CHECK_OK(tc_device_synchronize(tc_device_cuda(-1)));
  return check_summary();
}
