# SPDX-License-Identifier: BSD-3-Clause
"""Python operators on Tensor, and the installation of the generated methods.

+ - * / @ are C number slots of TensorBase (see swig/tensor_type.i) that
call the op directly for plain tensors and Python numbers; their other cases
and every other operator are the generated methods here. An error
inside an operator is raised as it is; an operand of a foreign type gives
NotImplemented, so Python tries the other side and then raises its own
TypeError."""
import numpy as _np

from . import _C, _ops
from ._interop import _from_numpy_copy as _np_as_tensor
from ._op_support import _is_scalar, _is_tensor, _number_tensor
from ._override_protocol import _has_override
from ._tensor import Tensor

M = _ops.METHODS


def _accepts(other):
    return _is_tensor(other) or _is_scalar(other) or _has_override((other,))


def _tensor_operand(other):
    """A NumPy array beside a tensor counts as a tensor (torch converts it too)."""
    return _np_as_tensor(other) if isinstance(other, _np.ndarray) else other


def _binary(method):
    def op(self, other):
        t = type(other)
        if t is Tensor or t is float or t is int or t is bool or _accepts(other):
            return method(self, other)
        if t is _np.ndarray:
            return method(self, _tensor_operand(other))
        return NotImplemented
    return op


def _reflected(function):
    """other <op> self, for a Python scalar `other`: function(other, self)."""
    def op(self, other):
        if not _accepts(other):
            return NotImplemented
        return function(other, self)
    return op


def _scalar_first(method):
    """other <op> self where only a Tensor-first overload exists: wrap the scalar."""
    def op(self, other):
        if not _accepts(other):
            return NotImplemented
        return method(_number_tensor(other), self)
    return op


def _either(forward, reflected):
    """The slow path of a C number slot: called as (left, right) whichever side the tensor is."""
    def op(left, right):
        if isinstance(left, _C.TensorBase):  # the C slot's view of "a tensor"
            return forward(left, right)
        return reflected(right, left)
    return op


def _adapt_split(generated, with_sizes):
    """split(x, 2) or split(x, [1, 3]): a list of sizes is split_with_sizes, as in PyTorch."""
    def split(input, split_size_or_sections, dim=0):
        if isinstance(split_size_or_sections, (list, tuple)):
            return with_sizes(input, split_size_or_sections, dim)
        return generated(input, split_size_or_sections, dim)
    split.__doc__ = generated.__doc__ + "\n" + with_sizes.__doc__
    return split


def _adapt_where(generated):
    """where(cond, x, 0.0): Python numbers become 0-dim tensors, as in PyTorch."""
    def where(condition, input, other, *, out=None):
        return generated(condition, _number_tensor(input), _number_tensor(other), out=out)
    where.__doc__ = generated.__doc__
    return where


def _adapt_where_method(generated):
    def where(self, condition, other):
        return generated(self, condition, _number_tensor(other))
    where.__doc__ = generated.__doc__
    return where


def _publish(name, adapter, method=False):
    """Puts adapter in place of the generated function (or Tensor method) name:
    in the public tables and as the global the generated code refers to, so
    the override protocol hands handlers the adapter, the public object."""
    table, prefix = (M, "_m_") if method else (_ops.FUNCTIONS, "")
    adapter.__name__ = name
    adapter.__qualname__ = ("Tensor." if method else "") + name
    adapter.__module__ = "tensorc"
    table[name] = adapter
    setattr(_ops, prefix + name, adapter)


def _install():
    for fn in _ops.FUNCTIONS.values():  # public names, for tracebacks and overrides
        fn.__module__ = "tensorc"
    for name, fn in M.items():
        fn.__name__, fn.__qualname__ = name, "Tensor." + name
    _publish("split", _adapt_split(_ops.FUNCTIONS["split"], _ops.FUNCTIONS["split_with_sizes"]))
    _publish("split", _adapt_split(M["split"], M["split_with_sizes"]), method=True)
    _publish("where", _adapt_where(_ops.FUNCTIONS["where"]))
    _publish("where", _adapt_where_method(M["where"]), method=True)
    # The hottest ops get a C fast path in front (FastBinary, swig/tensor_type.i).
    for name in ("add", "sub", "mul", "div", "matmul"):
        _publish(name, _C.fast_binary(name, _ops.FUNCTIONS[name]))
        _publish(name, _C.fast_binary(name, M[name]), method=True)
    for name, fn in M.items():
        if name not in Tensor.__dict__:  # else written by hand in _tensor.py
            setattr(Tensor, name, fn)

    T = Tensor
    # + - * / @ live in TensorBase's C number slots (a fast path for plain
    # tensors and Python numbers); everything else comes back here.
    _C.set_slow_operators((
        _either(_binary(M["add"]), _binary(M["add"])),
        _either(_binary(M["sub"]), _binary(_ops.rsub)),
        _either(_binary(M["mul"]), _binary(M["mul"])),
        _either(_binary(M["div"]), _scalar_first(M["div"])),
        _either(_binary(M["matmul"]), _reflected(_ops.matmul)),
    ))
    T.__iadd__ = _binary(M["add_"])
    T.__isub__ = _binary(M["sub_"])
    T.__imul__ = _binary(M["mul_"])
    T.__itruediv__ = _binary(M["div_"])
    T.__floordiv__ = _binary(M["floor_divide"])
    T.__rfloordiv__ = _scalar_first(M["floor_divide"])
    T.__ifloordiv__ = _binary(M["floor_divide_"])
    T.__mod__ = _binary(M["remainder"])
    T.__rmod__ = _reflected(_ops.remainder)
    T.__imod__ = _binary(M["remainder_"])
    T.__pow__ = _binary(M["pow"])
    T.__rpow__ = _reflected(_ops.pow)
    T.__ipow__ = _binary(M["pow_"])
    T.__and__ = _binary(M["bitwise_and"])
    T.__rand__ = _binary(M["bitwise_and"])
    T.__iand__ = _binary(M["bitwise_and_"])
    T.__or__ = _binary(M["bitwise_or"])
    T.__ror__ = _binary(M["bitwise_or"])
    T.__ior__ = _binary(M["bitwise_or_"])
    T.__xor__ = _binary(M["bitwise_xor"])
    T.__rxor__ = _binary(M["bitwise_xor"])
    T.__ixor__ = _binary(M["bitwise_xor_"])
    T.__eq__ = _binary(M["eq"])
    T.__ne__ = _binary(M["ne"])
    T.__lt__ = _binary(M["lt"])
    T.__le__ = _binary(M["le"])
    T.__gt__ = _binary(M["gt"])
    T.__ge__ = _binary(M["ge"])
    T.__neg__ = M["neg"]
    T.__abs__ = M["abs"]
    T.__invert__ = M["bitwise_not"]
    T.__pos__ = lambda self: self
    T.__hash__ = object.__hash__
    for name, fn in list(T.__dict__.items()):  # the closures above, named for tracebacks and overrides
        if name.startswith("__") and getattr(fn, "__name__", None) in ("op", "<lambda>"):
            fn.__name__ = name
            fn.__qualname__ = "Tensor." + name


_install()
