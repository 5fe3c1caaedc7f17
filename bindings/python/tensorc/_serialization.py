# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.save / tensorc.load: objects holding tensors (state_dicts, whole
modules, optimizers' state), written with pickle. Tensors are stored by value
(a NumPy copy, the dtype and requires_grad), so a file outlives the process
and the build that wrote it. As with torch.load, load only files you trust:
unpickling can run code."""
import os as _os
import pickle as _pickle

from ._device import device as _device


def _open(f, mode):
    if isinstance(f, (str, bytes, _os.PathLike)):
        return open(f, mode), True
    return f, False


def save(obj, f, pickle_protocol=2):
    """Writes obj to f (a path or a binary file object)."""
    handle, owned = _open(f, "wb")
    try:
        _pickle.dump(obj, handle, protocol=pickle_protocol)
    finally:
        if owned:
            handle.close()


def load(f, map_location=None, weights_only=False):
    """Reads what save wrote. map_location may be None or "cpu": tensors are
    loaded on the CPU (this build cannot map to other devices on load)."""
    if map_location is not None and _device(map_location if not callable(map_location) else "cpu").type != "cpu":
        raise NotImplementedError("tensorc.load: map_location must be None or 'cpu'; move tensors with .to() after")
    if weights_only:
        raise NotImplementedError("tensorc.load: weights_only=True is not supported")
    handle, owned = _open(f, "rb")
    try:
        return _pickle.load(handle)
    finally:
        if owned:
            handle.close()
