// SPDX-License-Identifier: BSD-3-Clause
// CPU kernels of the reduction and cat/stack family (schema entries in
// schema/fragments/reduce_linalg.yaml). The generator's
// tensorc_gen/native_functions.h declares the same signatures; this header
// lets tests and sibling files call them without the generated surface.
#pragma once
#include <optional>
#include <tuple>
#include <vector>

#include "core/tensor.h"

namespace tc::native {

// reduce_sum.cpp
Tensor sum_cpu(const Tensor& self, std::optional<ScalarType> dtype);
Tensor sum_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype);
Tensor mean_cpu(const Tensor& self, std::optional<ScalarType> dtype);
Tensor mean_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype);
Tensor prod_cpu(const Tensor& self, std::optional<ScalarType> dtype);
Tensor prod_dim_cpu(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype);

// reduce_minmax.cpp
Tensor amax_cpu(const Tensor& self, IntArrayRef dim, bool keepdim);
Tensor amin_cpu(const Tensor& self, IntArrayRef dim, bool keepdim);
Tensor max_cpu(const Tensor& self);
Tensor min_cpu(const Tensor& self);
std::tuple<Tensor, Tensor> max_dim_cpu(const Tensor& self, int64_t dim, bool keepdim);
std::tuple<Tensor, Tensor> min_dim_cpu(const Tensor& self, int64_t dim, bool keepdim);
Tensor argmax_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim);
Tensor argmin_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim);

// reduce_logical.cpp
Tensor any_cpu(const Tensor& self);
Tensor any_dim_cpu(const Tensor& self, int64_t dim, bool keepdim);
Tensor any_dims_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim);
Tensor all_cpu(const Tensor& self);
Tensor all_dim_cpu(const Tensor& self, int64_t dim, bool keepdim);
Tensor all_dims_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim);

// reduce_stats.cpp
Tensor var_cpu(const Tensor& self, bool unbiased);
Tensor var_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim);
Tensor var_correction_cpu(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                          bool keepdim);
Tensor std_cpu(const Tensor& self, bool unbiased);
Tensor std_dim_cpu(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim);
Tensor std_correction_cpu(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction,
                          bool keepdim);

// cat.cpp
Tensor cat_cpu(const std::vector<Tensor>& tensors, int64_t dim);
Tensor stack_cpu(const std::vector<Tensor>& tensors, int64_t dim);

}  // namespace tc::native
