/* SPDX-License-Identifier: BSD-3-Clause */
/* The dispatcher through the C ABI: operators defined at run time, kernels in
 * C (natural signature via libffi, and boxed), boxed calls by name, fallbacks
 * and fallthrough, a backend library loaded later, introspection. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <tensorc.h>

static int failures = 0, passes = 0;
#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (cond) {                                                                                \
      ++passes;                                                                                \
    } else {                                                                                   \
      ++failures;                                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              tc_last_error_message());                                                        \
    }                                                                                          \
  } while (0)
#define MSG_HAS(s) (strstr(tc_last_error_message(), (s)) != NULL)

static tc_tensor vec3(float a, float b, float c) {
  float d[3];
  int64_t shape[1] = {3};
  tc_tensor t = NULL;
  d[0] = a;
  d[1] = b;
  d[2] = c;
  tc_tensor_from_data(&t, d, TC_FLOAT32, shape, 1);
  return t;
}

static int equals3(tc_tensor t, float a, float b, float c) {
  float d[3];
  if (tc_tensor_copy_to_buffer(d, sizeof d, t) != TC_OK) return 0;
  return d[0] == a && d[1] == b && d[2] == c;
}

/* myops::myadd(Tensor self, Tensor other) -> Tensor with its natural C signature. */
static tc_status myadd_cpu(tc_tensor* out, tc_tensor self, tc_tensor other) {
  return tc_add_Tensor(out, self, other, NULL);
}

/* myops::scale(Tensor self, float factor=2.0, *, bool negate=False) -> Tensor */
static tc_status scale_cpu(tc_tensor* out, tc_tensor self, double factor, bool negate) {
  tc_scalar s = tc_scalar_float(negate ? -factor : factor);
  return tc_mul_Scalar(out, self, s);
}

static tc_status failing_kernel(tc_tensor* out, tc_tensor self) {
  (void)out;
  (void)self;
  return tc_error_set(TC_ERROR_TYPE, "boom from the C kernel");
}

static int tracer_calls = 0, tracer_runs = 0;
/* A boxed fallback on the Tracer key: counts the calls it is told are
 * Tracer's, and every run, then hands the call on. */
static tc_status tracer_fallback(tc_dispatch_ctx ctx, const tc_value* args, size_t nargs, tc_value* outs, size_t cap,
                                 size_t* n_outs, void* user) {
  const char* name = NULL;
  tc_dispatch_key key = -1;
  (void)user;
  tc_dispatch_ctx_info(&name, &key, ctx);
  ++tracer_runs;
  if (key == TC_KEY_TRACER) ++tracer_calls;
  return tc_dispatch_redispatch(outs, cap, n_outs, ctx, args, nargs);
}

