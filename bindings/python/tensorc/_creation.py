# SPDX-License-Identifier: BSD-3-Clause
"""Making tensors: tensor(), the factories with requires_grad=, generators."""
import builtins as _builtins
import functools as _functools
import inspect as _inspect

import numpy as _np

from . import _C, _ops
from . import _dtype as _dt
from ._device import device as _device
from ._interop import _from_numpy_copy, from_numpy  # noqa: F401
from ._override_protocol import _dispatches
from ._operators import _publish
from ._generator import Generator
from ._tensor import Tensor


def _with_requires_grad(fn):
    """A factory that also takes requires_grad=, as PyTorch's do."""
    @_functools.wraps(fn)
    def factory(*args, requires_grad=False, **kwargs):
        result = fn(*args, **kwargs)
        if requires_grad:
            result.requires_grad_(True)
        return result
    params = list(_inspect.signature(fn).parameters.values())
    extra = _inspect.Parameter("requires_grad", _inspect.Parameter.KEYWORD_ONLY, default=False)
    if params and params[-1].kind is _inspect.Parameter.VAR_KEYWORD:
        params.insert(len(params) - 1, extra)
    else:
        params.append(extra)
    factory.__signature__ = _inspect.Signature(params)
    return factory


def _factory(name):
    """The public factory `name`: the generated function taking requires_grad= too."""
    fn = _with_requires_grad(_ops.FUNCTIONS[name])
    _publish(name, fn)
    return fn


FACTORIES = {name: _factory(name) for name in (
    "zeros", "ones", "empty", "full", "arange", "rand", "randn", "linspace", "eye", "randint", "randperm",
    "scalar_tensor", "zeros_like", "ones_like", "empty_like", "full_like", "normal") if name in _ops.FUNCTIONS}
zeros, ones, empty, full = FACTORIES["zeros"], FACTORIES["ones"], FACTORIES["empty"], FACTORIES["full"]
arange, rand, randn = FACTORIES["arange"], FACTORIES["rand"], FACTORIES["randn"]


@_dispatches
def rand_like(input, *, dtype=None, device=None, requires_grad=False):
    """Uniform [0, 1) values in a tensor of input's shape (and dtype and device unless given)."""
    return rand(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


@_dispatches
def randn_like(input, *, dtype=None, device=None, requires_grad=False):
    """Standard normal values in a tensor of input's shape (and dtype and device unless given)."""
    return randn(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


@_dispatches
def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False):
    """randint_like(input, high) or randint_like(input, low, high): integers in [low, high)."""
    if high is None:
        low, high = 0, low
    return FACTORIES["randint"](low, high, input.shape, dtype=dtype or input.dtype, device=device or input.device,
                                requires_grad=requires_grad)


FACTORIES.update(rand_like=rand_like, randn_like=randn_like, randint_like=randint_like)


def _infer_dtype(values):
    """PyTorch's rule for Python data: bool, else int64, else the default float32."""
    kind = _np.asarray(values).dtype.kind
    return {"b": _dt.bool, "i": _dt.int64, "u": _dt.int64}.get(kind, _dt.float32)


def _flatten_tensors(data):
    """Nested Python data with one-element tensors replaced by their values."""
    if isinstance(data, Tensor):
        return data.tolist()
    if isinstance(data, (list, tuple)):
        return [_flatten_tensors(d) for d in data]
    return data


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of data: nested lists/tuples of numbers, a
    Python scalar, a NumPy array or another tensor."""
    if isinstance(data, Tensor):
        result = data.detach().clone()
        if dtype is not None:
            result = result.to(dtype)
    elif isinstance(data, _np.ndarray) or isinstance(data, _np.generic):
        result = _from_numpy_copy(_np.asarray(data), dtype)
    else:
        data = _flatten_tensors(data)
        if dtype is None:
            dtype = _infer_dtype(data)
        array = _np.asarray(data)
        if array.dtype == object:
            raise TypeError("tensor(): could not infer a dtype from {!r}".format(data))
        if array.dtype.kind not in "biuf":
            raise TypeError("tensor(): can't make a tensor from elements of type " + array.dtype.name)
        result = _from_numpy_copy(array, dtype)
    if device is not None and _device(device).type != "cpu":
        result = result.to(device)
    if requires_grad:
        result.requires_grad_(True)
    return result


def as_tensor(data, dtype=None, device=None):
    """data itself when it already is a tensor of that dtype and device, else tensor(data)."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device)
    if isinstance(data, _np.ndarray) and dtype is None and device is None:
        try:
            return from_numpy(data)
        except (TypeError, ValueError, NotImplementedError):
            pass
    return tensor(data, dtype=dtype, device=device)


def is_tensor(obj):
    return isinstance(obj, Tensor)


@_dispatches
def numel(input):
    return input.numel()


default_generator = Generator(_capsule=_C.generator_default())


def manual_seed(seed):
    """Reseeds the default generator; returns it."""
    _C.manual_seed(_builtins.int(seed) & 0xFFFFFFFFFFFFFFFF)
    return default_generator


def set_num_threads(n):
    _C.set_num_threads(n)


def get_num_threads():
    return _C.get_num_threads()
