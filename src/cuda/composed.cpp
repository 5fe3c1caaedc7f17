// SPDX-License-Identifier: BSD-3-Clause
// CUDA kernels composed of other CUDA ops until they get loops of their own:
// var / std (two passes: the mean, then the sum of squared deviations),
// argmax / argmin and max.dim / min.dim (the extreme, then the first
// position holding it), mse_loss and its backward, cat / stack (each input
// copied into its slice), flip (an index_select per flipped dim), clamp
// (comparisons and where, with the CPU loop's NaN rules). Each follows its
// CPU kernel's rules and messages (the shared meta steps). where itself is
// one launch of the pointwise loop.
#include <algorithm>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/iter.h"
#include "core/promotion.h"
#include "core/shape.h"
#include "cuda/composed.h"
#include "cuda/pointwise.h"
#include "cuda/runtime.h"
#include "structured/cat.h"
#include "structured/clamp.h"
#include "structured/index.h"
#include "structured/nn.h"
#include "structured/reduce_plan.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace tc::cuda {

Tensor select_or_zero(const Tensor& value, const Tensor& mask) {
  return tc::threshold_backward(value, mask, Scalar(int64_t(0)));
}

}  // namespace tc::cuda

namespace tc::native {
namespace {

// The number of elements each output of a reduction over `mask` reduces.
int64_t reduced_count(const Tensor& self, uint64_t mask) {
  int64_t n = 1;
  for (int64_t d = 0; d < self.dim(); ++d)
    if ((mask >> d) & 1) n *= self.size(d);
  return n;
}

Tensor var_std(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, double correction, bool keepdim,
               bool take_sqrt) {
  TC_CHECK_TYPE(is_floating(self.dtype()), op, ": only floating point dtypes are supported, got ", self.dtype());
  const uint64_t mask = structured::reduce_mask(self, dim, op);
  const Tensor deviation = tc::sub(self, tc::mean(self, dim, true));
  const Tensor squares = tc::sum(tc::mul(deviation, deviation), dim, keepdim);
  const double divisor = std::max(0.0, double(reduced_count(self, mask)) - correction);
  const Tensor v = tc::div(squares, Scalar(divisor));  // 0 / 0 is NaN, as on the CPU
  return take_sqrt ? tc::sqrt(v) : v;
}

double correction_value(const std::optional<Scalar>& c) { return c ? c->to_double() : 1.0; }

// The index of the first maximum (minimum) along `dim` of self: positions
// holding the extreme (or NaN, which is the extreme when present) score
// n - i, and the best score gives i.
Tensor first_extreme_index(const Tensor& self, int64_t dim, bool keepdim, bool is_max) {
  if (self.dim() == 0) return tc::zeros(IntArrayRef(), ScalarType::Int64, self.device());
  const int64_t n = self.size(dim), dims[1] = {dim};
  const IntArrayRef along(dims, 1);
  const Tensor extreme = is_max ? tc::amax(self, along, true) : tc::amin(self, along, true);
  const Tensor hit = tc::add(tc::eq(self, extreme), tc::ne(self, self));  // bool: "+" is "or"
  DimVector shape(size_t(self.dim()), 1);
  shape[size_t(dim)] = n;
  const Tensor scores =
      tc::reshape(tc::_to_copy(tc::arange(Scalar(n), Scalar(int64_t(0)), Scalar(int64_t(-1)), ScalarType::Int64),
                               std::nullopt, self.device()),
                  shape.ref());
  const Tensor best = tc::amax(tc::mul(hit, scores), along, keepdim);
  return tc::add(tc::neg(best), Scalar(n));
}

Tensor arg_extreme(const char* op, const Tensor& self, std::optional<int64_t> dim, bool keepdim, bool is_max) {
  TC_CHECK_TYPE(self.dtype() != ScalarType::Bool, op, ": unsupported dtype ", self.dtype());
  if (dim) {
    const uint64_t mask = structured::reduce_mask_one(self, *dim, op);
    structured::check_nonempty_reduction(self, mask, op, ErrorCode::Index);
    return first_extreme_index(self, self.dim() ? wrap_dim(*dim, self.dim(), op, "dim") : 0, keepdim, is_max);
  }
  // No dim: the index into the flattened (row-major) tensor.
  TC_CHECK_ARG(self.numel() > 0, op,
               ": expected reduction dim to be specified for input.numel() == 0 (pass the 'dim' argument)");
  const int64_t flat_shape[1] = {-1};
  Tensor index = first_extreme_index(tc::reshape(self, IntArrayRef(flat_shape, 1)), 0, false, is_max);
  if (keepdim && self.dim() > 0) index = tc::reshape(index, DimVector(size_t(self.dim()), 1).ref());
  return index;
}

std::tuple<Tensor, Tensor> extreme_dim(const char* op, const Tensor& self, int64_t dim, bool keepdim, bool is_max) {
  const uint64_t mask = structured::reduce_mask_one(self, dim, op);
  structured::check_nonempty_reduction(self, mask, op, ErrorCode::Index);
  const int64_t d = self.dim() ? wrap_dim(dim, self.dim(), op, "dim") : 0;
  const int64_t dims[1] = {d};
  const IntArrayRef along(dims, self.dim() ? 1 : 0);
  Tensor values = is_max ? tc::amax(self, along, keepdim) : tc::amin(self, along, keepdim);
  return {values, first_extreme_index(self, d, keepdim, is_max)};
}

// The CPU kernel's rule: self and target promote to a floating dtype.
void check_floating(const char* name, const Tensor& self, const Tensor& target) {
  TC_CHECK_TYPE(is_floating(promote_types(self.dtype(), target.dtype())), name,
                ": arguments 'self' and 'target' expected floating point tensors, got ", self.dtype(), " and ",
                target.dtype());
}

Tensor cat_on_device(const char* op, const std::vector<Tensor>& tensors, int64_t dim) {
  const Device device = !tensors.empty() && tensors[0].defined() ? tensors[0].device() : Device(DeviceType::CPU);
  const structured::CatPlan plan = structured::cat_plan(op, tensors, dim, device);
  Tensor out = tc::empty(plan.sizes.ref(), plan.dtype, device);
  if (plan.legacy_empty) return out;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (structured::cat_skips(t)) continue;
    const int64_t length = t.size(plan.dim);
    if (t.numel() > 0) {
      Tensor slice = tc::narrow(out, plan.dim, offset, length);
      tc::copy_(slice, t);
    }
    offset += length;
  }
  return out;
}

// x's truth values (x != 0) as bool; NaN is true, as on the CPU.
Tensor truth(const Tensor& x) { return x.dtype() == ScalarType::Bool ? x : tc::ne(x, Scalar(int64_t(0))); }

}  // namespace

