# SPDX-License-Identifier: BSD-3-Clause
"""Custom autograd functions, as torch.autograd.Function.

    class MulConstant(tensorc.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    y = MulConstant.apply(x, 3.0)      # y.grad_fn.name() == "MulConstantBackward"

The graph machinery is tensorc's (tc_function_create_values, swig/function.i):
forward runs with grad mode off; every argument is one input position, tensors
being the differentiable ones; backward gets one gradient per forward output
(None for a non-tensor output) and returns one per argument (None: no gradient).
"""
import functools as _functools

from .. import _C
from .._tensor import Tensor as _Tensor
from .grad_mode import no_grad as _no_grad, is_grad_enabled as _is_grad_enabled


def _tensor_list(name, values):
    for i, v in enumerate(values):
        if v is not None and not isinstance(v, _Tensor):
            raise TypeError("{} can only take Tensors (or None), but argument {} is of type {}".format(
                name, i, type(v).__name__))
    return list(values)


class FunctionCtx:
    """The `ctx` of one call: forward stores what backward needs on it.

    Any attribute may be set (ctx.constant = 2.0). Tensors go through
    save_for_backward, which keeps them without reference cycles and checks
    they were not modified in place before backward reads them."""

    # While forward or backward runs: a capsule with the C context (see
    # swig/function.i); None otherwise.
    _handle = None

    def save_for_backward(self, *tensors):
        """Forward only: tensors (or None) that backward reads as ctx.saved_tensors."""
        _C.function_ctx_save_for_backward(self._handle, _tensor_list("save_for_backward", tensors))

    @property
    def saved_tensors(self):
        """Backward only: the tuple given to save_for_backward."""
        return _C.function_ctx_saved_tensors(self._handle)

    saved_variables = saved_tensors

    def mark_dirty(self, *tensors):
        """Forward only: inputs that forward modified in place (and returns)."""
        _C.function_ctx_mark_dirty(self._handle, _tensor_list("mark_dirty", tensors))

    def mark_non_differentiable(self, *tensors):
        """Forward only: outputs that get no gradient (requires_grad False)."""
        _C.function_ctx_mark_non_differentiable(self._handle, _tensor_list("mark_non_differentiable", tensors))

    def set_materialize_grads(self, value):
        """Accepted for PyTorch code. tensorc always materializes: an output
        that got no gradient passes zeros to backward (never None), which code
        written for set_materialize_grads(False) handles as well."""
        self._materialize_grads = bool(value)

    @property
    def needs_input_grad(self):
        """One bool per forward argument: whether its gradient is wanted."""
        return _C.function_ctx_needs_input_grad(self._handle, self._n_inputs)

    # ---- called by swig/function.i --------------------------------------------
    def _call_forward(self, args):
        cls = self._forward_cls
        if cls._uses_setup_context():
            outputs = cls.forward(*args)
            cls.setup_context(self, args, outputs)
        else:
            outputs = cls.forward(self, *args)
        self._returned_tuple = isinstance(outputs, tuple)
        return tuple(outputs) if self._returned_tuple else (outputs,)

    def _call_backward(self, grads):
        cls = self._forward_cls
        backward = cls.backward if cls.backward is not Function.backward else cls.vjp
        result = backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = self._n_inputs
        if len(result) > n and all(g is None for g in result[n:]):
            result = result[:n]  # trailing Nones are ignored, as PyTorch does
        if len(result) != n:
            raise RuntimeError("function {} returned an incorrect number of gradients (expected {}, got {})".format(
                type(self).__name__, n, len(result)))
        return tuple(self._check_gradient(i, g) for i, g in enumerate(result))

    def _check_gradient(self, i, g):
        if g is None:
            return None
        name = type(self).__name__
        if not isinstance(g, _Tensor):
            raise TypeError("function {} returned a {} as gradient {}; expected a Tensor or None".format(
                name, type(g).__name__, i))
        shape = self._input_shapes[i]
        if shape is None:
            raise RuntimeError("function {} returned a gradient different than None at position {}, but the "
                               "corresponding forward input was not a Tensor".format(name, i + 1))
        if tuple(g.shape) != shape:
            reduced = _sum_to(g, shape)  # a gradient broadcast over the input reduces to it, as PyTorch does
            if reduced is None:
                raise RuntimeError("function {} returned an invalid gradient at index {} - got {} but expected "
                                   "shape compatible with {}".format(name, i, list(g.shape), list(shape)))
            g = reduced
        return g


