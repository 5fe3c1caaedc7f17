// SPDX-License-Identifier: BSD-3-Clause
#include "cpu/reduce_copy.h"

#include "core/iter.h"

namespace tc::cpu {

// The conversion loop itself is core's (the element-loop planner's cast_copy);
// these helpers only name the staging pattern the reduction family uses.
void copy_strided(const Tensor& dst, const Tensor& src) {
  TC_INTERNAL_ASSERT(dst.sizes().equals(src.sizes()), "copy_strided: sizes differ");
  if (dst.numel() == 0) return;
  cast_copy(dst, src, "copy");
}

Tensor contiguous_as(const Tensor& src, ScalarType dtype) {
  if (src.is_contiguous() && src.dtype() == dtype) return src;
  Tensor out = empty_tensor(src.sizes(), dtype, src.device());
  copy_strided(out, src);
  return out;
}

}  // namespace tc::cpu
