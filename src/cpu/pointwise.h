// SPDX-License-Identifier: BSD-3-Clause
// CPU pointwise kernels (copy, fill, unary, binary, comparison/logical/
// bitwise, ternary), registered from schema/fragments/pointwise.yaml. The
// generated tensorc_gen/native_functions.h declares the same signatures;
// this header lets tests and sibling kernels call them before it exists.
#pragma once
#include <optional>
#include <string_view>

#include "core/tensor.h"

namespace tc::native {

// ---- copy.cpp ----
Tensor& copy_inplace_cpu(Tensor& self, const Tensor& src, bool non_blocking);
Tensor copy_cpu(const Tensor& self, const Tensor& src, bool non_blocking);

// ---- fill.cpp ----
Tensor& fill_inplace_cpu(Tensor& self, const Scalar& value);
Tensor& fill_tensor_inplace_cpu(Tensor& self, const Tensor& value);
Tensor fill_cpu(const Tensor& self, const Scalar& value);
Tensor fill_tensor_cpu(const Tensor& self, const Tensor& value);
Tensor& zero_inplace_cpu(Tensor& self);

// ---- unary.cpp ----
Tensor abs_cpu(const Tensor& self);
Tensor& abs_out_cpu(const Tensor& self, Tensor& out);
Tensor& abs_inplace_cpu(Tensor& self);
Tensor neg_cpu(const Tensor& self);
Tensor& neg_out_cpu(const Tensor& self, Tensor& out);
Tensor& neg_inplace_cpu(Tensor& self);
Tensor sign_cpu(const Tensor& self);
Tensor& sign_out_cpu(const Tensor& self, Tensor& out);
Tensor& sign_inplace_cpu(Tensor& self);
Tensor exp_cpu(const Tensor& self);
Tensor& exp_out_cpu(const Tensor& self, Tensor& out);
Tensor& exp_inplace_cpu(Tensor& self);
Tensor expm1_cpu(const Tensor& self);
Tensor& expm1_out_cpu(const Tensor& self, Tensor& out);
Tensor& expm1_inplace_cpu(Tensor& self);
Tensor log_cpu(const Tensor& self);
Tensor& log_out_cpu(const Tensor& self, Tensor& out);
Tensor& log_inplace_cpu(Tensor& self);
Tensor log1p_cpu(const Tensor& self);
Tensor& log1p_out_cpu(const Tensor& self, Tensor& out);
Tensor& log1p_inplace_cpu(Tensor& self);
Tensor log2_cpu(const Tensor& self);
Tensor& log2_out_cpu(const Tensor& self, Tensor& out);
Tensor& log2_inplace_cpu(Tensor& self);
Tensor log10_cpu(const Tensor& self);
Tensor& log10_out_cpu(const Tensor& self, Tensor& out);
Tensor& log10_inplace_cpu(Tensor& self);
Tensor sqrt_cpu(const Tensor& self);
Tensor& sqrt_out_cpu(const Tensor& self, Tensor& out);
Tensor& sqrt_inplace_cpu(Tensor& self);
Tensor rsqrt_cpu(const Tensor& self);
Tensor& rsqrt_out_cpu(const Tensor& self, Tensor& out);
Tensor& rsqrt_inplace_cpu(Tensor& self);
Tensor reciprocal_cpu(const Tensor& self);
Tensor& reciprocal_out_cpu(const Tensor& self, Tensor& out);
Tensor& reciprocal_inplace_cpu(Tensor& self);
Tensor sin_cpu(const Tensor& self);
Tensor& sin_out_cpu(const Tensor& self, Tensor& out);
Tensor& sin_inplace_cpu(Tensor& self);
Tensor cos_cpu(const Tensor& self);
Tensor& cos_out_cpu(const Tensor& self, Tensor& out);
Tensor& cos_inplace_cpu(Tensor& self);
Tensor tan_cpu(const Tensor& self);
Tensor& tan_out_cpu(const Tensor& self, Tensor& out);
Tensor& tan_inplace_cpu(Tensor& self);
Tensor asin_cpu(const Tensor& self);
Tensor& asin_out_cpu(const Tensor& self, Tensor& out);
Tensor& asin_inplace_cpu(Tensor& self);
Tensor acos_cpu(const Tensor& self);
Tensor& acos_out_cpu(const Tensor& self, Tensor& out);
Tensor& acos_inplace_cpu(Tensor& self);
Tensor atan_cpu(const Tensor& self);
Tensor& atan_out_cpu(const Tensor& self, Tensor& out);
Tensor& atan_inplace_cpu(Tensor& self);
Tensor sinh_cpu(const Tensor& self);
Tensor& sinh_out_cpu(const Tensor& self, Tensor& out);
Tensor& sinh_inplace_cpu(Tensor& self);
Tensor cosh_cpu(const Tensor& self);
Tensor& cosh_out_cpu(const Tensor& self, Tensor& out);
Tensor& cosh_inplace_cpu(Tensor& self);
Tensor tanh_cpu(const Tensor& self);
Tensor& tanh_out_cpu(const Tensor& self, Tensor& out);
Tensor& tanh_inplace_cpu(Tensor& self);
Tensor sigmoid_cpu(const Tensor& self);
Tensor& sigmoid_out_cpu(const Tensor& self, Tensor& out);
Tensor& sigmoid_inplace_cpu(Tensor& self);
Tensor erf_cpu(const Tensor& self);
Tensor& erf_out_cpu(const Tensor& self, Tensor& out);
Tensor& erf_inplace_cpu(Tensor& self);
Tensor relu_cpu(const Tensor& self);
Tensor& relu_inplace_cpu(Tensor& self);
Tensor gelu_cpu(const Tensor& self, std::string_view approximate);
Tensor floor_cpu(const Tensor& self);
Tensor& floor_out_cpu(const Tensor& self, Tensor& out);
Tensor& floor_inplace_cpu(Tensor& self);
Tensor ceil_cpu(const Tensor& self);
Tensor& ceil_out_cpu(const Tensor& self, Tensor& out);
Tensor& ceil_inplace_cpu(Tensor& self);
Tensor round_cpu(const Tensor& self);
Tensor& round_out_cpu(const Tensor& self, Tensor& out);
Tensor& round_inplace_cpu(Tensor& self);
Tensor round_decimals_cpu(const Tensor& self, int64_t decimals);
Tensor trunc_cpu(const Tensor& self);
Tensor& trunc_out_cpu(const Tensor& self, Tensor& out);
Tensor& trunc_inplace_cpu(Tensor& self);
Tensor isnan_cpu(const Tensor& self);
Tensor isinf_cpu(const Tensor& self);

// ---- binary.cpp ----
Tensor add_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha);
Tensor& add_inplace_cpu(Tensor& self, const Tensor& other, const Scalar& alpha);
Tensor& add_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out);
Tensor add_scalar_cpu(const Tensor& self, const Scalar& other, const Scalar& alpha);
Tensor& add_scalar_inplace_cpu(Tensor& self, const Scalar& other, const Scalar& alpha);
Tensor sub_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha);
Tensor& sub_inplace_cpu(Tensor& self, const Tensor& other, const Scalar& alpha);
Tensor& sub_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out);
Tensor sub_scalar_cpu(const Tensor& self, const Scalar& other, const Scalar& alpha);
Tensor& sub_scalar_inplace_cpu(Tensor& self, const Scalar& other, const Scalar& alpha);
Tensor rsub_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha);
Tensor rsub_scalar_cpu(const Tensor& self, const Scalar& other, const Scalar& alpha);
Tensor mul_cpu(const Tensor& self, const Tensor& other);
Tensor& mul_inplace_cpu(Tensor& self, const Tensor& other);
Tensor& mul_out_cpu(const Tensor& self, const Tensor& other, Tensor& out);
Tensor mul_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor& mul_scalar_inplace_cpu(Tensor& self, const Scalar& other);
Tensor div_cpu(const Tensor& self, const Tensor& other);
Tensor& div_inplace_cpu(Tensor& self, const Tensor& other);
Tensor& div_out_cpu(const Tensor& self, const Tensor& other, Tensor& out);
Tensor div_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor& div_scalar_inplace_cpu(Tensor& self, const Scalar& other);
Tensor div_mode_cpu(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode);
Tensor div_scalar_mode_cpu(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode);
Tensor floor_divide_cpu(const Tensor& self, const Tensor& other);
Tensor floor_divide_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor pow_tensor_tensor_cpu(const Tensor& self, const Tensor& exponent);
Tensor pow_tensor_scalar_cpu(const Tensor& self, const Scalar& exponent);
Tensor pow_scalar_cpu(const Scalar& self, const Tensor& exponent);
Tensor atan2_cpu(const Tensor& self, const Tensor& other);
Tensor fmod_cpu(const Tensor& self, const Tensor& other);
Tensor fmod_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor remainder_cpu(const Tensor& self, const Tensor& other);
Tensor remainder_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor remainder_scalar_tensor_cpu(const Scalar& self, const Tensor& other);
Tensor maximum_cpu(const Tensor& self, const Tensor& other);
Tensor minimum_cpu(const Tensor& self, const Tensor& other);

