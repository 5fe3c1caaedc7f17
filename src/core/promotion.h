// SPDX-License-Identifier: BSD-3-Clause
// PyTorch's result_type: dimensioned tensors outrank zero-dim tensors, which
// outrank wrapped numbers, but only within a category (bool < integral <
// floating); a higher category always wins.
#pragma once
#include <initializer_list>

#include "core/tensor.h"

namespace tc {

class ResultTypeState {
 public:
  void add(const Tensor& t);
  void add(const Scalar& s);  // a wrapped number
  ScalarType result() const;

 private:
  ScalarType dim_ = ScalarType::Undefined, zero_dim_ = ScalarType::Undefined, wrapped_ = ScalarType::Undefined;
};

ScalarType result_type(std::initializer_list<Tensor> tensors);
ScalarType result_type(const Tensor& a, const Scalar& b);

}  // namespace tc
