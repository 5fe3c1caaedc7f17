// SPDX-License-Identifier: BSD-3-Clause
// Loss kernels (CPU): nll_loss_forward / nll_loss_backward, mse_loss /
// mse_loss_backward, binary_cross_entropy_with_logits. ATen's semantics:
//   - `reduction` is at::Reduction: 0 none, 1 mean, 2 sum;
//   - nll_loss takes self (N, C) with target (N), or self (C) with a 0-dim
//     target; rows whose target is ignore_index contribute nothing; mean
//     divides by the sum of the weights of the non-ignored targets (NaN when
//     there are none), which is also returned as total_weight;
//   - every target is validated (in range or ignore_index) before anything
//     is computed.
// Sums accumulate in double. The pointwise losses run on the element-loop
// planner and reduce through the sum / mean ops.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/iter.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "cpu/loops.h"
#include "structured/nn.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

using cpu::cpu_kernel;
using cpu::opmath_t;

using structured::check_reduction;
using structured::NllShape;
constexpr int64_t kNone = structured::kReductionNone, kMean = structured::kReductionMean,
                  kSum = structured::kReductionSum;

Tensor apply_reduction(const Tensor& loss, int64_t reduction) {
  if (reduction == kMean) return tc::mean(loss);
  if (reduction == kSum) return tc::sum(loss);
  return loss;
}

// ---- nll_loss --------------------------------------------------------------------

// Weights as double (1 without a weight tensor).
std::vector<double> class_weights(const std::optional<Tensor>& weight, int64_t classes) {
  std::vector<double> w(size_t(classes), 1.0);
  if (weight && weight->defined())
    for (int64_t c = 0; c < classes; ++c) w[size_t(c)] = read_element(*weight, c).to_double();
  return w;
}

template <class T>
void nll_forward(const Tensor& self, const int64_t* tgt, const std::vector<double>& w, const NllShape& s,
                 int64_t reduction, int64_t ignore_index, const Tensor& output, const Tensor& total_weight) {
  const T* x = self.data_ptr<T>();
  const int64_t s0 = s.batched ? self.stride(0) : 0, s1 = self.stride(-1);
  T* out = output.data_ptr<T>();
  if (reduction == kNone && s.batched) {
    const int64_t os = output.stride(0);
    for (int64_t i = 0; i < s.batch; ++i) {
      const int64_t c = tgt[i];
      out[i * os] = c == ignore_index ? T(0) : T(-double(x[i * s0 + c * s1]) * w[size_t(c)]);
    }
    *total_weight.data_ptr<T>() = T(0);
    return;
  }
  double loss = 0, wsum = 0;
  for (int64_t i = 0; i < s.batch; ++i) {
    const int64_t c = tgt[i];
    if (c == ignore_index) continue;
    loss -= double(x[i * s0 + c * s1]) * w[size_t(c)];
    wsum += w[size_t(c)];
  }
  if (reduction == kMean) loss /= wsum;  // 0 / 0 = NaN when every target is ignored
  *out = T(loss);
  *total_weight.data_ptr<T>() = T(wsum);
}

template <class T>
void nll_backward(const Tensor& grad_output, const int64_t* tgt, const std::vector<double>& w, const NllShape& s,
                  int64_t reduction, int64_t ignore_index, double total_weight, const Tensor& grad_input) {
  T* gi = grad_input.data_ptr<T>();  // contiguous, zero-filled
  const T* g = grad_output.data_ptr<T>();
  const bool per_row = reduction == kNone && s.batched;
  const int64_t gs = per_row ? grad_output.stride(0) : 0;
  const double scale = reduction == kMean ? 1.0 / total_weight : 1.0;
  for (int64_t i = 0; i < s.batch; ++i) {
    const int64_t c = tgt[i];
    if (c == ignore_index) continue;
    gi[i * s.classes + c] = T(-w[size_t(c)] * double(g[i * gs]) * scale);
  }
}

}  // namespace

std::tuple<Tensor, Tensor> nll_loss_forward_cpu(const Tensor& self, const Tensor& target,
                                                const std::optional<Tensor>& weight, int64_t reduction,
                                                int64_t ignore_index) {
  const char* name = "nll_loss_forward";
  const NllShape s = structured::nll_meta(name, self, target, weight, reduction);
  const Tensor tgt = structured::checked_host_targets(name, target, s.classes, ignore_index);
  const std::vector<double> w = class_weights(weight, s.classes);
  Tensor output = reduction == kNone && s.batched ? empty_tensor({s.batch}, self.dtype(), self.device())
                                                  : empty_tensor(IntArrayRef(), self.dtype(), self.device());
  Tensor total_weight = empty_tensor(IntArrayRef(), self.dtype(), self.device());
  TC_DISPATCH_FLOATING_TYPES(self.dtype(), name, [&] {
    nll_forward<scalar_t>(self, tgt.data_ptr<int64_t>(), w, s, reduction, ignore_index, output, total_weight);
  });
  return {output, total_weight};
}