Tensor logical_and_cuda(const Tensor& self, const Tensor& other) {
  return tc::mul(truth(self), truth(other));  // bool "*" is "and"
}
Tensor logical_or_cuda(const Tensor& self, const Tensor& other) {
  return tc::add(truth(self), truth(other));  // bool "+" is "or"
}
Tensor logical_xor_cuda(const Tensor& self, const Tensor& other) { return tc::ne(truth(self), truth(other)); }
Tensor logical_not_cuda(const Tensor& self) { return tc::eq(truth(self), Scalar(false)); }

Tensor isnan_cuda(const Tensor& self) {
  if (!is_floating(self.dtype())) return tc::zeros(self.sizes(), ScalarType::Bool, self.device());
  return tc::ne(self, self);
}
Tensor isinf_cuda(const Tensor& self) {
  if (!is_floating(self.dtype())) return tc::zeros(self.sizes(), ScalarType::Bool, self.device());
  return tc::eq(tc::abs(self), Scalar(std::numeric_limits<double>::infinity()));
}
Tensor isfinite_cuda(const Tensor& self) {
  if (!is_floating(self.dtype())) return tc::ones(self.sizes(), ScalarType::Bool, self.device());
  return tc::lt(tc::abs(self), Scalar(std::numeric_limits<double>::infinity()));  // false for NaN and ±inf
}

// condition ? self : other in their result type, broadcast: the CPU's
// iteration, and the pointwise loop's Where (the selected value is copied
// unchanged, -0.0 and NaN payloads included).
Tensor where_cuda(const Tensor& condition, const Tensor& self, const Tensor& other) {
  TC_CHECK_ARG(condition.defined(), "where: argument 'condition' is an undefined tensor");
  TC_CHECK_TYPE(condition.dtype() == ScalarType::Bool,
                "where: expected condition to be a boolean tensor, but got a tensor with dtype ", condition.dtype());
  Tensor out;
  TensorIter it("where");
  it.add_output(out).add_input(condition, ScalarType::Bool).add_input(self).add_input(other).promote_inputs();
  it.build();
  cuda::launch_pointwise(it, cuda::PointwiseOp::Where, "where");
  return out;
}

