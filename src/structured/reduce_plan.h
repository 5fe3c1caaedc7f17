// SPDX-License-Identifier: BSD-3-Clause
// The meta step of reductions, shared by every backend: which dims are kept
// (one output element per index) and which are reduced, coalesced so
// contiguous runs become one long loop; the dim-list rules and the result
// dtypes. The CPU's engine (cpu/reduce_engine.h) and the CUDA reduction
// kernel (cuda/reduce.cpp) each run an op over a plan.
#pragma once
#include <cstdint>
#include <optional>

#include "core/tensor.h"

namespace tc::structured {

struct ReducePlan {
  DimVector out_shape;                 // shape of the result tensor (keepdim or not)
  DimVector kept_sizes, kept_strides;  // kept dims in output (row-major) order, input strides
  DimVector red_sizes, red_strides;    // reduced dims, innermost (smallest stride) last
  int64_t num_out = 1;                 // product of kept sizes
  int64_t red_numel = 1;               // elements reduced into each output
};

// `mask` has bit d set for each reduced dim d of `self` (core/shape.h dim_mask).
ReducePlan make_reduce_plan(const Tensor& self, uint64_t mask, bool keepdim);

// The reduced-dims mask for an optional dim list: none or empty = all dims
// (PyTorch's rule for int[1]? dim). Errors name `op`.
uint64_t reduce_mask(const Tensor& self, std::optional<IntArrayRef> dims, const char* op);
uint64_t reduce_mask_one(const Tensor& self, int64_t dim, const char* op);

// For max/min/argmax/amax...: every reduced dim must be non-empty unless the
// output is empty anyway. Throws `code` naming op.
void check_nonempty_reduction(const Tensor& self, uint64_t mask, const char* op, ErrorCode code);

// sum and prod: the dtype argument, else integers and bool widen to int64
// (PyTorch's rule) and floats keep theirs. mean: the dtype argument or
// self's, which must be floating. Errors name `op`.
ScalarType sum_like_dtype(const char* op, bool mean, ScalarType self, std::optional<ScalarType> dtype);
// all and any: uint8 stays uint8 (PyTorch's rule), every other dtype gives bool.
ScalarType logical_reduce_dtype(ScalarType self);
// cumsum's result dtype: `dtype`, else self's when floating, else int64; never
// bool.
ScalarType cumsum_dtype(ScalarType self, std::optional<ScalarType> dtype);
// max() and min() over every element refuse an empty tensor.
void check_full_extreme(const Tensor& self, const char* op);

}  // namespace tc::structured
