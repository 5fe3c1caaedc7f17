// SPDX-License-Identifier: BSD-3-Clause
// cat and stack (CPU). Each input is copied into its slice of a fresh
// output; contiguous inputs coalesce to one memcpy per outer row.
#include "core/shape.h"
#include "cpu/reduce_copy.h"
#include "structured/cat.h"
#include "tensorc_gen/native_functions.h"

namespace tc::native {
namespace {

Tensor cat_impl(const char* op, const std::vector<Tensor>& tensors, int64_t dim) {
  const structured::CatPlan plan = structured::cat_plan(op, tensors, dim, Device(DeviceType::CPU));
  if (plan.legacy_empty) return empty_tensor({0}, plan.dtype);
  Tensor out = empty_tensor(plan.sizes, plan.dtype);
  const int64_t d = plan.dim, step = out.strides()[size_t(d)];
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (structured::cat_skips(t)) continue;
    if (t.numel() > 0) {
      Tensor slice = make_view(out, t.sizes(), out.strides(), out.storage_offset() + offset * step);
      cpu::copy_strided(slice, t);
    }
    offset += t.sizes()[size_t(d)];
  }
  return out;
}

}  // namespace

Tensor cat_cpu(const std::vector<Tensor>& tensors, int64_t dim) { return cat_impl("cat", tensors, dim); }

Tensor stack_cpu(const std::vector<Tensor>& tensors, int64_t dim) {
  int64_t d = 0;
  const std::vector<Tensor> views = structured::stack_views(tensors, dim, &d);
  return cat_impl("stack", views, d);
}

}  // namespace tc::native
