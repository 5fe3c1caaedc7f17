# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.Generator: a random stream of the C ABI (Philox: a seed and an
offset determine the numbers)."""
import builtins as _builtins

from . import _C
from ._device import device as _device


class Generator:
    """A random stream: Generator().manual_seed(0); pass it as generator=."""

    def __init__(self, device="cpu", _capsule=None):
        self._c = _capsule if _capsule is not None else _C.generator_create(0)
        self.device = _device(device)

    def manual_seed(self, seed):
        _C.generator_set_seed(self._c, _builtins.int(seed) & 0xFFFFFFFFFFFFFFFF)
        return self

    def initial_seed(self):
        return _C.generator_seed(self._c)

    seed = initial_seed
