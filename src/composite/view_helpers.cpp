// SPDX-License-Identifier: BSD-3-Clause
#include "composite/view_helpers.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "core/shape.h"

namespace tc::views {

DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op, const char* arg) {
  DimVector res(shape);
  int64_t known = 1;
  std::optional<size_t> infer_dim;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      TC_CHECK_ARG(!infer_dim, op, ": argument '", arg, "': only one dimension can be inferred, got ", shape);
      infer_dim = d;
    } else {
      TC_CHECK_ARG(shape[d] >= 0, op, ": argument '", arg, "' has an invalid size ", shape[d], " in ", shape);
      TC_CHECK_ARG(!__builtin_mul_overflow(known, shape[d], &known), op, ": argument '", arg, "' ", shape,
                   " is invalid for input of size ", numel);
    }
  }
  if (infer_dim) {
    // known == 0 leaves -1 ambiguous (any size works), as PyTorch rejects it.
    TC_CHECK_ARG(known != 0 && numel % known == 0, op, ": argument '", arg, "' ", shape,
                 " is invalid for input of size ", numel);
    res[*infer_dim] = numel / known;
  } else {
    TC_CHECK_ARG(known == numel, op, ": argument '", arg, "' ", shape, " is invalid for input of size ", numel);
  }
  return res;
}

std::optional<DimVector> compute_stride(IntArrayRef oldshape, IntArrayRef oldstride, IntArrayRef newshape) {
  if (oldshape.empty()) return DimVector(newshape.size(), 1);

  // With no elements the strides are arbitrary: keep them when the shape is
  // unchanged, else use the row-major strides resize would give (NumPy does).
  int64_t numel = 1;
  for (int64_t s : oldshape) numel *= s;
  if (numel == 0) {
    if (oldshape.equals(newshape)) return DimVector(oldstride);
    return contiguous_strides(newshape);
  }

  // Walk the old dims from the back, grouping them into chunks that are
  // contiguous with each other; every new dim must fall inside one chunk.
  DimVector newstride(newshape.size());
  int64_t view_d = int64_t(newshape.size()) - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = int64_t(oldshape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= oldshape[size_t(tensor_d)];
    if (tensor_d == 0 ||
        (oldshape[size_t(tensor_d - 1)] != 1 && oldstride[size_t(tensor_d - 1)] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[size_t(view_d)] == 1)) {
        newstride[size_t(view_d)] = view_numel * chunk_base_stride;
        view_numel *= newshape[size_t(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[size_t(tensor_d - 1)];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
  const size_t n = sizes.size();
  if (n == 0) return true;
  if (n == 1) return sizes[0] < 2 || strides[0] == 1;
  // Order dims by stride, size-0/1 dims last (their stride never matters).
  DimVector perm(n);
  std::iota(perm.begin(), perm.end(), int64_t(0));
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    bool sa = sizes[size_t(a)] < 2, sb = sizes[size_t(b)] < 2;
    if (sa || sb) return !sa && sb;
    return strides[size_t(a)] < strides[size_t(b)];
  });
  int64_t require = 1;
  for (int64_t d : perm) {
    if (sizes[size_t(d)] < 2) return true;
    if (strides[size_t(d)] != require) return false;
    require *= sizes[size_t(d)];
  }
  return true;
}

DimVector preserved_strides(const Tensor& self) {
  if (is_non_overlapping_and_dense(self.sizes(), self.strides())) return DimVector(self.strides());
  return contiguous_strides(self.sizes());
}

Tensor slice_unchecked(const Tensor& self, int64_t dim, int64_t start, int64_t length, int64_t step) {
  DimVector sizes(self.sizes()), strides(self.strides());
  const size_t d = size_t(dim);
  int64_t offset = self.storage_offset() + start * strides[d];
  sizes[d] = length;
  // stride * step as PyTorch has it; it can only overflow for a huge step,
  // which leaves at most one element, whose stride is never used.
  strides[d] = mul_checked(strides[d], step).value_or(strides[d]);
  return make_view(self, sizes, strides, offset);
}

Tensor select_unchecked(const Tensor& self, int64_t dim, int64_t index) {
  DimVector sizes(self.sizes()), strides(self.strides());
  const size_t d = size_t(dim);
  int64_t offset = self.storage_offset() + index * strides[d];
  sizes.erase(d);
  strides.erase(d);
  return make_view(self, sizes, strides, offset);
}

}  // namespace tc::views