Tensor nll_loss_backward_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                             const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                             const Tensor& total_weight) {
  const char* name = "nll_loss_backward";
  const NllShape s = structured::nll_meta(name, self, target, weight, reduction);
  structured::nll_backward_meta(name, grad_output, self, total_weight, s, reduction);
  const Tensor tgt = structured::checked_host_targets(name, target, s.classes, ignore_index);
  const std::vector<double> w = class_weights(weight, s.classes);
  const double tw = reduction == kMean ? read_element(total_weight, 0).to_double() : 1.0;
  Tensor grad_input = tc::zeros(self.sizes(), self.dtype(), self.device());
  TC_DISPATCH_FLOATING_TYPES(self.dtype(), name, [&] {
    nll_backward<scalar_t>(grad_output, tgt.data_ptr<int64_t>(), w, s, reduction, ignore_index, tw, grad_input);
  });
  return grad_input;
}

// (self - target)^2, then the reduction.
Tensor mse_loss_cpu(const Tensor& self, const Tensor& target, int64_t reduction) {
  const char* name = "mse_loss";
  check_reduction(reduction, name);
  Tensor loss;
  TensorIter it(name);
  it.add_output(loss).add_input(self).add_input(target).promote_inputs();
  it.build();
  TC_CHECK_TYPE(is_floating(it.common_dtype()), name,
                ": arguments 'self' and 'target' expected floating point tensors, got ", self.dtype(), " and ",
                target.dtype());
  TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), name, [&] {
    using acc = opmath_t<scalar_t>;
    cpu_kernel(it, [](scalar_t a, scalar_t b) -> scalar_t {
      const acc d = acc(a) - acc(b);
      return d * d;
    });
  });
  return apply_reduction(loss, reduction);
}

// norm * (self - target) * grad_output, norm = 2 (2 / numel for mean).
Tensor mse_loss_backward_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction) {
  const char* name = "mse_loss_backward";
  check_reduction(reduction, name);
  Tensor grad_input;
  TensorIter it(name);
  it.add_output(grad_input).add_input(self).add_input(target).add_input(grad_output).promote_inputs();
  it.build();
  TC_CHECK_TYPE(is_floating(it.common_dtype()), name,
                ": arguments 'self', 'target' and 'grad_output' expected floating point tensors, got ", self.dtype(),
                ", ", target.dtype(), " and ", grad_output.dtype());
  const double norm = reduction == kMean ? 2.0 / double(self.numel()) : 2.0;
  TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), name, [&] {
    using acc = opmath_t<scalar_t>;
    const acc n = acc(norm);
    cpu_kernel(it, [n](scalar_t a, scalar_t b, scalar_t g) -> scalar_t { return n * (acc(a) - acc(b)) * acc(g); });
  });
  return grad_input;
}

// PyTorch's stable formula, with log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|)):
//   loss = ((1 - t) * x - (1 + (pos_weight - 1) * t) * log_sigmoid(x)) * weight
Tensor binary_cross_entropy_with_logits_cpu(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight,
                                            const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const char* name = "binary_cross_entropy_with_logits";
  const ScalarType dt = structured::bce_with_logits_meta(self, target, weight, pos_weight, reduction);
  const bool has_w = weight && weight->defined(), has_pw = pos_weight && pos_weight->defined();
  Tensor loss;
  TensorIter it(name);
  it.add_output(loss).add_input(self).add_input(target);
  if (has_w)
    it.add_input(*weight);
  else
    it.add_scalar_input(Scalar(1.0));
  if (has_pw)
    it.add_input(*pos_weight);
  else
    it.add_scalar_input(Scalar(1.0));
  it.promote_inputs();
  it.build();
  TC_CHECK(it.common_dtype() == dt, Internal, "internal error: ", name, ": the meta step's dtype ", dt,
           " is not the iteration's ", it.common_dtype());
  TC_DISPATCH_FLOATING_TYPES(it.common_dtype(), name, [&] {
    using acc = opmath_t<scalar_t>;
    cpu_kernel(
        it,
        [](scalar_t xs, scalar_t ts, scalar_t ws, scalar_t pws) -> scalar_t {
          const acc x = xs, t = ts;
          const acc log_sig = std::min(x, acc(0)) - std::log1p(std::exp(-std::abs(x)));
          const acc log_weight = (acc(pws) - acc(1)) * t + acc(1);
          return ((acc(1) - t) * x - log_weight * log_sig) * acc(ws);
        },
        cpu::kTranscendentalGrain);
  });
  return apply_reduction(loss, reduction);
}

}  // namespace tc::native
