# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.overrides: the __tensorc_function__ protocol's public helpers, as
torch.overrides has them for __torch_function__.

A type that defines ``__tensorc_function__(cls, func, types, args, kwargs)``
(a classmethod, or a plain method) takes over every public tensorc function
and Tensor method or property it is passed to: ``func`` is the public object
(``tensorc.add``, ``tensorc.Tensor.add``, ``tensorc.Tensor.shape.__get__``),
``types`` the types that define the protocol, ``args``/``kwargs`` the call as
written. Handlers are asked subclasses first, otherwise left to right;
NotImplemented from all of them raises TypeError. Inside a handler,
``DisableTensorcFunction()`` runs functions on their own code."""
import ast as _ast
import functools as _functools
import inspect as _inspect
import keyword as _keyword
import sys as _sys
import types as _types

from . import _ops
from ._override_protocol import (_DisableOverrides, _IGNORED_TENSOR_MEMBERS, _call_overloaded, _collect_overloaded,
                          _disabled_tensorc_function_impl, _overridable_members, _overrides_enabled,
                          _override_of)
from ._tensor import Tensor

__all__ = ["get_ignored_functions", "get_overridable_functions", "get_testing_overrides",
           "get_default_nowrap_functions", "has_tensorc_function", "has_tensorc_function_unary",
           "has_tensorc_function_variadic", "handle_tensorc_function", "wrap_tensorc_function",
           "is_tensor_like", "is_tensor_method_or_property", "resolve_name", "DisableTensorcFunction"]

DisableTensorcFunction = _DisableOverrides
disabled_tensorc_function_impl = _disabled_tensorc_function_impl

# Public tensorc functions that take no tensor-like argument: nothing to dispatch on.
_IGNORED_NAMES = ("tensor", "as_tensor", "from_numpy", "from_dlpack", "is_tensor", "manual_seed",
                  "default_generator", "set_num_threads", "get_num_threads", "is_grad_enabled",
                  "set_grad_enabled", "no_grad", "enable_grad", "inference_mode", "device", "dtype", "Generator",
                  "Size", "save", "load", "autocast", "is_autocast_enabled", "get_autocast_dtype")
_TENSOR_LIKE_TYPES = ("Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "Scalar", "Scalar?")


def _package():
    return _sys.modules[__package__]


def _takes_tensors(schemas):
    """Whether any overload has a Tensor argument (the schema text before '->')."""
    return any("Tensor" in s.split("->")[0] for s in schemas)


@_functools.lru_cache(None)
def _ignored():
    tc = _package()
    found = [getattr(tc, n) for n in _IGNORED_NAMES if hasattr(tc, n)]
    found += [getattr(tc, n) for n, schemas in _ops.SCHEMAS.items()
              if not n.startswith("_") and hasattr(tc, n) and not _takes_tensors(schemas)]
    found += [getattr(Tensor, n) for n in sorted(_IGNORED_TENSOR_MEMBERS) if n in dir(Tensor)]
    found += [has_tensorc_function, has_tensorc_function_unary, has_tensorc_function_variadic,
              handle_tensorc_function]
    return frozenset(f for f in found if callable(f) and _hashable(f))


def _hashable(f):
    try:
        hash(f)
    except TypeError:
        return False
    return True


def get_ignored_functions():
    """The public functions and Tensor members that __tensorc_function__ cannot
    override: those that take no tensor-like argument, and the protocol itself.

    >>> tensorc.Tensor.as_subclass in tensorc.overrides.get_ignored_functions()
    True
    >>> tensorc.add in tensorc.overrides.get_ignored_functions()
    False"""
    return set(_ignored())


@_functools.lru_cache(None)
def _overridable():
    """(namespace -> [functions], function -> public name)."""
    tc = _package()
    ignored = _ignored()
    namespaces = {tc: [], Tensor: []}
    names = {}
    for name in sorted(dir(tc)):
        obj = getattr(tc, name)
        if (name.startswith("_") or isinstance(obj, (_types.ModuleType, type)) or not callable(obj)
                or not _hashable(obj)):
            continue
        names[obj] = "tensorc." + name
        if obj not in ignored:
            namespaces[tc].append(obj)
    for name, member in sorted(_overridable_members(Tensor).items()):
        if isinstance(member, property):
            names[member.__get__] = "tensorc.Tensor.{}.__get__".format(name)
            names[member.__set__] = "tensorc.Tensor.{}.__set__".format(name)
            namespaces[Tensor].append(member.__get__)
        else:
            func = getattr(Tensor, name)
            names[func] = "tensorc.Tensor." + name
            if func not in ignored:
                namespaces[Tensor].append(func)
    return namespaces, names


def get_overridable_functions():
    """namespace -> the functions in it that __tensorc_function__ can override:
    ``tensorc`` (the module) and ``tensorc.Tensor`` (methods, operators, and
    ``prop.__get__`` for each property)."""
    return {ns: list(funcs) for ns, funcs in _overridable()[0].items()}


def resolve_name(f):
    """The public name of a function handed to __tensorc_function__
    ("tensorc.add", "tensorc.Tensor.shape.__get__"), or None."""
    return _overridable()[1].get(f)


@_functools.lru_cache(None)
def _tensor_methods():
    return frozenset(_overridable()[0][Tensor])


def is_tensor_method_or_property(func):
    """Whether func is a Tensor method, or a property's __get__, as handed to
    __tensorc_function__: its first argument is then the tensor itself."""
    return func in _tensor_methods() or getattr(func, "__name__", None) == "__get__"


def is_tensor_like(obj):
    """A tensorc.Tensor, or an object whose type defines __tensorc_function__."""
    return type(obj) is Tensor or hasattr(type(obj), "__tensorc_function__")


def get_default_nowrap_functions():
    """Functions whose results Tensor's default __tensorc_function__ returns as
    they are, not converted to the subclass: field reads that must keep their
    identity (``t.grad is t.grad``)."""
    return {Tensor.grad.__get__}


# ---- dispatching from Python code -----------------------------------------------

def has_tensorc_function(relevant_args):
    """Whether any of relevant_args has a __tensorc_function__ to ask (plain
    Tensors, Parameters and types that opt out have none), overrides being enabled."""
    if not _overrides_enabled():
        return False
    return any(_override_of(type(a)) is not None for a in relevant_args)


def has_tensorc_function_unary(arg):
    return _overrides_enabled() and _override_of(type(arg)) is not None


def has_tensorc_function_variadic(*args):
    return has_tensorc_function(args)


def handle_tensorc_function(public_api, relevant_args, *args, **kwargs):
    """Calls the __tensorc_function__ of relevant_args' overriding types in
    order with (public_api, types, args, kwargs); the first result other than
    NotImplemented is returned, else TypeError.

    >>> def func(a):
    ...     if has_tensorc_function_unary(a):
    ...         return handle_tensorc_function(func, (a,), a)
    ...     return a + 0"""
    overloaded = _collect_overloaded(relevant_args) if _overrides_enabled() else []
    return _call_overloaded(public_api, overloaded, args, kwargs)


def wrap_tensorc_function(dispatcher):
    """Decorator: func honours __tensorc_function__ on the values that
    dispatcher(*args, **kwargs) returns (dispatcher has func's signature)."""
    def decorate(func):
        @_functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = tuple(dispatcher(*args, **kwargs))
            if has_tensorc_function(relevant):
                return handle_tensorc_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return decorate


# ---- dummy overrides with each function's signature --------------------------------

def _split_top_level(text):
    """Splits a schema's argument list at commas outside brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def _schema_arguments(schema):
    """[(type, name, default text or None, keyword_only)] of one schema line."""
    start = schema.index("(")
    depth = 0
    for end in range(start, len(schema)):
        depth += {"(": 1, ")": -1}.get(schema[end], 0)
        if depth == 0:
            break
    arguments, keyword_only = [], False
    for part in _split_top_level(schema[start + 1:end]):
        if part == "*":
            keyword_only = True
            continue
        declaration, _, default = part.partition("=")
        type_, name = declaration.strip().rsplit(" ", 1)
        arguments.append((type_, name, default.strip() or None, keyword_only))
    return arguments


_SCHEMA_LITERALS = {"True": True, "False": False, "None": None, "Mean": 1, "Sum": 2}


def _schema_default(text):
    if text in _SCHEMA_LITERALS:
        return _SCHEMA_LITERALS[text]
    if text.startswith("["):
        return tuple(_ast.literal_eval(text))
    try:
        return _ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _schema_signature(schema, method):
    """The Python signature the generated code gives one schema overload."""
    params = []
    for type_, name, default, keyword_only in _schema_arguments(schema):
        if name == "self":
            name = "self" if method else "input"
        elif _keyword.iskeyword(name):
            name += "_"
        kind = _inspect.Parameter.KEYWORD_ONLY if keyword_only else _inspect.Parameter.POSITIONAL_OR_KEYWORD
        value = _inspect.Parameter.empty if default is None else _schema_default(default)
        params.append(_inspect.Parameter(name, kind, default=value))
    return _inspect.Signature(params)


def _signature_of(func, name, method):
    """func's real signature; a *args resolver's is its first overload's."""
    try:
        signature = _inspect.signature(func)
    except (TypeError, ValueError):
        signature = _inspect.Signature([_inspect.Parameter(p, _inspect.Parameter.POSITIONAL_ONLY)
                                        for p in ("self", "other")])
    variadic = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    schemas = (_ops.METHOD_SCHEMAS if method else _ops.SCHEMAS).get(name)
    if variadic and schemas:
        return _schema_signature(schemas[0], method)
    return signature


def _dummy(signature):
    """A lambda with exactly this signature that returns -1."""
    defaults, source = {}, []
    previous_kind = None
    for i, p in enumerate(signature.parameters.values()):
        if previous_kind is p.POSITIONAL_ONLY and p.kind is not p.POSITIONAL_ONLY:
            source.append("/")
        if p.kind is p.KEYWORD_ONLY and previous_kind not in (p.KEYWORD_ONLY, p.VAR_POSITIONAL):
            source.append("*")
        text = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        if p.default is not p.empty:
            defaults["_d{}".format(i)] = p.default
            text += "=_d{}".format(i)
        source.append(text)
        previous_kind = p.kind
    if previous_kind is _inspect.Parameter.POSITIONAL_ONLY:
        source.append("/")
    return eval("lambda {}: -1".format(", ".join(source)), defaults)


@_functools.lru_cache(None)
def _testing_overrides():
    overrides = {}
    namespaces, names = _overridable()
    for namespace, funcs in namespaces.items():
        for func in funcs:
            if getattr(func, "__name__", None) == "__get__":
                overrides[func] = lambda self: -1
                continue
            name = names[func].rsplit(".", 1)[1]
            overrides[func] = _dummy(_signature_of(func, name, namespace is Tensor))
    return overrides


def get_testing_overrides():
    """overridable function -> a lambda with the same signature that returns -1
    (for properties, ``Tensor.prop.__get__ -> lambda self: -1``)."""
    return dict(_testing_overrides())

