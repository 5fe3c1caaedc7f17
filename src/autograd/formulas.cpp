// SPDX-License-Identifier: BSD-3-Clause
#include "autograd/formulas.h"

#include <algorithm>

#include "autograd/grad_mode.h"

namespace tc::autograd::formulas {
namespace {

std::vector<int64_t> reduced_dims(IntArrayRef sizes, std::optional<IntArrayRef> dim) {
  std::vector<int64_t> out;
  const int64_t n = int64_t(sizes.size());
  if (!dim || dim->empty()) {
    for (int64_t d = 0; d < n; ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : *dim) out.push_back(wrap_dim(d, n));
  std::sort(out.begin(), out.end());
  return out;
}

int64_t reduced_count(IntArrayRef sizes, std::optional<IntArrayRef> dim) {
  int64_t n = 1;
  for (int64_t d : reduced_dims(sizes, dim))
    if (d < int64_t(sizes.size())) n *= sizes[size_t(d)];
  return n;
}

// Writes `grad` into a zero tensor of `sizes` through `view_of` (a view maker).
// Not differentiable again (create_graph) when the gradient itself needs grad.
template <class ViewOf>
Tensor scatter_into_zeros(const Tensor& grad, IntArrayRef sizes, const char* op, ViewOf view_of) {
  TC_CHECK(!grad.requires_grad(), NotImplemented, "the second derivative of '", op,
           "' is not implemented (create_graph through ", op, ")");
  Tensor z = tc::zeros(sizes, grad.dtype(), grad.device());
  NoGradGuard no_grad;
  Tensor v = view_of(z);
  tc::copy_(v, grad);
  return z;
}

Tensor cat_pieces(const std::vector<Tensor>& grads, const std::vector<int64_t>& piece_sizes, int64_t dim,
                  IntArrayRef sizes, ScalarType dtype, bool unsqueeze) {
  std::vector<Tensor> parts;
  for (size_t i = 0; i < piece_sizes.size(); ++i) {
    if (i < grads.size() && grads[i].defined()) {
      parts.push_back(unsqueeze ? tc::unsqueeze(grads[i], dim) : grads[i]);
    } else {
      std::vector<int64_t> s = sizes.vec();
      s[size_t(dim)] = piece_sizes[i];
      parts.push_back(tc::zeros(IntArrayRef(s), dtype));
    }
  }
  return tc::cat(parts, dim);
}

}  // namespace

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes() == sizes) return grad;
  const int64_t lead = grad.dim() - int64_t(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] == 1 && grad.size(lead + int64_t(d)) != 1) dims.push_back(lead + int64_t(d));
  Tensor g = dims.empty() ? grad : tc::sum(grad, IntArrayRef(dims), true);
  return lead > 0 ? tc::reshape(g, sizes) : g;
}

