// SPDX-License-Identifier: BSD-3-Clause
// sort and topk along one dim. Each line (all positions but `dim`) is sorted
// on its own, as (value, index) pairs, stably. NaN compares as the largest
// value, as in PyTorch: last when ascending, first when descending.
// topk returns the k largest (or smallest) in order when `sorted`; unsorted
// it may return them in any order, and here returns them sorted anyway.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "cpu/index_util.h"
#include "cpu/loops.h"
#include "tensorc_gen/native_functions.h"  // checks the kernels match the schema
#include "tensorc_gen/ops.h"

namespace tc::native {
namespace {

template <class T>
bool is_nan(T v) {
  if constexpr (cpu::is_float_like_v<T>)
    return std::isnan(double(cpu::opmath_t<T>(v)));
  else
    return false;
}

// Strict "a comes before b" for ascending order with NaN last.
template <class T>
bool ascending(T a, T b) {
  if (is_nan(a)) return false;
  if (is_nan(b)) return true;
  return cpu::opmath_t<T>(a) < cpu::opmath_t<T>(b);
}

// Fills values/indices ([outer, k, inner], contiguous) with the first k of
// each line of x in the requested order.
void sorted_lines(const char* op, const Tensor& x, int64_t dim, int64_t k, bool descending, Tensor& values,
                  Tensor& indices) {
  const cpu::DimSplit split = cpu::split_at(x.sizes(), dim);
  const int64_t outer = split.outer, size = split.size, inner = split.inner;
  const Tensor in = x.contiguous();
  int64_t* ip = indices.data_ptr<int64_t>();
  TC_DISPATCH_ALL_TYPES_AND_BOOL(x.dtype(), op, [&] {
    const scalar_t* xp = in.data_ptr<scalar_t>();
    scalar_t* vp = values.data_ptr<scalar_t>();
    parallel_for(
        0, outer * inner, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, size)), [&](int64_t b, int64_t e) {
          std::vector<int64_t> order(static_cast<size_t>(size));
          for (int64_t line = b; line < e; ++line) {
            const int64_t o = line / inner, i = line % inner;
            const scalar_t* src = xp + o * size * inner + i;
            auto before = [&](int64_t p, int64_t q) {
              return descending ? ascending(src[q * inner], src[p * inner]) : ascending(src[p * inner], src[q * inner]);
            };
            for (int64_t j = 0; j < size; ++j) order[size_t(j)] = j;
            if (k < size) {
              // The k first in order, ties broken by position so the result is stable.
              std::partial_sort(order.begin(), order.begin() + k, order.end(),
                                [&](int64_t p, int64_t q) { return before(p, q) || (!before(q, p) && p < q); });
            } else {
              std::stable_sort(order.begin(), order.end(), before);
            }
            for (int64_t j = 0; j < k; ++j) {
              const int64_t at = o * k * inner + j * inner + i;
              vp[at] = src[order[size_t(j)] * inner];
              ip[at] = order[size_t(j)];
            }
          }
        });
  });
}

}  // namespace

std::tuple<Tensor, Tensor> sort_cpu(const Tensor& self, int64_t dim_, bool descending) {
  const int64_t dim = wrap_dim(dim_, self.dim(), "sort");
  Tensor values = empty_tensor(self.sizes(), self.dtype(), self.device());
  Tensor indices = empty_tensor(self.sizes(), ScalarType::Int64, self.device());
  if (self.numel() == 0) return {values, indices};
  const int64_t n = self.dim() ? self.size(dim) : 1;
  sorted_lines("sort", self, dim, n, descending, values, indices);
  return {values, indices};
}

std::tuple<Tensor, Tensor> topk_cpu(const Tensor& self, int64_t k, int64_t dim_, bool largest, bool sorted) {
  const char* op = "topk";
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  const int64_t n = self.dim() ? self.size(dim) : 1;
  TC_CHECK_INDEX(k >= 0 && k <= n, op, ": argument 'k' (", k, ") is out of range: expected a value in [0, ", n,
                 "] (the size of dim ", dim, ")");
  DimVector shape(self.sizes());
  if (self.dim()) shape[size_t(dim)] = k;
  Tensor values = empty_tensor(shape, self.dtype(), self.device());
  Tensor indices = empty_tensor(shape, ScalarType::Int64, self.device());
  if (values.numel() == 0) return {values, indices};
  if (self.dim() == 0) {  // as ATen: the element and index 0, for k = 0 too (the shape stays [])
    values.copy_(self);
    tc::fill_(indices, Scalar(int64_t(0)));
    return {values, indices};
  }
  sorted_lines(op, self, dim, k, largest, values, indices);
  return {values, indices};
}

// argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor
Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(tc::sort(self, dim, descending));
}

}  // namespace tc::native