static void test_runtime_op(void) {
  tc_tensor a = vec3(1, 2, 3), b = vec3(10, 20, 30);
  tc_value args[2], outs[2];
  size_t n = 0;
  int64_t count = -1;
  char table[2048];

  CHECK(tc_library_def("myops::myadd(Tensor self, Tensor other) -> Tensor") == TC_OK);
  CHECK(tc_library_def("myops::myadd(Tensor self, Tensor other) -> Tensor") == TC_ERROR_INVALID_ARGUMENT);
  CHECK(MSG_HAS("already defined"));
  CHECK(tc_library_def("myops::bad(Tensor self, Blob x) -> Tensor") == TC_ERROR_INVALID_ARGUMENT);
  CHECK(MSG_HAS("unknown-type"));

  /* No kernel yet: a clear error naming the op and the key. */
  args[0].tag = TC_VALUE_TENSOR;
  args[0].u.tensor = a;
  args[1].tag = TC_VALUE_TENSOR;
  args[1].u.tensor = b;
  CHECK(tc_op_call(outs, 2, &n, "myops::myadd", args, 2) == TC_ERROR_NOT_IMPLEMENTED);
  CHECK(MSG_HAS("myops::myadd") && MSG_HAS("CPU"));

  CHECK(tc_library_impl("myops::myadd", TC_KEY_CPU, (tc_fn_ptr)myadd_cpu) == TC_OK);
  tc_dispatch_set_counting(true);
  tc_dispatch_reset_counters();
  CHECK(tc_op_call(outs, 2, &n, "myops::myadd", args, 2) == TC_OK);
  CHECK(n == 1 && outs[0].tag == TC_VALUE_TENSOR && equals3(outs[0].u.tensor, 11, 22, 33));
  tc_values_release(outs, n);
  CHECK(tc_op_call_count(&count, "myops::myadd", TC_KEY_CPU) == TC_OK && count == 1);
  CHECK(tc_op_call_count(&count, "add.Tensor", TC_KEY_CPU) == TC_OK && count == 1); /* called inside the kernel */
  CHECK(tc_op_dump_table(table, sizeof table, NULL, "myops::myadd") == TC_OK);
  CHECK(strstr(table, "CPU: kernel registered for CPU") != NULL);
  CHECK(strstr(table, "CUDA: missing") != NULL);

  /* Defaults are filled in for trailing arguments; kwarg-only too. */
  CHECK(tc_library_def("myops::scale(Tensor self, float factor=2.0, *, bool negate=False) -> Tensor") == TC_OK);
  CHECK(tc_library_impl("myops::scale", TC_KEY_COMPOSITE_EXPLICIT_AUTOGRAD, (tc_fn_ptr)scale_cpu) == TC_OK);
  CHECK(tc_op_call(outs, 2, &n, "myops::scale", args, 1) == TC_OK && equals3(outs[0].u.tensor, 2, 4, 6));
  tc_values_release(outs, n);
  args[1].tag = TC_VALUE_FLOAT;
  args[1].u.f = -1.0;
  CHECK(tc_op_call(outs, 2, &n, "myops::scale", args, 2) == TC_OK && equals3(outs[0].u.tensor, -1, -2, -3));
  tc_values_release(outs, n);
  CHECK(tc_op_dump_table(table, sizeof table, NULL, "myops::scale") == TC_OK);
  CHECK(strstr(table, "CPU: CompositeExplicitAutograd kernel") != NULL);

  /* An error inside a C kernel comes back with its status and message. */
  CHECK(tc_library_def("myops::fails(Tensor self) -> Tensor") == TC_OK);
  CHECK(tc_library_impl("myops::fails", TC_KEY_CPU, (tc_fn_ptr)failing_kernel) == TC_OK);
  CHECK(tc_op_call(outs, 2, &n, "myops::fails", args, 1) == TC_ERROR_TYPE);
  CHECK(MSG_HAS("boom from the C kernel") && MSG_HAS("myops::fails"));

  /* Unknown ops and bad arguments to the boxed entry. */
  CHECK(tc_op_call(outs, 2, &n, "myops::nope", args, 1) == TC_ERROR_NOT_IMPLEMENTED);
  CHECK(MSG_HAS("myops::nope"));
  CHECK(tc_op_call(outs, 2, &n, NULL, args, 1) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(tc_library_impl("myops::myadd", 42, (tc_fn_ptr)myadd_cpu) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(MSG_HAS("key"));
  tc_tensor_release(a);
  tc_tensor_release(b);
}

static void test_builtin_boxed(void) {
  tc_tensor a = vec3(1, 2, 3), b = vec3(1, 1, 1);
  tc_value args[3], outs[2];
  size_t n = 0;
  args[0].tag = TC_VALUE_TENSOR;
  args[0].u.tensor = a;
  args[1].tag = TC_VALUE_TENSOR;
  args[1].u.tensor = b;
  args[2].tag = TC_VALUE_INT;
  args[2].u.i = 3;
  CHECK(tc_op_call(outs, 2, &n, "add.Tensor", args, 3) == TC_OK && equals3(outs[0].u.tensor, 4, 5, 6));
  tc_values_release(outs, n);
  CHECK(tc_op_call(outs, 2, &n, "add.Tensor", args, 2) == TC_OK && equals3(outs[0].u.tensor, 2, 3, 4));
  tc_values_release(outs, n);
  CHECK(tc_op_call(outs, 0, &n, "add.Tensor", args, 2) == TC_ERROR_INVALID_ARGUMENT);
  /* An in-place op refused for want of room for its result has not run. */
  {
    uint32_t v0 = 0, v1 = 0;
    CHECK(tc_tensor_version(&v0, a) == TC_OK);
    CHECK(tc_op_call(outs, 0, &n, "add_.Tensor", args, 2) == TC_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(tc_last_error_message(), "outs_cap") != NULL);
    CHECK(tc_tensor_version(&v1, a) == TC_OK);
    CHECK(v0 == v1 && equals3(a, 1, 2, 3));
  }
  tc_tensor_release(a);
  tc_tensor_release(b);
}

static int user_data_frees = 0;
static void count_free(void* p) {
  (void)p;
  ++user_data_frees;
}

/* user_data_free runs once, when the registration is replaced, and never
 * for a registration that failed (user_data stays the caller's). */
static void test_user_data_ownership(void) {
  CHECK(tc_library_fallback(TC_KEY_BATCHED, tracer_fallback, &user_data_frees, count_free) == TC_OK);
  CHECK(user_data_frees == 0);
  CHECK(tc_library_fallback(TC_KEY_BATCHED, tracer_fallback, &user_data_frees, NULL) == TC_OK);
  CHECK(user_data_frees == 1);
  CHECK(tc_library_fallback(TC_KEY_COMPOSITE_IMPLICIT_AUTOGRAD, tracer_fallback, NULL, count_free) ==
        TC_ERROR_INVALID_ARGUMENT);
  CHECK(tc_library_impl_boxed("no_such::op", TC_KEY_CPU, tracer_fallback, NULL, count_free) != TC_OK);
  CHECK(user_data_frees == 1);
  CHECK(tc_library_def("myops::owned(Tensor self) -> Tensor") == TC_OK);
  CHECK(tc_library_impl_boxed("myops::owned", TC_KEY_CPU, tracer_fallback, NULL, count_free) == TC_OK);
  CHECK(user_data_frees == 1); /* registered: kept until replaced */
}

static void test_fallbacks(void) {
  tc_tensor a = vec3(1, 2, 3), b = vec3(1, 1, 1), c = NULL;
  CHECK(tc_library_fallback(TC_KEY_TRACER, tracer_fallback, NULL, NULL) == TC_OK);
  /* The key is not in any tensor: nothing changes until a thread includes it. */
  CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_OK && tracer_calls == 0);
  tc_tensor_release(c);
  CHECK(tc_dispatch_tls_include(TC_KEY_TRACER, true) == TC_OK);
  CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_OK && equals3(c, 2, 3, 4) && tracer_calls == 1);
  tc_tensor_release(c);
  /* Excluded wins over included. */
  CHECK(tc_dispatch_tls_exclude(TC_KEY_TRACER, true) == TC_OK);
  CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_OK && tracer_calls == 1);
  tc_tensor_release(c);
  CHECK(tc_dispatch_tls_exclude(TC_KEY_TRACER, false) == TC_OK);
  /* Below a fallthrough key (Autocast's default), the fallback runs once and is
   * told its own key, not the fallthrough's. */
  CHECK(tc_dispatch_tls_include(TC_KEY_AUTOCAST, true) == TC_OK);
  tracer_runs = 0;
  CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_OK && equals3(c, 2, 3, 4));
  CHECK(tracer_runs == 1 && tracer_calls == 2);
  tc_tensor_release(c);
  CHECK(tc_dispatch_tls_include(TC_KEY_AUTOCAST, false) == TC_OK);
  /* A fallthrough fallback skips the key. */
  CHECK(tc_library_fallback(TC_KEY_TRACER, NULL, NULL, NULL) == TC_OK);
  CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_OK && equals3(c, 2, 3, 4) && tracer_calls == 2);
  tc_tensor_release(c);
  CHECK(tc_dispatch_tls_include(TC_KEY_TRACER, false) == TC_OK);
  /* Autocast passes ops it has no kernel for: turning it on changes nothing
   * here. Batched does not (no batching rule, no silent unbatched run). */
  CHECK(tc_dispatch_tls_include(TC_KEY_AUTOCAST, true) == TC_OK);
  CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_OK && equals3(c, 2, 3, 4));
  tc_tensor_release(c);
  CHECK(tc_dispatch_tls_include(TC_KEY_AUTOCAST, false) == TC_OK);
  CHECK(tc_dispatch_tls_include(TC_KEY_BATCHED, true) == TC_OK);
  c = NULL;
  CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_ERROR_NOT_IMPLEMENTED && MSG_HAS("Batched") && c == NULL);
  CHECK(tc_dispatch_tls_include(TC_KEY_BATCHED, false) == TC_OK);
  CHECK(tc_library_fallback(TC_KEY_COMPOSITE_IMPLICIT_AUTOGRAD, NULL, NULL, NULL) == TC_ERROR_INVALID_ARGUMENT);
  /* Scoped key sets nest: an inner scope that excludes Tracer too and ends
   * leaves the outer scope's exclusion in place (tc_dispatch_tls_exclude(...,
   * false) would have cleared it). */
  {
    tc_dispatch_tls_state outer, inner, bad;
    CHECK(tc_library_fallback(TC_KEY_TRACER, tracer_fallback, NULL, NULL) == TC_OK);
    CHECK(tc_dispatch_tls_push(&outer, TC_KEY_TRACER, -1) == TC_OK);
    CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_OK && tracer_calls == 3);
    tc_tensor_release(c);
    CHECK(tc_dispatch_tls_push(&inner, -1, TC_KEY_TRACER) == TC_OK);
    CHECK(tc_dispatch_tls_push(&bad, -1, TC_KEY_TRACER) == TC_OK); /* nested again */
    CHECK(tc_dispatch_tls_restore(&bad) == TC_OK);
    CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_OK && tracer_calls == 3); /* still excluded */
    tc_tensor_release(c);
    CHECK(tc_dispatch_tls_restore(&inner) == TC_OK);
    CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_OK && tracer_calls == 4); /* the outer scope's include again */
    tc_tensor_release(c);
    CHECK(tc_dispatch_tls_restore(&outer) == TC_OK);
    CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_OK && tracer_calls == 4);
    tc_tensor_release(c);
    CHECK(tc_dispatch_tls_push(NULL, TC_KEY_TRACER, -1) == TC_ERROR_INVALID_ARGUMENT && MSG_HAS("'saved'"));
    CHECK(tc_dispatch_tls_push(&bad, 42, -1) == TC_ERROR_INVALID_ARGUMENT && MSG_HAS("'include'"));
    CHECK(tc_dispatch_tls_push(&bad, -1, TC_KEY_COMPOSITE_EXPLICIT_AUTOGRAD) == TC_ERROR_INVALID_ARGUMENT &&
          MSG_HAS("'exclude'"));
    bad.included = 1u << 20;
    bad.excluded = 0;
    CHECK(tc_dispatch_tls_restore(&bad) == TC_ERROR_INVALID_ARGUMENT && MSG_HAS("'saved'"));
    CHECK(tc_library_fallback(TC_KEY_TRACER, NULL, NULL, NULL) == TC_OK);
  }
  tc_tensor_release(a);
  tc_tensor_release(b);
}

