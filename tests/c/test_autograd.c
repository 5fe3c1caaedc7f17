/* SPDX-License-Identifier: BSD-3-Clause */
/* The autograd part of the C ABI: gradients of a small model, SGD with
 * in-place updates under no_grad, grad() with create_graph, retain_grad,
 * and the errors (NULLs, backward twice, in-place on a leaf, unused input).
 * Plain C99, no framework. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tensorc.h"

#include "check.h"

static tc_tensor vec(const double* v, int64_t n) {
  tc_tensor t = NULL;
  int64_t shape[1];
  shape[0] = n;
  CHECK_OK(tc_tensor_from_data(&t, v, TC_FLOAT64, shape, 1));
  return t;
}

static double elem(tc_tensor t, int64_t i) {
  double buf[16];
  int64_t n = 0;
  tc_tensor_numel(&n, t);
  if (n > 16 || i >= n) return NAN;
  tc_tensor_copy_to_buffer(buf, (size_t)n * sizeof(double), t);
  return buf[i];
}

static tc_tensor grad_of(tc_tensor t) {
  tc_tensor g = NULL;
  CHECK_OK(tc_tensor_grad(&g, t));
  return g;
}

/* loss = sum((w * x + b - y)^2); dloss/dw = sum(2 r x), dloss/db = sum(2 r). */
static void test_gradients_and_sgd(void) {
  const double xs[3] = {1, 2, 3}, ys[3] = {3, 5, 7}, w0 = 0.5, b0 = 0.0;
  tc_tensor x = vec(xs, 3), y = vec(ys, 3), w = vec(&w0, 1), b = vec(&b0, 1);
  tc_tensor wx = NULL, pred = NULL, r = NULL, sq = NULL, loss = NULL;
  bool flag = false;
  int step;
  double first_loss = 0, last_loss = 0;
  CHECK_OK(tc_tensor_set_requires_grad(w, true));
  CHECK_OK(tc_tensor_set_requires_grad(b, true));
  CHECK_OK(tc_tensor_requires_grad(&flag, w));
  CHECK(flag);
  for (step = 0; step < 200; ++step) {
    tc_tensor gw, gb;
    CHECK_OK(tc_mul_Tensor(&wx, w, x));
    CHECK_OK(tc_add_Tensor(&pred, wx, b, NULL));
    CHECK_OK(tc_sub_Tensor(&r, pred, y, NULL));
    CHECK_OK(tc_mul_Tensor(&sq, r, r));
    CHECK_OK(tc_sum(&loss, sq, NULL));
    if (step == 0) {
      char name[64];
      size_t needed = 0;
      CHECK_OK(tc_tensor_grad_fn_name(name, sizeof name, &needed, loss));
      CHECK(strcmp(name, "SumBackward0") == 0);
      CHECK_OK(tc_tensor_is_leaf(&flag, loss));
      CHECK(!flag);
      first_loss = elem(loss, 0);
    }
    last_loss = elem(loss, 0);
    CHECK_OK(tc_tensor_backward(loss, NULL, false, false));
    gw = grad_of(w);
    gb = grad_of(b);
    if (step == 0) {
      /* r = 0.5x - y = (-2.5, -4, -5.5): dw = 2*sum(r x) = -54, db = 2*sum(r) = -24 */
      CHECK(fabs(elem(gw, 0) + 54.0) < 1e-12);
      CHECK(fabs(elem(gb, 0) + 24.0) < 1e-12);
    }
    /* SGD step with in-place ops under no_grad, then zero the grads. */
    CHECK_OK(tc_grad_mode_push(false));
    {
      tc_scalar lr = tc_scalar_float(0.02);
      CHECK_OK(tc_sub_inplace_Tensor(w, gw, &lr));
      CHECK_OK(tc_sub_inplace_Tensor(b, gb, &lr));
    }
    CHECK_OK(tc_grad_mode_pop());
    CHECK_OK(tc_tensor_set_grad(w, NULL));
    CHECK_OK(tc_tensor_set_grad(b, NULL));
    tc_tensor_release(gw);
    tc_tensor_release(gb);
    tc_tensor_release(wx);
    tc_tensor_release(pred);
    tc_tensor_release(r);
    tc_tensor_release(sq);
    tc_tensor_release(loss);
  }
  CHECK(last_loss < first_loss * 1e-3);
  CHECK(fabs(elem(w, 0) - 2.0) < 0.05 && fabs(elem(b, 0) - 1.0) < 0.1);
  /* In-place on a leaf that requires grad is an error; w is unchanged. */
  {
    double before = elem(w, 0);
    tc_scalar two = tc_scalar_float(2.0);
    CHECK_FAILS_WITH(tc_mul_inplace_Scalar(w, two), TC_ERROR_RUNTIME, "leaf Variable that requires grad");
    CHECK(elem(w, 0) == before);
  }
  tc_tensor_release(x);
  tc_tensor_release(y);
  tc_tensor_release(w);
  tc_tensor_release(b);
}

