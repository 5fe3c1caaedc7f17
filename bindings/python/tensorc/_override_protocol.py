# SPDX-License-Identifier: BSD-3-Clause
"""The __tensorc_function__ protocol (PyTorch's __torch_function__ under
tensorc's name): the pre-check every generated function runs, the dispatch to
handlers, the call as the user wrote it, and dispatch for hand-written
functions and Tensor members."""
import functools as _functools
import sys as _sys
import threading as _threading

from . import _C
from ._op_support import _TensorBase, _UNSET

# Types that never carry __tensorc_function__ (Tensor is added by _tensor.py,
# Parameter by nn). The C pre-check reads the same set.
_PLAIN = {int, float, bool, type(None), str}
_C.set_plain_types(_PLAIN)
_needs_check = _C.needs_override_check


# ---- __tensorc_function__ --------------------------------------------------------
# PyTorch's __torch_function__ protocol under tensorc's name. The generated
# functions call _needs_check (C) first, so nothing here runs for plain tensors
# and Python numbers; the rest of this section is the slow path.

_state = _threading.local()


def _overrides_enabled():
    return not getattr(_state, "disabled", 0)


class _DisableOverrides:
    """Inside, functions run their own code even for overriding types (torch's
    DisableTorchFunction): what a handler uses to reach the real implementation."""

    def __enter__(self):
        _state.disabled = getattr(_state, "disabled", 0) + 1

    def __exit__(self, *exc):
        _state.disabled -= 1


def _disabled_tensorc_function_impl(cls, func, types, args=(), kwargs=None):
    """The __tensorc_function__ of a type that opts out (nn.Parameter): its
    instances take part in no dispatch, and ops on them run as on plain Tensors."""
    with _DisableOverrides():
        return func(*args, **(kwargs or {}))


def _flatten(values):
    """Argument values, with the elements of list/tuple arguments (Tensor[]) in their place."""
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from v
        else:
            yield v


def _override_of(t):
    """t's __tensorc_function__, or None when t has none, is plain, or opts out."""
    if t in _PLAIN:
        return None
    impl = getattr(t, "__tensorc_function__", None)
    if impl is None or getattr(impl, "__func__", impl) is _disabled_tensorc_function_impl:
        return None
    return impl


def _has_override(values):
    """Whether any value (or element of a list value) defines __tensorc_function__."""
    if getattr(_state, "disabled", 0):
        return False
    for v in _flatten(values):
        if _override_of(type(v)) is not None:
            return True
    return False


def _collect_overloaded(values):
    """The arguments to ask, one per type, in PyTorch's order: subclasses before
    their base classes, otherwise left to right."""
    found = []
    seen = set()
    for v in values:
        t = type(v)
        if t in seen or _override_of(t) is None:
            continue
        seen.add(t)
        index = len(found)
        for i, f in enumerate(found):
            if issubclass(t, type(f)):
                index = i
                break
        found.insert(index, v)
    return found


def _overloaded_args(values):
    return [] if getattr(_state, "disabled", 0) else _collect_overloaded(_flatten(values))


def _qualname(func):
    """The public name of func: tensorc.add, tensorc.Tensor.add, tensorc.Tensor.shape.__get__."""
    owner = getattr(func, "__self__", None)
    if isinstance(owner, property) and owner.fget is not None:  # a property's __get__/__set__
        return "{}.{}".format(_qualname(owner.fget), func.__name__)
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
    if name.startswith("_m_"):
        name = "Tensor." + name[3:]
    objclass = getattr(func, "__objclass__", None)  # slot wrappers of TensorBase (__add__...)
    if isinstance(objclass, type) and issubclass(objclass, _TensorBase):
        name = "Tensor." + func.__name__
    if name.startswith("Tensor."):
        return "tensorc." + name
    module = getattr(func, "__module__", None) or ""
    if module.startswith("tensorc"):  # where users reach it: tensorc._creation.numel is tensorc.numel
        module = ".".join(part for part in module.split(".") if not part.startswith("_"))
    return (module + "." if module else "") + name


