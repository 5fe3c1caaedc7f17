# SPDX-License-Identifier: BSD-3-Clause
"""torch.cpu.amp's spelling: ``autocast(dtype=bfloat16, enabled=True, cache_enabled=True)`` and
``GradScaler(init_scale=2.**16, ...)`` for the CPU."""
from .. import amp as _amp
from .._dtype import bfloat16 as _bfloat16


class autocast(_amp.autocast):
    def __init__(self, enabled=True, dtype=_bfloat16, cache_enabled=True):
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