def _sum_to(g, shape):
    """g summed down to `shape` if g's shape is a broadcast of it, else None."""
    lead = g.dim() - len(shape)
    if lead < 0:
        return None
    if lead:
        g = g.sum(list(range(lead)))
    for d, (have, want) in enumerate(zip(tuple(g.shape), shape)):
        if have != want:
            if want != 1:
                return None
            g = g.sum(d, keepdim=True)
    return g


class BackwardCFunction(FunctionCtx):
    """The class of a Function's ctx: <Function>Backward, as in PyTorch."""
    _forward_cls = None


class Function:
    """Base class of custom autograd functions: subclass it with static
    forward(ctx, *args) and backward(ctx, *grad_outputs), call Cls.apply(*args)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(cls.__name__ + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": cls.__module__})
        cls._tc_function = _C.function_create(cls.__name__)

    def __init__(self, *args, **kwargs):
        raise RuntimeError("{} is a tensorc.autograd.Function: do not instantiate it, call {}.apply(...) "
                           "(forward and backward are static methods)".format(type(self).__name__,
                                                                               type(self).__name__))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("call {}.apply(...) instead of an instance".format(type(self).__name__))

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def vjp(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("tensorc has no forward-mode AD: jvp is never called")

    @classmethod
    def _uses_setup_context(cls):
        # PyTorch 2's style: forward(*args) without ctx, then setup_context(ctx, inputs, output).
        return cls.setup_context is not Function.setup_context

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs forward on args and records backward for the tensors among them."""
        if kwargs:
            raise TypeError("{}.apply() takes no keyword arguments (got {})".format(
                cls.__name__, ", ".join(sorted(kwargs))))
        if cls is Function:
            raise RuntimeError("Function.apply: call apply on a subclass that defines forward and backward")
        ctx = cls._backward_cls()
        ctx._n_inputs = len(args)
        ctx._input_shapes = tuple(tuple(a.shape) if isinstance(a, _Tensor) else None for a in args)
        outputs = _C.function_apply(cls._tc_function, ctx, args)
        return outputs if ctx._returned_tuple else outputs[0]


class _OnceDifferentiableError(Function):
    """Stands between a once_differentiable backward's results and the
    gradients they came from, so that differentiating them fails loudly."""

    @staticmethod
    def forward(ctx, value, *inputs):
        return value  # tensorc gives the returned input a fresh alias with this node

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


def once_differentiable(backward):
    """Decorates a backward that is not itself differentiable: it runs under
    no_grad, and a second-order gradient through it raises RuntimeError."""

    @_functools.wraps(backward)
    def wrapper(ctx, *args):
        with _no_grad():
            outputs = backward(ctx, *args)
        if not _is_grad_enabled():
            return outputs
        # The tensors the results could depend on: the incoming gradients and
        # (unlike PyTorch, which then reports "does not require grad") the
        # saved tensors.
        candidates = args + tuple(ctx.saved_tensors)
        sources = tuple(a for a in candidates if isinstance(a, _Tensor) and a.requires_grad)
        if not sources:
            return outputs
        single = not isinstance(outputs, tuple)
        values = (outputs,) if single else outputs
        guarded = tuple(_OnceDifferentiableError.apply(v, *sources) if isinstance(v, _Tensor) else v
                        for v in values)
        return guarded[0] if single else guarded

    return wrapper
