// SPDX-License-Identifier: BSD-3-Clause
#include "autograd/custom_function.h"

#include <algorithm>

#include "autograd/grad_mode.h"
#include "autograd/variable.h"

namespace tc::autograd {

FunctionCtx::~FunctionCtx() {
  if (state_destroy_) state_destroy_(state_);
}

void FunctionCtx::save_for_backward(variable_list tensors) {
  TC_CHECK(in_forward_, Runtime, "save_for_backward: can only be called in forward");
  to_save_ = std::move(tensors);
}

void FunctionCtx::mark_dirty(const variable_list& tensors) {
  TC_CHECK(in_forward_, Runtime, "mark_dirty: can only be called in forward");
  for (const Tensor& t : tensors)
    if (t.defined()) dirty_.push_back(t.impl());
}

void FunctionCtx::mark_non_differentiable(const variable_list& tensors) {
  TC_CHECK(in_forward_, Runtime, "mark_non_differentiable: can only be called in forward");
  for (const Tensor& t : tensors)
    if (t.defined()) non_differentiable_.push_back(t.impl());
}

variable_list FunctionCtx::saved_tensors() const {
  TC_CHECK(!in_forward_, Runtime, "saved_tensors: can only be read in backward");
  auto node = node_.lock();
  variable_list out;
  for (const SavedVariable& s : saved_) out.push_back(node ? s.unpack(node) : Tensor());
  return out;
}

void FunctionCtx::set_state(void* state, void (*destroy)(void*)) {
  if (state_destroy_ && state_ != state) state_destroy_(state_);
  state_ = state;
  state_destroy_ = destroy;
}

class CustomBackward final : public Node {
 public:
  CustomBackward(std::shared_ptr<const FunctionDef> def, edge_list next)
      : Node(std::move(next)), def_(std::move(def)) {}
  std::string name() const override { return def_->name + "Backward"; }
  void release_variables() override {
    for (SavedVariable& s : ctx_.saved_) s.reset();
  }
  variable_list apply(variable_list&& grads) override {
    for (size_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined()) grads[i] = input_metadata_[i].zeros();
    for (size_t i = 0; i < ctx_.needs_input_grad_.size(); ++i) ctx_.needs_input_grad_[i] = should_compute_output(i);
    variable_list out = def_->backward(ctx_, grads);
    TC_CHECK(out.size() <= num_outputs(), Runtime, "function ", name(), " returned ", out.size(),
             " gradients, but its forward had ", num_outputs(), " inputs");
    out.resize(num_outputs());
    for (size_t i = 0; i < out.size(); ++i)
      if (!should_compute_output(i)) out[i] = Tensor();
    return out;
  }
  FunctionCtx& ctx() { return ctx_; }

 private:
  std::shared_ptr<const FunctionDef> def_;
  FunctionCtx ctx_;
};

namespace {
bool contains(const std::vector<TensorImpl*>& v, const Tensor& t) {
  return std::find(v.begin(), v.end(), t.impl()) != v.end();
}
}  // namespace

variable_list apply_function(const std::shared_ptr<const FunctionDef>& def, const variable_list& inputs,
                             const std::function<variable_list(FunctionCtx&)>& forward) {
  TC_CHECK_ARG(def && def->backward, "apply_function: the function has no backward");
  bool record = false;
  if (GradMode::is_enabled())
    for (const Tensor& t : inputs) record |= t.defined() && t.requires_grad();
  std::shared_ptr<CustomBackward> node;
  FunctionCtx local_ctx;  // when nothing records
  FunctionCtx* ctx = &local_ctx;
  if (record) {
    edge_list next;
    for (const Tensor& t : inputs) next.push_back(gradient_edge(t));
    node = make_node<CustomBackward>(def, std::move(next));
    ctx = &node->ctx();
    ctx->node_ = node;
    for (const Tensor& t : inputs) ctx->needs_input_grad_.push_back(t.defined() && t.requires_grad());
  } else {
    local_ctx.needs_input_grad_.assign(inputs.size(), false);
  }
  variable_list outputs;
  {
    AutoGradMode no_grad(false);
    outputs = forward(*ctx);
  }
  ctx->in_forward_ = false;
  if (!record) return outputs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    TC_CHECK(out.defined(), Runtime, def->name, ": forward returned an undefined tensor as output ", i);
    const bool is_input = std::any_of(inputs.begin(), inputs.end(), [&](const Tensor& t) { return t.is_same(out); });
    const bool dirty = contains(ctx->dirty_, out);
    const bool non_differentiable = contains(ctx->non_differentiable_, out);
    if (dirty) {
      check_inplace(out, def->name.c_str());
    } else if (is_input) {
      out = detach(out);  // an input returned as is: an alias gets the history
    }
    if (non_differentiable || !is_floating(out.dtype()))
      node->add_input_metadata(out);
    else
      set_history(out, node);
  }
  for (const Tensor& t : ctx->to_save_) {
    const bool is_output = std::any_of(outputs.begin(), outputs.end(), [&](const Tensor& o) { return o.is_same(t); });
    ctx->saved_.emplace_back(t, is_output);
  }
  ctx->to_save_.clear();
  return outputs;
}

}  // namespace tc::autograd
