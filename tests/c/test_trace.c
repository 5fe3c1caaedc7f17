// SPDX-License-Identifier: BSD-3-Clause
/* Tracing from C: record a function's ops, replay them on new inputs, print,
 * save and load the graph; a hostile graph file is an error naming the line
 * or field, never a crash. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static tc_tensor matrix(int64_t rows, int64_t cols, float start, float step) {
  float* d = malloc(sizeof(float) * (size_t)(rows * cols));
  for (int64_t i = 0; i < rows * cols; ++i) d[i] = start + step * (float)i;
  int64_t shape[2] = {rows, cols};
  tc_tensor t = NULL;
  tc_tensor_from_data(&t, d, TC_FLOAT32, shape, 2);
  free(d);
  return t;
}

static int same_values(tc_tensor a, tc_tensor b, int64_t n) {
  float x[64], y[64];
  if (n > 64 || tc_tensor_copy_to_buffer(x, sizeof(float) * (size_t)n, a) != TC_OK ||
      tc_tensor_copy_to_buffer(y, sizeof(float) * (size_t)n, b) != TC_OK)
    return 0;
  for (int64_t i = 0; i < n; ++i)
    if (fabsf(x[i] - y[i]) > 1e-5f * (1.0f + fabsf(y[i]))) return 0;
  return 1;
}

static char* text_of(tc_graph g, tc_status (*fn)(char*, size_t, size_t*, tc_graph)) {
  size_t needed = 0;
  if (fn(NULL, 0, &needed, g) != TC_OK) return NULL;
  char* buf = malloc(needed + 1);
  fn(buf, needed + 1, &needed, g);
  return buf;
}

/* The MLP layer relu(x @ w + b) summed over dim 1, with an unused exp. */
static tc_tensor mlp(tc_tensor x, tc_tensor w, tc_tensor b) {
  tc_tensor h = NULL, a = NULL, r = NULL, unused = NULL;
  tc_mm(&h, x, w);
  tc_add_Tensor(&a, h, b, NULL);
  tc_relu(&r, a);
  tc_exp(&unused, x); /* dead code: nothing uses it */
  tc_tensor_release(h);
  tc_tensor_release(a);
  tc_tensor_release(unused);
  return r;
}

static void test_trace_and_replay(void) {
  tc_tensor x = matrix(4, 3, -1.0f, 0.25f), w = matrix(3, 5, 0.5f, -0.1f), b = matrix(1, 5, 0.1f, 0.1f);
  CHECK_OK(tc_tensor_set_requires_grad(w, true));
  CHECK_OK(tc_trace_begin());
  CHECK_FAILS_WITH(tc_trace_begin(), TC_ERROR_INVALID_ARGUMENT, "already tracing");
  CHECK_OK(tc_trace_input(x));
  CHECK_FAILS_WITH(tc_trace_input(x), TC_ERROR_INVALID_ARGUMENT, "already a value");
  tc_tensor y = mlp(x, w, b);
  tc_graph g = NULL;
  CHECK_OK(tc_trace_end(&g, &y, 1));
  CHECK_FAILS_WITH(tc_trace_input(x), TC_ERROR_INVALID_ARGUMENT, "not tracing");

  size_t n_in = 0, n_out = 0, n_nodes = 0, n_warn = 9;
  CHECK_OK(tc_graph_info(&n_in, &n_out, &n_nodes, &n_warn, g));
  CHECK(n_in == 1 && n_out == 1 && n_warn == 0);
  CHECK(n_nodes == 3); /* mm, add, relu: the unused exp is dropped */
  char* text = text_of(g, tc_graph_text);
  CHECK(text && strstr(text, "graph(%0 : float32[4, 3])"));
  CHECK(text && strstr(text, "prim::Parameter()") && strstr(text, "prim::Constant()"));
  CHECK(text && strstr(text, "= aten::mm(%0, %1)") && strstr(text, "aten::relu(") && !strstr(text, "exp"));
  free(text);

  /* Replay on a new input: the same as calling the ops. */
  tc_tensor x2 = matrix(4, 3, 2.0f, -0.3f);
  tc_tensor want = mlp(x2, w, b), got = NULL;
  size_t n = 0;
  CHECK_OK(tc_graph_run(&got, 1, &n, g, &x2, 1));
  CHECK(n == 1 && same_values(got, want, 20));
  tc_tensor_release(got);

  /* Inputs that do not match the trace, too small an output array. */
  tc_tensor wrong = matrix(3, 4, 0.0f, 1.0f);
  CHECK_FAILS_WITH(tc_graph_run(&got, 1, &n, g, &wrong, 1), TC_ERROR_INVALID_ARGUMENT,
                   "input 0 expected float32[4, 3]");
  CHECK_FAILS_WITH(tc_graph_run(&got, 1, &n, g, NULL, 0), TC_ERROR_INVALID_ARGUMENT, "expected 1 input");
  CHECK_FAILS_WITH(tc_graph_run(&got, 0, &n, g, &x2, 1), TC_ERROR_INVALID_ARGUMENT, "outs_cap");
  CHECK_FAILS_WITH(tc_graph_run(&got, 1, &n, NULL, &x2, 1), TC_ERROR_INVALID_ARGUMENT, "'g'");

  /* Save and load: the loaded graph (its parameters from the file) gives the same. */
  const char* path = "test_trace_graph.json";
  CHECK_OK(tc_graph_save(g, path));
  tc_graph loaded = NULL;
  CHECK_OK(tc_graph_load(&loaded, path));
  CHECK_OK(tc_graph_run(&got, 1, &n, loaded, &x2, 1));
  CHECK(n == 1 && same_values(got, want, 20));
  tc_tensor_release(got);
  char* a = text_of(g, tc_graph_text);
  char* b2 = text_of(loaded, tc_graph_text);
  CHECK(a && b2 && strcmp(a, b2) == 0);
  free(a);
  free(b2);
  remove(path);
  tc_graph_release(loaded);
  CHECK_FAILS_WITH(tc_graph_load(&loaded, "no/such/graph.json"), TC_ERROR_INVALID_ARGUMENT, "cannot open");
  CHECK(loaded == NULL); /* a failed load leaves no graph */

  tc_tensor_release(wrong);
  tc_tensor_release(want);
  tc_tensor_release(x2);
  tc_tensor_release(y);
  tc_graph_release(g);
  tc_tensor_release(x);
  tc_tensor_release(w);
  tc_tensor_release(b);
}