Tensor unsqueeze_reduced(const Tensor& g, IntArrayRef sizes, std::optional<IntArrayRef> dim, bool keepdim) {
  if (keepdim || sizes.empty()) return g;
  Tensor r = g;
  for (int64_t d : reduced_dims(sizes, dim)) r = tc::unsqueeze(r, d);
  return r;
}

Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, std::optional<IntArrayRef> dim, bool keepdim) {
  return tc::expand(unsqueeze_reduced(grad, sizes, dim, keepdim), sizes);
}

Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, std::optional<IntArrayRef> dim, bool keepdim) {
  return tc::div(sum_backward(grad, sizes, dim, keepdim), Scalar(double(reduced_count(sizes, dim))));
}

Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, std::optional<int64_t> dim,
                     bool keepdim) {
  // d prod / d x_i = the product of the others in x_i's slice, written so that
  // it is itself differentiable (create_graph), zeros included:
  //  - x_i != 0: result / x_i (0 when the slice has a zero; its derivative
  //    flows through result, which is right);
  //  - x_i == 0: the product of the slice's non-zeros times that of its other
  //    zeros: 1 when x_i is the only zero, the other zero itself (value 0,
  //    derivative 1) when there are two, 0 with more (exact to second order).
  std::vector<int64_t> dims;
  if (dim) dims.push_back(*dim);
  std::optional<IntArrayRef> d = dim ? std::optional<IntArrayRef>(IntArrayRef(dims)) : std::nullopt;
  const bool kd = dim ? keepdim : false;
  auto slice_sum = [&](const Tensor& t) { return dim ? tc::sum(t, IntArrayRef(dims), true) : tc::sum(t); };
  Tensor g = unsqueeze_reduced(grad, self.sizes(), d, kd);
  Tensor r = unsqueeze_reduced(result, self.sizes(), d, kd);
  Tensor is_zero = tc::eq(self, Scalar(0.0));
  Tensor zero = tc::zeros_like(self);
  Tensor safe = tc::where(is_zero, tc::ones_like(self), self);
  Tensor zeros_in_slice = slice_sum(is_zero);
  Tensor nz_prod = dim ? tc::prod(safe, *dim, true) : tc::prod(safe);
  Tensor at_nonzero = tc::div(r, safe);
  Tensor other_zero = tc::sub(slice_sum(tc::where(is_zero, self, zero)), self);  // with two zeros
  Tensor other_zeros = tc::where(tc::eq(zeros_in_slice, Scalar(int64_t(1))), tc::ones_like(self),
                                 tc::where(tc::eq(zeros_in_slice, Scalar(int64_t(2))), other_zero, zero));
  return tc::mul(g, tc::where(is_zero, tc::mul(nz_prod, other_zeros), at_nonzero));
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result,
                                  std::optional<IntArrayRef> dim, bool keepdim) {
  Tensor r = unsqueeze_reduced(result, self.sizes(), dim, keepdim);
  Tensor g = unsqueeze_reduced(grad, self.sizes(), dim, keepdim);
  Tensor mask = tc::eq(self, r);
  std::vector<int64_t> dims = reduced_dims(self.sizes(), dim);
  Tensor count = self.dim() == 0 ? tc::ones_like(self) : tc::sum(mask, IntArrayRef(dims), true);
  return tc::div(tc::mul(g, mask), count);
}

Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim) {
  if (sizes.empty()) return grad;
  dim = wrap_dim(dim, int64_t(sizes.size()));
  Tensor g = keepdim ? grad : tc::unsqueeze(grad, dim);
  Tensor idx = keepdim ? indices : tc::unsqueeze(indices, dim);
  std::vector<int64_t> shape(sizes.size(), 1);
  shape[size_t(dim)] = sizes[size_t(dim)];
  Tensor positions = tc::reshape(tc::arange(Scalar(sizes[size_t(dim)]), ScalarType::Int64), IntArrayRef(shape));
  return tc::mul(g, tc::eq(positions, idx));
}

Tensor var_backward(const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dim, double correction,
                    bool keepdim) {
  const double n = double(reduced_count(self.sizes(), dim));
  Tensor g = unsqueeze_reduced(grad, self.sizes(), dim, keepdim);
  std::vector<int64_t> dims = reduced_dims(self.sizes(), dim);
  Tensor mean = self.dim() == 0 ? self : tc::mean(self, IntArrayRef(dims), true);
  return tc::mul(tc::mul(g, tc::sub(self, mean)), Scalar(2.0 / std::max(n - correction, 0.0)));
}

Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dim,
                    double correction, bool keepdim) {
  return var_backward(tc::div(grad, tc::mul(result, Scalar(2.0))), self, dim, correction, keepdim);
}

Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent) {
  const double e = exponent.to_double();
  if (e == 0.0) return tc::zeros_like(self);
  return tc::mul(tc::mul(grad, tc::pow(self, Scalar(e - 1.0))), Scalar(e));
}

Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  // exponent * self^(exponent-1), and 0 where the exponent is 0.
  Tensor d = tc::mul(exponent, tc::pow(self, tc::sub(exponent, Scalar(1.0))));
  return tc::mul(grad, tc::where(tc::eq(exponent, Scalar(0.0)), tc::zeros_like(d), d));
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result) {
  // result * log(self); 0 where self == 0 and exponent >= 0 (PyTorch's convention).
  Tensor d = tc::mul(result, tc::log(self));
  Tensor cond = tc::logical_and(tc::eq(self, Scalar(0.0)), tc::ge(exponent, Scalar(0.0)));
  return tc::mul(grad, tc::where(cond, tc::zeros_like(d), d));
}

Tensor pow_backward_exponent(const Tensor& grad, const Scalar& base, const Tensor& exponent, const Tensor& result) {
  if (base.to_double() == 0.0) {
    Tensor d = tc::mul(result, Scalar(std::log(0.0)));
    return tc::mul(grad, tc::where(tc::ge(exponent, Scalar(0.0)), tc::zeros_like(d), d));
  }
  return tc::mul(grad, tc::mul(result, Scalar(std::log(base.to_double()))));
}

