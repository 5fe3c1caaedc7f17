"""What the generated functions in _ops.py share: argument recognisers for
overload resolution, and the __tensorc_function__ protocol."""
import numbers as _numbers
import threading as _threading

from . import _C
from ._dtype import dtype as _dtype
from ._device import device as _device

_TensorBase = _C.TensorBase


class _Unset:
    """The default of an argument some overloads lack: which one the caller gave decides."""
    __slots__ = ()

    def __repr__(self):
        return "<unset>"


_UNSET = _Unset()
_NOMATCH = object()

# Types that never carry __tensorc_function__ (Tensor is added by _tensor.py,
# Parameter by nn). The C pre-check reads the same set.
_PLAIN = {int, float, bool, type(None), str}
_C.set_plain_types(_PLAIN)
_needs_check = _C.needs_override_check


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
    return isinstance(x, (bool, int)) or type(x).__name__ == "bool_"


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
    return hasattr(x, "_c") and type(x).__name__ == "Generator"


# ---- conversions ---------------------------------------------------------------

def _device_arg(x):
    if x is None or type(x) is _device:
        return x
    return _device(x)


def _expand_ints(x, n):
    return (x,) * n if _is_int(x) else x


def _varargs_ints(values):
    """zeros(2, 3) and zeros((2, 3)) alike."""
    if len(values) == 1 and not _is_int(values[0]):
        return values[0]
    return values


def _describe(values):
    return "(" + ", ".join(type(v).__name__ for v in values if v is not _UNSET) + ")"


def _no_match(name, func, args, kwargs=None):
    got = list(args) + (list(kwargs.values()) if kwargs else [])
    return TypeError("{}(): no overload matches the arguments {}; its signatures are:\n  {}".format(
        name, _describe(got), "\n  ".join(func.__doc__.splitlines())))


# ---- __tensorc_function__ --------------------------------------------------------

_state = _threading.local()


def _overrides_enabled():
    return not getattr(_state, "disabled", 0)


def _list_needs_check(values):
    if not isinstance(values, (list, tuple)):
        return True
    return any(type(v) not in _PLAIN for v in values)


def _flatten(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from v
        else:
            yield v


def _has_override(values):
    """Whether any value (or element of a list value) defines __tensorc_function__."""
    if getattr(_state, "disabled", 0):
        return False
    for v in _flatten(values):
        t = type(v)
        if t in _PLAIN:
            continue
        if getattr(t, "__tensorc_function__", None) is not None:
            return True
    return False


def _overloaded_args(values):
    """The arguments to ask, PyTorch's order: subclasses before their base
    classes, otherwise left to right; one per type."""
    found = []
    for v in _flatten(values):
        t = type(v)
        if t in _PLAIN or getattr(t, "__tensorc_function__", None) is None:
            continue
        if any(type(f) is t for f in found):
            continue
        index = len(found)
        for i, f in enumerate(found):
            if issubclass(t, type(f)):
                index = i
                break
        found.insert(index, v)
    return found


def _strip_unset(args, kwargs):
    args = list(args)
    while args and args[-1] is _UNSET:
        args.pop()
    return tuple(args), {k: v for k, v in kwargs.items() if v is not _UNSET}


def _handle_override(func, relevant, args, kwargs):
    args, kwargs = _strip_unset(args, kwargs)
    overloaded = _overloaded_args(relevant)
    types = tuple(type(v) for v in overloaded)
    for v in overloaded:
        result = v.__tensorc_function__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError("no implementation found for '{}' on types that implement __tensorc_function__: {}".format(
        _qualname(func), [t for t in types]))


def _qualname(func):
    module = getattr(func, "__module__", "") or ""
    name = getattr(func, "__qualname__", getattr(func, "__name__", repr(func)))
    if name.startswith("_m_"):
        return "Tensor." + name[3:]
    return ("tensorc." if module.startswith("tensorc") else "") + name


class _DisableOverrides:
    """Inside, functions run their own code even for overriding types."""

    def __enter__(self):
        _state.disabled = getattr(_state, "disabled", 0) + 1

    def __exit__(self, *exc):
        _state.disabled -= 1