Tensor cat_cuda(const std::vector<Tensor>& tensors, int64_t dim) { return cat_on_device("cat", tensors, dim); }

Tensor stack_cuda(const std::vector<Tensor>& tensors, int64_t dim) {
  int64_t d = 0;
  const std::vector<Tensor> views = structured::stack_views(tensors, dim, &d);
  return cat_on_device("stack", views, d);
}

Tensor flip_cuda(const Tensor& self, IntArrayRef dims) {
  const uint64_t mask = structured::flip_mask("flip", self, dims);
  Tensor out = self;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const int64_t n = self.size(d);
    if (!((mask >> d) & 1) || n < 2) continue;
    const Tensor reversed =
        tc::_to_copy(tc::arange(Scalar(n - 1), Scalar(int64_t(-1)), Scalar(int64_t(-1)), ScalarType::Int64),
                     std::nullopt, self.device());
    out = tc::index_select(out, d, reversed);
  }
  return out.is_same(self) ? tc::clone(self) : out;
}

Tensor var_cuda(const Tensor& self, bool unbiased) {
  return var_std("var", self, std::nullopt, unbiased ? 1.0 : 0.0, false, false);
}
Tensor var_dim_cuda(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_std("var", self, dim, unbiased ? 1.0 : 0.0, keepdim, false);
}
Tensor var_correction_cuda(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                           bool keepdim) {
  return var_std("var", self, dim, correction_value(correction), keepdim, false);
}
Tensor std_cuda(const Tensor& self, bool unbiased) {
  return var_std("std", self, std::nullopt, unbiased ? 1.0 : 0.0, false, true);
}
Tensor std_dim_cuda(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_std("std", self, dim, unbiased ? 1.0 : 0.0, keepdim, true);
}
Tensor std_correction_cuda(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                           bool keepdim) {
  return var_std("std", self, dim, correction_value(correction), keepdim, true);
}

Tensor argmax_cuda(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme("argmax", self, dim, keepdim, true);
}
Tensor argmin_cuda(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme("argmin", self, dim, keepdim, false);
}
std::tuple<Tensor, Tensor> max_dim_cuda(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme_dim("max", self, dim, keepdim, true);
}
std::tuple<Tensor, Tensor> min_dim_cuda(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme_dim("min", self, dim, keepdim, false);
}

// (self - target)^2, then the reduction.
Tensor mse_loss_cuda(const Tensor& self, const Tensor& target, int64_t reduction) {
  const char* name = "mse_loss";
  structured::check_reduction(reduction, name);
  check_floating(name, self, target);
  const Tensor d = tc::sub(self, target);
  const Tensor loss = tc::mul(d, d);
  if (reduction == structured::kReductionMean) return tc::mean(loss);
  if (reduction == structured::kReductionSum) return tc::sum(loss);
  return loss;
}

// 2 * (self - target) * grad_output, divided by the count for mean.
Tensor mse_loss_backward_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction) {
  const char* name = "mse_loss_backward";
  structured::check_reduction(reduction, name);
  check_floating(name, self, target);
  const Tensor d = tc::sub(self, target);
  const double norm = reduction == structured::kReductionMean ? 2.0 / double(self.numel()) : 2.0;
  return tc::mul(tc::mul(d, grad_output), Scalar(norm));
}

// PyTorch's stable formula, as the CPU loop (float16 / bfloat16 in float32,
// the loss rounded once), then the reduction:
//   loss = ((1 - t) * x - (1 + (pos_weight - 1) * t) * log_sigmoid(x)) * weight,
//   log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|)).
Tensor binary_cross_entropy_with_logits_cuda(const Tensor& self, const Tensor& target,
                                             const std::optional<Tensor>& weight,
                                             const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const ScalarType dt = structured::bce_with_logits_meta(self, target, weight, pos_weight, reduction);
  const ScalarType acc = dt == ScalarType::Float16 || dt == ScalarType::BFloat16 ? ScalarType::Float32 : dt;
  auto in_acc = [acc](const Tensor& t) { return t.dtype() == acc ? t : tc::_to_copy(t, acc); };
  const Tensor x = in_acc(self), t = in_acc(target);
  const Tensor log_sig = tc::sub(tc::clamp_max(x, Scalar(0.0)), tc::log1p(tc::exp(tc::neg(tc::abs(x)))));
  Tensor log_weight_term = log_sig;
  if (pos_weight && pos_weight->defined())
    log_weight_term = tc::mul(tc::add(tc::mul(tc::sub(in_acc(*pos_weight), Scalar(1.0)), t), Scalar(1.0)), log_sig);
  Tensor loss = tc::sub(tc::mul(tc::rsub(t, Scalar(1.0)), x), log_weight_term);
  if (weight && weight->defined()) loss = tc::mul(loss, in_acc(*weight));
  if (loss.dtype() != dt) loss = tc::_to_copy(loss, dt);
  if (reduction == structured::kReductionMean) return tc::mean(loss);
  if (reduction == structured::kReductionSum) return tc::sum(loss);
  return loss;
}

