# SPDX-License-Identifier: BSD-3-Clause
"""Operators and kernels in Python, as torch.library; calling any op by name,
as torch.ops.

    lib = tensorc.library.Library("myops", "DEF")
    lib.define("axpy(Tensor x, Tensor y, float alpha=1.0) -> Tensor")
    lib.impl("axpy", lambda x, y, alpha: y + x * alpha, "CPU")
    z = tensorc.ops.myops.axpy(x, y)                  # alpha takes its default

The dispatcher is tensorc's (tc_library_def, tc_library_impl_boxed,
tc_library_fallback, tc_op_call; swig/library.i): a kernel written here is
what C, C++ and Rust callers of the op run too, and ops defined in C are
callable here. Registrations are process-wide and permanent: dropping a
Library undoes nothing. A newer kernel for the same op and key wins (the older
one is kept by tensorc); a replaced fallback's function is released.

A kernel receives the op's arguments in schema order, keyword-only ones as
keywords, with defaults filled in: tensors as tensorc.Tensor, int, float,
bool, str, lists, tensorc.dtype, tensorc.device, tensorc.Generator (valid only
during the call) or None. It returns what the schema's returns say: nothing
(None), one value, or a tuple of them.
"""
import collections as _collections
import re as _re
import sys as _sys
import threading as _threading

from . import _C, _dtype
from ._device import _from_c as _device_from_c
from ._generator import Generator as _Generator
from ._tensor import Tensor as _Tensor

__all__ = ["Library", "DispatchCall", "fallthrough_kernel", "call", "ops", "get_schema", "dispatch_table",
           "exclude_dispatch_key", "include_dispatch_key", "local_dispatch_key_set", "DISPATCH_KEYS"]

# ---- dispatch keys (TC_KEY_* codes) ------------------------------------------
_KEY_CODES = {"CPU": 0, "CUDA": 1, "PrivateUse1": 2, "Autograd": 3, "Tracer": 4, "Autocast": 5, "Batched": 6,
              "CompositeExplicitAutograd": 7, "CompositeImplicitAutograd": 8}
_KEY_NAMES = {code: name for name, code in _KEY_CODES.items()}
_N_RUNTIME_KEYS = 7  # codes below this run; the two composites only register
DISPATCH_KEYS = tuple(_KEY_CODES)


def _key_code(key, runtime_only=False):
    code = _KEY_CODES.get(key) if isinstance(key, str) else None
    if code is None or (runtime_only and code >= _N_RUNTIME_KEYS):
        names = DISPATCH_KEYS[:_N_RUNTIME_KEYS] if runtime_only else DISPATCH_KEYS
        what = "runtime dispatch key" if runtime_only else "dispatch key"
        raise ValueError(f"{key!r} is not a {what}; expected one of {', '.join(names)}")
    return code


# ---- schemas -------------------------------------------------------------------
# One character per value for swig/library.i: how to box a Python value.
_HINTS = {"Tensor": "t", "int": "i", "SymInt": "i", "float": "f", "bool": "b", "Scalar": "s", "str": "S",
          "ScalarType": "d", "Device": "D", "Generator": "g"}
_LIST_HINTS = {"t": "T", "i": "I", "f": "F", "b": "B"}
_NAMED_INTS = {"Mean": 1, "Sum": 2}  # at::Reduction, as schema defaults spell them
_DTYPE_NAMES = {"long": _dtype.int64, "int": _dtype.int32, "float": _dtype.float32, "double": _dtype.float64,
                "bool": _dtype.bool, "half": _dtype.float16}
_MISSING = object()


def _split_top(text):
    """text split at the commas outside brackets and quotes."""
    parts, cur, depth, quote = [], [], 0, None
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _type_hint(type_text):
    """(hint, optional) of a schema type such as "Tensor(a!)?", "int[2]", "Tensor?[]"."""
    t = _re.sub(r"\([^()]*\)", "", type_text).replace(" ", "")
    optional = t.endswith("?")
    t = t.rstrip("?")
    is_list = t.endswith("]")
    if is_list:
        t = t[:t.index("[")].rstrip("?")
    hint = _HINTS.get(t, "?")
    return (_LIST_HINTS.get(hint, "?") if is_list else hint), optional


