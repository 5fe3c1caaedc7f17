// SPDX-License-Identifier: BSD-3-Clause
// matmul (CompositeImplicitAutograd): PyTorch's 1-D / 2-D / batched rules,
// decomposed into mm, bmm and views through the generated op functions, so
// autograd comes from those ops.
#include "core/shape.h"
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

std::string shape_str(const Tensor& t) { return str(t.sizes()); }

}  // namespace

Tensor matmul(const Tensor& self, const Tensor& other) {
  const int64_t d1 = self.dim(), d2 = other.dim();
  TC_CHECK_ARG(d1 > 0 && d2 > 0, "matmul: both arguments need to be at least 1-D, got ", d1, "-D and ", d2, "-D");
  TC_CHECK_TYPE(self.dtype() == other.dtype(), "matmul: expected self and other to have the same dtype, but got ",
                self.dtype(), " != ", other.dtype());
  // The contracted sizes: last of self; first of a 1-D other, else its second to last.
  const int64_t k1 = self.sizes()[size_t(d1 - 1)], k2 = other.sizes()[size_t(d2 == 1 ? 0 : d2 - 2)];
  TC_CHECK_ARG(k1 == k2, "matmul: argument 'other' has the wrong shape: self ", shape_str(self), " and other ",
               shape_str(other), " cannot be multiplied (", k1, " vs ", k2, ")");

  if (d1 == 1 && d2 == 1) return reshape(mm(unsqueeze(self, 0), unsqueeze(other, 1)), IntArrayRef());  // dot
  if (d1 == 2 && d2 == 1) return squeeze(mm(self, unsqueeze(other, 1)), 1);                            // mv
  if (d1 == 1 && d2 == 2) return squeeze(mm(unsqueeze(self, 0), other), 0);
  if (d1 == 2 && d2 == 2) return mm(self, other);

  if (d1 >= 3 && d2 <= 2) {
    // Fold self's batch dims into the rows of one mm.
    DimVector out_shape(self.sizes());
    out_shape.pop_back();
    int64_t rows = 1;
    for (int64_t s : out_shape) rows *= s;
    Tensor rhs = d2 == 1 ? unsqueeze(other, 1) : other;
    if (d2 == 2) out_shape.push_back(other.sizes()[1]);
    return reshape(mm(reshape(self, {rows, k1}), rhs), out_shape);
  }

  // Batched: broadcast the batch dims, flatten them, one bmm.
  const int64_t n = d1 > 1 ? self.sizes()[size_t(d1 - 2)] : 1;
  const int64_t p = d2 > 1 ? other.sizes()[size_t(d2 - 1)] : 1;
  IntArrayRef batch1(self.sizes().data(), size_t(std::max<int64_t>(d1 - 2, 0)));
  IntArrayRef batch2(other.sizes().data(), size_t(std::max<int64_t>(d2 - 2, 0)));
  DimVector batch = broadcast_shapes(batch1, batch2, "matmul");
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  DimVector shape1(batch), shape2(batch);
  shape1.push_back(n);
  shape1.push_back(k1);
  shape2.push_back(k2);
  shape2.push_back(p);
  Tensor lhs = expand(d1 == 1 ? unsqueeze(self, 0) : self, shape1);
  Tensor rhs = expand(d2 == 1 ? unsqueeze(other, 1) : other, shape2);
  Tensor out = bmm(reshape(lhs, {nb, n, k1}), reshape(rhs, {nb, k2, p}));
  DimVector out_shape(batch);
  if (d1 > 1) out_shape.push_back(n);
  if (d2 > 1) out_shape.push_back(p);
  return reshape(out, out_shape);
}

}  // namespace tc::native
