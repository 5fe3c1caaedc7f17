// SPDX-License-Identifier: BSD-3-Clause
// Helpers that schema/derivatives.yaml formulas call. Written with tc:: ops
// only, so every gradient is itself differentiable (create_graph).
#pragma once
#include <array>
#include <cmath>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/tensor.h"
#include "tensorc_gen/ops.h"

namespace tc::autograd::formulas {

inline Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  const bool one = s.is_floating_point() ? s.to_double() == 1.0 : s.to_int() == 1;
  return one ? t : tc::mul(t, s);
}

inline int64_t wrap_dim(int64_t d, int64_t ndim) {
  const int64_t n = ndim == 0 ? 1 : ndim;
  return d < 0 ? d + n : d;
}

// grad reduced (summed) to `sizes` over broadcast dims.
Tensor sum_to(const Tensor& grad, IntArrayRef sizes);

// A reduced gradient with the reduced dims put back as size 1 (keepdim=false
// reductions), ready to broadcast against the input.
Tensor unsqueeze_reduced(const Tensor& g, IntArrayRef sizes, std::optional<IntArrayRef> dim, bool keepdim);

Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, std::optional<IntArrayRef> dim, bool keepdim);
Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, std::optional<IntArrayRef> dim, bool keepdim);
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, std::optional<int64_t> dim,
                     bool keepdim);
// amax/amin/max/min: the gradient is shared evenly by the tied extrema.
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result,
                                  std::optional<IntArrayRef> dim, bool keepdim);
// max.dim/min.dim: the gradient goes to the selected index.
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim);
Tensor var_backward(const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dim, double correction,
                    bool keepdim);
Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dim,
                    double correction, bool keepdim);
inline double correction_value(const std::optional<Scalar>& c, double dflt = 1.0) { return c ? c->to_double() : dflt; }

Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent);
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result);
Tensor pow_backward_exponent(const Tensor& grad, const Scalar& base, const Tensor& exponent, const Tensor& result);

// maximum/minimum: ties split the gradient in half, as PyTorch.
Tensor extremum_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_max, bool for_self);
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max);
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Tensor>& min,
                      const std::optional<Tensor>& max);
Tensor gelu_backward(const Tensor& grad, const Tensor& self, std::string_view approximate);
Tensor div_mode_backward_self(const Tensor& grad, const Tensor& other, std::optional<std::string_view> mode);
Tensor div_mode_backward_self(const Tensor& grad, const Scalar& other, std::optional<std::string_view> mode);
Tensor div_mode_backward_other(const Tensor& grad, const Tensor& self, const Tensor& other,
                               std::optional<std::string_view> mode);

Tensor permute_backwards(const Tensor& grad, IntArrayRef dims);
Tensor unsqueeze_to(const Tensor& grad, IntArrayRef sizes);  // squeeze's backward
Tensor diagonal_backward(const Tensor& grad, IntArrayRef sizes, int64_t offset, int64_t dim1, int64_t dim2);
Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step);
// as_strided / unfold: gradients summed back onto the input's elements (an
// element read by several outputs gets all their gradients). Not
// differentiable again.
Tensor as_strided_backward(const Tensor& grad, const Tensor& self, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset);
Tensor unfold_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dimension, int64_t size, int64_t step);
Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index);
// Indexing, sort and scan (formulas_index.cpp): each backward writes or reads the gradient
// at the same positions with the dual op, so it is differentiable again.
Tensor index_select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index);
Tensor index_copy_self_backward(const Tensor& grad, int64_t dim, const Tensor& index);
Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, const Scalar& alpha,
                                 IntArrayRef source_sizes);
Tensor gather_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index);
// cumsum: each input element feeds every later output: a reversed cumsum.
Tensor cumsum_backward(const Tensor& grad, int64_t dim);
Tensor scatter_src_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes);
Tensor split_backward(const std::vector<Tensor>& grads, int64_t split_size, int64_t dim, IntArrayRef sizes,
                      ScalarType dtype);
Tensor split_with_sizes_backward(const std::vector<Tensor>& grads, IntArrayRef split_sizes, int64_t dim,
                                 IntArrayRef sizes, ScalarType dtype);
Tensor unbind_backward(const std::vector<Tensor>& grads, int64_t dim, IntArrayRef sizes, ScalarType dtype);
std::vector<Tensor> cat_backward(const Tensor& grad, const std::vector<Tensor>& tensors, int64_t dim);
std::vector<Tensor> stack_backward(const Tensor& grad, size_t count, int64_t dim);

// ---- neural-network ops ----
std::vector<bool> mask_vector(const std::array<bool, 3>& m);
Tensor softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim);
Tensor log_softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim);
Tensor mse_loss_double_backward_grad_output(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            int64_t reduction);
Tensor mse_loss_double_backward(const Tensor& grad, const Tensor& grad_output, int64_t reduction, int64_t numel);
Tensor bce_with_logits_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                const std::optional<Tensor>& weight, const std::optional<Tensor>& pos_weight,
                                int64_t reduction);
Tensor bce_with_logits_target_backward(const Tensor& grad, const Tensor& self, const std::optional<Tensor>& weight,
                                       const std::optional<Tensor>& pos_weight, int64_t reduction);
Tensor native_dropout_backward_differentiable(const Tensor& grad, const Tensor& mask, double p,
                                              std::optional<bool> train);

}  // namespace tc::autograd::formulas