def _call_overloaded(func, overloaded, args, kwargs):
    types = tuple(type(v) for v in overloaded)
    for v in overloaded:
        result = v.__tensorc_function__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError("no implementation found for '{}' on types that implement __tensorc_function__: [{}]".format(
        _public_name(func), ", ".join(t.__name__ for t in types)))


def _public_name(func):
    """func's name in tensorc's API (tensorc.overrides knows the operators' too), else _qualname's guess."""
    overrides = _sys.modules.get(__package__ + ".overrides")  # absent while tensorc is importing
    try:
        name = overrides.resolve_name(func) if overrides is not None else None
    except TypeError:  # an unhashable func
        name = None
    return name or _qualname(func)


def _handle_override(func, relevant, args, kwargs):
    """The override path of a generated function: ask the overloaded arguments'
    __tensorc_function__ with the call as the user wrote it."""
    args, kwargs = _as_called(func, args, kwargs)
    return _call_overloaded(func, _overloaded_args(relevant), args, kwargs)


# ---- the call as written --------------------------------------------------------
# Generated functions hand over every parameter, defaults included; PyTorch gives
# handlers only what the caller passed (the seed's ScalarTensor `add(input,
# other)` relies on it). Values equal to the parameter's default are dropped, and
# a parameter after an unset one is passed by keyword.

_NO_DEFAULT = object()
_SIMPLE_DEFAULTS = (int, float, bool, str)
_call_shapes = {}


def _call_shape(func):
    shape = _call_shapes.get(func)
    if shape is None:
        target = func.__wrapped__ if isinstance(func, _C.FastBinary) else func
        code = getattr(target, "__code__", None)
        names = code.co_varnames[:code.co_argcount] if code is not None else ()
        defaults = getattr(target, "__defaults__", None) or ()
        positional = dict(zip(names[len(names) - len(defaults):], defaults))
        shape = (names, positional, getattr(target, "__kwdefaults__", None) or {})
        _call_shapes[func] = shape
    return shape


def _is_default(value, default):
    if value is default:
        return True
    t = type(default)
    if t in _SIMPLE_DEFAULTS:
        return type(value) is t and value == default
    if t is list or t is tuple:
        return (type(value) in (list, tuple) and len(value) == len(default)
                and all(_is_default(v, d) for v, d in zip(value, default)))
    return False


def _strip_unset(args, kwargs):
    args = list(args)
    while args and args[-1] is _UNSET:
        args.pop()
    return tuple(args), {k: v for k, v in kwargs.items() if v is not _UNSET}


def _as_called(func, args, kwargs):
    names, positional, keyword = _call_shape(func)
    if len(args) > len(names):  # a *args function: it passes the call as it came
        return _strip_unset(args, kwargs)
    n = len(args)
    while n and _is_default(args[n - 1], positional.get(names[n - 1], _NO_DEFAULT)):
        n -= 1
    kept = args[:n]
    by_name = {}
    if any(a is _UNSET for a in kept):
        first = next(i for i, a in enumerate(kept) if a is _UNSET)
        for name, value in zip(names[first:n], kept[first:]):
            if value is not _UNSET and not _is_default(value, positional.get(name, _NO_DEFAULT)):
                by_name[name] = value
        kept = kept[:first]
    for name, value in kwargs.items():
        if value is not _UNSET and not _is_default(value, keyword.get(name, _NO_DEFAULT)):
            by_name[name] = value
    return tuple(kept), by_name


# ---- hand-written functions and Tensor members ------------------------------------

def _dispatches(function):
    """For a hand-written public function (tensorc.numel): honour
    __tensorc_function__ on any argument. Costs one C pre-check for plain calls."""
    @_functools.wraps(function)
    def public(*args, **kwargs):
        if _needs_check(*args, *kwargs.values()) and _has_override(args + tuple(kwargs.values())):
            return _call_overloaded(public, _overloaded_args(args + tuple(kwargs.values())), args, kwargs)
        return function(*args, **kwargs)
    return public