Tensor extremum_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_max, bool for_self) {
  const Tensor& mine = for_self ? self : other;
  const Tensor& theirs = for_self ? other : self;
  Tensor wins = is_max ? tc::gt(mine, theirs) : tc::lt(mine, theirs);
  Tensor ties = tc::eq(mine, theirs);
  Tensor weight = tc::add(wins.to(grad.dtype()), tc::mul(ties.to(grad.dtype()), Scalar(0.5)));
  return tc::mul(grad, weight);
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  Tensor keep = tc::ones_like(self, ScalarType::Bool);
  if (min) keep = tc::logical_and(keep, tc::ge(self, *min));
  if (max) keep = tc::logical_and(keep, tc::le(self, *max));
  return tc::mul(grad, keep);
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Tensor>& min,
                      const std::optional<Tensor>& max) {
  Tensor keep = tc::ones_like(self, ScalarType::Bool);
  if (min) keep = tc::logical_and(keep, tc::ge(self, *min));
  if (max) keep = tc::logical_and(keep, tc::le(self, *max));
  return tc::mul(grad, keep);
}

Tensor gelu_backward(const Tensor& grad, const Tensor& self, std::string_view approximate) {
  if (approximate == "tanh") {
    const double beta = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
    Tensor x2 = tc::mul(self, self);
    Tensor inner = tc::mul(tc::add(self, tc::mul(tc::mul(x2, self), Scalar(kappa))), Scalar(beta));
    Tensor th = tc::tanh(inner);
    Tensor left = tc::mul(tc::add(th, Scalar(1.0)), Scalar(0.5));
    Tensor dinner = tc::mul(tc::add(tc::mul(x2, Scalar(3.0 * kappa)), Scalar(1.0)), Scalar(beta));
    Tensor right = tc::mul(tc::mul(tc::mul(self, Scalar(0.5)), tc::sub(tc::ones_like(th), tc::mul(th, th))), dinner);
    return tc::mul(grad, tc::add(left, right));
  }
  Tensor cdf = tc::mul(tc::add(tc::erf(tc::mul(self, Scalar(M_SQRT1_2))), Scalar(1.0)), Scalar(0.5));
  Tensor pdf = tc::mul(tc::exp(tc::mul(tc::mul(self, self), Scalar(-0.5))), Scalar(M_2_SQRTPI * M_SQRT1_2 * 0.5));
  return tc::mul(grad, tc::add(cdf, tc::mul(self, pdf)));
}

Tensor div_mode_backward_self(const Tensor& grad, const Tensor& other, std::optional<std::string_view> mode) {
  return mode ? tc::zeros_like(grad) : tc::div(grad, other);
}
Tensor div_mode_backward_self(const Tensor& grad, const Scalar& other, std::optional<std::string_view> mode) {
  return mode ? tc::zeros_like(grad) : tc::div(grad, other);
}
Tensor div_mode_backward_other(const Tensor& grad, const Tensor& self, const Tensor& other,
                               std::optional<std::string_view> mode) {
  if (mode) return tc::zeros_like(grad);
  return tc::neg(tc::div(tc::mul(grad, self), tc::mul(other, other)));
}

Tensor permute_backwards(const Tensor& grad, IntArrayRef dims) {
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inverse[size_t(wrap_dim(dims[i], int64_t(dims.size())))] = int64_t(i);
  return tc::permute(grad, IntArrayRef(inverse));
}

Tensor unsqueeze_to(const Tensor& grad, IntArrayRef sizes) { return tc::reshape(grad, sizes); }

Tensor diagonal_backward(const Tensor& grad, IntArrayRef sizes, int64_t offset, int64_t dim1, int64_t dim2) {
  return scatter_into_zeros(grad, sizes, "diagonal",
                            [&](const Tensor& z) { return tc::diagonal(z, offset, dim1, dim2); });
}

Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  return scatter_into_zeros(grad, sizes, "slice", [&](const Tensor& z) { return tc::slice(z, dim, start, end, step); });
}

