// SPDX-License-Identifier: BSD-3-Clause
// schema/derivatives.yaml loaded against the ops model: per op, one backward
// formula per differentiable input (or per group of inputs), checked strictly.
//
//   - name: mul.Tensor               # an op of ops.yaml (name.overload)
//     self: mul_tensor_backward(grad, other, self.scalar_type())
//     other: mul_tensor_backward(grad, self, other.scalar_type())
//   - name: max.dim
//     self: value_selecting_reduction_backward(grad, dim, indices, self.sizes(), keepdim)
//     output_differentiability: [True, False]
//   - name: native_layer_norm
//     input, weight, bias: native_layer_norm_backward(grads[0], input, ..., grad_input_mask)
//   - name: argmax
//     non_differentiable: True
//   - name: erfinv
//     not_implemented: [self]
//
// Formulas are C++ expressions over: grad (single output), grads[i] or
// grad_<output name> (multi-output; never mixed), the op's arguments by name,
// result / result0.. / output names, X.sizes() X.dim() X.scalar_type()
// X.numel() (saved as values, not tensors), grad_input_mask (for groups).
// Rules (each error's rule): yaml, missing-name, unknown-op, duplicate-entry,
// out-variant (out= ops are never differentiable), unknown-input (a key that is
// not an argument), non-differentiable-input (a key naming a non-tensor
// argument), duplicate-input, mixed-grad (grad and grads[i] / grad_x in one
// entry), bad-output-differentiability, grad-out-of-range, empty-formula.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "codegen/gen_common.h"

namespace tc::codegen {

struct DerivativeFormula {
  std::vector<std::string> inputs;  // argument names this formula gives gradients for
  std::string formula;              // C++ expression (a tuple/vector when several inputs)
};

struct DerivativeInfo {
  std::string name;  // "mul.Tensor"
  const OpInfo* op = nullptr;
  std::vector<DerivativeFormula> formulas;
  std::vector<bool> output_differentiability;  // empty: every output
  bool non_differentiable = false;
  std::vector<std::string> not_implemented;  // inputs whose backward fails naming the op
  std::string file;
  int line = 0;
};

struct Derivatives {
  std::vector<DerivativeInfo> entries;
  const DerivativeInfo* find(const std::string& qualified) const;
};

std::vector<LoadError> load_derivatives(const std::string& yaml_text, const std::string& file_name, const Model& model,
                                        Derivatives* out);

// Generated files: nodes (header + source) and the autograd kernels.
std::string gen_autograd_header(const Model& m, const Derivatives& d);
// The nodes and kernels of the ops in `shard` (-1: all).
std::string gen_autograd_source(const Model& m, const Derivatives& d, int shard = -1);
// The qualified ops that get a generated Autograd kernel, with kernel names.
std::vector<std::pair<const OpInfo*, std::string>> autograd_kernels(const Model& m, const Derivatives& d);

}  // namespace tc::codegen
