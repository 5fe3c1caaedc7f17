// SPDX-License-Identifier: BSD-3-Clause
// How a reduction walks its input: which dims are kept (one output element
// per index) and which are reduced, coalesced so contiguous runs become one
// long loop. The engine (reduce_engine.h) runs an Op over a plan.
#pragma once
#include <cstdint>
#include <optional>

#include "core/tensor.h"

namespace tc::cpu {

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

}  // namespace tc::cpu
