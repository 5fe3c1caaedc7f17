// SPDX-License-Identifier: BSD-3-Clause
// cat and stack (CPU). Each input is copied into its slice of a fresh
// output; contiguous inputs coalesce to one memcpy per outer row.
#include "core/shape.h"
#include "cpu/reduce_copy.h"
#include "tensorc_gen/native_functions.h"

namespace tc::native {
namespace {

// PyTorch still skips 1-D empty tensors in cat whatever the other shapes are.
bool legacy_skip(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

Tensor cat_impl(const char* op, const std::vector<Tensor>& tensors, int64_t dim) {
  TC_CHECK_ARG(!tensors.empty(), op, ": argument 'tensors' expected a non-empty list of Tensors");
  ScalarType dt = tensors[0].dtype();
  int64_t ref = -1;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TC_CHECK_ARG(t.defined(), op, ": argument 'tensors' has an undefined tensor at position ", i);
    TC_CHECK(t.is_cpu(), Device, op, ": argument 'tensors' expected all tensors on cpu, got ", t.device(),
             " at position ", i);
    TC_CHECK_ARG(t.dim() > 0, op, ": argument 'tensors': zero-dimensional tensor (at position ", i,
                 ") cannot be concatenated");
    dt = promote_types(dt, t.dtype());
    if (ref < 0 && !legacy_skip(t)) ref = int64_t(i);
  }
  if (ref < 0) return empty_tensor({0}, dt);
  const Tensor& r = tensors[size_t(ref)];
  const int64_t nd = r.dim(), d = wrap_dim(dim, nd, op, "dim");
  DimVector out_sizes(r.sizes());
  out_sizes[size_t(d)] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (legacy_skip(t)) continue;
    TC_CHECK_ARG(t.dim() == nd, op, ": argument 'tensors': tensors must have the same number of dimensions: got ", nd,
                 " (tensor ", ref, ") and ", t.dim(), " (tensor ", i, ")");
    for (int64_t k = 0; k < nd; ++k) {
      if (k == d) continue;
      TC_CHECK_ARG(t.sizes()[size_t(k)] == r.sizes()[size_t(k)], op,
                   ": argument 'tensors': sizes of tensors must match except in dimension ", d, ": expected size ",
                   r.sizes()[size_t(k)], " but got size ", t.sizes()[size_t(k)], " for tensor number ", i,
                   " in the list (", r.sizes(), " vs ", t.sizes(), ")");
    }
    out_sizes[size_t(d)] += t.sizes()[size_t(d)];
  }
  Tensor out = empty_tensor(out_sizes, dt);
  const int64_t step = out.strides()[size_t(d)];
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (legacy_skip(t) || t.numel() == 0) {
      if (!legacy_skip(t)) offset += t.sizes()[size_t(d)];
      continue;
    }
    Tensor slice = make_view(out, t.sizes(), out.strides(), out.storage_offset() + offset * step);
    cpu::copy_strided(slice, t);
    offset += t.sizes()[size_t(d)];
  }
  return out;
}

}  // namespace

Tensor cat_cpu(const std::vector<Tensor>& tensors, int64_t dim) { return cat_impl("cat", tensors, dim); }

Tensor stack_cpu(const std::vector<Tensor>& tensors, int64_t dim) {
  TC_CHECK_ARG(!tensors.empty(), "stack: argument 'tensors' expected a non-empty list of Tensors");
  const Tensor& first = tensors[0];
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
    int64_t st = d < t.dim() ? t.sizes()[size_t(d)] * t.strides()[size_t(d)] : 1;
    sizes.insert(size_t(d), 1);
    strides.insert(size_t(d), st);
    views.push_back(make_view(t, sizes, strides, t.storage_offset()));
  }
  return cat_impl("stack", views, d);
}

}  // namespace tc::native