// ---- compare.cpp ----
Tensor eq_cpu(const Tensor& self, const Tensor& other);
Tensor eq_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor ne_cpu(const Tensor& self, const Tensor& other);
Tensor ne_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor lt_cpu(const Tensor& self, const Tensor& other);
Tensor lt_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor le_cpu(const Tensor& self, const Tensor& other);
Tensor le_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor gt_cpu(const Tensor& self, const Tensor& other);
Tensor gt_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor ge_cpu(const Tensor& self, const Tensor& other);
Tensor ge_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor logical_and_cpu(const Tensor& self, const Tensor& other);
Tensor logical_or_cpu(const Tensor& self, const Tensor& other);
Tensor logical_xor_cpu(const Tensor& self, const Tensor& other);
Tensor logical_not_cpu(const Tensor& self);
Tensor bitwise_and_cpu(const Tensor& self, const Tensor& other);
Tensor bitwise_and_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor bitwise_and_scalar_tensor_cpu(const Scalar& self, const Tensor& other);
Tensor bitwise_or_cpu(const Tensor& self, const Tensor& other);
Tensor bitwise_or_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor bitwise_or_scalar_tensor_cpu(const Scalar& self, const Tensor& other);
Tensor bitwise_xor_cpu(const Tensor& self, const Tensor& other);
Tensor bitwise_xor_scalar_cpu(const Tensor& self, const Scalar& other);
Tensor bitwise_xor_scalar_tensor_cpu(const Scalar& self, const Tensor& other);
Tensor bitwise_not_cpu(const Tensor& self);

// ---- ternary.cpp ----
Tensor where_cpu(const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor clamp_cpu(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max);
Tensor clamp_tensor_cpu(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
Tensor clamp_min_cpu(const Tensor& self, const Scalar& min);
Tensor clamp_min_tensor_cpu(const Tensor& self, const Tensor& min);
Tensor clamp_max_cpu(const Tensor& self, const Scalar& max);
Tensor clamp_max_tensor_cpu(const Tensor& self, const Tensor& max);
Tensor lerp_cpu(const Tensor& self, const Tensor& end, const Scalar& weight);
Tensor lerp_tensor_cpu(const Tensor& self, const Tensor& end, const Tensor& weight);

}  // namespace tc::native
