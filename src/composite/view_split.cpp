// SPDX-License-Identifier: BSD-3-Clause
// Indexing and splitting views (CompositeExplicitAutograd): slice, select and
// the ops that cut a tensor into a list of views along one dim. Metadata only.
#include <algorithm>

#include "composite/view_helpers.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "tensorc_gen/native_functions.h"  // checks these definitions against the schema

namespace tc::native {

// slice.Tensor(Tensor(a) self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor(a)
// Python slicing: negative bounds count from the end, out-of-range bounds clamp.
Tensor slice_Tensor(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                    int64_t step) {
  TC_CHECK_INDEX(self.dim() > 0, "slice: cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "slice", "dim");
  TC_CHECK_ARG(step > 0, "slice: argument 'step' must be positive, got ", step);
  const int64_t size = self.sizes()[size_t(d)];
  int64_t lo = start.value_or(0), hi = end.value_or(INT64_MAX);
  if (lo < 0) lo += size;
  if (hi < 0) hi += size;
  lo = std::clamp<int64_t>(lo, 0, size);
  hi = std::clamp<int64_t>(hi, lo, size);
  const int64_t length = hi == lo ? 0 : 1 + (hi - lo - 1) / step;  // ceil without overflow
  return views::slice_unchecked(self, d, lo, length, step);
}

// select.int(Tensor(a) self, int dim, int index) -> Tensor(a)
Tensor select_int(const Tensor& self, int64_t dim, int64_t index) {
  TC_CHECK_INDEX(self.dim() > 0, "select: cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "select", "dim");
  const int64_t size = self.sizes()[size_t(d)];
  TC_CHECK_INDEX(index >= -size && index < size, "select: argument 'index' (", index,
                 ") is out of range for dimension ", d, " of size ", size);
  return views::select_unchecked(self, d, index < 0 ? index + size : index);
}

// split_with_sizes(Tensor(a -> *) self, int[] split_sizes, int dim=0) -> Tensor(a)[]
std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  TC_CHECK_INDEX(self.dim() > 0, "split_with_sizes: cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "split_with_sizes", "dim");
  const int64_t size = self.sizes()[size_t(d)];
  int64_t total = 0;
  bool overflow = false;
  for (int64_t s : split_sizes) {
    TC_CHECK_ARG(s >= 0, "split_with_sizes: argument 'split_sizes' expected non-negative entries, got ", split_sizes);
    overflow |= __builtin_add_overflow(total, s, &total);
  }
  TC_CHECK_ARG(!overflow && total == size, "split_with_sizes: argument 'split_sizes' ", split_sizes,
               " must sum exactly to ", size, " (the size of dimension ", d, ")");
  std::vector<Tensor> out;
  out.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(views::slice_unchecked(self, d, start, s, 1));
    start += s;
  }
  return out;
}

// split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]
// Pieces of split_size along dim; the last one may be smaller.
std::vector<Tensor> split_Tensor(const Tensor& self, int64_t split_size, int64_t dim) {
  TC_CHECK_INDEX(self.dim() > 0, "split: cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "split", "dim");
  TC_CHECK_ARG(split_size >= 0, "split: argument 'split_size' expected a non-negative value, got ", split_size);
  const int64_t size = self.sizes()[size_t(d)];
  TC_CHECK_ARG(split_size > 0 || size == 0, "split: argument 'split_size' can only be 0 if dimension ", d,
               " has size 0, but it has size ", size);
  // At least one piece, even of a size-0 dim (PyTorch does the same).
  const int64_t pieces = size == 0 ? 1 : 1 + (size - 1) / split_size;
  std::vector<Tensor> out;
  out.reserve(size_t(pieces));
  for (int64_t i = 0; i < pieces; ++i) {
    const int64_t start = i * split_size;
    out.push_back(views::slice_unchecked(self, d, start, std::min(split_size, size - start), 1));
  }
  return out;
}

// unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]: every index along dim.
std::vector<Tensor> unbind_int(const Tensor& self, int64_t dim) {
  TC_CHECK_INDEX(self.dim() > 0, "unbind: cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "unbind", "dim");
  const int64_t size = self.sizes()[size_t(d)];
  std::vector<Tensor> out;
  out.reserve(size_t(size));
  for (int64_t i = 0; i < size; ++i) out.push_back(views::select_unchecked(self, d, i));
  return out;
}

}  // namespace tc::native