static void noop_free(void* data, void* ctx) {
  (void)ctx;
  (void)data;
}

/* The backend's device hooks: tensorc's empty, copy_ and to(device) on its
 * device; strided and converting copies both ways; failures reported with the
 * backend's message and nothing written; every allocation released. */
static void test_backend_hooks(void* lib) {
  int (*live)(void) = NULL;
  void (*fail_copies)(int) = NULL;
  /* POSIX's way to take a function from dlsym without an object-to-function cast */
  *(void**)(&live) = dlsym(lib, "tc_test_backend_live_allocations");
  *(void**)(&fail_copies) = dlsym(lib, "tc_test_backend_fail_copies");
  CHECK(live != NULL && fail_copies != NULL);
  if (!live || !fail_copies) return;
  const int live_before = live();
  tc_device pu1 = {TC_DEVICE_PRIVATEUSE1, 1};
  const double v[6] = {1, 2, 3, 4, 5, 6};
  const int64_t shape[2] = {2, 3};
  tc_tensor x = NULL, xt = NULL, dev = NULL, devt = NULL, back = NULL;
  CHECK(tc_tensor_from_data(&x, v, TC_FLOAT64, shape, 2) == TC_OK);
  CHECK(tc_t(&xt, x) == TC_OK); /* 3 x 2, not contiguous */
  /* CPU -> device: allocated through the hooks on device 1 */
  CHECK(tc_to_device(&dev, xt, pu1, TC_FLOAT32, NULL, NULL) == TC_OK);
  tc_device where = {0, 0};
  CHECK(tc_tensor_device(&where, dev) == TC_OK && where.type == TC_DEVICE_PRIVATEUSE1 && where.index == 1);
  CHECK(live() == live_before + 1);
  /* A transposed view on the device, back to the CPU as int64: x again */
  CHECK(tc_t(&devt, dev) == TC_OK);
  CHECK(tc_to_device(&back, devt, tc_device_cpu(), TC_INT64, NULL, NULL) == TC_OK);
  int64_t r[6] = {0};
  CHECK(tc_tensor_copy_to_buffer(r, sizeof r, back) == TC_OK);
  CHECK(r[0] == 1 && r[1] == 2 && r[2] == 3 && r[3] == 4 && r[4] == 5 && r[5] == 6);
  /* copy_ into a strided device view broadcasts and converts; the gaps keep their values */
  tc_tensor row = NULL, col = NULL, full = NULL;
  const float one[1] = {9};
  const int64_t n1[1] = {1};
  CHECK(tc_tensor_from_data(&row, one, TC_FLOAT32, n1, 1) == TC_OK);
  CHECK(tc_select_int(&col, dev, 1, 0) == TC_OK); /* column 0 of the 3 x 2 device tensor */
  CHECK(tc_copy_inplace(col, row, NULL) == TC_OK);
  CHECK(tc_to_device(&full, dev, tc_device_cpu(), TC_FLOAT64, NULL, NULL) == TC_OK);
  double f[6] = {0};
  CHECK(tc_tensor_copy_to_buffer(f, sizeof f, full) == TC_OK);
  CHECK(f[0] == 9 && f[1] == 4 && f[2] == 9 && f[3] == 5 && f[4] == 9 && f[5] == 6);
  /* A failing copy: the backend's status and message, the destination unchanged */
  uint32_t version = 0, version_after = 0;
  CHECK(tc_tensor_version(&version, col) == TC_OK);
  fail_copies(1);
  tc_tensor bad = NULL;
  CHECK(tc_to_device(&bad, x, pu1, TC_FLOAT32, NULL, NULL) == TC_ERROR_RUNTIME);
  CHECK(MSG_HAS("the copy engine is down"));
  CHECK(bad == NULL);
  CHECK(tc_copy_inplace(col, row, NULL) == TC_ERROR_RUNTIME);
  fail_copies(0);
  CHECK(tc_tensor_version(&version_after, col) == TC_OK && version_after == version);
  /* A Scalar held by a device tensor goes to add.Tensor: the backend's kernel
   * reads it on the device, so the call needs no copy to the host (copies fail
   * meanwhile). full() has no Tensor overload: it reads the value, which takes
   * a copy. */
  {
    const float two = 2;
    float sum[3] = {0}, filled[2] = {0};
    tc_tensor two_cpu = NULL, two_dev = NULL, three = vec3(1, 2, 3), three_dev = NULL, s = NULL, s_cpu = NULL,
              fv = NULL;
    const int64_t n2[1] = {2};
    CHECK(tc_tensor_from_data(&two_cpu, &two, TC_FLOAT32, NULL, 0) == TC_OK);
    CHECK(tc_to_device(&two_dev, two_cpu, pu1, TC_FLOAT32, NULL, NULL) == TC_OK);
    CHECK(tc_to_device(&three_dev, three, pu1, TC_FLOAT32, NULL, NULL) == TC_OK);
    fail_copies(1);
    CHECK(tc_add_Scalar(&s, three_dev, tc_scalar_from_tensor(two_dev), NULL) == TC_OK);
    CHECK(tc_full(&fv, n2, 1, tc_scalar_from_tensor(two_dev), NULL, NULL) == TC_ERROR_RUNTIME);
    CHECK(MSG_HAS("the copy engine is down") && MSG_HAS("full"));
    fail_copies(0);
    CHECK(tc_to_device(&s_cpu, s, tc_device_cpu(), TC_FLOAT32, NULL, NULL) == TC_OK);
    CHECK(tc_tensor_copy_to_buffer(sum, sizeof sum, s_cpu) == TC_OK);
    CHECK(sum[0] == 3 && sum[1] == 4 && sum[2] == 5);
    CHECK(tc_full(&fv, n2, 1, tc_scalar_from_tensor(two_dev), NULL, NULL) == TC_OK);
    CHECK(tc_tensor_copy_to_buffer(filled, sizeof filled, fv) == TC_OK);
    CHECK(filled[0] == 2 && filled[1] == 2);
    tc_tensor_release(fv);
    tc_tensor_release(s_cpu);
    tc_tensor_release(s);
    tc_tensor_release(three_dev);
    tc_tensor_release(three);
    tc_tensor_release(two_dev);
    tc_tensor_release(two_cpu);
  }
  /* empty on the device, and a device index out of range */
  tc_tensor e = NULL;
  CHECK(tc_empty(&e, shape, 2, NULL, &pu1) == TC_OK);
  CHECK(live() == live_before + 2);
  tc_device pu9 = {TC_DEVICE_PRIVATEUSE1, 9};
  tc_tensor e9 = NULL;
  CHECK(tc_empty(&e9, shape, 2, NULL, &pu9) == TC_ERROR_DEVICE);
  CHECK(MSG_HAS("out of range"));
  CHECK(e9 == NULL);
  tc_tensor_release(e);
  tc_tensor_release(full);
  tc_tensor_release(col);
  tc_tensor_release(row);
  tc_tensor_release(back);
  tc_tensor_release(devt);
  tc_tensor_release(dev);
  tc_tensor_release(xt);
  tc_tensor_release(x);
  CHECK(live() == live_before); /* every allocation went back through the hooks */
}

