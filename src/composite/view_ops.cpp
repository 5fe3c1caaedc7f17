// SPDX-License-Identifier: BSD-3-Clause
// View kernels (CompositeExplicitAutograd): each returns a tensor that shares
// self's storage and version counter with new sizes/strides/offset. Metadata
// only, so one kernel serves every backend. Slicing and splitting views live
// in view_split.cpp; views that decompose into these in view_implicit.cpp.
#include <algorithm>

#include "composite/view_helpers.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "tensorc_gen/native_functions.h"  // checks these definitions against the schema

namespace tc::native {

// view(Tensor(a) self, int[] size) -> Tensor(a)
Tensor view(const Tensor& self, IntArrayRef size) {
  DimVector shape = views::infer_size(size, self.numel(), "view", "size");
  auto stride = views::compute_stride(self.sizes(), self.strides(), shape);
  TC_CHECK_ARG(stride, "view: size ", size, " is not compatible with input tensor's size ", self.sizes(),
               " and stride ", self.strides(),
               " (at least one dimension spans across two contiguous subspaces). Use reshape instead.");
  return make_view(self, shape, *stride, self.storage_offset());
}

// alias(Tensor(a) self) -> Tensor(a)
Tensor alias(const Tensor& self) { return make_view(self, self.sizes(), self.strides(), self.storage_offset()); }

// as_strided(Tensor(a) self, int[] size, int[] stride, int? storage_offset=None) -> Tensor(a)
// The only view whose geometry the caller chooses: bounds are checked against
// the storage so that no later read can leave it.
Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  TC_CHECK_ARG(size.size() == stride.size(), "as_strided: argument 'size' ", size, " and argument 'stride' ", stride,
               " must have the same length");
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  TC_CHECK_ARG(offset >= 0, "as_strided: argument 'storage_offset' expected a non-negative value, got ", offset);
  checked_numel(size, "as_strided");
  for (int64_t s : stride)
    TC_CHECK_ARG(s >= 0, "as_strided: argument 'stride' expected non-negative strides, got ", stride);
  const int64_t storage_bytes = int64_t(self.storage()->nbytes());
  int64_t need_bytes = 0;
  const bool fits = storage_nbytes(size, stride, offset, int64_t(self.element_size()), &need_bytes);
  TC_CHECK_ARG(fits && need_bytes <= storage_bytes, "as_strided: size ", size, ", stride ", stride,
               " and storage offset ", offset, " need ", fits ? str(need_bytes) : std::string("more than int64"),
               " bytes, out of bounds for a storage of ", storage_bytes, " bytes");
  return make_view(self, size, stride, offset);
}

// expand(Tensor(a) self, int[] size, *, bool implicit=False) -> Tensor(a)
// Size-1 dims (and new leading dims) broadcast with stride 0; -1 keeps a size.
Tensor expand(const Tensor& self, IntArrayRef size, bool implicit) {
  (void)implicit;  // only recorded by tracing in PyTorch; no effect on the result
  const int64_t ndim = int64_t(size.size()), tdim = self.dim();
  TC_CHECK_ARG(ndim >= tdim, "expand: the number of sizes provided (", ndim,
               ") must be greater or equal to the number of dimensions in the tensor (", tdim, ")");
  DimVector sizes(static_cast<size_t>(ndim)), strides(static_cast<size_t>(ndim));
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t d = tdim - ndim + i;  // matching dim of self, < 0 for a new leading dim
    int64_t cur = d >= 0 ? self.sizes()[size_t(d)] : 1;
    int64_t st =
        d >= 0 ? self.strides()[size_t(d)] : (i == ndim - 1 ? 1 : sizes[size_t(i + 1)] * strides[size_t(i + 1)]);
    int64_t target = size[size_t(i)];
    if (target == -1) {
      TC_CHECK_ARG(d >= 0,
                   "expand: the expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension ",
                   i);
      target = cur;
    }
    TC_CHECK_ARG(target >= 0, "expand: argument 'size' ", size, " has an invalid size ", target, " at dimension ", i);
    if (cur != target) {
      TC_CHECK_ARG(cur == 1, "expand: argument 'size': the expanded size of the tensor (", target,
                   ") must match the existing size (", cur, ") at non-singleton dimension ", i,
                   ".  Target sizes: ", size, ".  Tensor sizes: ", self.sizes());
      st = 0;
    }
    sizes[size_t(i)] = target;
    strides[size_t(i)] = st;
  }
  checked_numel(sizes, "expand");  // stride-0 dims can ask for more elements than int64 counts
  return make_view(self, sizes, strides, self.storage_offset());
}

// transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
Tensor transpose_int(const Tensor& self, int64_t dim0, int64_t dim1) {
  const size_t a = size_t(wrap_dim(dim0, self.dim(), "transpose", "dim0"));
  const size_t b = size_t(wrap_dim(dim1, self.dim(), "transpose", "dim1"));
  DimVector sizes(self.sizes()), strides(self.strides());
  if (self.dim() > 0) {
    std::swap(sizes[a], sizes[b]);
    std::swap(strides[a], strides[b]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

// t(Tensor(a) self) -> Tensor(a)
Tensor t(const Tensor& self) {
  TC_CHECK_ARG(self.dim() <= 2, "t: expected a tensor with <= 2 dimensions, but self is ", self.dim(), "-D");
  if (self.dim() < 2) return alias(self);
  return transpose_int(self, 0, 1);
}

// permute(Tensor(a) self, int[] dims) -> Tensor(a)
Tensor permute(const Tensor& self, IntArrayRef dims) {
  const int64_t n = self.dim();
  TC_CHECK_ARG(int64_t(dims.size()) == n, "permute: argument 'dims' has ", dims.size(), " entries, but the tensor has ",
               n, " dimensions");
  DimVector sizes(static_cast<size_t>(n)), strides(static_cast<size_t>(n));
  std::vector<bool> seen(size_t(n), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t d = size_t(wrap_dim(dims[i], n, "permute", "dims"));
    TC_CHECK_ARG(!seen[d], "permute: argument 'dims' ", dims, " repeats dimension ", d);
    seen[d] = true;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

// squeeze(Tensor(a) self) -> Tensor(a): drops every size-1 dim.
Tensor squeeze(const Tensor& self) {
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.sizes()[size_t(d)] == 1) continue;
    sizes.push_back(self.sizes()[size_t(d)]);
    strides.push_back(self.strides()[size_t(d)]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

// squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a): drops the listed dims
// that have size 1, leaves the others; an empty list squeezes nothing.
Tensor squeeze_dims(const Tensor& self, IntArrayRef dim) {
  const int64_t n = self.dim();
  std::vector<bool> listed(size_t(std::max<int64_t>(n, 1)), false);
  for (int64_t d : dim) {
    const size_t w = size_t(wrap_dim(d, n, "squeeze", "dim"));
    TC_CHECK_ARG(!listed[w], "squeeze: argument 'dim' ", dim, " repeats dimension ", w);
    listed[w] = true;
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < n; ++d) {
    if (listed[size_t(d)] && self.sizes()[size_t(d)] == 1) continue;
    sizes.push_back(self.sizes()[size_t(d)]);
    strides.push_back(self.strides()[size_t(d)]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

// squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)
Tensor squeeze_dim(const Tensor& self, int64_t dim) { return squeeze_dims(self, IntArrayRef(dim)); }

// unsqueeze(Tensor(a) self, int dim) -> Tensor(a): dim may be one past the last.
Tensor unsqueeze(const Tensor& self, int64_t dim) {
  const size_t d = size_t(wrap_dim(dim, self.dim() + 1, "unsqueeze", "dim"));
  DimVector sizes(self.sizes()), strides(self.strides());
  // The stride a contiguous tensor would have there, so contiguity is kept.
  const int64_t st = d < sizes.size() ? sizes[d] * strides[d] : 1;
  sizes.insert(d, 1);
  strides.insert(d, st);
  return make_view(self, sizes, strides, self.storage_offset());
}

// diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)
// Removes dim1 and dim2 and appends the diagonal as the last dim.
Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t n = self.dim();
  const size_t d1 = size_t(wrap_dim(dim1, n, "diagonal", "dim1"));
  const size_t d2 = size_t(wrap_dim(dim2, n, "diagonal", "dim2"));
  TC_CHECK_ARG(d1 != d2, "diagonal: arguments 'dim1' and 'dim2' cannot be the same dimension (", d1, ")");
  const int64_t s1 = self.sizes()[d1], s2 = self.sizes()[d2];
  const int64_t st1 = self.strides()[d1], st2 = self.strides()[d2];
  int64_t diag = offset >= 0 ? std::min(s1, s2 - offset) : std::min(s1 + offset, s2);
  diag = std::max<int64_t>(diag, 0);
  int64_t storage_offset = self.storage_offset();
  if (diag > 0) storage_offset += offset >= 0 ? offset * st2 : -offset * st1;  // else offset may be huge: unused
  DimVector sizes(self.sizes()), strides(self.strides());
  sizes.erase(std::max(d1, d2));
  strides.erase(std::max(d1, d2));
  sizes.erase(std::min(d1, d2));
  strides.erase(std::min(d1, d2));
  sizes.push_back(diag);
  strides.push_back(st1 + st2);
  return make_view(self, sizes, strides, storage_offset);
}

// unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)
// Windows of `size` elements every `step` along `dimension`, as a new last dim.
Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  const int64_t n = self.dim();
  const size_t d = size_t(wrap_dim(dimension, n, "unfold", "dimension"));
  const int64_t max_size = n == 0 ? 1 : self.sizes()[d];
  TC_CHECK_ARG(size <= max_size, "unfold: argument 'size' (", size, ") exceeds the size ", max_size, " of dimension ",
               d);
  TC_CHECK_ARG(size >= 0, "unfold: argument 'size' expected a non-negative value, got ", size);
  TC_CHECK_ARG(step > 0, "unfold: argument 'step' expected a positive value, got ", step);
  DimVector sizes(self.sizes()), strides(self.strides());
  const int64_t inner_stride = n == 0 ? 1 : strides[d];
  if (n > 0) {
    sizes[d] = (max_size - size) / step + 1;
    // Overflow needs a huge step, which leaves one window: its stride is unused.
    strides[d] = views::mul_checked(strides[d], step).value_or(strides[d]);
  }
  sizes.push_back(size);
  strides.push_back(inner_stride);
  checked_numel(sizes, "unfold");  // overlapping windows can outnumber self's elements
  return make_view(self, sizes, strides, self.storage_offset());
}

}  // namespace tc::native