Tensor as_strided_backward(const Tensor& grad, const Tensor& self, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset) {
  TC_CHECK(!grad.requires_grad(), NotImplemented,
           "the second derivative of 'as_strided' is not implemented (create_graph through as_strided)");
  TC_CHECK(self.device().is_cpu(), NotImplemented,
           "the derivative of 'as_strided' is implemented for CPU tensors only");
  // Storage positions, relative to the lowest one either geometry touches.
  auto positions = [](IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    std::vector<int64_t> pos(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) pos[size_t(i)] = offset + strided_offset(sizes, strides, i);
    return pos;
  };
  const std::vector<int64_t> out_pos = positions(size, stride, storage_offset.value_or(self.storage_offset()));
  const std::vector<int64_t> in_pos = positions(self.sizes(), self.strides(), self.storage_offset());
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto* v : {&out_pos, &in_pos})
    for (int64_t p : *v) lo = std::min(lo, p), hi = std::max(hi, p);
  Tensor g = tc::contiguous(tc::to(grad, ScalarType::Float64));
  std::vector<double> acc(out_pos.empty() && in_pos.empty() ? 0 : size_t(hi - lo + 1), 0.0);
  const double* gp = g.data_ptr<double>();
  for (size_t i = 0; i < out_pos.size(); ++i) acc[size_t(out_pos[i] - lo)] += gp[i];
  Tensor r = tc::empty(self.sizes(), ScalarType::Float64);
  double* rp = r.data_ptr<double>();
  for (size_t i = 0; i < in_pos.size(); ++i) rp[i] = acc[size_t(in_pos[i] - lo)];
  return tc::to(r, grad.dtype());
}

Tensor unfold_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dimension, int64_t size, int64_t step) {
  TC_CHECK(!grad.requires_grad(), NotImplemented,
           "the second derivative of 'unfold' is not implemented (create_graph through unfold)");
  const int64_t ndim = int64_t(input_sizes.size());
  const int64_t d = wrap_dim(dimension, ndim);
  Tensor z = tc::zeros(input_sizes, grad.dtype(), grad.device());
  NoGradGuard no_grad;
  const int64_t windows = ndim == 0 ? 1 : grad.size(d);
  // Window w of the output (its last dim moved back to `d`) adds into
  // elements [w*step, w*step + size) of dim d.
  for (int64_t w = 0; w < windows; ++w) {
    if (ndim == 0) {
      tc::copy_(z, tc::reshape(grad, IntArrayRef{}));
      break;
    }
    Tensor piece = tc::select(grad, d, w);  // input dims with dim d removed, then `size`
    // piece has dims (others..., size): move the last one to position d.
    std::vector<int64_t> order;
    for (int64_t k = 0, o = 0; k < ndim; ++k) order.push_back(k == d ? ndim - 1 : o++);
    Tensor target = tc::narrow(z, d, w * step, size);
    target.add_(tc::permute(piece, IntArrayRef(order)));
  }
  return z;
}

Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index) {
  return scatter_into_zeros(grad, sizes, "select", [&](const Tensor& z) { return tc::select(z, dim, index); });
}

Tensor split_backward(const std::vector<Tensor>& grads, int64_t split_size, int64_t dim, IntArrayRef sizes,
                      ScalarType dtype) {
  dim = wrap_dim(dim, int64_t(sizes.size()));
  std::vector<int64_t> pieces;
  for (int64_t left = sizes[size_t(dim)]; left > 0; left -= split_size) pieces.push_back(std::min(split_size, left));
  if (pieces.empty()) pieces.push_back(0);
  return cat_pieces(grads, pieces, dim, sizes, dtype, false);
}

Tensor split_with_sizes_backward(const std::vector<Tensor>& grads, IntArrayRef split_sizes, int64_t dim,
                                 IntArrayRef sizes, ScalarType dtype) {
  dim = wrap_dim(dim, int64_t(sizes.size()));
  return cat_pieces(grads, split_sizes.vec(), dim, sizes, dtype, false);
}

Tensor unbind_backward(const std::vector<Tensor>& grads, int64_t dim, IntArrayRef sizes, ScalarType dtype) {
  dim = wrap_dim(dim, int64_t(sizes.size()));
  return cat_pieces(grads, std::vector<int64_t>(size_t(sizes[size_t(dim)]), 1), dim, sizes, dtype, true);
}

std::vector<Tensor> cat_backward(const Tensor& grad, const std::vector<Tensor>& tensors, int64_t dim) {
  std::vector<Tensor> out;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    // Legacy empty 1-D tensors take part in cat without a slice of their own.
    if (t.dim() == 1 && t.numel() == 0) {
      out.push_back(Tensor());
      continue;
    }
    const int64_t d = wrap_dim(dim, t.dim());
    const int64_t len = t.size(d);
    out.push_back(tc::narrow(grad, d, offset, len));
    offset += len;
  }
  return out;
}

