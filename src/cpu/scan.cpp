// SPDX-License-Identifier: BSD-3-Clause
// cumsum: running sums along one dim, accumulated in the compute type
// (float for float16/bfloat16; int64 for integer and bool inputs unless a
// dtype is given, as in ATen). The input is cast to the result dtype first.
#include "core/parallel.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "cpu/index_util.h"
#include "cpu/loops.h"
#include "structured/reduce_plan.h"
#include "tensorc_gen/native_functions.h"  // checks the kernel matches the schema
#include "tensorc_gen/ops.h"

namespace tc::native {

Tensor cumsum_cpu(const Tensor& self, int64_t dim_, std::optional<ScalarType> dtype) {
  const char* op = "cumsum";
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  const ScalarType result = structured::cumsum_dtype(self.dtype(), dtype);
  const Tensor x = self.dtype() == result ? self.contiguous() : self.to(result).contiguous();
  Tensor out = empty_tensor(self.sizes(), result, self.device());
  if (out.numel() == 0) return out;
  const cpu::DimSplit split = cpu::split_at(self.sizes(), dim);
  const int64_t outer = split.outer, size = split.size, inner = split.inner;
  TC_DISPATCH_ALL_TYPES(result, op, [&] {
    using acc = cpu::opmath_t<scalar_t>;
    const scalar_t* in = x.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    // Lines (outer, inner) are independent: threads take disjoint ones.
    parallel_for(0, outer * inner, std::max<int64_t>(1, kGrainSize / size), [&](int64_t b, int64_t e) {
      for (int64_t line = b; line < e; ++line) {
        const int64_t base = (line / inner) * size * inner + line % inner;
        acc sum = acc(0);
        for (int64_t k = 0; k < size; ++k) {
          sum += acc(in[base + k * inner]);
          o[base + k * inner] = scalar_t(sum);
        }
      }
    });
  });
  return out;
}

}  // namespace tc::native
