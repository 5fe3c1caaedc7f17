// SPDX-License-Identifier: BSD-3-Clause
// The meta steps of the neural-network kernels every backend shares:
// gelu's mode, softmax / log_softmax (forward and backward), nll_loss and
// layer_norm, with ATen's
// argument rules and messages.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace tc::structured {

// gelu's and gelu_backward's `approximate`: false for "none", true for
// "tanh"; anything else is an error naming `name`.
bool gelu_tanh(std::string_view approximate, const char* name);

// at::Reduction.
enum Reduction : int64_t { kReductionNone = 0, kReductionMean = 1, kReductionSum = 2 };
void check_reduction(int64_t reduction, const char* name);

// _softmax / _log_softmax: self floating; half_to_float only for float16 /
// bfloat16 (the result is then float32). Returns the dim the rows run along
// (0 for a 0-dim self) and the result dtype.
struct SoftmaxMeta {
  int64_t dim = 0;
  ScalarType out_dtype = ScalarType::Undefined;
};
SoftmaxMeta softmax_meta(const Tensor& self, int64_t dim, bool half_to_float, const char* name);

// _softmax_backward_data / _log_softmax_backward_data: grad_output and output
// of one floating dtype and shape; input_dtype that dtype, or float16 /
// bfloat16 behind a float32 gradient. Returns the dim as softmax_meta.
int64_t softmax_backward_meta(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype,
                              const char* name);

// nll_loss: self (N, C) with target (N), or self (C) with a 0-dim target;
// target int64 (or uint8); weight, when given, one per class in self's dtype.
struct NllShape {
  int64_t batch = 1;     // N (1 for a 1-D self)
  int64_t classes = 0;   // C
  bool batched = false;  // self is (N, C)
};
NllShape nll_meta(const char* name, const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                  int64_t reduction);
// The targets of a host tensor as contiguous int64, each checked: in
// [0, classes) or ignore_index, else an IndexError naming its position. (A
// device backend checks its targets where they live and calls this on a host
// copy only to report an offender.)
Tensor checked_host_targets(const char* name, const Tensor& target, int64_t classes, int64_t ignore_index);
// nll_loss_backward's other arguments: grad_output of self's dtype, one value
// per row (reduction none, batched) or a single one; total_weight one value.
void nll_backward_meta(const char* name, const Tensor& grad_output, const Tensor& self, const Tensor& total_weight,
                       const NllShape& s, int64_t reduction);

// binary_cross_entropy_with_logits: target of self's shape; weight and
// pos_weight, when given, broadcast to it. Returns the dtype it computes in:
// PyTorch's promotion of the tensors and, where weight or pos_weight is
// absent, the number 1.0 in its place; it must be floating.
ScalarType bce_with_logits_meta(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& pos_weight, int64_t reduction);

// native_layer_norm(_backward): input floating, its shape ending in
// normalized_shape (at least one dim); weight and bias, when given, of that
// shape and floating. The input is M rows of N elements from dim `axis` on.
struct LayerNormShape {
  int64_t M = 1, N = 1, axis = 0;
};
LayerNormShape layer_norm_meta(const char* name, const Tensor& input, IntArrayRef normalized_shape,
                               const std::optional<Tensor>& weight, const std::optional<Tensor>& bias);
// native_layer_norm_backward's other arguments against that shape.
void layer_norm_backward_meta(const char* name, const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                              const Tensor& rstd, const std::vector<bool>& output_mask, const LayerNormShape& s);
// The shape of mean and rstd: input's leading dims, then 1 per normalized dim.
DimVector layer_norm_stat_shape(const Tensor& input, int64_t axis);

}  // namespace tc::structured
