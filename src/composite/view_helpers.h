// SPDX-License-Identifier: BSD-3-Clause
// Shape arithmetic shared by the view kernels (view_ops.cpp, view_split.cpp)
// and the copy-based composites (view_implicit.cpp, shape_ops.cpp). Pure
// metadata: nothing here touches tensor data or dispatches.
#pragma once
#include <optional>

#include "core/dims.h"
#include "core/tensor.h"

namespace tc::views {

// Resolves one -1 in `shape` so that it holds `numel` elements (PyTorch's
// infer_size). Errors name `op`: "view: shape '[5]' is invalid for input of size 6".
DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op, const char* arg);

// Strides that let a tensor of (oldshape, oldstride) be viewed as newshape
// without copying, or nullopt when a new dim would span two non-contiguous
// chunks (PyTorch's computeStride; newshape must hold the same numel).
std::optional<DimVector> compute_stride(IntArrayRef oldshape, IntArrayRef oldstride, IntArrayRef newshape);

// True when the elements fill a contiguous block exactly once in some dim
// order (PyTorch's is_non_overlapping_and_dense).
bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides);

// Strides for a fresh copy of `self` as PyTorch's preserve_format gives them:
// self's own strides when non-overlapping and dense, else row-major.
DimVector preserved_strides(const Tensor& self);

// Unchecked building blocks: `dim` already wrapped, range already clamped.
Tensor slice_unchecked(const Tensor& self, int64_t dim, int64_t start, int64_t length, int64_t step);
Tensor select_unchecked(const Tensor& self, int64_t dim, int64_t index);

// a * b, or nullopt on int64 overflow.
inline std::optional<int64_t> mul_checked(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

}  // namespace tc::views
