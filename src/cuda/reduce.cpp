// SPDX-License-Identifier: BSD-3-Clause
// sum, mean, prod, amax, amin, max, min, all, any on CUDA: the reductions'
// meta step every backend shares (structured/reduce_plan.h: dims, result
// dtypes, empty-input rules), then one or two passes of the driver's reduce
// loop, reading the input in its own dtype and strides (no copy).
#include "cuda/reduce.h"

#include <algorithm>
#include <cstdint>

#include "core/error.h"
#include "core/tensor.h"
#include "cuda/runtime.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace tc::cuda {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

void put_dims(IntArrayRef sizes, IntArrayRef strides, int64_t elem, int* ndim, int64_t* s, int64_t* st,
              const char* op) {
  TC_CHECK(sizes.size() <= size_t(kMaxDims), NotImplemented, op, ": CUDA reductions take at most ", kMaxDims,
           " non-mergeable dims on either side, got ", sizes.size());
  *ndim = int(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    s[d] = sizes[d];
    st[d] = strides[d] * elem;
  }
}

}  // namespace

ReduceLaunch plan_reduce_launch(int64_t num_out, int64_t red_numel, bool columns) {
  ReduceLaunch l;
  l.columns = columns;
  l.chunk = red_numel;
  // Work items wanted to fill a large GPU (blocks for rows, threads for
  // columns), and the shortest chunk worth a partial.
  const int64_t want_items = columns ? 65536 : 1024, min_chunk = columns ? 256 : 4096;
  if (num_out <= 0 || num_out >= want_items || red_numel <= min_chunk) return l;
  const int64_t splits = std::min(ceil_div(want_items, num_out), ceil_div(red_numel, min_chunk));
  if (splits <= 1) return l;
  l.chunk = ceil_div(red_numel, splits);
  l.splits = ceil_div(red_numel, l.chunk);
  return l;
}

bool kept_dims_innermost(const structured::ReducePlan& plan) {
  if (plan.kept_sizes.size() == 0) return false;
  if (plan.red_sizes.size() == 0) return true;
  const auto magnitude = [](int64_t s) { return s < 0 ? -s : s; };
  int64_t kept = INT64_MAX;
  for (size_t d = 0; d < plan.kept_strides.size(); ++d) kept = std::min(kept, magnitude(plan.kept_strides[d]));
  return kept < magnitude(plan.red_strides[plan.red_strides.size() - 1]);
}

ReduceArgs reduce_args(const structured::ReducePlan& plan, ReduceOp kind, ScalarType in, ScalarType out,
                       ScalarType compute, const char* op) {
  ReduceArgs a;
  a.op = int(kind);
  a.compute = int(compute);
  a.in_dtype = int(in);
  a.out_dtype = int(out);
  a.num_out = plan.num_out;
  a.red_numel = plan.red_numel;
  a.chunk = plan.red_numel;
  const int64_t elem = int64_t(element_size(in));
  put_dims(plan.kept_sizes.ref(), plan.kept_strides.ref(), elem, &a.kept_ndim, a.kept_sizes, a.kept_strides, op);
  put_dims(plan.red_sizes.ref(), plan.red_strides.ref(), elem, &a.red_ndim, a.red_sizes, a.red_strides, op);
  return a;
}

}  // namespace tc::cuda

