// SPDX-License-Identifier: BSD-3-Clause
// Shape arithmetic shared by every kernel: checked sizes, strides,
// dim wrapping, broadcasting.
#pragma once
#include <cstdint>

#include "core/dims.h"

namespace tc {

// Product of sizes; throws InvalidArgument for a negative size and
// OutOfMemory if the product overflows int64. `op` names the caller in errors.
int64_t checked_numel(IntArrayRef sizes, const char* op);
DimVector contiguous_strides(IntArrayRef sizes);

// Bytes of storage that a tensor of (sizes, strides) starting at element
// `offset` reaches: (offset + 1 + sum((size - 1) * stride)) * itemsize, and 0
// when it has no elements. Strides must be non-negative. Every product and
// sum is checked, in bytes as well as in elements: returns false if the
// result does not fit in int64.
bool storage_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t offset, int64_t itemsize, int64_t* nbytes);
// The same for a new storage (offset 0), as the ops that make or wrap one
// report it: a negative stride is InvalidArgument and an overflow OutOfMemory,
// both naming `op` and its argument `arg` (the strides).
int64_t checked_storage_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t itemsize, const char* op,
                               const char* arg);
bool compute_is_contiguous(IntArrayRef sizes, IntArrayRef strides);

// Wraps a possibly negative dim into [0, ndim). A zero-dim tensor accepts
// dims -1 and 0, as in PyTorch. Throws Index naming op and argument.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op, const char* arg = "dim");

// Broadcast two or more shapes (numpy rules). Throws InvalidArgument naming op.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op);
// Strides to view a tensor of (sizes, strides) as `target` (zero stride on
// broadcast dims). Assumes broadcast compatibility was checked.
DimVector broadcast_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef target);

// A bitmask of dims (up to 64) from a dim list; empty list = all dims.
// Throws on duplicates or out of range.
uint64_t dim_mask(IntArrayRef dims, int64_t ndim, const char* op);

}  // namespace tc
