// SPDX-License-Identifier: BSD-3-Clause
// Functions with a user-written backward (torch.autograd.Function): the
// forward runs with grad mode off; its outputs get a node that calls the
// user's backward. Language bindings (C, C++, Python, Rust) wrap this core.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "autograd/node.h"
#include "autograd/saved_variable.h"

namespace tc::autograd {

struct FunctionDef;

// What forward and backward share for one call.
class FunctionCtx {
 public:
  ~FunctionCtx();
  // Forward only.
  void save_for_backward(variable_list tensors);
  void mark_dirty(const variable_list& tensors);
  void mark_non_differentiable(const variable_list& tensors);
  // Backward only: the saved tensors (an in-place change since is an error).
  variable_list saved_tensors() const;
  // Whether input i (by position) gets a gradient.
  bool needs_input_grad(size_t i) const { return i < needs_input_grad_.size() && needs_input_grad_[i]; }
  size_t num_inputs() const { return needs_input_grad_.size(); }
  // Non-tensor state: owned here, destroyed with the context.
  void set_state(void* state, void (*destroy)(void*));
  void* state() const { return state_; }
  bool in_forward() const { return in_forward_; }

  // For bindings whose forward also returns non-tensor values: the position
  // of each tensor output among all `total_outputs` (empty: all are tensors).
  std::vector<size_t> tensor_output_positions;
  size_t total_outputs = 0;

 private:
  friend variable_list apply_function(const std::shared_ptr<const FunctionDef>&, const variable_list&,
                                      const std::function<variable_list(FunctionCtx&)>&);
  friend class CustomBackward;
  bool in_forward_ = true;
  variable_list to_save_;
  std::vector<SavedVariable> saved_;
  std::vector<TensorImpl*> dirty_, non_differentiable_;
  std::vector<bool> needs_input_grad_;
  std::weak_ptr<Node> node_;
  void* state_ = nullptr;
  void (*state_destroy_)(void*) = nullptr;
};

struct FunctionDef {
  std::string name;  // the node is "<name>Backward"
  // grads: one per output (zeros where an output got none); returns one
  // gradient per input position (undefined: none), or fewer (the rest none).
  std::function<variable_list(FunctionCtx&, const variable_list& grads)> backward;
  // Runs when the definition's last user (handle or graph node) goes.
  std::function<void()> on_destroy;
  ~FunctionDef() {
    if (on_destroy) on_destroy();
  }
};

// Applies a function. `inputs` has one entry per input position (undefined
// for non-tensor inputs); `forward` computes the outputs with grad mode off.
variable_list apply_function(const std::shared_ptr<const FunctionDef>& def, const variable_list& inputs,
                             const std::function<variable_list(FunctionCtx&)>& forward);

}  // namespace tc::autograd
