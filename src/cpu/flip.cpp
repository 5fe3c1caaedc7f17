// SPDX-License-Identifier: BSD-3-Clause
// flip: a copy with the order of elements reversed along the given dims
// (PyTorch copies too: tensors here have no negative strides).
#include <cstring>

#include "core/shape.h"
#include "core/tensor.h"
#include "cpu/index_util.h"
#include "structured/index.h"
#include "tensorc_gen/native_functions.h"  // checks the kernel matches the schema

namespace tc::native {

Tensor flip_cpu(const Tensor& self, IntArrayRef dims) {
  const uint64_t mask = structured::flip_mask("flip", self, dims);
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  const int64_t n = self.numel(), nd = self.dim();
  if (n == 0) return out;
  // Read self backwards along flipped dims: start at their last element and
  // step by -stride; the output is written in row-major order.
  DimVector step(self.strides());
  int64_t start = 0;
  for (int64_t d = 0; d < nd; ++d)
    if (mask >> d & 1) {
      start += (self.size(d) - 1) * self.stride(d);
      step[size_t(d)] = -self.stride(d);
    }
  const size_t es = self.element_size();
  const char* src = static_cast<const char*>(self.data_ptr()) + start * int64_t(es);
  char* dst = static_cast<char*>(out.data_ptr());
  cpu::StridedWalk<1> walk(self.sizes(), {step});
  for (int64_t i = 0; i < n; ++i, walk.next()) std::memcpy(dst + size_t(i) * es, src + walk.off[0] * int64_t(es), es);
  return out;
}

}  // namespace tc::native
