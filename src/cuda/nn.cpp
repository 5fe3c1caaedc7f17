// SPDX-License-Identifier: BSD-3-Clause
// softmax, log_softmax, nll_loss and layer_norm (forward and backward) on
// CUDA, after the meta steps every backend shares
// (structured/nn.h). For now each is composed of CUDA ops that exist
// (amax, sum, mean, exp, log, sqrt, gather, comparisons, arithmetic, dtype
// conversions): correct on every
// layout and dtype, a few launches instead of one fused kernel.
#include "core/error.h"
#include "cuda/composed.h"
#include "cuda/runtime.h"
#include "structured/nn.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

using structured::kReductionMean;
using structured::kReductionNone;

// self in the dtype the computation runs in (float32 for half_to_float).
Tensor compute_input(const Tensor& self, ScalarType out_dtype) {
  return self.dtype() == out_dtype ? self : tc::_to_copy(self, out_dtype);
}

Tensor softmax_forward(const Tensor& self, int64_t dim, bool half_to_float, bool log, const char* name) {
  const structured::SoftmaxMeta meta = structured::softmax_meta(self, dim, half_to_float, name);
  const Tensor x = compute_input(self, meta.out_dtype);
  if (x.numel() == 0) return tc::empty_like(x);
  const int64_t dims[1] = {meta.dim};
  // Shifted by the row maximum, so exp never overflows.
  const Tensor shifted = tc::sub(x, tc::amax(x, IntArrayRef(dims, 1), true));
  const Tensor e = tc::exp(shifted);
  const Tensor total = tc::sum(e, IntArrayRef(dims, 1), true);
  return log ? tc::sub(shifted, tc::log(total)) : tc::div(e, total);
}

// softmax:     grad_input = y * (g - sum(g * y))
// log_softmax: grad_input = g - exp(y) * sum(g)
Tensor softmax_backward(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype, bool log,
                        const char* name) {
  const int64_t d = structured::softmax_backward_meta(grad_output, output, dim, input_dtype, name);
  if (grad_output.numel() == 0) return tc::empty_like(grad_output, input_dtype);
  const int64_t dims[1] = {d};
  const IntArrayRef along(dims, 1);
  const Tensor grad = log ? tc::sub(grad_output, tc::mul(tc::exp(output), tc::sum(grad_output, along, true)))
                          : tc::mul(output, tc::sub(grad_output, tc::sum(tc::mul(grad_output, output), along, true)));
  return grad.dtype() == input_dtype ? grad : tc::_to_copy(grad, input_dtype);
}

// The targets as int64 on the device, each checked: in [0, classes) or
// ignore_index. An offender is reported by copying the targets to the host
// and naming its position (the CPU kernel's message).
Tensor checked_targets(const char* name, const Tensor& target, int64_t classes, int64_t ignore_index) {
  Tensor t = target.dtype() == ScalarType::Int64 ? target : tc::_to_copy(target, ScalarType::Int64);
  if (t.numel() == 0) return t;
  // bool arithmetic: * is "and", + is "or"
  const Tensor ok =
      tc::add(tc::mul(tc::ge(t, Scalar(int64_t(0))), tc::lt(t, Scalar(classes))), tc::eq(t, Scalar(ignore_index)));
  if (tc::all(ok).item().to_bool()) return t;
  structured::checked_host_targets(name, tc::_to_copy(t, std::nullopt, Device(DeviceType::CPU)), classes, ignore_index);
  TC_FAIL(Internal, "internal error: ", name, ": a bad target on the device but none on the host");
}

// Per row (N): the target class with ignored rows sent to class 0 (any valid
// index), the row's weight (0 for an ignored row) and a 0/1 mask of the kept
// rows, in self's dtype.
struct Rows {
  Tensor target;  // (N) int64, valid indices
  Tensor weight;  // (N)
  Tensor kept;    // (N) 1 for a kept row, 0 for an ignored one
};
Rows nll_rows(const Tensor& t, const std::optional<Tensor>& weight, int64_t ignore_index, ScalarType dtype) {
  const Tensor kept = tc::ne(t, Scalar(ignore_index));  // bool (N)
  Rows r;
  r.target = tc::mul(t, kept);
  r.kept = tc::_to_copy(kept, dtype);
  r.weight = weight && weight->defined() ? tc::mul(tc::index_select(*weight, 0, r.target), r.kept) : r.kept;
  return r;
}

}  // namespace

