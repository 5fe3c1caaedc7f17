# SPDX-License-Identifier: BSD-3-Clause
"""Automatic mixed precision, as torch.autocast / torch.amp.

``with tensorc.autocast("cpu"):`` (bfloat16 by default; float16 on CUDA)
runs the ops that ops.yaml gives an autocast policy in lower precision
(mm, matmul, linear...), in float32 (losses; on CUDA also exp, log,
softmax...), or in their inputs' widest dtype (cat, stack...). It is a
context manager and a decorator; regions nest, ``enabled=False`` turns
autocast off inside one, and the state is per thread. Gradients flow back
through the casts to the original dtypes."""
import functools as _functools

from . import _C
from ._dtype import bfloat16 as _bfloat16, float16 as _float16

_DEVICE_TYPES = {"cpu": 1, "cuda": 2}  # TC_DEVICE_CPU, TC_DEVICE_CUDA
_DEFAULT_DTYPE = {"cpu": _bfloat16, "cuda": _float16}


class autocast:
    """``autocast(device_type, dtype=None, enabled=True, cache_enabled=True)``."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=True):
        if device_type not in _DEVICE_TYPES:
            raise ValueError(f"autocast: device_type expected 'cpu' or 'cuda', got {device_type!r}")
        dtype = _DEFAULT_DTYPE[device_type] if dtype is None else dtype
        if dtype not in (_bfloat16, _float16):
            raise ValueError(f"autocast: dtype expected tensorc.bfloat16 or tensorc.float16, got {dtype}")
        self.device_type, self.fast_dtype = device_type, dtype
        self._enabled, self._cache_enabled = bool(enabled), bool(cache_enabled)

    def __enter__(self):
        _C.autocast_push(_DEVICE_TYPES[self.device_type], self.fast_dtype._code, self._enabled, self._cache_enabled)
        return self

    def __exit__(self, *exc):
        _C.autocast_pop(_DEVICE_TYPES[self.device_type])
        return False

    def __call__(self, fn):
        @_functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device_type, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)
        return wrapper


def is_autocast_enabled(device_type="cuda"):
    """Whether this thread is in an enabled autocast region for device_type."""
    return _C.autocast_get(_DEVICE_TYPES[device_type])[0]


def get_autocast_dtype(device_type):
    """The lower-precision dtype of this thread's region for device_type (its default outside one)."""
    from ._dtype import _from_code
    enabled, code, _ = _C.autocast_get(_DEVICE_TYPES[device_type])
    return _from_code(code) if enabled else _DEFAULT_DTYPE[device_type]


from ._grad_scaler import GradScaler  # noqa: E402,F401  (torch.amp.GradScaler)
