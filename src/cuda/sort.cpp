// SPDX-License-Identifier: BSD-3-Clause
// sort and topk on CUDA: each line along `dim` is a segment of CUB's stable
// segmented sort (the driver's sort_pairs) over a canonical copy of the keys
// (widened to int64 / float32 / float64, which keeps their order; NaN made
// +NaN, -0 made +0) carrying each element's position; the values are then
// gathered from self by the sorted positions, so they keep their exact bits.
// topk is the first k of that sort: the CPU's result, ties included.
#include <limits>
#include <tuple>

#include "core/shape.h"
#include "cuda/runtime.h"
#include "tensorc_gen/native_functions.h"
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

ScalarType key_dtype(ScalarType dt) {
  if (dt == ScalarType::Float64) return ScalarType::Float64;
  return is_floating(dt) ? ScalarType::Float32 : ScalarType::Int64;
}

// Positions of each line's sorted order, [segments, n] int64 on the device.
Tensor sorted_positions(const char* op, const Tensor& lines, bool descending) {
  const int64_t segments = lines.size(0), n = lines.size(1);
  const Device device = lines.device();
  const ScalarType kt = key_dtype(lines.dtype());
  Tensor keys = tc::_to_copy(lines, kt);
  if (is_floating(kt)) {
    const Tensor nan =
        tc::full(IntArrayRef(), Scalar(std::numeric_limits<double>::quiet_NaN()), kt, Device(DeviceType::CPU));
    keys = tc::where(tc::isnan(keys), nan, tc::add(keys, Scalar(0.0)));  // -0 + 0 is +0
  }
  keys = tc::contiguous(keys);
  const Tensor positions = tc::contiguous(tc::expand(tc::arange(Scalar(n), ScalarType::Int64, device), {segments, n}));
  const Tensor offsets =
      tc::arange(Scalar(int64_t(0)), Scalar((segments + 1) * n), Scalar(n), ScalarType::Int64, device);
  Tensor keys_out = cuda::empty_on(keys.sizes(), kt, device);
  Tensor sorted = cuda::empty_on(positions.sizes(), ScalarType::Int64, device);
  cuda::SortArgs a;
  a.dtype = int(kt);
  a.descending = descending;
  a.segments = segments;
  a.segment_size = n;
  a.keys_in = static_cast<const char*>(keys.data_ptr());
  a.keys_out = static_cast<char*>(keys_out.data_ptr());
  a.values_in = static_cast<const long long*>(positions.data_ptr());
  a.values_out = static_cast<long long*>(sorted.data_ptr());
  a.offsets = static_cast<const long long*>(offsets.data_ptr());
  const int dev = device.index;
  const cuda::DriverApi& drv = cuda::driver(op);
  cuda::DeviceGuard guard(dev);
  size_t bytes = 0;
  cuda::check(drv.sort_pairs(&a, nullptr, &bytes, cuda::current_stream(dev)), op, "the sort's workspace query");
  const int64_t workspace_size = int64_t(bytes);
  Tensor workspace = cuda::empty_on(IntArrayRef(&workspace_size, 1), ScalarType::UInt8, device);
  cuda::check(drv.sort_pairs(&a, workspace.data_ptr(), &bytes, cuda::current_stream(dev)), op, "the sort's launch");
  return sorted;
}

// The first k of each line of self along dim, in order: (values, indices).
std::tuple<Tensor, Tensor> first_in_order(const char* op, const Tensor& self, int64_t dim, int64_t k, bool descending) {
  DimVector shape(self.sizes());
  if (self.dim()) shape[size_t(dim)] = k;
  if (self.numel() == 0 || k == 0)
    return {cuda::empty_on(shape, self.dtype(), self.device()),
            cuda::empty_on(shape, ScalarType::Int64, self.device())};
  // Lines along the last dim: dim swapped with it (and back at the end).
  const Tensor moved = self.dim() ? tc::contiguous(tc::transpose(self, dim, -1)) : tc::reshape(self, {1});
  const int64_t n = moved.size(-1), segments = moved.numel() / n;
  Tensor order = tc::reshape(sorted_positions(op, tc::reshape(moved, {segments, n}), descending), moved.sizes());
  if (k < n) order = tc::narrow(order, -1, 0, k);
  Tensor values = tc::gather(moved, -1, tc::contiguous(order));
  if (!self.dim()) return {tc::reshape(values, {}), tc::reshape(order, {})};
  return {tc::contiguous(tc::transpose(values, dim, -1)), tc::contiguous(tc::transpose(order, dim, -1))};
}

}  // namespace

std::tuple<Tensor, Tensor> sort_cuda(const Tensor& self, int64_t dim_, bool descending) {
  const int64_t dim = wrap_dim(dim_, self.dim(), "sort");
  return first_in_order("sort", self, dim, self.dim() ? self.size(dim) : 1, descending);
}

std::tuple<Tensor, Tensor> topk_cuda(const Tensor& self, int64_t k, int64_t dim_, bool largest, bool sorted) {
  const char* op = "topk";
  (void)sorted;  // always sorted, as on the CPU
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  const int64_t n = self.dim() ? self.size(dim) : 1;
  TC_CHECK_INDEX(k >= 0 && k <= n, op, ": argument 'k' (", k, ") is out of range: expected a value in [0, ", n,
                 "] (the size of dim ", dim, ")");
  if (self.dim() == 0)  // as ATen: the element and index 0, for k = 0 too (the shape stays [])
    return {tc::clone(self), tc::zeros(IntArrayRef(), ScalarType::Int64, self.device())};
  return first_in_order(op, self, dim, k, largest);
}

}  // namespace tc::native
