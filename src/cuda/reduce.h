// SPDX-License-Identifier: BSD-3-Clause
// Reductions on CUDA: how a reduction plan (structured/reduce_plan.h) becomes
// launches of the driver's reduce loop. Host code; the launch policy needs no
// device, so it is tested without one.
#pragma once
#include <cstdint>

#include "core/dtype.h"
#include "cuda/driver_api.h"
#include "structured/reduce_plan.h"

namespace tc::cuda {

// How a reduction of num_out outputs of red_numel elements each runs: the
// kernel shape (columns when the kept dims are the innermost in memory) and
// how many chunks each output's elements are cut into, so that a few long
// reductions still fill the device; with splits > 1 a second pass reduces
// the chunks' partials. Chunks are never empty.
struct ReduceLaunch {
  bool columns = false;
  int64_t splits = 1;
  int64_t chunk = 0;  // elements per chunk (red_numel when splits == 1)
};
ReduceLaunch plan_reduce_launch(int64_t num_out, int64_t red_numel, bool columns);

// The driver arguments of one pass over `plan` (element strides of an input
// of `in` dtype turned into bytes); pointers, splits and scale left to the
// caller. NotImplemented naming `op` beyond kMaxDims kept or reduced dims.
ReduceArgs reduce_args(const structured::ReducePlan& plan, ReduceOp kind, ScalarType in, ScalarType out,
                       ScalarType compute, const char* op);

// True when the plan's kept dims are closer together in memory than its
// reduced ones (a sum over dim 0 of a row-major matrix): the columns kernel.
bool kept_dims_innermost(const structured::ReducePlan& plan);

}  // namespace tc::cuda
