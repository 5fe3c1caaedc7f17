# SPDX-License-Identifier: BSD-3-Clause
"""What the generated functions in _ops.py share for their arguments:
recognisers for overload resolution, conversions, the no-match error.
The __tensorc_function__ protocol they also call is _override_protocol.py."""
import numbers as _numbers

import numpy as _np

from . import _C
from . import _dtype as _dt
from ._dtype import dtype as _dtype
from ._device import device as _device
from ._generator import Generator as _Generator

_TensorBase = _C.TensorBase


class _Unset:
    """The default of an argument some overloads lack: which one the caller gave decides."""
    __slots__ = ()

    def __repr__(self):
        return "<unset>"


_UNSET = _Unset()
_NOMATCH = object()


# ---- recognisers -------------------------------------------------------------

def _is_tensor(x):
    return isinstance(x, _TensorBase)


def _is_tensor_list(x, allow_none=False):
    if not isinstance(x, (list, tuple)):
        return False
    return all(isinstance(t, _TensorBase) or (allow_none and t is None) for t in x)


def _is_scalar(x):
    t = type(x)
    if t is float or t is int or t is bool:
        return True
    return isinstance(x, _numbers.Number) and not isinstance(x, _TensorBase) and not isinstance(x, complex)


def _is_int(x):
    if type(x) is int:
        return True
    return isinstance(x, _numbers.Integral) and not isinstance(x, bool) and not isinstance(x, _TensorBase)


def _is_float(x):
    return isinstance(x, _numbers.Real) and not isinstance(x, bool) and not isinstance(x, _TensorBase)


def _is_bool(x):
    return isinstance(x, (bool, _np.bool_))  # an int is not a bool here, as in PyTorch


def _is_int_list(x):
    if _is_int(x):
        return True
    return isinstance(x, (list, tuple)) and all(_is_int(v) for v in x)


def _is_bool_list(x):
    return isinstance(x, (list, tuple)) and all(_is_bool(v) for v in x)


def _is_dtype(x):
    return isinstance(x, _dtype)


def _is_device(x):
    return isinstance(x, (_device, str)) or (type(x) is int)


def _is_generator(x):
    return isinstance(x, _Generator)


# ---- conversions ---------------------------------------------------------------

def _device_arg(x):
    if x is None or type(x) is _device:
        return x
    return _device(x)


def _expand_ints(x, n):
    return (x,) * n if _is_int(x) else x


def _varargs_ints(values, kwargs=None, name="size", func="function"):
    """zeros(2, 3), zeros((2, 3)) and zeros(size=(2, 3)) alike."""
    if kwargs:
        if set(kwargs) != {name} or values:
            extra = next(k for k in kwargs if k != name) if set(kwargs) != {name} else name
            raise TypeError("{}() got an unexpected keyword argument {!r}".format(func, extra))
        return kwargs[name]
    if len(values) == 1 and not _is_int(values[0]):
        return values[0]
    return values


def _number_tensor(value):
    """A Python number as the 0-dim tensor PyTorch wraps it in where a tensor
    is expected (bool and int keep their kind, floats take the default dtype,
    so it does not widen the other operands' dtype). Anything else passes."""
    if not _is_scalar(value) or isinstance(value, _TensorBase):
        return value
    dtype = _dt.bool if isinstance(value, bool) else _dt.int64 if _is_int(value) else None
    return _C.tc_scalar_tensor(value, dtype, None)


def _describe(values):
    return "(" + ", ".join(type(v).__name__ for v in values if v is not _UNSET) + ")"


def _no_match(name, func, args, kwargs=None):
    got = list(args) + (list(kwargs.values()) if kwargs else [])
    return TypeError("{}(): no overload matches the arguments {}; its signatures are:\n  {}".format(
        name, _describe(got), "\n  ".join(func.__doc__.splitlines())))
