# SPDX-License-Identifier: BSD-3-Clause
"""torch.cpu.amp's spelling: ``autocast(dtype=bfloat16, enabled=True, cache_enabled=True)``."""
from .. import amp as _amp
from .._dtype import bfloat16 as _bfloat16


class autocast(_amp.autocast):
    def __init__(self, enabled=True, dtype=_bfloat16, cache_enabled=True):
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