def _parse_default(text, hint):
    """A default as its schema spells it ("1", "[0, 1]", "True", "'mean'", "long", "Mean") as a Python value."""
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text[:1] in "\"'":
        return text[1:-1]
    if text.startswith("["):
        return [_parse_default(item, hint.lower()) for item in _split_top(text[1:-1])]
    if text in _NAMED_INTS:
        return _NAMED_INTS[text]
    if hint == "d" and text in _DTYPE_NAMES:
        return _DTYPE_NAMES[text]
    try:
        return int(text)
    except ValueError:
        return float(text)  # 1.0, 1e-05, inf; anything else is a ValueError


class _Argument:
    __slots__ = ("name", "type", "hint", "optional", "default_text", "kwarg_only")

    def __init__(self, text, kwarg_only):
        left, eq, default = text.partition("=")
        type_text, _, name = left.strip().rpartition(" ")  # "Tensor(a -> *) self": the name is the last word
        self.name, self.type, self.kwarg_only = name, type_text.strip(), kwarg_only
        self.default_text = default.strip() if eq else None
        self.hint, self.optional = _type_hint(self.type)

    def default(self, op):
        if self.default_text is None:
            return None  # an optional argument without a default
        try:
            return _parse_default(self.default_text, self.hint)
        except ValueError:
            raise TypeError(f"{op}(): cannot read the default {self.default_text!r} of argument "
                            f"'{self.name}'; pass it explicitly") from None


def _from_c(hint, value):
    """A value tensorc boxed, as the tensorc object the schema type says."""
    if value is None:
        return None
    if hint == "d":
        return _dtype._from_code(value)
    if hint == "D":
        return _device_from_c(value)
    if hint == "g":
        return _Generator(_capsule=value)
    return value


class _Schema:
    """An operator's schema as the Python side needs it: binding a call, and
    converting its values both ways."""

    def __init__(self, name, text):
        self.name, self.text = name, text
        open_ = text.index("(")
        depth = 0
        for close, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and close > open_:
                break
        self.arguments = []
        kwarg_only = False
        for part in _split_top(text[open_ + 1:close]):
            if part == "*":
                kwarg_only = True
            else:
                self.arguments.append(_Argument(part, kwarg_only))
        returns = text[close + 1:].strip()
        returns = returns[2:].strip() if returns.startswith("->") else returns
        if returns.startswith("(") and returns.endswith(")"):
            returns = _split_top(returns[1:-1])
        else:
            returns = [returns] if returns else []
        # a named return is "Tensor values": keep the type only
        self.return_types = [r if r.endswith(")") or " " not in r else r.rpartition(" ")[0] for r in returns]
        self.return_hints = "".join(_type_hint(r)[0] for r in self.return_types)
        self.argument_hints = "".join(a.hint for a in self.arguments)
        self.n_positional = sum(not a.kwarg_only for a in self.arguments)
        self.index = {a.name: i for i, a in enumerate(self.arguments)}

    def bind(self, args, kwargs):
        """The values of a call f(*args, **kwargs) in schema order. Trailing
        arguments not given are left out: tensorc fills in their defaults."""
        if len(args) > self.n_positional:
            raise TypeError(f"{self.name}() takes {self.n_positional} positional argument(s) but {len(args)} "
                            f"were given (schema: {self.text})")
        slots = list(args) + [_MISSING] * (len(self.arguments) - len(args))
        for key, value in kwargs.items():
            i = self.index.get(key)
            if i is None:
                raise TypeError(f"{self.name}() got an unexpected keyword argument '{key}' (schema: {self.text})")
            if slots[i] is not _MISSING:
                raise TypeError(f"{self.name}() got multiple values for argument '{key}'")
            slots[i] = value
        end = 0
        for i, a in enumerate(self.arguments):
            if slots[i] is not _MISSING:
                end = i + 1
            elif a.default_text is None and not a.optional:
                raise TypeError(f"{self.name}() missing required argument '{a.name}' (schema: {self.text})")
        for i in range(end):
            if slots[i] is _MISSING:
                slots[i] = self.arguments[i].default(self.name)
        return tuple(slots[:end])

    def kernel_arguments(self, values):
        """(args, kwargs, generators) for a kernel from the boxed values."""
        args, kwargs, generators = [], {}, []
        for i, value in enumerate(values):
            a = self.arguments[i] if i < len(self.arguments) else None
            value = _from_c(a.hint if a else "?", value)
            if isinstance(value, _Generator):
                generators.append(value)
            if a is not None and a.kwarg_only:
                kwargs[a.name] = value
            else:
                args.append(value)
        return args, kwargs, generators

    def results(self, outs):
        """An op call's result from its output tuple, as the schema says."""
        outs = [list(v) if h == "T" and isinstance(v, tuple) else _from_c(h, v)
                for h, v in zip(self.return_hints, outs)]
        if not self.return_types:
            return None
        return outs[0] if len(self.return_types) == 1 else tuple(outs)

    def pack(self, result, who):
        """A kernel's result as (values, hints) for swig/library.i."""
        n = len(self.return_types)
        if n == 0:
            if result is not None and result != ():
                raise TypeError(f"{who} returned {type(result).__name__}; {self.name} returns nothing")
            return (), ""
        values = (result,) if n == 1 else result
        if n > 1 and (not isinstance(values, (tuple, list)) or len(values) != n):
            raise TypeError(f"{who} must return a tuple of {n} values ({', '.join(self.return_types)}), "
                            f"not {type(result).__name__}")
        for v, h, t in zip(values, self.return_hints, self.return_types):
            if h == "t" and v is not None and not isinstance(v, _Tensor):
                raise TypeError(f"{who} returned {type(v).__name__} where the schema says {t}")
        return tuple(values), self.return_hints


