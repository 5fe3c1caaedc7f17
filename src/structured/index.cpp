// SPDX-License-Identifier: BSD-3-Clause
#include "structured/index.h"

#include "core/error.h"

namespace tc::structured {

void check_element_index(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  TC_CHECK_ARG(index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1), op, ": argument 'index' expected ",
               self.dim(), " dims (self's), got ", index.dim());
  for (int64_t d = 0; d < index.dim() && self.dim() > 0; ++d) {
    if (d != dim)
      TC_CHECK_ARG(index.size(d) <= self.size(d), op, ": argument 'index' has size ", index.size(d), " at dim ", d,
                   ", expected at most self's ", self.size(d));
    if (src)
      TC_CHECK_ARG(index.size(d) <= src->size(d), op, ": argument 'index' has size ", index.size(d), " at dim ", d,
                   ", expected at most src's ", src->size(d));
  }
  if (src) {
    TC_CHECK_ARG(src->dim() == index.dim() || (src->dim() <= 1 && index.dim() <= 1), op, ": argument 'src' expected ",
                 index.dim(), " dims (index's), got ", src->dim());
    TC_CHECK_TYPE(src->dtype() == self.dtype(), op, ": argument 'src' expected dtype ", self.dtype(), " (self's), got ",
                  src->dtype());
  }
}

}  // namespace tc::structured