Tensor softmax_cuda(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_forward(self, dim, half_to_float, false, "_softmax");
}
Tensor log_softmax_cuda(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_forward(self, dim, half_to_float, true, "_log_softmax");
}
Tensor softmax_backward_cuda(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  return softmax_backward(grad_output, output, dim, input_dtype, false, "_softmax_backward_data");
}
Tensor log_softmax_backward_cuda(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  return softmax_backward(grad_output, output, dim, input_dtype, true, "_log_softmax_backward_data");
}

// loss_i = -w_i * self[i, t_i] over the kept rows; mean divides by the sum of
// their weights (NaN when none is kept), which is total_weight.
std::tuple<Tensor, Tensor> nll_loss_forward_cuda(const Tensor& self, const Tensor& target,
                                                 const std::optional<Tensor>& weight, int64_t reduction,
                                                 int64_t ignore_index) {
  const char* name = "nll_loss_forward";
  const structured::NllShape s = structured::nll_meta(name, self, target, weight, reduction);
  const Tensor t = checked_targets(name, s.batched ? target : tc::reshape(target, {1}), s.classes, ignore_index);
  const Tensor x = s.batched ? self : tc::unsqueeze(self, 0);  // (N, C)
  const Rows r = nll_rows(t, weight, ignore_index, self.dtype());
  const Tensor picked = tc::squeeze(tc::gather(x, 1, tc::unsqueeze(r.target, 1)), 1);  // (N)
  const Tensor losses = cuda::select_or_zero(tc::neg(tc::mul(picked, r.weight)), r.kept);
  const Tensor total_weight = tc::sum(r.weight);
  if (reduction == kReductionNone && s.batched) return {losses, tc::zeros_like(total_weight)};
  Tensor out = tc::sum(losses);
  if (reduction == kReductionMean) out = tc::div(out, total_weight);
  return {out, total_weight};
}

// grad_input[i, t_i] = -w_i * g_i (/ total_weight for mean) for the kept rows,
// zero elsewhere: the per-row coefficient selected by a one-hot (N, C) mask
// (so a NaN coefficient of an all-ignored mean batch stays out).
Tensor nll_loss_backward_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                              const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                              const Tensor& total_weight) {
  const char* name = "nll_loss_backward";
  const structured::NllShape s = structured::nll_meta(name, self, target, weight, reduction);
  structured::nll_backward_meta(name, grad_output, self, total_weight, s, reduction);
  const Tensor t = checked_targets(name, s.batched ? target : tc::reshape(target, {1}), s.classes, ignore_index);
  const Rows r = nll_rows(t, weight, ignore_index, self.dtype());
  Tensor coef = tc::neg(tc::mul(r.weight, tc::reshape(grad_output, {-1})));  // (N), or a broadcast single value
  if (reduction == kReductionMean) coef = tc::div(coef, tc::reshape(total_weight, {}));
  const Tensor classes = tc::_to_copy(tc::arange(Scalar(s.classes), ScalarType::Int64), std::nullopt, self.device());
  const Tensor onehot = tc::eq(tc::unsqueeze(classes, 0), tc::unsqueeze(r.target, 1));       // (N, C) bool
  const Tensor hit = tc::mul(tc::_to_copy(onehot, self.dtype()), tc::unsqueeze(r.kept, 1));  // 0/1, kept rows only
  const Tensor grad = cuda::select_or_zero(tc::expand(tc::unsqueeze(coef, 1), hit.sizes()), hit);
  return s.batched ? grad : tc::squeeze(grad, 0);
}

