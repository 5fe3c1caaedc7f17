# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.autograd: backward, grad, grad modes, custom functions, gradcheck."""
from .. import _C
from .._tensor import Tensor as _Tensor
from .grad_mode import no_grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from . import function  # noqa: F401  (tensorc.autograd.function, as torch.autograd.function)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401,F811

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "Function",
           "FunctionCtx", "once_differentiable", "function", "GradcheckError", "gradcheck", "gradgradcheck"]


def _as_list(x, what, fn):
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return list(x)
    if isinstance(x, _Tensor):
        return [x]
    raise TypeError("{}: argument '{}' must be a Tensor or a sequence of Tensors, not {}".format(
        fn, what, type(x).__name__))


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulates d(tensors)/d(leaf) into each leaf's .grad (with inputs=:
    into those tensors' .grad only)."""
    if grad_variables is not None:  # PyTorch's old name
        grad_tensors = grad_variables
    tensors = _as_list(tensors, "tensors", "autograd.backward")
    grads = _as_list(grad_tensors, "grad_tensors", "autograd.backward")
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is None:
        _C.autograd_backward(tensors, grads, bool(retain_graph), bool(create_graph))
        return
    # The C ABI's backward accumulates into every leaf; for a chosen set,
    # compute their gradients and accumulate them here, as backward would.
    inputs = _as_list(inputs, "inputs", "autograd.backward")
    if not inputs:
        raise RuntimeError("autograd.backward: 'inputs' argument to backward() cannot be empty.")
    results = _C.autograd_grad(tensors, inputs, grads, bool(retain_graph), bool(create_graph), True)
    for x, g in zip(inputs, results):
        if g is None:
            continue
        if not create_graph:
            g = g.detach()
        x.grad = g if x.grad is None else x.grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, is_grads_batched=False):
    """The gradients of outputs with respect to inputs, as a tuple; .grad is
    untouched. An input the outputs do not use is an error, or None with
    allow_unused=True."""
    if is_grads_batched:
        raise NotImplementedError("autograd.grad: is_grads_batched=True is not supported by tensorc")
    outputs = _as_list(outputs, "outputs", "autograd.grad")
    inputs = _as_list(inputs, "inputs", "autograd.grad")
    grad_outputs = _as_list(grad_outputs, "grad_outputs", "autograd.grad")
    if retain_graph is None:
        retain_graph = create_graph
    return _C.autograd_grad(outputs, inputs, grad_outputs, bool(retain_graph), bool(create_graph),
                            bool(allow_unused))
