// SPDX-License-Identifier: BSD-3-Clause
// dot, mv, outer (and ger, its old name) as CompositeImplicitAutograd
// decompositions: mul + sum, mm, mul of broadcast views. Autograd and every
// backend come from the ops they call. Checks and messages follow ATen's.
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema
#include "tensorc_gen/ops.h"

namespace tc::native {

Tensor dot(const Tensor& self, const Tensor& tensor) {
  TC_CHECK_ARG(self.dim() == 1 && tensor.dim() == 1, "dot: 1D tensors expected, but got ", self.dim(), "D and ",
               tensor.dim(), "D tensors");
  TC_CHECK_TYPE(self.dtype() == tensor.dtype(), "dot: expected both vectors to have same dtype, but found ",
                self.dtype(), " and ", tensor.dtype());
  TC_CHECK_ARG(self.numel() == tensor.numel(), "dot: argument 'tensor' has ", tensor.numel(),
               " elements, expected as many as 'self' (", self.numel(), ")");
  return tc::sum(tc::mul(self, tensor));
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  TC_CHECK_ARG(self.dim() == 2 && vec.dim() == 1, "mv: expected a 2-D matrix 'self' and a 1-D 'vec', got ", self.dim(),
               "-D and ", vec.dim(), "-D");
  TC_CHECK_ARG(self.size(1) == vec.size(0), "mv: size mismatch: 'self' is ", self.sizes(), " and 'vec' has ",
               vec.size(0), " elements");
  return tc::squeeze(tc::mm(self, tc::unsqueeze(vec, 1)), 1);
}

namespace {

Tensor outer_product(const Tensor& self, const Tensor& vec2, const char* op) {
  TC_CHECK_ARG(self.dim() == 1, op, ": expected 1-D argument 'self', but got ", self.dim(), "-D");
  TC_CHECK_ARG(vec2.dim() == 1, op, ": expected 1-D argument 'vec2', but got ", vec2.dim(), "-D");
  return tc::mul(tc::unsqueeze(self, 1), vec2);
}

}  // namespace

Tensor outer(const Tensor& self, const Tensor& vec2) { return outer_product(self, vec2, "outer"); }
Tensor ger(const Tensor& self, const Tensor& vec2) { return outer_product(self, vec2, "ger"); }

}  // namespace tc::native
