# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.cuda: the CUDA devices, as torch.cuda names them.

The CUDA backend is a library tensorc loads on first use; when it cannot be
used (a CPU-only build, no driver, no GPU) ``is_available()`` is False and
``unavailable_reason()`` says why.
"""
from . import _C

_CUDA = 2  # TC_DEVICE_CUDA


def _index(device):
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    text = str(device)
    if text == "cuda":
        return -1
    if text.startswith("cuda:"):
        return int(text[5:])
    raise ValueError(f"expected a CUDA device, got {device!r}")


def is_available():
    """True when a CUDA device can hold a tensor (a CUDA build on a machine with a GPU and its driver)."""
    return _C.device_unavailable_reason(_CUDA) is None


def unavailable_reason():
    """Why CUDA cannot be used here (None when it can): the backend's own words."""
    return _C.device_unavailable_reason(_CUDA)


def device_count():
    """The number of CUDA devices (0 when CUDA is unavailable)."""
    return _C.device_count(_CUDA)


def current_device():
    """The calling thread's current CUDA device index."""
    return _C.device_current(_CUDA)


def set_device(device):
    """Makes `device` (an index, "cuda:N") current for the calling thread."""
    _C.device_set_current(_CUDA, _index(device))


def synchronize(device=None):
    """Waits until all work queued on `device` (default: the current one) is done."""
    _C.device_synchronize(_CUDA, _index(device))


# Memory statistics of the caching allocator (tc_memory_stat codes), torch.cuda's names.
_STATS = {"allocated_bytes.all.current": 0, "allocated_bytes.all.peak": 1, "reserved_bytes.all.current": 2,
          "reserved_bytes.all.peak": 3, "num_device_alloc": 4, "num_device_free": 5, "num_alloc_retries": 6,
          "num_ooms": 7}


def memory_allocated(device=None):
    """Bytes held by tensors on `device` now."""
    return _C.device_memory_stat(_CUDA, _index(device), 0)


def max_memory_allocated(device=None):
    """The most bytes held by tensors at once since the last reset_peak_memory_stats."""
    return _C.device_memory_stat(_CUDA, _index(device), 1)


def memory_reserved(device=None):
    """Bytes the caching allocator holds from the device (allocated plus cached)."""
    return _C.device_memory_stat(_CUDA, _index(device), 2)


def max_memory_reserved(device=None):
    return _C.device_memory_stat(_CUDA, _index(device), 3)


def memory_stats(device=None):
    """The allocator's statistics as a dict, with torch.cuda.memory_stats' key names."""
    return {name: _C.device_memory_stat(_CUDA, _index(device), code) for name, code in _STATS.items()}


def reset_peak_memory_stats(device=None):
    _C.device_reset_peak_memory_stats(_CUDA, _index(device))


def empty_cache():
    """Returns cached memory no tensor uses to the device (every device)."""
    _C.device_empty_cache(_CUDA)