_SCHEMAS = {}  # op name -> _Schema; ops are never undefined, so entries never go stale


def _dispatcher_name(name):
    """The dispatcher's name of an op: built-ins have no namespace ("aten::add.Tensor" -> "add.Tensor")."""
    return name[len("aten::"):] if name.startswith("aten::") else name


def _schema(name):
    s = _SCHEMAS.get(name)
    if s is None:
        s = _SCHEMAS[name] = _Schema(name, _C.library_op_schema(name))
    return s


def get_schema(name):
    """The schema text of an op ("myops::axpy", "add.Tensor" or "aten::add.Tensor")."""
    return _schema(_dispatcher_name(name)).text


def dispatch_table(name):
    """Where each runtime key's kernel of an op comes from, one line per key (for debugging)."""
    return _C.library_op_table(_dispatcher_name(name))


# ---- calling ops -------------------------------------------------------------------
def call(name, *args, **kwargs):
    """Calls any op by name through the dispatcher (tc_op_call), e.g.
    call("myops::axpy", x, y, alpha=2.0) or call("add.Tensor", a, b)."""
    name = _dispatcher_name(name)
    s = _schema(name)
    return s.results(_C.library_call(name, s.bind(args, kwargs), s.argument_hints))


class OpOverload:
    """One op, callable: tensorc.ops.myops.axpy.default, tensorc.ops.aten.add.Tensor."""

    def __init__(self, name):
        self.name = name
        self._schema = _schema(name)  # an unknown op fails here

    @property
    def schema(self):
        return self._schema.text

    def __call__(self, *args, **kwargs):
        s = self._schema
        return s.results(_C.library_call(self.name, s.bind(args, kwargs), s.argument_hints))

    def __repr__(self):
        return f"<tensorc.ops {self.name}: {self.schema}>"


class OpOverloadPacket:
    """An op name with its overloads: called, it runs the default overload
    (the name without one); .<overload> is that overload."""

    def __init__(self, name):
        self.name = name

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        try:
            op = OpOverload(self.name if overload == "default" else f"{self.name}.{overload}")
        except NotImplementedError:
            raise AttributeError(f"operator {self.name} has no overload {overload!r}") from None
        setattr(self, overload, op)
        return op

    def __call__(self, *args, **kwargs):
        return call(self.name, *args, **kwargs)

    def __repr__(self):
        return f"<tensorc.ops {self.name}>"


class _OpNamespace:
    def __init__(self, ns):
        self._ns = ns

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        packet = OpOverloadPacket(name if self._ns == "aten" else f"{self._ns}::{name}")
        setattr(self, name, packet)
        return packet

    def __repr__(self):
        return f"<tensorc.ops.{self._ns}>"


class _Ops:
    """tensorc.ops.<namespace>.<op>[.<overload>](...), as torch.ops; built-ins are in "aten"."""

    def __getattr__(self, ns):
        if ns.startswith("__"):
            raise AttributeError(ns)
        namespace = _OpNamespace(ns)
        setattr(self, ns, namespace)
        return namespace


ops = _Ops()