// ---- layer_norm: the CPU kernel's arithmetic, op by op ----
// Row statistics and the weight/bias gradients in float64, element math in
// float32 (float64 for float64), as the CPU kernel computes them.
namespace {

Tensor as(const Tensor& t, ScalarType dt) { return t.dtype() == dt ? t : tc::_to_copy(t, dt); }
ScalarType element_dtype(ScalarType dt) { return dt == ScalarType::Float64 ? dt : ScalarType::Float32; }
Tensor rows(const Tensor& t, int64_t m, int64_t n) {
  const int64_t shape[2] = {m, n};
  return tc::reshape(t, IntArrayRef(shape, 2));
}
Tensor row_mean64(const Tensor& t) {  // (M, N) -> (M, 1), in float64
  const int64_t d1[1] = {1};
  return tc::mean(as(t, ScalarType::Float64), IntArrayRef(d1, 1), true);
}
Tensor column_sum64(const Tensor& t, IntArrayRef shape, ScalarType dt) {  // (M, N) -> shape, summed in float64
  const int64_t d0[1] = {0};
  return as(tc::reshape(tc::sum(as(t, ScalarType::Float64), IntArrayRef(d0, 1)), shape), dt);
}
Tensor param(const std::optional<Tensor>& t, ScalarType dt, int64_t n) {
  if (!t || !t->defined()) return Tensor();
  const int64_t shape[1] = {n};
  return tc::reshape(as(*t, dt), IntArrayRef(shape, 1));
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> layer_norm_cuda(const Tensor& input, IntArrayRef normalized_shape,
                                                   const std::optional<Tensor>& weight,
                                                   const std::optional<Tensor>& bias, double eps) {
  const char* name = "native_layer_norm";
  const structured::LayerNormShape s = structured::layer_norm_meta(name, input, normalized_shape, weight, bias);
  const ScalarType dt = input.dtype(), ct = element_dtype(dt);
  const DimVector stat_shape = structured::layer_norm_stat_shape(input, s.axis);
  if (s.M == 0)
    return {tc::empty_like(input), cuda::empty_on(stat_shape, dt, input.device()),
            cuda::empty_on(stat_shape, dt, input.device())};
  const Tensor x = rows(input, s.M, s.N);
  const Tensor mu = row_mean64(x);
  const Tensor centered = tc::sub(as(x, ScalarType::Float64), mu);
  const Tensor var = row_mean64(tc::mul(centered, centered));
  const Tensor r = tc::reciprocal(tc::sqrt(tc::add(var, Scalar(eps))));
  Tensor y = tc::mul(tc::sub(as(x, ct), as(mu, ct)), as(r, ct));
  if (const Tensor w = param(weight, ct, s.N); w.defined()) y = tc::mul(y, w);
  if (const Tensor b = param(bias, ct, s.N); b.defined()) y = tc::add(y, b);
  return {tc::reshape(as(y, dt), input.sizes()), tc::reshape(as(mu, dt), stat_shape),
          tc::reshape(as(r, dt), stat_shape)};
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * weight,
// xhat = (x - mean) * rstd; dweight = sum(dy * xhat), dbias = sum(dy) over rows.
std::tuple<Tensor, Tensor, Tensor> layer_norm_backward_cuda(const Tensor& grad_out, const Tensor& input,
                                                            IntArrayRef normalized_shape, const Tensor& mean,
                                                            const Tensor& rstd, const std::optional<Tensor>& weight,
                                                            const std::optional<Tensor>& bias,
                                                            const std::vector<bool>& output_mask) {
  const char* name = "native_layer_norm_backward";
  const structured::LayerNormShape s = structured::layer_norm_meta(name, input, normalized_shape, weight, bias);
  structured::layer_norm_backward_meta(name, grad_out, input, mean, rstd, output_mask, s);
  const ScalarType dt = input.dtype(), ct = element_dtype(dt), f64 = ScalarType::Float64;
  const Tensor x = rows(input, s.M, s.N), dy = rows(grad_out, s.M, s.N);
  const Tensor m = rows(mean, s.M, 1), r = rows(rstd, s.M, 1);
  Tensor dx, dw, db;
  if (output_mask[0]) {
    if (s.M == 0) {
      dx = tc::empty_like(input);
    } else {
      Tensor g = as(dy, ct);
      if (const Tensor w = param(weight, ct, s.N); w.defined()) g = tc::mul(g, w);
      const Tensor mc = as(m, ct), rc = as(r, ct);
      const Tensor xm = tc::sub(as(x, ct), mc);
      const Tensor a = as(row_mean64(g), ct);
      const Tensor c = as(row_mean64(tc::mul(tc::mul(g, xm), rc)), ct);
      dx = tc::mul(rc, tc::sub(tc::sub(g, a), tc::mul(tc::mul(xm, rc), c)));
      dx = tc::reshape(as(dx, dt), input.sizes());
    }
  }
  if (output_mask[1]) {
    const Tensor dy_xhat = tc::mul(tc::mul(as(dy, f64), tc::sub(as(x, f64), as(m, f64))), as(r, f64));
    dw = column_sum64(dy_xhat, normalized_shape, weight && weight->defined() ? weight->dtype() : dt);
  }
  if (output_mask[2]) db = column_sum64(dy, normalized_shape, bias && bias->defined() ? bias->dtype() : dt);
  return {dx, dw, db};
}

}  // namespace tc::native