/* The backend's streams and events through tc_stream_* / tc_event_*: the
 * current stream per thread reaches its kernels; unknown handles are refused. */
static void test_backend_streams(void* lib) {
  void (*last_wait)(uint64_t*, uint64_t*) = NULL;
  uint64_t (*last_add_stream)(void) = NULL;
  *(void**)(&last_wait) = dlsym(lib, "tc_test_backend_last_wait");
  *(void**)(&last_add_stream) = dlsym(lib, "tc_test_backend_last_add_stream");
  CHECK(last_wait != NULL && last_add_stream != NULL);
  if (!last_wait || !last_add_stream) return;
  const tc_device pu0 = {TC_DEVICE_PRIVATEUSE1, 0};
  tc_stream s1, s2, cur, bogus;
  CHECK(tc_stream_create(&s1, pu0, 0) == TC_OK && s1.id != 0 && s1.device.index == 0);
  CHECK(tc_stream_create(&s2, pu0, 0) == TC_OK && s2.id != 0 && s2.id != s1.id);
  CHECK(tc_stream_set_current(s1) == TC_OK);
  CHECK(tc_stream_current(&cur, pu0) == TC_OK && cur.id == s1.id);
  {
    static float xs[3] = {1, 2, 3};
    int64_t n3[1] = {3};
    tc_tensor x = NULL, y = NULL;
    CHECK(tc_tensor_from_blob(&x, xs, TC_FLOAT32, n3, NULL, 1, pu0, noop_free, NULL) == TC_OK);
    CHECK(tc_add_Tensor(&y, x, x, NULL) == TC_OK);
    CHECK(last_add_stream() == s1.id); /* the kernel saw the thread's current stream */
    tc_tensor_release(y);
    tc_tensor_release(x);
  }
  bogus = s1;
  bogus.id = 99999;
  CHECK(tc_stream_set_current(bogus) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(tc_stream_current(&cur, pu0) == TC_OK && cur.id == s1.id); /* unchanged */
  bool done = false;
  CHECK(tc_stream_query(&done, s1) == TC_OK && done);
  CHECK(tc_stream_synchronize(s1) == TC_OK);
  tc_event a = NULL, b = NULL;
  double ms = -1;
  CHECK(tc_event_create(&a, true) == TC_OK && tc_event_create(&b, true) == TC_OK);
  CHECK(tc_event_record(a, s1) == TC_OK);
  CHECK(tc_event_record(b, s1) == TC_OK);
  CHECK(tc_event_elapsed_time(&ms, a, b) == TC_OK && ms == 1.0); /* one tick of the fake clock */
  CHECK(tc_event_query(&done, b) == TC_OK && done);
  CHECK(tc_event_synchronize(b) == TC_OK);
  CHECK(tc_stream_wait_event(s2, b) == TC_OK);
  {
    uint64_t ws = 0, we = 0;
    last_wait(&ws, &we);
    CHECK(ws == s2.id && we != 0);
  }
  /* An external stream is accepted once adopted */
  tc_stream ext;
  CHECK(tc_stream_from_external(&ext, pu0, 150) == TC_OK && ext.id == 150);
  CHECK(tc_stream_set_current(ext) == TC_OK);
  CHECK(tc_stream_default(&cur, pu0) == TC_OK && tc_stream_set_current(cur) == TC_OK);
  tc_event_release(b);
  tc_event_release(a);
}

static void test_backend_library(void) {
  static float da[3] = {1, 2, 3}, db[3] = {4, 5, 6};
  int64_t shape[1] = {3}, count = 0;
  tc_device pu1 = {TC_DEVICE_PRIVATEUSE1, 0};
  tc_tensor a = NULL, b = NULL, c = NULL, cpu = vec3(1, 1, 1);
  char table[2048];
  void* lib;
  CHECK(tc_tensor_from_blob(&a, da, TC_FLOAT32, shape, NULL, 1, pu1, noop_free, NULL) == TC_OK);
  CHECK(tc_tensor_from_blob(&b, db, TC_FLOAT32, shape, NULL, 1, pu1, noop_free, NULL) == TC_OK);
  /* Before the backend is loaded: no kernel for PrivateUse1. */
  CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_ERROR_NOT_IMPLEMENTED);
  CHECK(MSG_HAS("add") && MSG_HAS("PrivateUse1"));
  /* Mixing devices is a device error naming both arguments. */
  CHECK(tc_add_Tensor(&c, a, cpu, NULL) == TC_ERROR_DEVICE);
  CHECK(MSG_HAS("'other'") && MSG_HAS("'self'"));

  lib = dlopen(TC_TEST_BACKEND_PATH, RTLD_NOW | RTLD_LOCAL);
  CHECK(lib != NULL);
  if (!lib) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return;
  }
  CHECK(tc_op_dump_table(table, sizeof table, NULL, "add.Tensor") == TC_OK);
  CHECK(strstr(table, "PrivateUse1: kernel registered for PrivateUse1") != NULL);
  tc_dispatch_reset_counters();
  CHECK(tc_add_Tensor(&c, a, b, NULL) == TC_OK);
  {
    float r[3] = {0, 0, 0};
    void* p = NULL;
    tc_device d;
    CHECK(tc_tensor_device(&d, c) == TC_OK && d.type == TC_DEVICE_PRIVATEUSE1);
    CHECK(tc_tensor_data_ptr(&p, c) == TC_OK && p != NULL);
    if (p) memcpy(r, p, sizeof r);
    CHECK(r[0] == 5 && r[1] == 7 && r[2] == 9);
  }
  CHECK(tc_op_call_count(&count, "add.Tensor", TC_KEY_PRIVATEUSE1) == TC_OK && count == 1);
  CHECK(tc_op_call_count(&count, "add.Tensor", TC_KEY_CPU) == TC_OK && count == 0);
  /* Boxed calls check devices as the typed ones do, for built-in and
   * runtime-defined ops: the backend never sees a CPU tensor beside its own. */
  {
    tc_value args[2], outs[2];
    size_t n = 0;
    args[0].tag = TC_VALUE_TENSOR;
    args[0].u.tensor = a;
    args[1].tag = TC_VALUE_TENSOR;
    args[1].u.tensor = cpu;
    CHECK(tc_op_call(outs, 2, &n, "add.Tensor", args, 2) == TC_ERROR_DEVICE);
    CHECK(MSG_HAS("'other'") && MSG_HAS("'self'"));
    CHECK(tc_op_call(outs, 2, &n, "myops::myadd", args, 2) == TC_ERROR_DEVICE);
    CHECK(MSG_HAS("myops::myadd") && MSG_HAS("'other'"));
    CHECK(n == 0);
  }
  /* device_guard: the kernel runs with its tensors' device current, and the
   * caller's current device comes back after, on the typed and boxed paths. */
  {
    int (*last_device)(void) = NULL;
    *(void**)(&last_device) = dlsym(lib, "tc_test_backend_last_add_device");
    CHECK(last_device != NULL);
    static float d1a[3] = {1, 2, 3};
    const tc_device pu_1 = {TC_DEVICE_PRIVATEUSE1, 1};
    tc_tensor on1 = NULL, sum = NULL;
    int current = -1;
    tc_value args[2], outs[2];
    size_t n = 0;
    CHECK(tc_tensor_from_blob(&on1, d1a, TC_FLOAT32, shape, NULL, 1, pu_1, noop_free, NULL) == TC_OK);
    CHECK(tc_device_set_current(TC_DEVICE_PRIVATEUSE1, 0) == TC_OK);
    CHECK(tc_add_Tensor(&sum, on1, on1, NULL) == TC_OK);
    CHECK(last_device && last_device() == 1);
    CHECK(tc_device_current(&current, TC_DEVICE_PRIVATEUSE1) == TC_OK && current == 0);
    args[0].tag = args[1].tag = TC_VALUE_TENSOR;
    args[0].u.tensor = args[1].u.tensor = on1;
    CHECK(tc_device_set_current(TC_DEVICE_PRIVATEUSE1, 0) == TC_OK);
    CHECK(tc_op_call(outs, 2, &n, "add.Tensor", args, 2) == TC_OK);
    CHECK(last_device && last_device() == 1);
    CHECK(tc_device_current(&current, TC_DEVICE_PRIVATEUSE1) == TC_OK && current == 0);
    tc_values_release(outs, n);
    tc_tensor_release(sum);
    tc_tensor_release(on1);
  }
  tc_tensor_release(c);
  tc_tensor_release(a);
  tc_tensor_release(b);
  tc_tensor_release(cpu);
  test_backend_hooks(lib);
  test_backend_streams(lib);
  /* The library stays loaded: its kernel is registered for the process. */
}