// ---- clamp: where(x < lo, lo, x), then where(hi < x, hi, x), as the CPU
// loop's comparisons (a NaN x is kept; a NaN tensor bound propagates) ----
namespace {

Tensor in_dtype(const Tensor& t, ScalarType dt) { return t.dtype() == dt ? t : tc::_to_copy(t, dt); }
// A number as a 0-dim CPU tensor of dt: a host operand of the device ops.
Tensor host_value(const Scalar& v, ScalarType dt) { return tc::full({}, v, dt, Device(DeviceType::CPU)); }
Tensor host_nan(ScalarType dt) { return host_value(Scalar(std::numeric_limits<double>::quiet_NaN()), dt); }

bool is_nan(const Scalar& s) { return s.is_floating_point() && s.to_double() != s.to_double(); }

Tensor clamp_numbers(const Tensor& self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi,
                     const char* name) {
  const ScalarType dt = structured::clamp_meta(self, lo, hi, name);
  const Tensor x = in_dtype(self, dt);
  if (lo && hi && is_floating(dt) && (is_nan(*lo) || is_nan(*hi)))
    return tc::full_like(x, Scalar(std::numeric_limits<double>::quiet_NaN()));
  Tensor r = x;
  if (lo) r = tc::where(tc::lt(r, *lo), host_value(*lo, dt), r);
  if (hi) r = tc::where(tc::gt(r, *hi), host_value(*hi, dt), r);
  return r;
}

Tensor clamp_tensors(const Tensor& self, const std::optional<Tensor>& lo, const std::optional<Tensor>& hi,
                     const char* name) {
  const ScalarType dt = structured::clamp_tensors_meta(self, lo ? &*lo : nullptr, hi ? &*hi : nullptr, name);
  const bool has_lo = lo && lo->defined(), has_hi = hi && hi->defined();
  const Tensor x = in_dtype(self, dt);
  const Tensor l = has_lo ? in_dtype(*lo, dt) : Tensor(), h = has_hi ? in_dtype(*hi, dt) : Tensor();
  Tensor r = x;
  if (has_lo) r = tc::where(tc::lt(r, l), l, r);
  if (has_hi) r = tc::where(tc::lt(h, r), h, r);
  if (is_floating(dt)) {
    // The CPU loop: with both bounds a NaN bound makes NaN; with one, it
    // propagates as torch.maximum does.
    if (has_lo && has_hi)
      r = tc::where(tc::logical_or(tc::isnan(l), tc::isnan(h)), host_nan(dt), r);
    else
      r = tc::where(tc::isnan(has_lo ? l : h), has_lo ? l : h, r);
  }
  return r;
}

}  // namespace

Tensor clamp_cuda(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return clamp_numbers(self, min, max, "clamp");
}
Tensor clamp_tensor_cuda(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return clamp_tensors(self, min, max, "clamp");
}
Tensor clamp_min_cuda(const Tensor& self, const Scalar& min) {
  return clamp_numbers(self, min, std::nullopt, "clamp_min");
}
Tensor clamp_min_tensor_cuda(const Tensor& self, const Tensor& min) {
  return clamp_tensors(self, min, std::nullopt, "clamp_min");
}
Tensor clamp_max_cuda(const Tensor& self, const Scalar& max) {
  return clamp_numbers(self, std::nullopt, max, "clamp_max");
}
Tensor clamp_max_tensor_cuda(const Tensor& self, const Tensor& max) {
  return clamp_tensors(self, std::nullopt, max, "clamp_max");
}

}  // namespace tc::native