# ---- kernels -------------------------------------------------------------------------
class DispatchCall:
    """The call a kernel runs for (the first argument of fallbacks and of
    impl(..., with_call=True) kernels); usable only while the kernel runs."""
    __slots__ = ("op_name", "key", "_capsule", "_schema")

    def __init__(self, capsule, op_name, key, schema):
        self._capsule, self.op_name, self.key, self._schema = capsule, op_name, key, schema

    @property
    def schema(self):
        return self._schema.text

    def redispatch(self, *args, **kwargs):
        """Calls the next kernel below this one's key with these arguments (tc_dispatch_redispatch)."""
        s = self._schema
        return s.results(_C.library_redispatch(self._capsule, s.bind(args, kwargs), s.argument_hints))

    def __repr__(self):
        return f"<DispatchCall {self.op_name} at {self.key}>"


class _Kernel:
    """What tensorc holds for a Python kernel (its user_data): called by
    swig/library.i as kernel(ctx_capsule, values) -> (values, hints)."""
    __slots__ = ("fn", "with_call", "__weakref__")

    def __init__(self, fn, with_call):
        self.fn, self.with_call = fn, with_call

    def __call__(self, capsule, values):
        name, key = _C.library_ctx_info(capsule)
        s = _schema(name)
        args, kwargs, generators = s.kernel_arguments(values)
        try:
            if self.with_call:
                result = self.fn(DispatchCall(capsule, name, _KEY_NAMES[key], s), *args, **kwargs)
            else:
                result = self.fn(*args, **kwargs)
        finally:
            for g in generators:
                g._c = None  # borrowed from the caller for this call only
        return s.pack(result, f"the kernel of {name} for {_KEY_NAMES[key]}")


def fallthrough_kernel(*args, **kwargs):
    """Library.fallback(fallthrough_kernel, key) makes the key skipped, as torch.library.fallthrough_kernel."""
    raise NotImplementedError("fallthrough_kernel is a marker for Library.fallback, not a function to call")


_DEF_NAMESPACES = set()  # claimed by a "DEF" Library, for good: definitions cannot be undone
_DEF_LOCK = _threading.Lock()


class Library:
    """``Library(ns, kind, dispatch_key="")``: registers ops and kernels in
    namespace ns ("aten": the built-in ops). kind "DEF" owns the namespace
    (one per process) and may define ops, "FRAGMENT" defines more ops in it,
    "IMPL" only registers kernels and fallbacks. dispatch_key is the default
    key of impl() and fallback()."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("DEF", "IMPL", "FRAGMENT"):
            raise ValueError(f"Library: kind must be 'DEF', 'IMPL' or 'FRAGMENT', not {kind!r}")
        if not isinstance(ns, str) or not _re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", ns):
            raise ValueError(f"Library: the namespace must be an identifier, not {ns!r}")
        if dispatch_key:
            _key_code(dispatch_key)
        if kind == "DEF":
            if ns == "aten":
                raise ValueError("Library: 'aten' holds the built-in ops; use kind 'IMPL' to add kernels to them")
            with _DEF_LOCK:
                if ns in _DEF_NAMESPACES:
                    raise RuntimeError(f"Library: namespace {ns!r} already has a 'DEF' library; "
                                       "use 'FRAGMENT' to define more ops in it")
                _DEF_NAMESPACES.add(ns)
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._registrations = []

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})"

    def _op_name(self, op_name):
        if not isinstance(op_name, str) or not op_name:
            raise TypeError(f"Library: the op name must be a non-empty str, not {op_name!r}")
        if "::" in op_name:
            return _dispatcher_name(op_name)
        return op_name if self.ns == "aten" else f"{self.ns}::{op_name}"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Defines an op from its schema without the namespace, e.g.
        "axpy(Tensor x, Tensor y, float alpha=1.0) -> Tensor"; returns its
        name ("myops::axpy"). alias_analysis and tags are accepted as in torch
        and unused."""
        if self.kind == "IMPL":
            raise RuntimeError(f"Library({self.ns!r}, 'IMPL') cannot define ops; use 'DEF' or 'FRAGMENT'")
        if self.ns == "aten":
            raise RuntimeError("Library: cannot define ops in 'aten', the namespace of the built-in ops")
        head = schema.split("(", 1)[0].strip()
        if "::" in head:
            ns = head.split("::", 1)[0]
            if ns != self.ns:
                raise ValueError(f"Library({self.ns!r}).define: the schema names namespace {ns!r}")
            qualified = schema.strip()
        else:
            qualified = f"{self.ns}::{schema.strip()}"
        _C.library_def(qualified)
        name = qualified.split("(", 1)[0].strip()
        self._registrations.append(("def", name))
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_call=False):
        """Registers fn as op_name's kernel for dispatch_key ("CPU", "CUDA",
        "PrivateUse1", "Autograd", "Tracer", "Autocast", "Batched",
        "CompositeExplicitAutograd", "CompositeImplicitAutograd"; "" = the
        library's key, else CompositeImplicitAutograd). fn(*args, **kwargs)
        gets the op's arguments; with_call=True passes a DispatchCall first
        (its redispatch() calls the kernel below this key)."""
        if fn is fallthrough_kernel:
            raise NotImplementedError("Library.impl: tensorc has no per-op fallthrough; "
                                      "use Library.fallback(fallthrough_kernel, key) for a whole key")
        if not callable(fn):
            raise TypeError(f"Library.impl: fn must be callable, not {type(fn).__name__}")
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        name = self._op_name(op_name)
        _C.library_impl(name, _key_code(key), _Kernel(fn, bool(with_call)))
        self._registrations.append(("impl", name, key))

    def fallback(self, fn, dispatch_key=""):
        """Registers fn(call, *args, **kwargs) as the fallback of a runtime
        key: it runs for every op without a kernel of its own for the key,
        call being a DispatchCall (call.redispatch(*args, **kwargs) runs the
        kernel below). fn = fallthrough_kernel skips the key instead.
        Replacing a fallback releases the previous function."""
        key = dispatch_key or self.dispatch_key
        if not key:
            raise ValueError("Library.fallback: give a dispatch_key (the library has none)")
        code = _key_code(key, runtime_only=True)
        if fn is fallthrough_kernel:
            _C.library_fallback(code, None)
        else:
            if not callable(fn):
                raise TypeError(f"Library.fallback: fn must be callable, not {type(fn).__name__}")
            _C.library_fallback(code, _Kernel(fn, True))
        self._registrations.append(("fallback", key))

    def fallthrough(self, dispatch_key=""):
        """Makes a runtime key skipped for every op without a kernel of its
        own (Tracer's and Autocast's default), replacing its fallback."""
        self.fallback(fallthrough_kernel, dispatch_key)


