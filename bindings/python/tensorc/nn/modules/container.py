# SPDX-License-Identifier: BSD-3-Clause
"""Sequential, ModuleList and ModuleDict: modules that hold other modules."""
from collections import OrderedDict as _OrderedDict
from collections.abc import Mapping as _Mapping
import operator as _operator

from .module import Module


def _index(idx, size, what):
    """idx as a position in [0, size), as list indexing does."""
    idx = _operator.index(idx)
    if not -size <= idx < size:
        raise IndexError("{}: index {} is out of range".format(what, idx))
    return idx + size if idx < 0 else idx


class _ModuleSequence(Module):
    """What Sequential and ModuleList share: modules in order, found by
    position, renamed "0".."n-1" after an insertion or a deletion."""

    def _key(self, idx):
        return list(self._modules)[_index(idx, len(self._modules), type(self).__name__)]

    def _renumber(self, modules):
        self._modules.clear()
        for i, module in enumerate(modules):
            self.add_module(str(i), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self._slice(idx)
        return self._modules[self._key(idx)]

    def __setitem__(self, idx, module):
        self.add_module(self._key(idx), module)

    def __delitem__(self, idx):
        keys = list(self._modules)[idx] if isinstance(idx, slice) else [self._key(idx)]
        for key in keys:
            del self._modules[key]
        self._renumber(list(self._modules.values()))  # as torch does after a deletion

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if isinstance(modules, (Module, str)) or not hasattr(modules, "__iter__"):
            raise TypeError("{}.extend should be called with an iterable, but got {}".format(
                type(self).__name__, type(modules).__name__))
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise TypeError("{}.insert(): module should be of type Module, got {}".format(
                type(self).__name__, type(module).__name__))
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError("{}.insert(): index {} is out of range".format(type(self).__name__, index))
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._renumber(modules)
        return self

    def pop(self, key):
        module = self[key]
        del self[key]
        return module


class Sequential(_ModuleSequence):
    """Calls its modules in order, each on the previous one's output.
    Sequential(m0, m1, ...) names them "0", "1", ...; Sequential(OrderedDict) keeps the names."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], _OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def _slice(self, idx):
        return type(self)(_OrderedDict(list(self._modules.items())[idx]))


class ModuleList(_ModuleSequence):
    """A list of modules whose parameters the owner registers; it has no forward."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _slice(self, idx):
        return type(self)(list(self._modules.values())[idx])

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList(list(self) + list(other))


class ModuleDict(Module):
    """An ordered dict of named modules whose parameters the owner registers."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        pairs = modules.items() if isinstance(modules, (_Mapping, ModuleDict)) else modules
        for i, pair in enumerate(pairs):
            if len(pair) != 2:
                raise ValueError("ModuleDict.update(): element #{} should be a (name, module) pair, got {}"
                                 .format(i, pair))
            self[pair[0]] = pair[1]
