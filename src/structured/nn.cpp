// SPDX-License-Identifier: BSD-3-Clause
#include "structured/nn.h"

#include "core/error.h"
#include "core/promotion.h"
#include "core/shape.h"

namespace tc::structured {

bool gelu_tanh(std::string_view approximate, const char* name) {
  const bool tanh_approx = approximate == "tanh";
  TC_CHECK_ARG(tanh_approx || approximate == "none", name,
               ": argument 'approximate' must be either 'none' or 'tanh', got '", approximate, "'");
  return tanh_approx;
}

void check_reduction(int64_t reduction, const char* name) {
  TC_CHECK_ARG(reduction >= kReductionNone && reduction <= kReductionSum, name,
               ": argument 'reduction' expected 0 (none), 1 (mean) or 2 (sum), got ", reduction);
}

namespace {

void check_broadcasts_to(const char* name, const char* arg, const Tensor& t, const Tensor& self) {
  bool ok = t.dim() <= self.dim();
  for (int64_t i = 1; ok && i <= t.dim(); ++i) ok = t.size(-i) == 1 || t.size(-i) == self.size(-i);
  TC_CHECK_ARG(ok, name, ": argument '", arg, "' of shape ", t.sizes(), " must broadcast to the shape of self ",
               self.sizes());
}

}  // namespace

ScalarType bce_with_logits_meta(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& pos_weight, int64_t reduction) {
  const char* name = "binary_cross_entropy_with_logits";
  check_reduction(reduction, name);
  TC_CHECK_ARG(target.sizes() == self.sizes(), name, ": argument 'target' expected the shape of self ", self.sizes(),
               ", got ", target.sizes());
  const bool has_w = weight && weight->defined(), has_pw = pos_weight && pos_weight->defined();
  if (has_w) check_broadcasts_to(name, "weight", *weight, self);
  if (has_pw) check_broadcasts_to(name, "pos_weight", *pos_weight, self);
  ScalarType dt = has_w && has_pw ? result_type({self, target, *weight, *pos_weight})
                  : has_w         ? result_type({self, target, *weight})
                  : has_pw        ? result_type({self, target, *pos_weight})
                                  : result_type({self, target});
  // 1.0 in place of a missing one: an integral or bool result becomes the default float dtype.
  if (!(has_w && has_pw) && !is_floating(dt)) dt = ScalarType::Float32;
  TC_CHECK_TYPE(is_floating(dt), name, ": arguments 'self' and 'target' expected floating point ", "tensors, got ",
                self.dtype(), " and ", target.dtype());
  return dt;
}

SoftmaxMeta softmax_meta(const Tensor& self, int64_t dim, bool half_to_float, const char* name) {
  TC_CHECK_ARG(self.defined(), name, ": argument 'self' is an undefined tensor");
  const ScalarType dt = self.dtype();
  TC_CHECK_TYPE(is_floating(dt), name, ": argument 'self' expected a floating point tensor, got ", dt);
  TC_CHECK_TYPE(!half_to_float || is_reduced_float(dt), name,
                ": argument 'half_to_float' is only supported for float16 or bfloat16 input, got ", dt);
  const int64_t d = wrap_dim(dim, self.dim(), name, "dim");
  return {self.dim() == 0 ? 0 : d, half_to_float ? ScalarType::Float32 : dt};
}

int64_t softmax_backward_meta(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype,
                              const char* name) {
  const ScalarType dt = grad_output.dtype();
  TC_CHECK_TYPE(is_floating(dt), name, ": argument 'grad_output' expected a floating point tensor, got ", dt);
  TC_CHECK_TYPE(output.dtype() == dt, name, ": argument 'output' expected dtype ", dt,
                " (the dtype of grad_output), got ", output.dtype());
  TC_CHECK_ARG(output.sizes() == grad_output.sizes(), name, ": argument 'output' expected shape ", grad_output.sizes(),
               " (the shape of grad_output), got ", output.sizes());
  // grad_input has the forward input's dtype: grad_output's, or float16 /
  // bfloat16 behind a float32 gradient (the half_to_float forward).
  const bool half_to_float = input_dtype != dt;
  TC_CHECK_TYPE(!half_to_float || (dt == ScalarType::Float32 && is_reduced_float(input_dtype)), name,
                ": argument 'input_dtype' expected ", dt,
                " (the dtype of grad_output), or float16/bfloat16 with a float32 grad_output, got ", input_dtype);
  const int64_t d = wrap_dim(dim, grad_output.dim(), name, "dim");
  return grad_output.dim() == 0 ? 0 : d;
}

NllShape nll_meta(const char* name, const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                  int64_t reduction) {
  check_reduction(reduction, name);
  TC_CHECK_TYPE(is_floating(self.dtype()), name, ": argument 'self' expected a floating point tensor, got ",
                self.dtype());
  TC_CHECK_ARG(self.dim() == 1 || self.dim() == 2, name,
               ": argument 'self' expected a 1-D (C) or 2-D (N, C) tensor, got ", self.dim(), "-D");
  TC_CHECK_TYPE(target.dtype() == ScalarType::Int64 || target.dtype() == ScalarType::UInt8, name,
                ": argument 'target' expected an int64 tensor of class indices, got ", target.dtype());
  NllShape s;
  s.batched = self.dim() == 2;
  s.classes = self.size(-1);
  if (s.batched) {
    s.batch = self.size(0);
    TC_CHECK_ARG(target.dim() == 1 && target.size(0) == s.batch, name, ": argument 'target' expected shape [", s.batch,
                 "] for self of shape ", self.sizes(), ", got ", target.sizes());
  } else {
    TC_CHECK_ARG(target.dim() == 0, name, ": argument 'target' expected a 0-dim tensor for self of shape ",
                 self.sizes(), ", got shape ", target.sizes());
  }
  if (weight && weight->defined()) {
    TC_CHECK_ARG(weight->dim() == 1 && weight->numel() == s.classes, name,
                 ": argument 'weight' expected a 1-D tensor with one weight per class (", s.classes, "), got shape ",
                 weight->sizes());
    TC_CHECK_TYPE(weight->dtype() == self.dtype(), name, ": argument 'weight' expected dtype ", self.dtype(),
                  " (the dtype of self), got ", weight->dtype());
  }
  return s;
}

Tensor checked_host_targets(const char* name, const Tensor& target, int64_t classes, int64_t ignore_index) {
  Tensor t = target.dtype() == ScalarType::Int64 ? target.contiguous() : target.to(ScalarType::Int64);
  const int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) {
    const int64_t c = p[i];
    TC_CHECK_INDEX(c == ignore_index || (c >= 0 && c < classes), name, ": argument 'target' has class index ", c,
                   " at position ", i, ", expected a value in [0, ", classes, ") or ignore_index (", ignore_index, ")");
  }
  return t;
}

