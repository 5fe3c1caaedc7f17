/* SPDX-License-Identifier: BSD-3-Clause */
/* Custom functions from C: the seed's LinearFunction (input, weight,
 * optional bias) and MulConstant, checked against the same computation with
 * built-in ops and with tc_gradcheck; context features; errors from callbacks;
 * payload and state lifetimes; gradcheck through the C ABI. Plain C99. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tensorc.h"

#include "check.h"

static tc_value tensor_value(tc_tensor t) {
  tc_value v;
  v.tag = t ? TC_VALUE_TENSOR : TC_VALUE_NONE;
  v.u.tensor = t;
  return v;
}

static tc_tensor matrix(const double* data, int64_t rows, int64_t cols) {
  tc_tensor t = NULL;
  int64_t shape[2];
  shape[0] = rows;
  shape[1] = cols;
  CHECK_OK(tc_tensor_from_data(&t, data, TC_FLOAT64, shape, cols ? 2 : 1));
  return t;
}

static double max_abs_diff(tc_tensor a, tc_tensor b) {
  double x[64], y[64], m = 0;
  int64_t n = 0, i;
  tc_tensor_numel(&n, a);
  if (n > 64) return INFINITY;
  if (tc_tensor_copy_to_buffer(x, (size_t)n * 8, a) != TC_OK || tc_tensor_copy_to_buffer(y, (size_t)n * 8, b) != TC_OK)
    return INFINITY;
  for (i = 0; i < n; ++i) m = fabs(x[i] - y[i]) > m ? fabs(x[i] - y[i]) : m;
  return m;
}

/* ---- LinearFunction: output = input @ weight.T (+ bias) ----------------- */
static tc_status linear_forward(tc_tensor* outputs, size_t n_outputs, tc_function_ctx ctx, const tc_value* in,
                                size_t n_inputs, void* payload) {
  tc_tensor wt = NULL, out = NULL, saved[3];
  tc_status st;
  tc_tensor bias = n_inputs > 2 && in[2].tag == TC_VALUE_TENSOR ? in[2].u.tensor : NULL;
  (void)payload;
  (void)n_outputs;
  if ((st = tc_t(&wt, in[1].u.tensor)) != TC_OK) return st;
  if (bias)
    st = tc_addmm(&out, bias, in[0].u.tensor, wt, NULL, NULL);
  else
    st = tc_mm(&out, in[0].u.tensor, wt);
  tc_tensor_release(wt);
  if (st != TC_OK) return st;
  saved[0] = in[0].u.tensor;
  saved[1] = in[1].u.tensor;
  saved[2] = bias;
  st = tc_function_ctx_save_for_backward(ctx, saved, 3);
  outputs[0] = out;
  return st;
}

static tc_status linear_backward(tc_tensor* grad_inputs, size_t n_inputs, tc_function_ctx ctx,
                                 const tc_tensor* grad_outputs, size_t n_outputs, void* payload) {
  tc_tensor saved[3] = {NULL, NULL, NULL}, got = NULL;
  size_t n = 0;
  bool need = false;
  tc_status st;
  int64_t dim0 = 0;
  (void)payload;
  (void)n_outputs;
  if ((st = tc_function_ctx_saved_tensors(saved, 3, &n, ctx)) != TC_OK) return st;
  if ((st = tc_function_ctx_needs_input_grad(&need, ctx, 0)) == TC_OK && need)
    st = tc_mm(&grad_inputs[0], grad_outputs[0], saved[1]);
  if (st == TC_OK && (st = tc_function_ctx_needs_input_grad(&need, ctx, 1)) == TC_OK && need) {
    if ((st = tc_t(&got, grad_outputs[0])) == TC_OK) st = tc_mm(&grad_inputs[1], got, saved[0]);
    tc_tensor_release(got);
  }
  if (st == TC_OK && n_inputs > 2 && saved[2] && (st = tc_function_ctx_needs_input_grad(&need, ctx, 2)) == TC_OK &&
      need)
    st = tc_sum_dim_IntList(&grad_inputs[2], grad_outputs[0], &dim0, 1, NULL, NULL);
  tc_tensor_release(saved[0]);
  tc_tensor_release(saved[1]);
  tc_tensor_release(saved[2]);
  return st;
}

/* ---- MulConstant: tensor * constant, the constant kept as ctx state ------ */
static int g_state_destroyed = 0;
static void free_state(void* p) {
  ++g_state_destroyed;
  (void)p;
}

static double g_constants[8];
static int g_next_constant = 0;