static void test_composites_in_place_and_warnings(void) {
  tc_tensor x = matrix(2, 3, 1.0f, 1.0f), w = matrix(4, 3, 0.5f, 0.25f), bias = matrix(1, 4, 0.0f, 1.0f);
  tc_tensor bias1 = NULL;
  int64_t four[1] = {4};
  tc_reshape(&bias1, bias, four, 1);
  CHECK_OK(tc_trace_begin());
  CHECK_OK(tc_trace_input(x));
  tc_tensor lin = NULL, copy = NULL;
  CHECK_OK(tc_linear(&lin, x, w, bias1)); /* a composite: one node, not its decomposition */
  CHECK_OK(tc_clone(&copy, lin));
  CHECK_OK(tc_add_inplace_Scalar(copy, tc_scalar_float(1.0), NULL)); /* in place: the next value of copy */
  tc_scalar first;
  tc_tensor s = NULL;
  CHECK_OK(tc_sum(&s, copy, NULL));
  CHECK_OK(tc_tensor_item(&first, s)); /* a value read back: the trace warns */
  tc_graph g = NULL;
  CHECK_OK(tc_trace_end(&g, &copy, 1));
  size_t n_nodes = 0, n_warn = 0;
  CHECK_OK(tc_graph_info(NULL, NULL, &n_nodes, &n_warn, g));
  CHECK(n_nodes == 3); /* linear, clone, add_ (the sum only fed item(): dropped) */
  char* text = text_of(g, tc_graph_text);
  CHECK(text && strstr(text, "aten::linear(%0") && strstr(text, "aten::add_.Scalar(%") && !strstr(text, "mm("));
  free(text);
  CHECK(n_warn == 1);
  const char* msg = NULL;
  CHECK_OK(tc_graph_warning(&msg, g, 0));
  CHECK(msg && strstr(msg, "example inputs"));
  CHECK_FAILS_WITH(tc_graph_warning(&msg, g, 1), TC_ERROR_INDEX, "out of range");

  /* The replayed in-place op writes the graph's own clone, not the input. */
  tc_tensor x2 = matrix(2, 3, -1.0f, 0.5f), before = NULL, got = NULL, want = NULL;
  CHECK_OK(tc_clone(&before, x2));
  size_t n = 0;
  CHECK_OK(tc_graph_run(&got, 1, &n, g, &x2, 1));
  CHECK_OK(tc_linear(&want, x2, w, bias1));
  CHECK_OK(tc_add_inplace_Scalar(want, tc_scalar_float(1.0), NULL));
  CHECK(same_values(got, want, 8) && same_values(x2, before, 6));

  tc_tensor ts[] = {got, want, before, x2, s, copy, lin, bias1, bias, w, x};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; ++i) tc_tensor_release(ts[i]);
  tc_graph_release(g);

  /* Abort ends tracing without a graph; end without begin is an error. */
  CHECK_OK(tc_trace_begin());
  CHECK_OK(tc_trace_abort());
  CHECK_FAILS_WITH(tc_trace_end(&g, NULL, 0), TC_ERROR_INVALID_ARGUMENT, "not tracing");
  CHECK(g == NULL);
}

