# SPDX-License-Identifier: BSD-3-Clause
"""nn.Module: the base class of every layer, as torch.nn.Module.

Attributes that are Parameters, buffers or Modules are kept in the
_parameters, _buffers and _modules dicts (in registration order), not in
__dict__, so that __getattr__ finds them and state_dict/parameters() can walk
them; everything else is an ordinary attribute."""
import itertools as _itertools
from collections import OrderedDict as _OrderedDict, namedtuple as _namedtuple
from collections.abc import Mapping as _Mapping

from ..._device import device as _device_cls
from ..._errors import RuntimeError_ as _RuntimeError
from ..._tensor import Tensor, _parse_to as _parse_tensor_to
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter


class _IncompatibleKeys(_namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the keys it did not find and those it did not use."""
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """Returned by the register_*_hook methods: handle.remove() unregisters the hook."""
    _next_id = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _typename(value):
    if isinstance(value, Tensor):
        return value.type()
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else cls.__module__ + "." + cls.__qualname__


def _check_name(kind, name):
    """The name rules every register_* shares (torch's messages and exception types)."""
    if not isinstance(name, str):
        raise TypeError("{} name should be a string. Got {}".format(kind, _typename(name)))
    if name == "":
        raise KeyError('{} name can\'t be empty string ""'.format(kind))
    if "." in name:
        raise KeyError('{} name can\'t contain ".", got: {}'.format(kind, name))


def _forward_unimplemented(self, *args, **kwargs):
    raise NotImplementedError('Module [{}] is missing the required "forward" function'.format(type(self).__name__))


def _add_indent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    """Base class for all neural network modules; subclass it and define forward()."""

    dump_patches = False

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError("Module.__init__() takes no arguments, got {} positional and keyword argument(s) {}"
                            .format(len(args), sorted(kwargs)))
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", _OrderedDict())
        setattr_(self, "_buffers", _OrderedDict())
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", _OrderedDict())
        setattr_(self, "_forward_pre_hooks", _OrderedDict())
        setattr_(self, "_forward_hooks", _OrderedDict())

    forward = _forward_unimplemented

    # ---- calling -----------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks):
            return self.forward(*args, **kwargs)
        for hook in tuple(self._forward_pre_hooks.values()):
            changed = hook(self, args)
            if changed is not None:
                args = changed if isinstance(changed, tuple) else (changed,)
        result = self.forward(*args, **kwargs)
        for hook in tuple(self._forward_hooks.values()):
            changed = hook(self, args, result)
            if changed is not None:
                result = changed
        return result

    def register_forward_pre_hook(self, hook):
        """hook(module, args) -> None or new args, run before forward."""
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook):
        """hook(module, args, output) -> None or a new output, run after forward."""
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    # ---- registration ------------------------------------------------------------------
    def register_parameter(self, name, param):
        """Adds a Parameter (or None, a declared but absent one) under name."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError("attribute '{}' already exists".format(name))
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError("cannot assign '{}' object to parameter '{}' (tensorc.nn.Parameter or None required)"
                            .format(_typename(param), name))
        if param.grad_fn is not None:
            raise ValueError("Cannot assign non-leaf Tensor to parameter '{0}'. Model parameters must be created "
                             "explicitly. To express '{0}' as a function of another Tensor, compute the value in "
                             "the forward() method.".format(name))
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Adds a tensor that is state but not a parameter (e.g. running statistics);
        persistent=False keeps it out of state_dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError("attribute '{}' already exists".format(name))
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError("cannot assign '{}' object to buffer '{}' (tensorc.Tensor or None required)"
                            .format(_typename(tensor), name))
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Adds a child module under name (module may be None)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError("{} is not a Module subclass".format(_typename(module)))
        if "_modules" not in self.__dict__:
            raise AttributeError("cannot assign module before Module.__init__() call")
        _check_name("module", name)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError("attribute '{}' already exists".format(name))
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        """The module at a dotted path such as "encoder.0"; "" is self."""
        module = self
        for item in target.split(".") if target else ():
            if not hasattr(module, item):
                raise AttributeError("{} has no attribute `{}`".format(type(module).__name__, item))
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`{}` is not an nn.Module".format(item))
        return module

    def __getattr__(self, name):
        # Only reached when normal lookup failed: look in the registries.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = d.get(registry)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError("'{}' object has no attribute '{}'".format(type(self).__name__, name))

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, d, self._buffers, self._modules)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError("cannot assign '{}' as parameter '{}' (tensorc.nn.Parameter or None expected)"
                                .format(_typename(value), name))
            self.register_parameter(name, None)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, d, self._parameters, self._buffers)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError("cannot assign '{}' as child module '{}' (tensorc.nn.Module or None expected)"
                                .format(_typename(value), name))
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError("cannot assign '{}' as buffer '{}' (tensorc.Tensor or None expected)"
                                .format(_typename(value), name))
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def _forget(self, name, *registries):
        for registry in registries:
            registry.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self)) + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[:1].isdigit())

    # ---- walking the tree --------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(dotted name, module) for self and every descendant, each module once."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, members_of, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in members_of(module):
                if value is None:
                    continue
                if remove_duplicate:
                    if id(value) in seen:
                        continue
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, Parameter) pairs; a parameter shared by two modules comes once."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    # ---- modes and gradients -------------------------------------------------------------
    def train(self, mode=True):
        """Sets training mode on self and every descendant (Dropout reads it)."""
        if not isinstance(mode, bool):
            raise ValueError("train(): training mode is expected to be boolean, got {}".format(_typename(mode)))
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Drops (or zeroes, with set_to_none=False) every parameter's .grad."""
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                grad = param.grad
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def apply(self, fn):
        """Calls fn(module) on every descendant, then on self (e.g. custom initialisation)."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- conversions -----------------------------------------------------------------------
    def _apply(self, fn):
        """Replaces the contents of every parameter, gradient and buffer t by
        fn(t), under no_grad. Parameters stay the same objects (their .data is
        swapped, as torch does), so optimizers built before a move still hold them."""
        for module in self.children():
            module._apply(fn)
        with no_grad():
            for param in self._parameters.values():
                if param is None:
                    continue
                grad = param.grad
                converted = fn(param)
                if converted is not param:
                    param.data = converted
                if grad is not None:
                    new_grad = fn(grad)
                    if new_grad is not grad:
                        param.grad = None
                        param.grad = new_grad
            for name, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[name] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """to(device), to(dtype), to(device, dtype), to(tensor): floating parameters and
        buffers take the dtype; all of them move to the device."""
        device, dtype, non_blocking = _parse_to(args, kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point dtypes, but got desired dtype={}".format(dtype))

        def convert(t):
            options = {"non_blocking": non_blocking}
            if device is not None:
                options["device"] = device
            if dtype is not None and t.is_floating_point():
                options["dtype"] = dtype
            return t.to(**options)
        return self._apply(convert)

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    # ---- state_dict ----------------------------------------------------------------------------
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of dotted name -> tensor for every parameter and persistent
        buffer (detached, sharing storage, unless keep_vars)."""
        if args:  # the positional form torch still accepts: (destination, prefix, keep_vars)
            if len(args) > 3:
                raise TypeError("state_dict() takes at most 3 positional arguments, got {}".format(len(args)))
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = _OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        """Copies this module's own entries of state_dict in; records what is missing,
        unexpected or wrong."""
        local_state = {name: value for name, value in _itertools.chain(
            self._parameters.items(),
            ((n, b) for n, b in self._buffers.items() if n not in self._non_persistent_buffers_set))
            if value is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            source = state_dict[key]
            if not isinstance(source, Tensor):
                error_msgs.append('While copying the parameter named "{}", expected tensorc.Tensor from '
                                  "checkpoint but received {}".format(key, type(source)))
                continue
            if source.shape != param.shape:
                error_msgs.append("size mismatch for {}: copying a param with shape {} from checkpoint, the shape "
                                  "in current model is {}.".format(key, source.shape, param.shape))
                continue
            try:
                with no_grad():
                    param.copy_(source)
            except Exception as ex:  # reported with the others, as torch does
                error_msgs.append('While copying the parameter named "{}", whose dimensions in the model are {} '
                                  "and whose dimensions in the checkpoint are {}, an exception occurred : {}."
                                  .format(key, param.shape, source.shape, ex.args))
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    head = key[len(prefix):].split(".", 1)[0]
                    if head not in self._modules and head not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True):
        """Copies parameters and buffers from state_dict into this module and its
        descendants. Returns (missing_keys, unexpected_keys); with strict=True either
        kind raises. Shape mismatches always raise."""
        if not isinstance(state_dict, _Mapping):
            raise TypeError("load_state_dict(): expected state_dict to be dict-like, got {}.".format(type(state_dict)))
        missing_keys, unexpected_keys, error_msgs = [], [], []

        def load(module, entries, prefix):
            # torch passes strict=True down always, and filters by strict at the end.
            module._load_from_state_dict(entries, prefix, {}, True, missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in entries.items() if k.startswith(child_prefix)}, child_prefix)

        load(self, state_dict, "")
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join('"{}"'.format(k) for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join('"{}"'.format(k) for k in missing_keys)))
        if error_msgs:
            raise _RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---- printing ------------------------------------------------------------------------------
    def extra_repr(self):
        """What goes between the parentheses of this module's repr; override it."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + name + "): " + _add_indent(repr(module), 2) for name, module in self._modules.items()]
        if len(extra_lines) == 1 and not child_lines:
            return self._get_name() + "(" + extra_lines[0] + ")"
        lines = extra_lines + child_lines
        if not lines:
            return self._get_name() + "()"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

def _parse_to(args, kwargs):
    """The (device, dtype, non_blocking) of Module.to's argument forms."""
    kwargs.pop("memory_format", None)
    device, dtype, non_blocking, _ = _parse_tensor_to(args, kwargs, "Module.to")
    if device is not None:
        device = _device_cls(device)
    return device, dtype, non_blocking