static tc_status mul_constant_forward(tc_tensor* outputs, size_t n_outputs, tc_function_ctx ctx, const tc_value* in,
                                      size_t n_inputs, void* payload) {
  double* c = &g_constants[g_next_constant++ % 8];
  (void)n_outputs;
  (void)n_inputs;
  (void)payload;
  *c = in[1].u.f;
  tc_function_ctx_set_state(ctx, c, free_state);
  return tc_mul_Scalar(&outputs[0], in[0].u.tensor, tc_scalar_float(*c));
}

static tc_status mul_constant_backward(tc_tensor* grad_inputs, size_t n_inputs, tc_function_ctx ctx,
                                       const tc_tensor* grad_outputs, size_t n_outputs, void* payload) {
  void* state = NULL;
  tc_status st = tc_function_ctx_state(&state, ctx);
  (void)n_inputs;
  (void)n_outputs;
  (void)payload;
  if (st != TC_OK) return st;
  return tc_mul_Scalar(&grad_inputs[0], grad_outputs[0], tc_scalar_float(*(double*)state)); /* none for the constant */
}

static int g_payload_destroyed = 0;
static void destroy_payload(void* p) {
  ++g_payload_destroyed;
  (void)p;
}

/* Reference: the same computation with built-in ops. */
static void test_linear_function(void) {
  const double xs[6] = {0.1, -0.2, 0.3, 0.4, 0.5, -0.6}, ws[8] = {1, 2, 3, -1, 0.5, -0.5, 0.25, 2},
               bs[4] = {0.1, 0.2, 0.3, 0.4};
  tc_function lin = NULL;
  tc_tensor x = matrix(xs, 2, 3), w = matrix(ws, 4, 2), b = matrix(bs, 4, 0);
  tc_tensor x2 = NULL, out = NULL, s = NULL, gx = NULL, gw = NULL, gb = NULL;
  tc_tensor ref = NULL, wt = NULL, rs = NULL, rgx = NULL, rgw = NULL, rgb = NULL;
  tc_value args[3];
  char name[64];
  size_t needed;
  /* x is 2x3 and w must be 4x3 for input @ w.T: reshape w data as 4x2 -> use x 2x2 instead. */
  const double x2s[4] = {0.1, -0.2, 0.3, 0.4};
  x2 = matrix(x2s, 2, 2);
  CHECK_OK(tc_tensor_set_requires_grad(x2, true));
  CHECK_OK(tc_tensor_set_requires_grad(w, true));
  CHECK_OK(tc_tensor_set_requires_grad(b, true));
  CHECK_OK(tc_function_create(&lin, "LinearFunction", linear_forward, linear_backward, NULL, destroy_payload));
  args[0] = tensor_value(x2);
  args[1] = tensor_value(w);
  args[2] = tensor_value(b);
  CHECK_OK(tc_function_apply(&out, 1, lin, args, 3));
  CHECK_OK(tc_tensor_grad_fn_name(name, sizeof name, &needed, out));
  CHECK(strcmp(name, "LinearFunctionBackward") == 0);
  CHECK_OK(tc_sum(&s, out, NULL));
  CHECK_OK(tc_tensor_backward(s, NULL, false, false));
  CHECK_OK(tc_tensor_grad(&gx, x2));
  CHECK_OK(tc_tensor_grad(&gw, w));
  CHECK_OK(tc_tensor_grad(&gb, b));
  /* Reference gradients from built-in ops, on detached copies. */
  {
    tc_tensor xr = NULL, wr = NULL, br = NULL;
    CHECK_OK(tc_clone(&xr, x2));
    CHECK_OK(tc_clone(&wr, w));
    CHECK_OK(tc_clone(&br, b));
    CHECK_OK(tc_tensor_detach_(xr));
    CHECK_OK(tc_tensor_detach_(wr));
    CHECK_OK(tc_tensor_detach_(br));
    CHECK_OK(tc_tensor_set_requires_grad(xr, true));
    CHECK_OK(tc_tensor_set_requires_grad(wr, true));
    CHECK_OK(tc_tensor_set_requires_grad(br, true));
    CHECK_OK(tc_t(&wt, wr));
    CHECK_OK(tc_addmm(&ref, br, xr, wt, NULL, NULL));
    CHECK(max_abs_diff(ref, out) < 1e-12);
    CHECK_OK(tc_sum(&rs, ref, NULL));
    CHECK_OK(tc_tensor_backward(rs, NULL, false, false));
    CHECK_OK(tc_tensor_grad(&rgx, xr));
    CHECK_OK(tc_tensor_grad(&rgw, wr));
    CHECK_OK(tc_tensor_grad(&rgb, br));
    CHECK(gx && rgx && max_abs_diff(gx, rgx) < 1e-12);
    CHECK(gw && rgw && max_abs_diff(gw, rgw) < 1e-12);
    CHECK(gb && rgb && max_abs_diff(gb, rgb) < 1e-12);
    tc_tensor_release(xr);
    tc_tensor_release(wr);
    tc_tensor_release(br);
  }
  /* Without bias (a NONE input), and with only the weight requiring grad. */
  {
    tc_tensor o2 = NULL, s2 = NULL, gx2 = NULL;
    args[2].tag = TC_VALUE_NONE;
    CHECK_OK(tc_tensor_set_grad(x2, NULL));
    CHECK_OK(tc_function_apply(&o2, 1, lin, args, 3));
    CHECK_OK(tc_sum(&s2, o2, NULL));
    CHECK_OK(tc_tensor_backward(s2, NULL, false, false));
    CHECK_OK(tc_tensor_grad(&gx2, x2));
    CHECK(gx2 != NULL);
    tc_tensor_release(gx2);
    tc_tensor_release(o2);
    tc_tensor_release(s2);
  }
  tc_function_release(lin);
  CHECK(g_payload_destroyed == 0 || out == NULL); /* `out`'s graph still holds the definition */
  tc_tensor_release(out);
  tc_tensor_release(s);
  CHECK(g_payload_destroyed == 1);
  tc_tensor_release(gx);
  tc_tensor_release(gw);
  tc_tensor_release(gb);
  tc_tensor_release(ref);
  tc_tensor_release(wt);
  tc_tensor_release(rs);
  tc_tensor_release(rgx);
  tc_tensor_release(rgw);
  tc_tensor_release(rgb);
  tc_tensor_release(x);
  tc_tensor_release(x2);
  tc_tensor_release(w);
  tc_tensor_release(b);
}

