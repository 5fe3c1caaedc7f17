// SPDX-License-Identifier: BSD-3-Clause
// Neural-network ops as CompositeImplicitAutograd decompositions (ATen's):
// softmax / log_softmax, nll_loss, cross_entropy_loss, dropout, layer_norm
// and linear, written with the generated op functions only, so autograd
// comes from the ops they call and every backend runs them. Ops are called
// as tc::op (dispatch), never as the tc::native kernels of the same name.
#include <optional>

#include "core/shape.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };  // at::Reduction

void check_reduction(int64_t reduction, const char* name) {
  TC_CHECK_ARG(reduction >= kNone && reduction <= kSum, name,
               ": argument 'reduction' expected 0 (none), 1 (mean) or 2 (sum), got ", reduction);
}

bool defined(const std::optional<Tensor>& t) { return t && t->defined(); }

// The input converted to `dtype` when one is given (softmax's dtype argument).
Tensor maybe_convert(const Tensor& self, std::optional<ScalarType> dtype) {
  return dtype && *dtype != self.dtype() ? self.to(*dtype) : self;
}

// nll_loss_forward on (C) / (N, C); (N, C, d1, ..., dk) with target
// (N, d1, ..., dk) moves the class dim last and folds the rest into the batch
// (the same sums as ATen's nll_loss2d), then unfolds a reduction='none' result.
std::tuple<Tensor, Tensor> nll_loss_nd(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                       int64_t reduction, int64_t ignore_index, const char* name) {
  if (self.dim() <= 2) return tc::nll_loss_forward(self, target, weight, reduction, ignore_index);
  const int64_t c = self.size(1);
  DimVector expected{self.size(0)}, order{0};
  for (int64_t d = 2; d < self.dim(); ++d) {
    expected.push_back(self.size(d));
    order.push_back(d);
  }
  order.push_back(1);
  const IntArrayRef want(expected.data(), expected.size());
  TC_CHECK_ARG(target.sizes() == want, name, ": argument 'target' expected shape ", want, " for self of shape ",
               self.sizes(), ", got ", target.sizes());
  auto [out, total] = tc::nll_loss_forward(tc::reshape(tc::permute(self, order), {-1, c}), tc::reshape(target, {-1}),
                                           weight, reduction, ignore_index);
  return {reduction == kNone ? tc::reshape(out, want) : out, total};
}

}  // namespace

Tensor softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return tc::_softmax(maybe_convert(self, dtype), dim, false);
}

Tensor log_softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return tc::_log_softmax(maybe_convert(self, dtype), dim, false);
}

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                int64_t ignore_index) {
  return std::get<0>(nll_loss_nd(self, target, weight, reduction, ignore_index, "nll_loss"));
}

// Class indices: nll_loss(log_softmax(self, class_dim), target). Class
// probabilities (a floating target of self's shape): the soft-label cross
// entropy -sum(weight * target * log_softmax(self)) over the class dim, mean
// dividing by the number of rows. label_smoothing mixes in the uniform
// distribution over the classes, with ATen's formulas.
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  const char* name = "cross_entropy_loss";
  check_reduction(reduction, name);
  TC_CHECK_ARG(label_smoothing >= 0.0 && label_smoothing <= 1.0, name,
               ": argument 'label_smoothing' expected a value in [0, 1], got ", label_smoothing);
  TC_CHECK_ARG(self.dim() >= 1, name, ": argument 'self' expected a (C) or (N, C, ...) tensor, got 0-dim");
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const int64_t classes = self.size(class_dim);
  const Tensor logp = tc::_log_softmax(self, class_dim, false);
  std::optional<Tensor> wb;  // weight shaped to broadcast along the class dim
  if (defined(weight)) {
    TC_CHECK_ARG(weight->dim() == 1 && weight->numel() == classes, name,
                 ": argument 'weight' expected a 1-D tensor with one weight per class (", classes, "), got shape ",
                 weight->sizes());
    DimVector shape(size_t(self.dim()), 1);
    shape[size_t(class_dim)] = classes;
    wb = tc::reshape(*weight, shape);
  }
  const Scalar keep(1.0 - label_smoothing), spread(label_smoothing / double(classes));

  if (is_floating(target.dtype())) {
    TC_CHECK_ARG(target.sizes() == self.sizes(), name,
                 ": argument 'target' (class probabilities) expected the shape of self ", self.sizes(), ", got ",
                 target.sizes());
    const Tensor t = label_smoothing > 0 ? tc::add(tc::mul(target, keep), spread) : target;
    const Tensor prod = wb ? tc::mul(tc::mul(logp, t), *wb) : tc::mul(logp, t);
    const Tensor loss = tc::neg(tc::sum(prod, IntArrayRef(class_dim)));
    if (reduction == kMean) return tc::div(tc::sum(loss), Scalar(double(loss.numel())));  // NaN when empty, as ATen
    return reduction == kSum ? tc::sum(loss) : loss;
  }

  auto [nll, total_weight] = nll_loss_nd(logp, target, weight, reduction, ignore_index, name);
  if (label_smoothing == 0) return nll;
  // smooth = -sum(weight * logp) over the class dim, 0 at ignored targets;
  // mean divides by the nll's total weight.
  Tensor smooth = tc::neg(tc::sum(wb ? tc::mul(logp, *wb) : logp, IntArrayRef(class_dim)));
  smooth = tc::where(tc::eq(target, Scalar(ignore_index)), tc::zeros_like(smooth), smooth);
  const Tensor ret = reduction == kNone  ? smooth
                     : reduction == kSum ? tc::sum(smooth)
                                         : tc::div(tc::sum(smooth), total_weight);
  return tc::add(tc::mul(nll, keep), tc::mul(ret, spread));
}

Tensor dropout(const Tensor& input, double p, bool train) {
  TC_CHECK_ARG(p >= 0.0 && p <= 1.0, "dropout: argument 'p' expected a dropout probability in [0, 1], got ", p);
  if (!train || p == 0.0 || input.numel() == 0) return input;  // ATen returns the input itself
  return std::get<0>(tc::native_dropout(input, p, train));
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enable) {
  return std::get<0>(tc::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

// ATen's: addmm for a 2-D input with a bias, or a contiguous N-D input folded
// to 2-D; otherwise matmul and an out-of-place bias add.
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  const bool has_bias = defined(bias);
  if (input.dim() == 2 && has_bias) return tc::addmm(*bias, input, tc::t(weight));
  if (has_bias && input.dim() >= 3 && input.is_contiguous() && weight.dim() == 2 && bias->dim() == 1) {
    DimVector out_shape(input.sizes());
    out_shape.back() = weight.size(0);
    const Tensor flat = tc::reshape(input, {-1, input.size(-1)});
    return tc::reshape(tc::addmm(*bias, flat, tc::t(weight)), out_shape);
  }
  Tensor out = tc::matmul(input, tc::t(weight));
  return has_bias ? tc::add(out, *bias) : out;
}

}  // namespace tc::native
