"""NumPy and DLPack interop."""
import numpy as _np

from . import _C
from . import _dtype as _dt


def _numpy_dtype(dtype):
    if dtype._numpy is None:
        raise TypeError("{} has no NumPy dtype".format(dtype))
    return _np.dtype(dtype._numpy)


def _from_numpy_copy(array, dtype=None):
    """A new tensor holding a copy of a NumPy array (converted to dtype if given)."""
    if dtype is None:
        dtype = _dt._BY_NUMPY.get(array.dtype.name)
        if dtype is None:
            raise TypeError("can't convert a NumPy array of dtype {}: tensorc supports bool, uint8, int8, int16, "
                            "int32, int64, float16, float32 and float64".format(array.dtype))
    array = _np.ascontiguousarray(array, dtype=_numpy_dtype(dtype))
    return _C.tensor_from_buffer(array, dtype._code, array.shape)


def _tolist(tensor):
    t = tensor.detach()
    dtype = t.dtype
    if dtype._numpy is None:
        t = t.to(_dt.float32)
        dtype = _dt.float32
    flat = _np.frombuffer(_C.tensor_to_bytes(t), dtype=_numpy_dtype(dtype))
    return flat.reshape(t.shape).tolist()


def from_numpy(array):
    raise NotImplementedError("from_numpy: not yet")


def from_dlpack(x):
    raise NotImplementedError("from_dlpack: not yet")
