// SPDX-License-Identifier: BSD-3-Clause
// The meta step of cat and stack, shared by every backend: the checks, the
// result's shape and dtype, and where each input goes. A backend then copies
// each input into its slice.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace tc::structured {

struct CatPlan {
  DimVector sizes;  // the result's shape
  ScalarType dtype = ScalarType::Undefined;
  int64_t dim = 0;            // the dim the inputs are joined along
  bool legacy_empty = false;  // every input is a 1-D empty tensor: the result is empty({0})
};
// Inputs: non-empty list, defined, on `device`, not 0-dim, one rank and equal
// sizes except along dim (PyTorch still skips 1-D empty tensors whatever the
// other shapes are: is_skipped). Errors name `op` and the input's position.
CatPlan cat_plan(const char* op, const std::vector<Tensor>& tensors, int64_t dim, Device device);
bool cat_skips(const Tensor& t);

// stack: the inputs, all of one shape, as views with a size-1 dim inserted
// at `dim` (returned in *wrapped_dim, wrapped), ready for cat.
std::vector<Tensor> stack_views(const std::vector<Tensor>& tensors, int64_t dim, int64_t* wrapped_dim);

}  // namespace tc::structured
