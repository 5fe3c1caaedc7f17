// SPDX-License-Identifier: BSD-3-Clause
#include "structured/index.h"

#include "core/error.h"
#include "core/shape.h"

namespace tc::structured {

void check_element_index(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  TC_CHECK_ARG(index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1), op, ": argument 'index' expected ",
               self.dim(), " dims (self's), got ", index.dim());
  if (src) {
    TC_CHECK_ARG(src->dim() == index.dim() || (src->dim() <= 1 && index.dim() <= 1), op, ": argument 'src' expected ",
                 index.dim(), " dims (index's), got ", src->dim());
    TC_CHECK_TYPE(src->dtype() == self.dtype(), op, ": argument 'src' expected dtype ", self.dtype(), " (self's), got ",
                  src->dtype());
  }
  for (int64_t d = 0; d < index.dim(); ++d) {
    if (d != dim && self.dim() > 0)
      TC_CHECK_ARG(index.size(d) <= self.size(d), op, ": argument 'index' has size ", index.size(d), " at dim ", d,
                   ", expected at most self's ", self.size(d));
    const int64_t src_size = src && src->dim() > 0 ? src->size(d < src->dim() ? d : 0) : 1;  // 0-dim: one element
    if (src)
      TC_CHECK_ARG(index.size(d) <= src_size, op, ": argument 'index' has size ", index.size(d), " at dim ", d,
                   ", expected at most src's ", src_size);
  }
  // A 0-dim index reads one element of src.
  if (src && index.dim() == 0)
    TC_CHECK_ARG(src->numel() >= 1, op, ": argument 'src' is empty, expected at least the index's one element");
}

void check_slice_source(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  TC_CHECK_ARG(index.dim() <= 1, op, ": argument 'index' expected a 0-D or 1-D tensor, got ", index.dim(), "-D");
  TC_CHECK_TYPE(source.dtype() == self.dtype(), op, ": argument 'source' expected dtype ", self.dtype(),
                " (self's), got ", source.dtype());
  DimVector expected(self.sizes());
  if (self.dim() > 0) expected[size_t(dim)] = index.numel();
  const bool ok =
      self.dim() == 0 ? source.numel() == index.numel() && source.dim() <= 1 : IntArrayRef(expected) == source.sizes();
  TC_CHECK_ARG(ok, op, ": argument 'source' expected shape ", IntArrayRef(expected), " (self's with dim ", dim,
               " of the index's length), got ", source.sizes());
}

DimVector index_select_shape(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                             int64_t* wrapped_dim) {
  const int64_t d = wrap_dim(dim, self.dim(), op);
  TC_CHECK_ARG(index.dim() <= 1, op, ": argument 'index' expected a 0-D or 1-D tensor, got ", index.dim(), "-D");
  DimVector shape(self.sizes());
  if (self.dim() > 0)
    shape[size_t(d)] = index.numel();
  else if (index.dim() == 1)
    shape.push_back(index.numel());
  *wrapped_dim = d;
  return shape;
}

uint64_t flip_mask(const char* op, const Tensor& self, IntArrayRef dims) {
  uint64_t mask = 0;
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, self.dim(), op, "dims");
    TC_CHECK_ARG(!(mask >> w & 1), op, ": argument 'dims' names dim ", w, " twice");
    mask |= uint64_t(1) << w;
  }
  return mask;
}

}  // namespace tc::structured