/* y = x^3: grad() with create_graph gives 3x^2, then 6x. */
static void test_grad_create_graph(void) {
  const double v = 2.0;
  tc_tensor x = vec(&v, 1), y = NULL, g1[1] = {NULL}, g2[1] = {NULL}, unused = vec(&v, 1), g[2] = {NULL, NULL};
  tc_scalar three = tc_scalar_float(3.0);
  tc_tensor inputs[2];
  CHECK_OK(tc_tensor_set_requires_grad(x, true));
  CHECK_OK(tc_tensor_set_requires_grad(unused, true));
  CHECK_OK(tc_pow_Tensor_Scalar(&y, x, three));
  CHECK_OK(tc_autograd_grad(g1, &y, 1, &x, 1, NULL, true, true, false));
  CHECK(fabs(elem(g1[0], 0) - 12.0) < 1e-12);
  CHECK_OK(tc_autograd_grad(g2, g1, 1, &x, 1, NULL, false, false, false));
  CHECK(fabs(elem(g2[0], 0) - 12.0) < 1e-12); /* 6x at x = 2 */
  inputs[0] = x;
  inputs[1] = unused;
  CHECK_FAILS_WITH(tc_autograd_grad(g, &y, 1, inputs, 2, NULL, true, false, false), TC_ERROR_RUNTIME, "allow_unused");
  CHECK(g[0] == NULL && g[1] == NULL);
  CHECK_OK(tc_autograd_grad(g, &y, 1, inputs, 2, NULL, false, false, true));
  CHECK(g[0] != NULL && g[1] == NULL);
  /* The graph of y was freed by the last call: backward again is an error. */
  CHECK_FAILS_WITH(tc_tensor_backward(y, NULL, false, false), TC_ERROR_RUNTIME, "second time");
  tc_tensor_release(g[0]);
  tc_tensor_release(g1[0]);
  tc_tensor_release(g2[0]);
  tc_tensor_release(y);
  tc_tensor_release(x);
  tc_tensor_release(unused);
}

static void test_retain_grad_and_detach(void) {
  const double v[2] = {1, 2};
  tc_tensor x = vec(v, 2), y = NULL, z = NULL, s = NULL, gy = NULL, d = NULL;
  tc_scalar two = tc_scalar_float(2.0);
  bool flag = true;
  CHECK_OK(tc_tensor_set_requires_grad(x, true));
  CHECK_OK(tc_mul_Scalar(&y, x, two));
  CHECK_OK(tc_tensor_retain_grad(y));
  CHECK_OK(tc_mul_Tensor(&z, y, y));
  CHECK_OK(tc_sum(&s, z, NULL));
  CHECK_OK(tc_tensor_backward(s, NULL, false, false));
  gy = grad_of(y);
  CHECK(gy && elem(gy, 0) == 4.0 && elem(gy, 1) == 8.0);
  CHECK_OK(tc_tensor_detach(&d, y));
  CHECK_OK(tc_tensor_requires_grad(&flag, d));
  CHECK(!flag);
  tc_tensor_release(gy);
  tc_tensor_release(d);
  tc_tensor_release(s);
  tc_tensor_release(z);
  tc_tensor_release(y);
  tc_tensor_release(x);
}

static void test_bad_input(void) {
  const double v = 1.0;
  const int64_t iv = 1;
  int64_t shape[1] = {1};
  tc_tensor x = vec(&v, 1), i = NULL, out = NULL;
  bool flag;
  CHECK_FAILS_WITH(tc_tensor_requires_grad(NULL, x), TC_ERROR_INVALID_ARGUMENT, "'out'");
  CHECK_FAILS_WITH(tc_tensor_requires_grad(&flag, NULL), TC_ERROR_INVALID_ARGUMENT, "'t'");
  CHECK_FAILS_WITH(tc_tensor_set_requires_grad(NULL, true), TC_ERROR_INVALID_ARGUMENT, "'t'");
  CHECK_FAILS_WITH(tc_tensor_grad(NULL, x), TC_ERROR_INVALID_ARGUMENT, "'out'");
  CHECK_FAILS_WITH(tc_tensor_backward(NULL, NULL, false, false), TC_ERROR_INVALID_ARGUMENT, "'t'");
  CHECK_FAILS_WITH(tc_tensor_backward(x, NULL, false, false), TC_ERROR_RUNTIME, "does not require grad");
  CHECK_FAILS_WITH(tc_autograd_backward(NULL, 1, NULL, false, false), TC_ERROR_INVALID_ARGUMENT, "'tensors'");
  CHECK_FAILS_WITH(tc_autograd_grad(NULL, &x, 1, &x, 1, NULL, false, false, false), TC_ERROR_INVALID_ARGUMENT,
                   "'out_grads'");
  CHECK_FAILS_WITH(tc_tensor_grad_fn_name(NULL, 8, NULL, x), TC_ERROR_INVALID_ARGUMENT, "'buf'");
  CHECK_FAILS_WITH(tc_grad_mode_pop(), TC_ERROR_RUNTIME, "no grad mode was pushed");
  CHECK_OK(tc_tensor_from_data(&i, &iv, TC_INT64, shape, 1));
  CHECK_FAILS_WITH(tc_tensor_set_requires_grad(i, true), TC_ERROR_TYPE, "floating point");
  CHECK_OK(tc_tensor_set_requires_grad(x, true));
  CHECK_FAILS_WITH(tc_tensor_set_grad(x, i), TC_ERROR_TYPE, "dtype");
  out = vec(&v, 1);
  CHECK_FAILS_WITH(tc_exp_out(out, x), TC_ERROR_RUNTIME, "out=");
  CHECK_OK(tc_grad_mode_set_enabled(false));
  CHECK_OK(tc_grad_mode_is_enabled(&flag));
  CHECK(!flag);
  CHECK_OK(tc_grad_mode_set_enabled(true));
  tc_tensor_release(out);
  tc_tensor_release(i);
  tc_tensor_release(x);
}

int main(void) {
  test_gradients_and_sgd();
  test_grad_create_graph();
  test_retain_grad_and_detach();
  test_bad_input();
  return check_summary();
}