namespace tc::native {
namespace {

using cuda::ReduceOp;

// The accumulation dtype for values of `t`: float32 for the float types
// below float64, float64, int64 for every integer type and bool.
ScalarType accumulate_in(ScalarType t) {
  if (t == ScalarType::Float64) return ScalarType::Float64;
  return is_floating(t) ? ScalarType::Float32 : ScalarType::Int64;
}

void launch(const cuda::ReduceArgs& a, int dev, const char* op) {
  const cuda::DriverApi& drv = cuda::driver(op);
  cuda::check(drv.launch_reduce(&a, cuda::current_stream(dev)), op, "the reduce kernel's launch");
}

// out = kind over `mask` of self, accumulated in `compute`; mean scales by
// 1 / count (0 / 0 = NaN for an empty reduction, as on the CPU).
Tensor reduce(const char* op, ReduceOp kind, const Tensor& self, uint64_t mask, bool keepdim, ScalarType out_dtype,
              ScalarType compute, bool mean) {
  TC_CHECK(self.device().is_cuda(), Internal, "internal error: ", op, ": a CUDA reduction of a tensor on ",
           self.device());
  const structured::ReducePlan plan = structured::make_reduce_plan(self, mask, keepdim);
  const int dev = self.device().index;
  cuda::DeviceGuard guard(dev);
  Tensor out = empty_tensor(plan.out_shape, out_dtype, self.device());
  if (plan.num_out == 0) return out;
  cuda::ReduceArgs a = cuda::reduce_args(plan, kind, self.dtype(), out_dtype, compute, op);
  const cuda::ReduceLaunch l = cuda::plan_reduce_launch(plan.num_out, plan.red_numel, cuda::kept_dims_innermost(plan));
  const double scale = mean ? 1.0 / double(plan.red_numel) : 1.0;
  a.in = static_cast<const char*>(self.data_ptr());
  a.columns = l.columns;
  if (l.splits == 1) {
    a.out = static_cast<char*>(out.data_ptr());
    a.scale = scale;
    launch(a, dev, op);
    return out;
  }
  // Pass 1: each output's chunks into partials (compute dtype, one row per
  // output); pass 2 reduces each row. The partials' memory is reused only by
  // later work on this stream, so freeing it here is safe.
  Tensor partial = empty_tensor({plan.num_out, l.splits}, compute, self.device());
  a.splits = l.splits;
  a.chunk = l.chunk;
  a.out = static_cast<char*>(partial.data_ptr());
  a.out_dtype = int(compute);
  launch(a, dev, op);
  const structured::ReducePlan rows = structured::make_reduce_plan(partial, uint64_t(2), false);
  cuda::ReduceArgs b = cuda::reduce_args(rows, kind, compute, out_dtype, compute, op);
  b.in = static_cast<const char*>(partial.data_ptr());
  b.out = static_cast<char*>(out.data_ptr());
  b.scale = scale;
  launch(b, dev, op);
  return out;
}

Tensor sum_like(const char* op, ReduceOp kind, bool mean, const Tensor& self, uint64_t mask, bool keepdim,
                std::optional<ScalarType> dtype) {
  const ScalarType out = structured::sum_like_dtype(op, mean, self.dtype(), dtype);
  // With a dtype argument the input is converted first, as on the CPU and in
  // PyTorch (sum(0.5, dtype=bool) is true; half sums round their inputs).
  const bool as_is = out == self.dtype() || (!mean && !dtype);
  const Tensor in = as_is ? self : tc::_to_copy(self, out);
  return reduce(op, kind, in, mask, keepdim, out, accumulate_in(out), mean);
}

Tensor extreme(const char* op, ReduceOp kind, const Tensor& self, uint64_t mask, bool keepdim) {
  return reduce(op, kind, self, mask, keepdim, self.dtype(), accumulate_in(self.dtype()), false);
}

Tensor amax_like(const char* op, ReduceOp kind, const Tensor& self, IntArrayRef dim, bool keepdim) {
  const uint64_t mask = structured::reduce_mask(self, dim, op);
  structured::check_nonempty_reduction(self, mask, op, ErrorCode::Index);
  return extreme(op, kind, self, mask, keepdim);
}

Tensor full_extreme(const char* op, ReduceOp kind, const Tensor& self) {
  structured::check_full_extreme(self, op);
  return extreme(op, kind, self, structured::reduce_mask(self, std::nullopt, op), false);
}

// all / any see each element's truth value in its own type (0.5 is true).
Tensor logical(const char* op, ReduceOp kind, const Tensor& self, uint64_t mask, bool keepdim) {
  return reduce(op, kind, self, mask, keepdim, structured::logical_reduce_dtype(self.dtype()),
                accumulate_in(self.dtype()), false);
}

}  // namespace

Tensor sum_cuda(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_like("sum", ReduceOp::Sum, false, self, structured::reduce_mask(self, std::nullopt, "sum"), false, dtype);
}
Tensor sum_dim_cuda(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_like("sum", ReduceOp::Sum, false, self, structured::reduce_mask(self, dim, "sum"), keepdim, dtype);
}
Tensor mean_cuda(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_like("mean", ReduceOp::Sum, true, self, structured::reduce_mask(self, std::nullopt, "mean"), false, dtype);
}
Tensor mean_dim_cuda(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                     std::optional<ScalarType> dtype) {
  return sum_like("mean", ReduceOp::Sum, true, self, structured::reduce_mask(self, dim, "mean"), keepdim, dtype);
}
Tensor prod_cuda(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_like("prod", ReduceOp::Prod, false, self, structured::reduce_mask(self, std::nullopt, "prod"), false,
                  dtype);
}
Tensor prod_dim_cuda(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_like("prod", ReduceOp::Prod, false, self, structured::reduce_mask_one(self, dim, "prod"), keepdim, dtype);
}

Tensor amax_cuda(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return amax_like("amax", ReduceOp::Max, self, dim, keepdim);
}
Tensor amin_cuda(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return amax_like("amin", ReduceOp::Min, self, dim, keepdim);
}
Tensor max_cuda(const Tensor& self) { return full_extreme("max", ReduceOp::Max, self); }
Tensor min_cuda(const Tensor& self) { return full_extreme("min", ReduceOp::Min, self); }

Tensor any_cuda(const Tensor& self) {
  return logical("any", ReduceOp::Any, self, structured::reduce_mask(self, std::nullopt, "any"), false);
}
Tensor any_dim_cuda(const Tensor& self, int64_t dim, bool keepdim) {
  return logical("any", ReduceOp::Any, self, structured::reduce_mask_one(self, dim, "any"), keepdim);
}
Tensor any_dims_cuda(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return logical("any", ReduceOp::Any, self, structured::reduce_mask(self, dim, "any"), keepdim);
}
Tensor all_cuda(const Tensor& self) {
  return logical("all", ReduceOp::All, self, structured::reduce_mask(self, std::nullopt, "all"), false);
}
Tensor all_dim_cuda(const Tensor& self, int64_t dim, bool keepdim) {
  return logical("all", ReduceOp::All, self, structured::reduce_mask_one(self, dim, "all"), keepdim);
}
Tensor all_dims_cuda(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return logical("all", ReduceOp::All, self, structured::reduce_mask(self, dim, "all"), keepdim);
}

}  // namespace tc::native