/* Autocast regions from C: mm runs in the region's dtype; a weight that
 * requires grad is cast once per region (the cache), an input every time;
 * regions nest and must be left in order; bad states name 'state'. */
static void test_autocast(void) {
  tc_tensor x = NULL, w = NULL, y1 = NULL, y2 = NULL;
  const float xv[4] = {1, 2, 3, 4}, wv[4] = {1, 0, 0, 1};
  const int64_t s22[2] = {2, 2};
  tc_dtype dt = -1;
  int64_t casts = -1;
  tc_autocast_state on = {TC_DEVICE_CPU, TC_BFLOAT16, true, true}, off = on, got;
  off.enabled = false;
  CHECK(tc_tensor_from_data(&x, xv, TC_FLOAT32, s22, 2) == TC_OK);
  CHECK(tc_tensor_from_data(&w, wv, TC_FLOAT32, s22, 2) == TC_OK);
  CHECK(tc_tensor_set_requires_grad(w, true) == TC_OK);
  CHECK(tc_autocast_get(&got, TC_DEVICE_CPU) == TC_OK && !got.enabled);
  CHECK(tc_autocast_push(&on) == TC_OK);
  CHECK(tc_autocast_get(&got, TC_DEVICE_CPU) == TC_OK && got.enabled && got.dtype == TC_BFLOAT16);
  tc_dispatch_set_counting(true);
  tc_dispatch_reset_counters();
  CHECK(tc_mm(&y1, x, w) == TC_OK && tc_tensor_dtype(&dt, y1) == TC_OK && dt == TC_BFLOAT16);
  CHECK(tc_mm(&y2, x, w) == TC_OK);
  CHECK(tc_op_call_count(&casts, "_to_copy", TC_KEY_CPU) == TC_OK && casts == 3); /* x twice, w once */
  tc_tensor_release(y1);
  tc_tensor_release(y2);
  CHECK(tc_autocast_push(&off) == TC_OK);
  CHECK(tc_mm(&y1, x, w) == TC_OK && tc_tensor_dtype(&dt, y1) == TC_OK && dt == TC_FLOAT32);
  tc_tensor_release(y1);
  CHECK(tc_autocast_pop(TC_DEVICE_CUDA) == TC_ERROR_INVALID_ARGUMENT); /* the innermost region is the CPU's */
  CHECK(tc_autocast_pop(TC_DEVICE_CPU) == TC_OK);
  CHECK(tc_autocast_pop(TC_DEVICE_CPU) == TC_OK);
  CHECK(tc_autocast_pop(TC_DEVICE_CPU) == TC_ERROR_INVALID_ARGUMENT && MSG_HAS("region"));
  CHECK(tc_mm(&y1, x, w) == TC_OK && tc_tensor_dtype(&dt, y1) == TC_OK && dt == TC_FLOAT32);
  tc_tensor_release(y1);
  /* Without the cache, the weight is cast at every use. */
  on.cache_enabled = false;
  CHECK(tc_autocast_push(&on) == TC_OK);
  tc_dispatch_reset_counters();
  CHECK(tc_mm(&y1, x, w) == TC_OK && tc_mm(&y2, x, w) == TC_OK);
  CHECK(tc_op_call_count(&casts, "_to_copy", TC_KEY_CPU) == TC_OK && casts == 4);
  CHECK(tc_autocast_pop(TC_DEVICE_CPU) == TC_OK);
  tc_tensor_release(y1);
  tc_tensor_release(y2);
  on.dtype = TC_FLOAT32;
  CHECK(tc_autocast_push(&on) == TC_ERROR_INVALID_ARGUMENT && MSG_HAS("'state'"));
  on.dtype = TC_BFLOAT16;
  on.device_type = TC_DEVICE_PRIVATEUSE1;
  CHECK(tc_autocast_push(&on) == TC_ERROR_INVALID_ARGUMENT && MSG_HAS("'state'"));
  CHECK(tc_autocast_push(NULL) == TC_ERROR_INVALID_ARGUMENT && MSG_HAS("'state'"));
  CHECK(tc_autocast_get(&got, 99) == TC_ERROR_INVALID_ARGUMENT && MSG_HAS("'device_type'"));
  tc_tensor_release(w);
  tc_tensor_release(x);
}

int main(void) {
  test_runtime_op();
  test_builtin_boxed();
  test_fallbacks();
  test_user_data_ownership();
  test_autocast();
  test_backend_library();
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
