// SPDX-License-Identifier: BSD-3-Clause
// Views that decompose into other views (CompositeImplicitAutograd). They
// call the dispatched ops (tensorc_gen/ops.h), never the kernels, so autograd
// records the ops they are made of and they need no derivative of their own.
// Always qualify tc:: here: inside tc::native an unqualified `view(...)` would
// be ambiguous between the kernel and the op function.
#include <vector>

#include "composite/view_helpers.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "tensorc_gen/ops.h"
#include "tensorc_gen/native_functions.h"  // checks these definitions against the schema

namespace tc::native {

// reshape(Tensor(a) self, int[] shape) -> Tensor(a)
// A view when the strides allow one, else a contiguous copy viewed.
Tensor reshape(const Tensor& self, IntArrayRef shape) {
  DimVector sizes = views::infer_size(shape, self.numel(), "reshape", "shape");
  if (views::compute_stride(self.sizes(), self.strides(), sizes)) return self.view(sizes);
  return self.contiguous().view(sizes);
}

// view_as(Tensor(a) self, Tensor other) -> Tensor(a)
Tensor view_as(const Tensor& self, const Tensor& other) { return self.view(other.sizes()); }

// expand_as(Tensor(a) self, Tensor other) -> Tensor(a)
Tensor expand_as(const Tensor& self, const Tensor& other) { return self.expand(other.sizes()); }

// flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)
// Merges dims start_dim..end_dim into one; a 0-dim tensor becomes 1-D.
Tensor flatten_using_ints(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  const int64_t start = wrap_dim(start_dim, self.dim(), "flatten", "start_dim");
  const int64_t end = wrap_dim(end_dim, self.dim(), "flatten", "end_dim");
  TC_CHECK_ARG(start <= end, "flatten: argument 'start_dim' (", start_dim, ") cannot come after argument 'end_dim' (",
               end_dim, ")");
  if (self.dim() == 0) return tc::reshape(self, {1});
  if (start == end) return self;  // nothing to merge: PyTorch returns self itself
  DimVector shape;
  int64_t merged = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const int64_t s = self.sizes()[size_t(d)];
    if (d < start || d > end) {
      shape.push_back(s);
    } else {
      merged *= s;  // cannot overflow: bounded by numel
      if (d == end) shape.push_back(merged);
    }
  }
  return tc::reshape(self, shape);
}

// narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)
// Unlike slice, a range that does not fit is an error rather than clamped.
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  TC_CHECK_INDEX(self.dim() > 0, "narrow: cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "narrow", "dim");
  TC_CHECK_ARG(length >= 0, "narrow: argument 'length' expected a non-negative value, got ", length);
  const int64_t size = self.sizes()[size_t(d)];
  TC_CHECK_INDEX(start >= -size && start <= size, "narrow: argument 'start' (", start,
                 ") is out of range: expected a value in [", -size, ", ", size, "]");
  if (start < 0) start += size;
  TC_CHECK_ARG(start <= size - length, "narrow: start (", start, ") + length (", length, ") exceeds the size ", size,
               " of dimension ", d);
  return tc::slice(self, d, start, start + length, 1);
}

// chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]
// At most `chunks` equal pieces (the last may be smaller), via split.
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  TC_CHECK_INDEX(self.dim() > 0, "chunk: cannot be applied to a 0-dim tensor");
  TC_CHECK_ARG(chunks > 0, "chunk: argument 'chunks' expected a positive value, got ", chunks);
  const int64_t d = wrap_dim(dim, self.dim(), "chunk", "dim");
  const int64_t size = self.sizes()[size_t(d)];
  // split would give one piece of an empty dim: ask for `chunks` empty ones.
  if (size == 0) return tc::split_with_sizes(self, std::vector<int64_t>(size_t(chunks), 0), d);
  return tc::split(self, 1 + (size - 1) / chunks, d);  // ceil(size / chunks) without overflow
}

}  // namespace tc::native