/* Each a complete file that the loader must refuse with a message naming where. */
static void test_hostile_files(void) {
  static const char head[] = "{\"format\": \"tensorc-graph\", \"version\": 1, ";
  static const char values[] =
      "\"values\": [{\"dtype\": \"float32\", \"shape\": [2], \"device\": \"cpu\"}, "
      "{\"dtype\": \"float32\", \"shape\": [2], \"device\": \"cpu\"}], ";
  struct {
    const char* body; /* after head (NULL: the whole text is `whole`) */
    const char* whole;
    const char* needle;
  } cases[] = {
      {NULL, "{\n\"format\":\n  \"tensorc-graph\" ,, }", "line 3"},
      {NULL, "", "line 1"},
      {NULL, "[1, 2]", "expected an object"},
      {NULL, "{\"format\": \"other\", \"version\": 1}", "format"},
      {NULL, "{\"format\": \"tensorc-graph\", \"version\": 2}", "version 2"},
      {"\"values\": [], \"inputs\": [], \"constants\": [], \"nodes\": []}", NULL, "missing \"outputs\""},
      {"\"values\": [{\"dtype\": \"float99\", \"shape\": [2], \"device\": \"cpu\"}], \"inputs\": [0], "
       "\"constants\": [], \"nodes\": [], \"outputs\": [0]}",
       NULL, "values[0].dtype"},
      {"\"values\": [{\"dtype\": \"float32\", \"shape\": [-2], \"device\": \"cpu\"}], \"inputs\": [0], "
       "\"constants\": [], \"nodes\": [], \"outputs\": [0]}",
       NULL, "negative size"},
      {"\"values\": [{\"dtype\": \"float32\", \"shape\": [4611686018427387904, 4611686018427387904], "
       "\"device\": \"cpu\"}], \"inputs\": [0], \"constants\": [], \"nodes\": [], \"outputs\": [0]}",
       NULL, "values[0].shape: the shape's element count overflows"},
      {"\"values\": [{\"dtype\": \"float32\", \"shape\": [2], \"device\": \"tpu:0\"}], \"inputs\": [0], "
       "\"constants\": [], \"nodes\": [], \"outputs\": [0]}",
       NULL, "unknown device"},
      {"\"values\": [], \"inputs\": [5], \"constants\": [], \"nodes\": [], \"outputs\": []}", NULL,
       "inputs[0]: value 5 is out of range"},
      {"\"values\": [], \"inputs\": [18446744073709551615], \"constants\": [], \"nodes\": [], \"outputs\": []}", NULL,
       "inputs[0]: an integer beyond int64"},
      {"\"values\": [{\"dtype\": \"float32\", \"shape\": [2], \"device\": \"cpu\"}], \"inputs\": [], "
       "\"constants\": [{\"value\": 0, \"kind\": \"constant\", \"data\": \"AAAA\"}], \"nodes\": [], \"outputs\": [0]}",
       NULL, "constants[0].data: holds 3 bytes"},
      {"\"values\": [{\"dtype\": \"float32\", \"shape\": [2], \"device\": \"cpu\"}], \"inputs\": [], "
       "\"constants\": [{\"value\": 0, \"kind\": \"constant\", \"data\": \"A*==\"}], \"nodes\": [], \"outputs\": [0]}",
       NULL, "not base64"},
      {NULL, NULL, NULL}, /* the values-based cases follow */
  };
  for (size_t i = 0; cases[i].needle; ++i) {
    char text[1024];
    if (cases[i].whole)
      snprintf(text, sizeof text, "%s", cases[i].whole);
    else
      snprintf(text, sizeof text, "%s%s", head, cases[i].body);
    tc_graph g = (tc_graph)1;
    tc_status st = tc_graph_from_json(&g, text, strlen(text));
    if (st != TC_ERROR_INVALID_ARGUMENT || g != NULL) fprintf(stderr, "case %zu: %s\n", i, tc_status_name(st));
    CHECK(st == TC_ERROR_INVALID_ARGUMENT && g == NULL);
    if (!strstr(tc_last_error_message(), cases[i].needle))
      fprintf(stderr, "case %zu: expected \"%s\" in \"%s\"\n", i, cases[i].needle, tc_last_error_message());
    CHECK(strstr(tc_last_error_message(), cases[i].needle) != NULL);
  }
  const char* node_cases[][2] = {
      {"[{\"op\": \"aten::no_such_op\", \"args\": [], \"outputs\": [1]}]", "nodes[0].op: no operator"},
      {"[{\"op\": \"aten::relu\", \"args\": [{\"value\": 1}], \"outputs\": [0]}]", "not defined before its use"},
      {"[{\"op\": \"aten::relu\", \"args\": [], \"outputs\": [1]}]", "expected 1 argument"},
      {"[{\"op\": \"aten::relu\", \"args\": [{\"int\": 3}], \"outputs\": [1]}]", "nodes[0].args[0] ('self')"},
      {"[{\"op\": \"aten::relu\", \"args\": [{\"value\": 0}], \"outputs\": [0]}]", "defined twice"},
      {"[{\"op\": \"aten::relu\", \"args\": [{\"what\": 0}], \"outputs\": [1]}]", "unknown argument kind"},
      {"[{\"op\": \"aten::relu\", \"args\": [{\"value\": 0}], \"outputs\": [7]}]", "outputs[0]: value 7"},
  };
  for (size_t i = 0; i < sizeof node_cases / sizeof node_cases[0]; ++i) {
    char text[1024];
    snprintf(text, sizeof text, "%s%s\"inputs\": [0], \"constants\": [], \"nodes\": %s, \"outputs\": [1]}", head,
             values, node_cases[i][0]);
    tc_graph g = NULL;
    CHECK(tc_graph_from_json(&g, text, strlen(text)) == TC_ERROR_INVALID_ARGUMENT && g == NULL);
    if (!strstr(tc_last_error_message(), node_cases[i][1]))
      fprintf(stderr, "node case %zu: expected \"%s\" in \"%s\"\n", i, node_cases[i][1], tc_last_error_message());
    CHECK(strstr(tc_last_error_message(), node_cases[i][1]) != NULL);
  }
  /* A well-formed hand-written graph loads and runs. */
  char text[1024];
  snprintf(text, sizeof text,
           "%s%s\"inputs\": [0], \"constants\": [], \"nodes\": "
           "[{\"op\": \"aten::relu\", \"args\": [{\"value\": 0}], \"outputs\": [1]}], \"outputs\": [1]}",
           head, values);
  tc_graph g = NULL;
  CHECK_OK(tc_graph_from_json(&g, text, strlen(text)));
  tc_tensor x = matrix(1, 2, -1.0f, 2.0f), x1 = NULL, y = NULL;
  int64_t two[1] = {2};
  tc_reshape(&x1, x, two, 1);
  size_t n = 0;
  CHECK_OK(tc_graph_run(&y, 1, &n, g, &x1, 1));
  float got[2] = {0, 0};
  CHECK(tc_tensor_copy_to_buffer(got, sizeof got, y) == TC_OK && got[0] == 0.0f && got[1] == 1.0f);
  tc_tensor_release(y);
  tc_tensor_release(x1);
  tc_tensor_release(x);
  tc_graph_release(g);

  /* Deep nesting is refused before parsing. */
  char deep[600];
  memset(deep, '[', 500);
  deep[500] = 0;
  CHECK_FAILS_WITH(tc_graph_from_json(&g, deep, strlen(deep)), TC_ERROR_INVALID_ARGUMENT, "nesting deeper");
  CHECK_FAILS_WITH(tc_graph_from_json(NULL, deep, 1), TC_ERROR_INVALID_ARGUMENT, "'out'");
  CHECK_FAILS_WITH(tc_graph_from_json(&g, NULL, 5), TC_ERROR_INVALID_ARGUMENT, "'text'");
}

int main(void) {
  test_trace_and_replay();
  test_composites_in_place_and_warnings();
  test_hostile_files();
  return check_summary();
}
