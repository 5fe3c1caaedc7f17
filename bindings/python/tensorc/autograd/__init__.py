"""tensorc.autograd: backward, grad, grad modes, custom functions, gradcheck."""
from .. import _C
from .grad_mode import no_grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: F401


def _as_list(x):
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates d(tensors)/d(leaf) into each leaf's .grad."""
    if inputs is not None:
        raise NotImplementedError("backward(inputs=...) is not supported yet")
    tensors = _as_list(tensors)
    grads = _as_list(grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    _C.autograd_backward(tensors, grads, bool(retain_graph), bool(create_graph))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    """The gradients of outputs with respect to inputs, as a tuple; .grad is untouched."""
    single = not isinstance(inputs, (list, tuple))
    outputs = _as_list(outputs)
    inputs = _as_list(inputs)
    grad_outputs = _as_list(grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    return _C.autograd_grad(outputs, inputs, grad_outputs, bool(retain_graph), bool(create_graph),
                            bool(allow_unused))
