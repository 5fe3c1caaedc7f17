// SPDX-License-Identifier: BSD-3-Clause
// gradcheck / gradgradcheck: compare the gradients backward computes with
// central finite differences (float64 inputs), as torch.autograd.gradcheck.
#pragma once
#include <functional>
#include <string>

#include "autograd/node.h"

namespace tc::autograd {

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
};

using DifferentiableFn = std::function<variable_list(const variable_list&)>;

// Checks d(outputs)/d(inputs) for every floating output and every input that
// requires grad. Returns "" when they agree, else a description of the first
// mismatch (output, input, element, numerical vs analytical).
std::string gradcheck(const DifferentiableFn& fn, const variable_list& inputs, const GradcheckOptions& opts = {});

// gradcheck of the gradient itself: the function (inputs, grad_outputs) ->
// grad(fn(inputs), inputs, grad_outputs, create_graph=true), with fixed
// pseudo-random grad_outputs.
std::string gradgradcheck(const DifferentiableFn& fn, const variable_list& inputs, const GradcheckOptions& opts = {});

}  // namespace tc::autograd
