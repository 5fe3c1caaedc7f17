// SPDX-License-Identifier: BSD-3-Clause
// Pieces the index-family CPU kernels share (index.cpp, flip.cpp, scan.cpp,
// sort.cpp, nn/embedding.cpp): index checking, the [outer, size, inner] view
// of a tensor around one dim, and a strided walk over a shape.
#pragma once
#include <array>
#include <cstdint>

#include "core/dims.h"
#include "core/tensor.h"

namespace tc::cpu {

// `index` (argument `arg` of `op`) as contiguous int64 values, each checked
// against [0, bound): TypeError for another dtype (int32 too unless
// allow_int32), DeviceError off the CPU, IndexError naming the position.
Tensor checked_indices(const char* op, const char* arg, const Tensor& index, int64_t bound, bool allow_int32);

// A tensor seen as [outer, size(dim), inner]; a 0-dim tensor as [1, 1, 1].
struct DimSplit {
  int64_t outer = 1, size = 1, inner = 1;
};
inline DimSplit split_at(IntArrayRef sizes, int64_t dim) {
  DimSplit s;
  for (int64_t d = 0; d < int64_t(sizes.size()); ++d) {
    if (d < dim)
      s.outer *= sizes[size_t(d)];
    else if (d == dim)
      s.size = sizes[size_t(d)];
    else
      s.inner *= sizes[size_t(d)];
  }
  return s;
}

// Visits the positions of `shape` in row-major order, keeping one element
// offset per operand (operand k moves by strides[k][d] along dim d; strides
// may be negative, and offsets start at 0).
template <size_t N>
class StridedWalk {
 public:
  StridedWalk(IntArrayRef shape, const std::array<DimVector, N>& strides)
      : shape_(shape), strides_(strides), pos_(shape.size(), 0) {
    off.fill(0);
  }
  void next() {
    for (int64_t d = int64_t(shape_.size()) - 1; d >= 0; --d) {
      const size_t u = size_t(d);
      for (size_t k = 0; k < N; ++k) off[k] += strides_[k][u];
      if (++pos_[u] < shape_[u]) return;
      for (size_t k = 0; k < N; ++k) off[k] -= shape_[u] * strides_[k][u];
      pos_[u] = 0;
    }
  }
  std::array<int64_t, N> off;

 private:
  IntArrayRef shape_;
  std::array<DimVector, N> strides_;
  DimVector pos_;
};

}  // namespace tc::cpu
