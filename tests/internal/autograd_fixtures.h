// SPDX-License-Identifier: BSD-3-Clause
// Inputs for the autograd tests: tensors from literal values, and leaves
// that require grad.
#pragma once
#include <vector>

#include "autograd/variable.h"
#include "tensorc_gen/ops.h"

namespace tc::fixtures {

// A contiguous tensor of `shape` holding `v` (row-major), in dtype `dt`.
inline Tensor from(const std::vector<double>& v, std::vector<int64_t> shape, ScalarType dt = ScalarType::Float64) {
  Tensor t = tc::empty(IntArrayRef(shape), dt);
  for (size_t i = 0; i < v.size(); ++i)
    write_scalar(static_cast<char*>(t.data_ptr()) + i * t.element_size(), dt, Scalar(v[i]));
  return t;
}

// A float64 leaf that requires grad.
inline Tensor leaf(const std::vector<double>& v, std::vector<int64_t> shape) {
  Tensor t = from(v, std::move(shape));
  autograd::set_requires_grad(t, true);
  return t;
}

}  // namespace tc::fixtures