void nll_backward_meta(const char* name, const Tensor& grad_output, const Tensor& self, const Tensor& total_weight,
                       const NllShape& s, int64_t reduction) {
  TC_CHECK_TYPE(grad_output.dtype() == self.dtype(), name, ": argument 'grad_output' expected dtype ", self.dtype(),
                " (the dtype of self), got ", grad_output.dtype());
  if (reduction == kReductionNone && s.batched) {
    TC_CHECK_ARG(grad_output.dim() == 1 && grad_output.size(0) == s.batch, name,
                 ": argument 'grad_output' expected shape [", s.batch, "] (reduction none), got ", grad_output.sizes());
  } else {
    TC_CHECK_ARG(grad_output.dim() <= 1 && grad_output.numel() == 1, name,
                 ": argument 'grad_output' expected a single-element tensor, got shape ", grad_output.sizes());
  }
  TC_CHECK_ARG(total_weight.numel() == 1, name,
               ": argument 'total_weight' expected a single-element tensor, got shape ", total_weight.sizes());
}

// ---- layer_norm ----

namespace {
void check_layer_norm_param(const char* name, const char* arg, const std::optional<Tensor>& t,
                            IntArrayRef normalized_shape) {
  if (!t || !t->defined()) return;
  TC_CHECK_ARG(t->sizes() == normalized_shape, name, ": argument '", arg, "' expected shape ", normalized_shape,
               " (normalized_shape), got ", t->sizes());
  TC_CHECK_TYPE(is_floating(t->dtype()), name, ": argument '", arg, "' expected a floating point tensor, got ",
                t->dtype());
}
}  // namespace

LayerNormShape layer_norm_meta(const char* name, const Tensor& input, IntArrayRef normalized_shape,
                               const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  const int64_t nd = int64_t(normalized_shape.size()), dim = input.dim();
  TC_CHECK_ARG(nd >= 1, name, ": argument 'normalized_shape' expected at least one dim, got ", normalized_shape);
  TC_CHECK_TYPE(is_floating(input.dtype()), name, ": argument 'input' expected a floating point tensor, got ",
                input.dtype());
  bool ok = dim >= nd;
  for (int64_t i = 0; ok && i < nd; ++i) ok = input.sizes()[size_t(dim - nd + i)] == normalized_shape[size_t(i)];
  TC_CHECK_ARG(ok, name, ": argument 'input' expected a shape ending in normalized_shape ", normalized_shape, ", got ",
               input.sizes());
  check_layer_norm_param(name, "weight", weight, normalized_shape);
  check_layer_norm_param(name, "bias", bias, normalized_shape);
  LayerNormShape s;
  s.axis = dim - nd;
  for (int64_t d = 0; d < dim; ++d) (d < s.axis ? s.M : s.N) *= input.sizes()[size_t(d)];
  return s;
}

void layer_norm_backward_meta(const char* name, const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                              const Tensor& rstd, const std::vector<bool>& output_mask, const LayerNormShape& s) {
  TC_CHECK_ARG(output_mask.size() == 3, name, ": argument 'output_mask' expected 3 values, got ", output_mask.size());
  TC_CHECK_ARG(grad_out.sizes() == input.sizes(), name, ": argument 'grad_out' expected shape ", input.sizes(),
               " (the shape of input), got ", grad_out.sizes());
  TC_CHECK_TYPE(grad_out.dtype() == input.dtype(), name, ": argument 'grad_out' expected dtype ", input.dtype(),
                " (the dtype of input), got ", grad_out.dtype());
  TC_CHECK_ARG(mean.numel() == s.M, name, ": argument 'mean' expected ", s.M, " elements (one per row), got shape ",
               mean.sizes());
  TC_CHECK_ARG(rstd.numel() == s.M, name, ": argument 'rstd' expected ", s.M, " elements (one per row), got shape ",
               rstd.sizes());
  TC_CHECK_TYPE(is_floating(mean.dtype()), name, ": argument 'mean' expected a floating point tensor, got ",
                mean.dtype());
  TC_CHECK_TYPE(is_floating(rstd.dtype()), name, ": argument 'rstd' expected a floating point tensor, got ",
                rstd.dtype());
}

DimVector layer_norm_stat_shape(const Tensor& input, int64_t axis) {
  DimVector shape(input.sizes());
  for (size_t d = size_t(axis); d < shape.size(); ++d) shape[d] = 1;
  return shape;
}

}  // namespace tc::structured