/* gradcheck callbacks: fn(inputs) through the custom functions. */
static tc_function g_lin = NULL, g_mulc = NULL;
static tc_status linear_via_function(tc_tensor* out, const tc_tensor* in, size_t n, void* user) {
  tc_value args[3];
  size_t i;
  (void)user;
  for (i = 0; i < 3; ++i) args[i] = tensor_value(i < n ? in[i] : NULL);
  return tc_function_apply(out, 1, g_lin, args, 3);
}
static tc_status mul_constant_twice(tc_tensor* out, const tc_tensor* in, size_t n, void* user) {
  tc_value args[2];
  tc_tensor once = NULL, sq = NULL;
  tc_status st;
  (void)n;
  (void)user;
  args[0] = tensor_value(in[0]);
  args[1].tag = TC_VALUE_FLOAT;
  args[1].u.f = 2.5;
  if ((st = tc_function_apply(&once, 1, g_mulc, args, 2)) != TC_OK) return st;
  st = tc_mul_Tensor(&sq, once, once); /* square it: nonzero second derivative */
  tc_tensor_release(once);
  *out = sq;
  return st;
}

static void test_gradcheck_through_c(void) {
  const double xs[6] = {0.1, -0.2, 0.3, 0.4, 0.5, -0.6}, ws[6] = {1, 2, 3, -1, 0.5, -0.5}, bs[2] = {0.1, 0.2};
  tc_tensor in[3];
  bool ok = false;
  tc_gradcheck_options bad = {1, 1e-6, 1e-5, 1e-3};
  in[0] = matrix(xs, 2, 3);
  in[1] = matrix(ws, 2, 3);
  in[2] = matrix(bs, 2, 0);
  CHECK_OK(tc_tensor_set_requires_grad(in[0], true));
  CHECK_OK(tc_tensor_set_requires_grad(in[1], true));
  CHECK_OK(tc_tensor_set_requires_grad(in[2], true));
  CHECK_OK(tc_function_create(&g_lin, "LinearFunction", linear_forward, linear_backward, NULL, NULL));
  CHECK_OK(tc_function_create(&g_mulc, "MulConstant", mul_constant_forward, mul_constant_backward, NULL, NULL));
  CHECK_OK(tc_gradcheck(&ok, linear_via_function, NULL, in, 3, NULL));
  CHECK(ok);
  CHECK_OK(tc_gradgradcheck(&ok, linear_via_function, NULL, in, 3, NULL));
  CHECK(ok);
  CHECK_OK(tc_gradcheck(&ok, mul_constant_twice, NULL, in, 1, NULL));
  CHECK_OK(tc_gradgradcheck(&ok, mul_constant_twice, NULL, in, 1, NULL)); /* backward written with tensorc ops */
  CHECK(ok);
  CHECK_FAILS_WITH(tc_gradcheck(&ok, linear_via_function, NULL, in, 3, &bad), TC_ERROR_INVALID_ARGUMENT, "'opts'");
  CHECK_FAILS_WITH(tc_gradcheck(NULL, linear_via_function, NULL, in, 3, NULL), TC_ERROR_INVALID_ARGUMENT, "'ok'");
  tc_function_release(g_lin);
  tc_function_release(g_mulc);
  tc_tensor_release(in[0]);
  tc_tensor_release(in[1]);
  tc_tensor_release(in[2]);
  CHECK(g_state_destroyed > 0);
}

