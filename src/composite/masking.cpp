// SPDX-License-Identifier: BSD-3-Clause
// masked_fill, tril and triu as CompositeImplicitAutograd decompositions over
// where(): the gradient flows to `self` where it is kept (and to a tensor
// `value` where it is written), and every backend runs them. The in-place and
// out= variants are generated from these.
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

void check_mask(const Tensor& mask) {
  TC_CHECK_ARG(mask.defined(), "masked_fill: argument 'mask' is an undefined tensor");
  TC_CHECK_TYPE(mask.dtype() == ScalarType::Bool, "masked_fill: only supports boolean masks, but got mask with dtype ",
                mask.dtype());
}

// Keeps the elements of the last two dims where col - row <= diagonal
// (lower = true, tril) or col - row >= diagonal (triu); zero elsewhere.
Tensor triangle(const Tensor& self, int64_t diagonal, bool lower, const char* op) {
  TC_CHECK_ARG(self.dim() >= 2, op, ": input tensor must have at least 2 dimensions, got ", self.dim());
  const int64_t rows = self.size(self.dim() - 2), cols = self.size(self.dim() - 1);
  const Tensor r = tc::unsqueeze(tc::arange(Scalar(rows), ScalarType::Int64, self.device()), 1);
  const Tensor c = tc::arange(Scalar(cols), ScalarType::Int64, self.device());
  const Tensor offset = tc::sub(c, r);  // (rows, cols): col - row
  const Tensor keep = lower ? tc::le(offset, Scalar(diagonal)) : tc::ge(offset, Scalar(diagonal));
  return tc::where(keep, self, tc::zeros({}, self.dtype(), self.device()));
}

}  // namespace

Tensor masked_fill_Scalar(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_mask(mask);
  // The value in self's dtype (a float into an integer tensor truncates, as PyTorch).
  return tc::where(mask, tc::full({}, value, self.dtype(), self.device()), self);
}

Tensor masked_fill_Tensor(const Tensor& self, const Tensor& mask, const Tensor& value) {
  check_mask(mask);
  TC_CHECK_ARG(value.defined() && value.dim() == 0,
               "masked_fill: only supports a 0-dimensional value tensor, but got tensor with ",
               value.defined() ? value.dim() : 0, " dimension(s)");
  const Tensor v = value.dtype() == self.dtype() ? value : tc::_to_copy(value, self.dtype());
  return tc::where(mask, v, self);
}

Tensor tril(const Tensor& self, int64_t diagonal) { return triangle(self, diagonal, true, "tril"); }
Tensor triu(const Tensor& self, int64_t diagonal) { return triangle(self, diagonal, false, "triu"); }

}  // namespace tc::native
