# SPDX-License-Identifier: BSD-3-Clause
"""Devices: tensorc.device("cpu"), device("cuda:0"), device("cuda", 1)."""
import builtins as _builtins

_TYPE_CODES = {"cpu": 1, "cuda": 2, "privateuseone": 12}
_TYPE_NAMES = {v: k for k, v in _TYPE_CODES.items()}


class device:
    """Where a tensor's memory lives: a type ("cpu", "cuda") and an index."""
    __slots__ = ("type", "index", "_c_device")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type
        elif not isinstance(type, str):
            raise TypeError("device(): expected a str, int or device, not " + _builtins.type(type).__name__)
        elif ":" in type:
            if index is not None:
                raise ValueError("device(): the index is given twice in {!r}".format(type))
            type, _, idx = type.partition(":")
            try:
                index = int(idx)
            except ValueError:
                raise ValueError("device(): invalid device string {!r}".format(type + ":" + idx)) from None
        if type not in _TYPE_CODES:
            raise ValueError("device(): unknown device type {!r}; expected one of {}".format(
                type, ", ".join(sorted(_TYPE_CODES))))
        if index is not None and (not isinstance(index, int) or index < 0):
            raise ValueError("device(): the index must be a non-negative int, not {!r}".format(index))
        self.type, self.index = type, index
        self._c_device = (_TYPE_CODES[type], -1 if index is None else index)

    def __repr__(self):
        if self.index is None:
            return "device(type={!r})".format(self.type)
        return "device(type={!r}, index={})".format(self.type, self.index)

    def __str__(self):
        return self.type if self.index is None else "{}:{}".format(self.type, self.index)

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))


_CPU = device("cpu")


def _from_c(pair):
    type_code, index = pair
    if type_code == 1:
        return _CPU
    return device(_TYPE_NAMES.get(type_code, "privateuseone"), None if index < 0 else index)
