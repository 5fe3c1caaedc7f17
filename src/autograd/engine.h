// SPDX-License-Identifier: BSD-3-Clause
// Runs backward graphs: dependency counting so each node runs once, after
// all its gradients arrived; latest-created nodes first; no recursion (a
// chain of 100,000 nodes is fine).
#pragma once
#include <vector>

#include "autograd/node.h"

namespace tc::autograd {

// torch.autograd.backward: accumulates into the .grad of the leaves reached
// from `roots`. grad_outputs[i] may be undefined only for one-element roots
// (implicitly ones).
void backward(const variable_list& roots, const variable_list& grad_outputs, bool retain_graph, bool create_graph);

// torch.autograd.grad: returns d(outputs)/d(inputs) without touching .grad.
// An input that the outputs do not depend on is an error unless allow_unused
// (then its gradient is undefined).
variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   bool retain_graph, bool create_graph, bool allow_unused);

}  // namespace tc::autograd
