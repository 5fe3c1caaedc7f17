// SPDX-License-Identifier: BSD-3-Clause
// Dropout kernels (CPU): native_dropout and native_dropout_backward, as ATen.
// Training draws a bool keep-mask with probability 1 - p from the default
// generator (through bernoulli_, so a seed reproduces it whatever the thread
// count) and computes input * mask * (1 / (1 - p)) in one pass of the
// element-loop planner. p = 1 drops everything (scale 0, as ATen).
#include <optional>
#include <tuple>

#include "core/iter.h"
#include "core/tensor.h"
#include "cpu/loops.h"
#include "structured/random.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

using cpu::cpu_kernel;
using cpu::opmath_t;

// out = x * mask * scale, in x's dtype (ATen's `input.mul(mask).mul_(scale)`).
Tensor apply_mask(const Tensor& x, const Tensor& mask, double scale, const char* name) {
  Tensor out;
  TensorIter it(name);
  it.add_output(out).add_input(x).add_input(mask, ScalarType::Bool).promote_inputs();
  it.build();
  TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), name, [&] {
    using acc = opmath_t<scalar_t>;
    const acc s = acc(scale);
    cpu_kernel(it, [s](scalar_t v, bool m) -> scalar_t { return acc(v) * acc(m ? 1 : 0) * s; });
  });
  return out;
}

}  // namespace

std::tuple<Tensor, Tensor> native_dropout_cpu(const Tensor& input, double p, std::optional<bool> train) {
  const char* name = "native_dropout";
  if (!structured::check_dropout(input, p, train)) return {tc::clone(input), tc::ones_like(input, ScalarType::Bool)};
  Tensor mask = empty_tensor(input.sizes(), ScalarType::Bool, input.device());
  if (input.numel() == 0) return {empty_tensor(input.sizes(), input.dtype(), input.device()), mask};
  const double keep = 1.0 - p;
  tc::bernoulli_(mask, keep);
  return {apply_mask(input, mask, keep == 0.0 ? 0.0 : 1.0 / keep, name), mask};
}

Tensor native_dropout_backward_cpu(const Tensor& grad_output, const Tensor& mask, double scale) {
  const char* name = "native_dropout_backward";
  structured::check_dropout_backward(grad_output, mask);
  return apply_mask(grad_output, mask, scale, name);
}

}  // namespace tc::native