std::vector<Tensor> stack_backward(const Tensor& grad, size_t count, int64_t dim) {
  std::vector<Tensor> parts = tc::unbind(grad, wrap_dim(dim, grad.dim()));
  parts.resize(count);
  return parts;
}

// ---- neural-network ops ----

std::vector<bool> mask_vector(const std::array<bool, 3>& m) { return {m[0], m[1], m[2]}; }

Tensor softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim) {
  // d/d output of output * (g - sum(g * output)) applied to grad.
  Tensor s = tc::sum(tc::mul(grad_output, output), IntArrayRef(dim), true);
  Tensor gs = tc::sum(tc::mul(grad, output), IntArrayRef(dim), true);
  return tc::sub(tc::mul(grad, tc::sub(grad_output, s)), tc::mul(grad_output, gs));
}

Tensor log_softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim) {
  // d/d output of g - exp(output) * sum(g) applied to grad.
  return tc::neg(tc::mul(tc::mul(grad, tc::exp(output)), tc::sum(grad_output, IntArrayRef(dim), true)));
}

namespace {
// Reduction codes as ATen's: 0 none, 1 mean, 2 sum.
Tensor reduce_like_loss(const Tensor& t, int64_t reduction) {
  if (reduction == 1) return tc::mean(t);
  if (reduction == 2) return tc::sum(t);
  return t;
}
}  // namespace

Tensor mse_loss_double_backward_grad_output(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            int64_t reduction) {
  return reduce_like_loss(tc::mul(tc::mul(grad, tc::sub(self, target)), Scalar(2.0)), reduction);
}

Tensor mse_loss_double_backward(const Tensor& grad, const Tensor& grad_output, int64_t reduction, int64_t numel) {
  Tensor g = tc::mul(tc::mul(grad, grad_output), Scalar(2.0));
  return reduction == 1 ? tc::div(g, Scalar(double(numel))) : g;
}

Tensor bce_with_logits_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                const std::optional<Tensor>& weight, const std::optional<Tensor>& pos_weight,
                                int64_t reduction) {
  // d/dx: sigmoid(x) * (1 + (pw - 1) * t) - pw * t  (pw = 1 without pos_weight)
  Tensor sig = tc::sigmoid(self);
  Tensor d;
  if (pos_weight) {
    Tensor pt = tc::mul(*pos_weight, target);
    d = tc::sub(tc::mul(sig, tc::add(tc::sub(pt, target), Scalar(1.0))), pt);
  } else {
    d = tc::sub(sig, target);
  }
  if (weight) d = tc::mul(d, *weight);
  d = tc::mul(d, grad);
  return reduction == 1 ? tc::div(d, Scalar(double(self.numel()))) : d;
}

Tensor bce_with_logits_target_backward(const Tensor& grad, const Tensor& self, const std::optional<Tensor>& weight,
                                       const std::optional<Tensor>& pos_weight, int64_t reduction) {
  // loss = (1 - t) x + (1 + (pw - 1) t) softplus(-x) -> d/dt = -x + (pw - 1) softplus(-x)
  Tensor d = tc::neg(self);
  if (pos_weight) {
    // softplus(-x) = log1p(exp(-|x|)) + max(-x, 0)
    Tensor sp = tc::add(tc::log1p(tc::exp(tc::neg(tc::abs(self)))), tc::clamp_min(tc::neg(self), Scalar(0.0)));
    d = tc::add(d, tc::mul(tc::sub(*pos_weight, Scalar(1.0)), sp));
  }
  if (weight) d = tc::mul(d, *weight);
  d = tc::mul(d, grad);
  return reduction == 1 ? tc::div(d, Scalar(double(self.numel()))) : d;
}

Tensor native_dropout_backward_differentiable(const Tensor& grad, const Tensor& mask, double p,
                                              std::optional<bool> train) {
  const bool training = train.value_or(true);
  const double scale = !training ? 1.0 : (p == 1.0 ? 0.0 : 1.0 / (1.0 - p));
  return tc::mul(tc::mul(grad, mask), Scalar(scale));
}

}  // namespace tc::autograd::formulas
