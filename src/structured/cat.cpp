// SPDX-License-Identifier: BSD-3-Clause
#include "structured/cat.h"

#include "core/error.h"
#include "core/shape.h"

namespace tc::structured {

bool cat_skips(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

CatPlan cat_plan(const char* op, const std::vector<Tensor>& tensors, int64_t dim, Device device) {
  TC_CHECK_ARG(!tensors.empty(), op, ": argument 'tensors' expected a non-empty list of Tensors");
  CatPlan plan;
  plan.dtype = tensors[0].defined() ? tensors[0].dtype() : ScalarType::Float32;
  int64_t ref = -1;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TC_CHECK_ARG(t.defined(), op, ": argument 'tensors' has an undefined tensor at position ", i);
    TC_CHECK(t.device() == device, Device, op, ": argument 'tensors' expected all tensors on ", device, ", got ",
             t.device(), " at position ", i);
    TC_CHECK_ARG(t.dim() > 0, op, ": argument 'tensors': zero-dimensional tensor (at position ", i,
                 ") cannot be concatenated");
    plan.dtype = promote_types(plan.dtype, t.dtype());
    if (ref < 0 && !cat_skips(t)) ref = int64_t(i);
  }
  if (ref < 0) {
    plan.legacy_empty = true;
    plan.sizes = DimVector{0};
    return plan;
  }
  const Tensor& r = tensors[size_t(ref)];
  const int64_t nd = r.dim(), d = wrap_dim(dim, nd, op, "dim");
  plan.dim = d;
  plan.sizes = DimVector(r.sizes());
  plan.sizes[size_t(d)] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (cat_skips(t)) continue;
    TC_CHECK_ARG(t.dim() == nd, op, ": argument 'tensors': tensors must have the same number of dimensions: got ", nd,
                 " (tensor ", ref, ") and ", t.dim(), " (tensor ", i, ")");
    for (int64_t k = 0; k < nd; ++k) {
      if (k == d) continue;
      TC_CHECK_ARG(t.sizes()[size_t(k)] == r.sizes()[size_t(k)], op,
                   ": argument 'tensors': sizes of tensors must match except in dimension ", d, ": expected size ",
                   r.sizes()[size_t(k)], " but got size ", t.sizes()[size_t(k)], " for tensor number ", i,
                   " in the list (", r.sizes(), " vs ", t.sizes(), ")");
    }
    plan.sizes[size_t(d)] += t.sizes()[size_t(d)];
  }
  return plan;
}

std::vector<Tensor> stack_views(const std::vector<Tensor>& tensors, int64_t dim, int64_t* wrapped_dim) {
  TC_CHECK_ARG(!tensors.empty(), "stack: argument 'tensors' expected a non-empty list of Tensors");
  const Tensor& first = tensors[0];
  TC_CHECK_ARG(first.defined(), "stack: argument 'tensors' has an undefined tensor at position 0");
  const int64_t d = wrap_dim(dim, first.dim() + 1, "stack", "dim");
  std::vector<Tensor> views;
  views.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TC_CHECK_ARG(t.defined(), "stack: argument 'tensors' has an undefined tensor at position ", i);
    TC_CHECK_ARG(t.sizes().equals(first.sizes()),
                 "stack: argument 'tensors': expected each tensor to be equal size, but got ", first.sizes(),
                 " at entry 0 and ", t.sizes(), " at entry ", i);
    // unsqueeze(d) as metadata: the new dim's stride is irrelevant (size 1).
    DimVector sizes(t.sizes()), strides(t.strides());
    const int64_t st = d < t.dim() ? t.sizes()[size_t(d)] * t.strides()[size_t(d)] : 1;
    sizes.insert(size_t(d), 1);
    strides.insert(size_t(d), st);
    views.push_back(make_view(t, sizes, strides, t.storage_offset()));
  }
  *wrapped_dim = d;
  return views;
}

}  // namespace tc::structured
