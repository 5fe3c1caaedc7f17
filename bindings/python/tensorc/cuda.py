# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.cuda: whether this build of tensorc can run on a GPU."""
import functools as _functools

from . import _ops
from ._errors import Error as _Error


@_functools.lru_cache(maxsize=None)
def is_available():
    """True when a CUDA device can hold a tensor (a CUDA build on a machine with a GPU)."""
    try:
        _ops.empty(1, device="cuda")
    except _Error:
        return False
    return True


def device_count():
    """1 when CUDA is available (the C ABI does not count devices yet), else 0."""
    return 1 if is_available() else 0
