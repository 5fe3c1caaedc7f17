// SPDX-License-Identifier: BSD-3-Clause
// The Autograd kernel of every op that has neither a derivatives.yaml entry
// nor a CompositeImplicitAutograd decomposition. It runs the op below
// autograd and, when an input requires grad, gives the op's floating outputs
// a NotImplemented node: backward through it fails naming the op. out=
// variants refuse inputs that require grad, as PyTorch.
#include "autograd/fallback.h"

#include <functional>

#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "dispatch/dispatcher.h"
#include "dispatch/tls.h"

namespace tc::autograd {
namespace {

void for_each_tensor(const IValue& v, const std::function<void(const Tensor&)>& f) {
  if (v.is_tensor())
    f(v.to_tensor());
  else if (v.tag() == IValue::Tag::TensorList)
    for (const Tensor& t : v.to_tensor_list()) f(t);
  else if (v.tag() == IValue::Tag::OptionalTensorList)
    for (const auto& t : v.to_optional_tensor_list())
      if (t) f(*t);
}

void autograd_fallback(const OperatorEntry& op, DispatchKeySet ks, Stack* stack, void*) {
  const auto& schema = op.schema();
  const size_t n_args = schema.arguments.size();
  bool needs_grad = false;
  edge_list next;
  if (GradMode::is_enabled()) {
    for (size_t i = 0; i < n_args && i < stack->size(); ++i)
      for_each_tensor((*stack)[stack->size() - n_args + i], [&](const Tensor& t) {
        if (t.defined() && t.requires_grad()) needs_grad = true;
      });
  }
  std::vector<Tensor> written;  // mutated arguments (in-place / out)
  if (needs_grad) {
    TC_CHECK(schema.kind() != schema::SchemaKind::Out, Runtime, op.name(),
             ": functions with out=... arguments don't support automatic differentiation, but one of the "
             "arguments requires grad.");
    for (size_t i = 0; i < n_args; ++i) {
      const IValue& v = (*stack)[stack->size() - n_args + i];
      if (schema.arguments[i].is_write() && v.is_tensor()) {
        check_inplace(v.to_tensor(), op.name().c_str());
        written.push_back(v.to_tensor());
      }
      for_each_tensor(v, [&](const Tensor& t) { next.push_back(gradient_edge(t)); });
    }
  }
  {
    ExcludeDispatchKeyGuard below(DispatchKey::Autograd);
    op.call_boxed(ks.remove(DispatchKey::Autograd), stack);
  }
  if (!needs_grad) return;
  auto node = make_node<NotImplementedBackward>(op.name(), std::move(next));
  auto record = [&](const Tensor& t) {
    if (t.defined() && is_floating(t.dtype())) set_history(t, node);
  };
  if (!written.empty()) {
    for (const Tensor& t : written) record(t);
    return;
  }
  for (const IValue& v : *stack) for_each_tensor(v, record);
}

}  // namespace

void register_autograd_fallback(Dispatcher& d) {
  KernelFunction k;
  k.boxed = &autograd_fallback;
  d.register_fallback(DispatchKey::Autograd, std::move(k), "autograd::autograd_fallback (NotImplemented node)");
}

}  // namespace tc::autograd
