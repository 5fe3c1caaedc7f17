// SPDX-License-Identifier: BSD-3-Clause
// A tensor a node keeps for its backward formula, with the version it had
// when saved: unpacking after an in-place change is an error naming the op
// and both versions. An op's own output is saved without its history (which
// is the saving node: a cycle) and gets it back on unpack.
#pragma once
#include <memory>

#include "autograd/node.h"

namespace tc::autograd {

class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);

  // The saved tensor; `owner` is the node unpacking it (for an output's
  // history and for the error message).
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  void reset();
  bool defined() const { return was_defined_; }

 private:
  Tensor data_;  // inputs: the tensor itself; outputs: a detached alias
  bool was_defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  DimVector sizes_;  // for the error message
  ScalarType dtype_ = ScalarType::Float32;
};

}  // namespace tc::autograd
