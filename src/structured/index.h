// SPDX-License-Identifier: BSD-3-Clause
// The argument rules of the index ops that every backend shares.
#pragma once
#include "core/tensor.h"

namespace tc::structured {

// gather and the scatters: index has self's number of dims and fits inside
// self (except along dim) and inside src (everywhere); src has self's dtype.
void check_element_index(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src);

// index_copy and index_add: index is 0-D or 1-D; source has self's dtype and
// self's shape with dim resized to the number of indices.
void check_slice_source(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);

// index_select: index is 0-D or 1-D; returns the result's shape (self's
// with dim resized to the number of indices; a 0-dim self and a 1-D index
// give a 1-D result) and the wrapped dim in *wrapped_dim. Index values are
// the backend's to check (they live on its device).
DimVector index_select_shape(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                             int64_t* wrapped_dim);

// flip: the dims as a mask, each wrapped; a dim named twice is an error.
uint64_t flip_mask(const char* op, const Tensor& self, IntArrayRef dims);

}  // namespace tc::structured
