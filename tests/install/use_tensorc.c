/* SPDX-License-Identifier: BSD-3-Clause */
/* Built against the installed tree, once through find_package(tensorc) and
 * once through pkg-config; adds two tensors through the C ABI. */
#include <stdio.h>
#include <tensorc.h>

int main(void) {
  float a_data[3] = {1.0f, 2.0f, 3.0f}, b_data[3] = {10.0f, 20.0f, 30.0f}, out[3];
  int64_t shape[1] = {3};
  tc_tensor a = NULL, b = NULL, c = NULL;
  if (tc_tensor_from_data(&a, a_data, TC_FLOAT32, shape, 1) != TC_OK ||
      tc_tensor_from_data(&b, b_data, TC_FLOAT32, shape, 1) != TC_OK || tc_add_Tensor(&c, a, b, NULL) != TC_OK ||
      tc_tensor_copy_to_buffer(out, sizeof out, c) != TC_OK) {
    fprintf(stderr, "failed: %s\n", tc_last_error_message());
    return 1;
  }
  tc_tensor_release(a);
  tc_tensor_release(b);
  tc_tensor_release(c);
  if (out[0] != 11.0f || out[1] != 22.0f || out[2] != 33.0f) {
    fprintf(stderr, "wrong result %g %g %g\n", out[0], out[1], out[2]);
    return 1;
  }
  printf("installed tensorc %s works\n", tc_version_string());
  return 0;
}