# Tensor members that never dispatch, as torch.overrides.get_ignored_functions
# has them for torch.Tensor (the protocol itself, identity, construction).
_IGNORED_TENSOR_MEMBERS = frozenset({
    "__tensorc_function__", "__init_subclass__", "__new__", "__init__", "__class__", "__dict__",
    "__weakref__", "__module__", "__doc__", "__slots__", "__hash__", "__iter__", "__getattribute__",
    "__getattr__", "__setattr__", "__delattr__", "__dir__", "__subclasshook__", "__class_getitem__",
    "as_subclass",
})


def _is_self_dispatching(member):
    """Whether a Tensor member already runs the protocol itself (generated
    methods, FastBinary, hand-written code that calls _handle_override)."""
    if isinstance(member, _C.FastBinary):
        return True
    code = getattr(member, "__code__", None)
    return code is not None and ("_handle_override" in code.co_names or "handle_tensorc_function" in code.co_names)


def _overridable_members(base):
    """name -> member of base (Tensor) for every public member that honours
    the protocol: methods, operators and properties (torch's list, minus ignored)."""
    members = {}
    for klass in reversed(base.__mro__):
        if klass is object:
            continue
        for name, member in vars(klass).items():
            if name in _IGNORED_TENSOR_MEMBERS or (name.startswith("_") and not name.startswith("__")):
                members.pop(name, None)
                continue
            if isinstance(member, (property, classmethod, staticmethod)) or callable(member):
                members[name] = member
            else:
                members.pop(name, None)
    return {n: m for n, m in members.items() if not isinstance(m, (classmethod, staticmethod))}


def _dispatching_method(name, original):
    def method(self, *args, **kwargs):
        relevant = (self,) + args + tuple(kwargs.values())
        overloaded = _overloaded_args(relevant)
        if not overloaded:
            return original(self, *args, **kwargs)
        return _call_overloaded(original, overloaded, (self,) + args, kwargs)
    method.__name__ = name
    method.__qualname__ = "Tensor." + name
    method.__doc__ = getattr(original, "__doc__", None)
    method.__wrapped__ = original
    method._tensorc_dispatching = True
    return method


def _dispatching_property(original):
    get_public, set_public = original.__get__, original.__set__

    def fget(self):
        overloaded = _overloaded_args((self,))
        if not overloaded:
            return original.fget(self)
        return _call_overloaded(get_public, overloaded, (self,), {})

    def fset(self, value):
        overloaded = _overloaded_args((self, value))
        if not overloaded:
            original.fset(self, value)
            return
        _call_overloaded(set_public, overloaded, (self, value), {})

    prop = property(fget, fset if original.fset is not None else None, doc=original.__doc__)
    fget._tensorc_dispatching = True
    return prop


def _install_subclass_dispatch(cls, base):
    """Called from base.__init_subclass__ (base is tensorc.Tensor): gives a
    subclass that overrides __tensorc_function__ a dispatching twin of every
    hand-written member it inherits unchanged from base, so that its
    .shape, .size(), repr()... reach the handler with func = the Tensor member
    (Tensor.size, Tensor.shape.__get__). Plain Tensors keep the members
    themselves, at no cost; generated methods need no twin (they dispatch)."""
    if _override_of(cls) is None:
        return
    for name, member in _overridable_members(base).items():
        if _is_self_dispatching(member):
            continue
        owner = next(k for k in cls.__mro__ if name in vars(k))
        if owner is not base and not issubclass(base, owner):
            continue  # the subclass (or a mixin) defines it: theirs to handle
        if isinstance(member, property):
            setattr(cls, name, _dispatching_property(member))
        else:
            setattr(cls, name, _dispatching_method(name, getattr(base, name)))
