// SPDX-License-Identifier: BSD-3-Clause
// Backward formulas of the indexing, sort and scan ops (declared in formulas.h). Each one
// is written with dispatched tc:: ops, so it is recorded under create_graph.
#include "autograd/formulas.h"

namespace tc::autograd::formulas {

// index_select: the gradient slices added back at their positions (a
// repeated index collects every slice's gradient).
Tensor index_select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index) {
  return tc::index_add(tc::zeros(sizes, grad.scalar_type(), grad.device()), dim, index, grad);
}

// index_copy, self: the overwritten slices get no gradient.
Tensor index_copy_self_backward(const Tensor& grad, int64_t dim, const Tensor& index) {
  DimVector shape(grad.sizes());
  if (grad.dim() > 0) shape[size_t(wrap_dim(dim, grad.dim()))] = index.numel();
  return tc::index_copy(grad, dim, index, tc::zeros(shape, grad.scalar_type(), grad.device()));
}

// index_add, source: the gradient at the slices source was added to.
Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, const Scalar& alpha,
                                 IntArrayRef source_sizes) {
  return tc::reshape(maybe_multiply(tc::index_select(grad, dim, index), alpha), source_sizes);
}

// gather: the gradient of each taken element added back where it came from.
Tensor gather_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index) {
  return tc::scatter_add(tc::zeros(sizes, grad.scalar_type(), grad.device()), dim, index, grad);
}

// scatter / scatter_add, src: the gradient at the positions src was read
// from, which are the first index.size(d) along each dim d of src (zero
// elsewhere; cat with zeros keeps it differentiable).
Tensor scatter_src_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes) {
  Tensor g = tc::gather(grad, dim, index);
  for (int64_t d = 0; d < g.dim() && d < int64_t(src_sizes.size()); ++d) {
    const int64_t missing = src_sizes[size_t(d)] - g.size(d);
    if (missing <= 0) continue;
    DimVector pad(g.sizes());
    pad[size_t(d)] = missing;
    g = tc::cat({g, tc::zeros(pad, g.scalar_type(), g.device())}, d);
  }
  return g;
}

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.dim() == 0) return grad;
  const int64_t d = wrap_dim(dim, grad.dim());
  return tc::flip(tc::cumsum(tc::flip(grad, IntArrayRef(d)), d), IntArrayRef(d));
}

}  // namespace tc::autograd::formulas