/* ---- failing callbacks ---------------------------------------------------- */
static tc_status failing_forward(tc_tensor* outputs, size_t n_outputs, tc_function_ctx ctx, const tc_value* in,
                                 size_t n_inputs, void* payload) {
  (void)outputs;
  (void)n_outputs;
  (void)ctx;
  (void)in;
  (void)n_inputs;
  (void)payload;
  return tc_error_set(TC_ERROR_INVALID_ARGUMENT, "MyFn forward: the input must be positive");
}
static tc_status identity_forward(tc_tensor* outputs, size_t n_outputs, tc_function_ctx ctx, const tc_value* in,
                                  size_t n_inputs, void* payload) {
  (void)n_outputs;
  (void)ctx;
  (void)n_inputs;
  (void)payload;
  return tc_clone(&outputs[0], in[0].u.tensor);
}
static tc_status failing_backward(tc_tensor* grad_inputs, size_t n_inputs, tc_function_ctx ctx,
                                  const tc_tensor* grad_outputs, size_t n_outputs, void* payload) {
  (void)grad_inputs;
  (void)n_inputs;
  (void)ctx;
  (void)grad_outputs;
  (void)n_outputs;
  (void)payload;
  return tc_error_set(TC_ERROR_NOT_IMPLEMENTED, "MyFn backward: not differentiable here");
}
static tc_status save_in_backward(tc_tensor* grad_inputs, size_t n_inputs, tc_function_ctx ctx,
                                  const tc_tensor* grad_outputs, size_t n_outputs, void* payload) {
  (void)grad_inputs;
  (void)n_inputs;
  (void)grad_outputs;
  (void)n_outputs;
  (void)payload;
  return tc_function_ctx_save_for_backward(ctx, NULL, 0);
}

static void test_errors(void) {
  const double v[2] = {1, 2};
  tc_function f = NULL, g = NULL, h = NULL;
  tc_tensor x = matrix(v, 2, 0), y = NULL, s = NULL;
  tc_value arg = tensor_value(x);
  CHECK_OK(tc_tensor_set_requires_grad(x, true));
  CHECK_OK(tc_function_create(&f, "MyFn", failing_forward, failing_backward, NULL, NULL));
  CHECK_FAILS_WITH(tc_function_apply(&y, 1, f, &arg, 1), TC_ERROR_INVALID_ARGUMENT, "the input must be positive");
  CHECK(y == NULL);
  CHECK_OK(tc_function_create(&g, "MyFn", identity_forward, failing_backward, NULL, NULL));
  CHECK_OK(tc_function_apply(&y, 1, g, &arg, 1));
  CHECK_OK(tc_sum(&s, y, NULL));
  CHECK_FAILS_WITH(tc_tensor_backward(s, NULL, false, false), TC_ERROR_NOT_IMPLEMENTED, "not differentiable here");
  tc_tensor_release(y);
  tc_tensor_release(s);
  y = s = NULL;
  CHECK_OK(tc_function_create(&h, "MyFn", identity_forward, save_in_backward, NULL, NULL));
  CHECK_OK(tc_function_apply(&y, 1, h, &arg, 1));
  CHECK_OK(tc_sum(&s, y, NULL));
  CHECK_FAILS_WITH(tc_tensor_backward(s, NULL, false, false), TC_ERROR_RUNTIME, "only be called in forward");
  CHECK_FAILS_WITH(tc_function_create(&f, NULL, identity_forward, save_in_backward, NULL, NULL),
                   TC_ERROR_INVALID_ARGUMENT, "'name'");
  CHECK_FAILS_WITH(tc_function_apply(&y, 1, NULL, &arg, 1), TC_ERROR_INVALID_ARGUMENT, "'f'");
  tc_function_release(f);
  tc_function_release(g);
  tc_function_release(h);
  tc_function_release(NULL);
  tc_tensor_release(y);
  tc_tensor_release(s);
  tc_tensor_release(x);
}

