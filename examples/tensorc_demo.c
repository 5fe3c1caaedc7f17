/* SPDX-License-Identifier: BSD-3-Clause */
/* A tour of tensorc's C ABI: tensors, broadcasting ops, reductions, matmul,
 * views, errors as status codes, and the dispatcher's table for one op.
 * (The autograd issue turns this into a training demo.) */
#include <stdio.h>
#include <stdlib.h>
#include <tensorc.h>

/* Every call returns a status; on failure print the message and stop. */
#define TRY(call)                                                                                   \
  do {                                                                                              \
    tc_status st_ = (call);                                                                         \
    if (st_ != TC_OK) {                                                                             \
      fprintf(stderr, "%s failed: [%s] %s\n", #call, tc_status_name(st_), tc_last_error_message()); \
      exit(1);                                                                                      \
    }                                                                                               \
  } while (0)

static void show(const char* label, tc_tensor t) {
  char buf[4096];
  TRY(tc_tensor_to_string(buf, sizeof buf, NULL, t));
  printf("%s =\n%s\n\n", label, buf);
}

int main(void) {
  float x_data[6] = {1, 2, 3, 4, 5, 6};
  float b_data[3] = {10, 20, 30};
  int64_t x_shape[2] = {2, 3}, b_shape[1] = {3}, dims[1] = {1};
  tc_tensor x, b, y, s, xt, prod, r;
  tc_scalar two = tc_scalar_float(2.0);
  char table[4096];

  TRY(tc_tensor_from_data(&x, x_data, TC_FLOAT32, x_shape, 2));
  TRY(tc_tensor_from_data(&b, b_data, TC_FLOAT32, b_shape, 1));
  show("x", x);

  /* y = x * 2 + b   (b broadcasts over the rows) */
  TRY(tc_mul_Scalar(&y, x, two));
  TRY(tc_add_inplace_Tensor(y, b, NULL));
  show("x * 2 + b", y);

  TRY(tc_sum_dim_IntList(&s, y, dims, 1, NULL, NULL));
  show("row sums", s);

  TRY(tc_t(&xt, x));
  TRY(tc_mm(&prod, x, xt));
  show("x @ x.T", prod);

  TRY(tc_exp(&r, b));
  show("exp(b)", r);

  /* Bad input is a status and a message, never a crash. */
  {
    tc_tensor bad = NULL;
    tc_status st = tc_mm(&bad, x, x);
    printf("mm(x, x) -> %s: %s\n\n", tc_status_name(st), tc_last_error_message());
  }

  TRY(tc_op_dump_table(table, sizeof table, NULL, "add.Tensor"));
  printf("dispatch table of add.Tensor:\n%s", table);

  tc_tensor_release(x);
  tc_tensor_release(b);
  tc_tensor_release(y);
  tc_tensor_release(s);
  tc_tensor_release(xt);
  tc_tensor_release(prod);
  tc_tensor_release(r);
  return 0;
}