# ---- the thread's included / excluded keys ------------------------------------------
LocalDispatchKeySet = _collections.namedtuple("LocalDispatchKeySet", ["included", "excluded"])


def _key_names(bits):
    return frozenset(name for name, code in _KEY_CODES.items() if code < _N_RUNTIME_KEYS and bits >> code & 1)


def local_dispatch_key_set():
    """This thread's included and excluded keys, as frozensets of names."""
    included, excluded = _C.dispatch_tls_push(-1, -1)  # pushes nothing: reads the sets
    return LocalDispatchKeySet(_key_names(included), _key_names(excluded))


class _KeyGuard:
    _include = False

    def __init__(self, *keys):
        if not keys:
            raise TypeError(f"{type(self).__name__}: give at least one dispatch key")
        self._codes = [_key_code(k, runtime_only=True) for k in keys]
        self._saved = []  # one entry per active `with`, innermost last

    def __enter__(self):
        saved = None
        try:
            for code in self._codes:
                state = _C.dispatch_tls_push(code, -1) if self._include else _C.dispatch_tls_push(-1, code)
                saved = saved or state
        except BaseException:
            if saved is not None:
                _C.dispatch_tls_restore(*saved)
            raise
        self._saved.append(saved)
        return self

    def __exit__(self, *exc):
        _C.dispatch_tls_restore(*self._saved.pop())
        return False


class exclude_dispatch_key(_KeyGuard):
    """``with exclude_dispatch_key("Autocast"):`` skips the keys on this
    thread until the block ends (c10's ExcludeDispatchKeyGuard). On exit the
    sets are restored as they were on entry, so an inner block never clears
    what an outer one set. Excluding wins over including."""


class include_dispatch_key(_KeyGuard):
    """``with include_dispatch_key("Tracer"):`` turns the keys on for every
    op this thread calls until the block ends (IncludeDispatchKeyGuard)."""
    _include = True


# torch.ops's spelling: tensorc.ops.<ns>.<op>. The package's __init__ imports
# this module, which puts `ops` beside it.
setattr(_sys.modules[__name__.rpartition(".")[0]], "ops", ops)