/* ---- non-tensor outputs: (2x, numel as INT, sum as FLOAT) ---------------- */
static int g_non_tensor_grads_null = 0;
static tc_status stats_forward(tc_value* outputs, size_t n_outputs, tc_function_ctx ctx, const tc_value* in,
                               size_t n_inputs, void* payload) {
  tc_tensor doubled = NULL;
  tc_scalar sum;
  tc_tensor s = NULL;
  int64_t numel = 0;
  tc_status st;
  (void)ctx;
  (void)n_inputs;
  (void)payload;
  (void)n_outputs;
  if ((st = tc_mul_Scalar(&doubled, in[0].u.tensor, tc_scalar_float(2.0))) != TC_OK) return st;
  outputs[0].tag = TC_VALUE_TENSOR;
  outputs[0].u.tensor = doubled;
  if ((st = tc_tensor_numel(&numel, in[0].u.tensor)) != TC_OK) return st;
  outputs[1].tag = TC_VALUE_INT;
  outputs[1].u.i = numel;
  if ((st = tc_sum(&s, in[0].u.tensor, NULL)) != TC_OK) return st;
  st = tc_tensor_item(&sum, s);
  tc_tensor_release(s);
  outputs[2].tag = TC_VALUE_FLOAT;
  outputs[2].u.f = sum.u.f;
  return st;
}
static tc_status stats_backward(tc_tensor* grad_inputs, size_t n_inputs, tc_function_ctx ctx,
                                const tc_tensor* grad_outputs, size_t n_outputs, void* payload) {
  (void)n_inputs;
  (void)ctx;
  (void)payload;
  g_non_tensor_grads_null =
      n_outputs == 3 && grad_outputs[0] != NULL && grad_outputs[1] == NULL && grad_outputs[2] == NULL;
  return tc_mul_Scalar(&grad_inputs[0], grad_outputs[0], tc_scalar_float(2.0));
}
static tc_status string_forward(tc_value* outputs, size_t n_outputs, tc_function_ctx ctx, const tc_value* in,
                                size_t n_inputs, void* payload) {
  (void)n_outputs;
  (void)ctx;
  (void)in;
  (void)n_inputs;
  (void)payload;
  outputs[0].tag = TC_VALUE_STRING;
  outputs[0].u.str = "not allowed";
  return TC_OK;
}

static void test_non_tensor_outputs(void) {
  const double v[3] = {1, 2, 4};
  tc_function f = NULL, g = NULL;
  tc_tensor x = matrix(v, 3, 0), s = NULL, gx = NULL, y = NULL;
  tc_value arg = tensor_value(x), outs[3];
  CHECK_OK(tc_tensor_set_requires_grad(x, true));
  CHECK_OK(tc_function_create_values(&f, "Stats", stats_forward, stats_backward, NULL, NULL));
  CHECK_OK(tc_function_apply_values(outs, 3, f, &arg, 1));
  CHECK(outs[0].tag == TC_VALUE_TENSOR && outs[1].tag == TC_VALUE_INT && outs[2].tag == TC_VALUE_FLOAT);
  CHECK(outs[1].u.i == 3 && outs[2].u.f == 7.0);
  CHECK_OK(tc_sum(&s, outs[0].u.tensor, NULL));
  CHECK_OK(tc_tensor_backward(s, NULL, false, false));
  CHECK(g_non_tensor_grads_null);
  CHECK_OK(tc_tensor_grad(&gx, x));
  CHECK(gx != NULL && max_abs_diff(gx, x) < 10); /* shape check */
  {
    double got[3];
    CHECK_OK(tc_tensor_copy_to_buffer(got, sizeof got, gx));
    CHECK(got[0] == 2 && got[1] == 2 && got[2] == 2);
  }
  tc_values_release(outs, 3);
  CHECK_FAILS_WITH(tc_function_apply(&y, 1, f, &arg, 1), TC_ERROR_INVALID_ARGUMENT, "tc_function_apply_values");
  CHECK_OK(tc_function_create_values(&g, "Stringy", string_forward, stats_backward, NULL, NULL));
  CHECK_FAILS_WITH(tc_function_apply_values(outs, 1, g, &arg, 1), TC_ERROR_TYPE, "output 0");
  tc_function_release(f);
  tc_function_release(g);
  tc_tensor_release(s);
  tc_tensor_release(gx);
  tc_tensor_release(x);
}

int main(void) {
  test_linear_function();
  test_gradcheck_through_c();
  test_errors();
  test_non_tensor_outputs();
  return check_summary();
}
