# SPDX-License-Identifier: BSD-3-Clause
"""NumPy and DLPack interop: copies in (tensor()), and zero-copy sharing both ways.

from_numpy(a) and t.numpy() / np.asarray(t) share memory; __dlpack__ /
from_dlpack share memory with any DLPack producer or consumer (NumPy, torch).
The C side (swig/interop.i) keeps each lender alive for as long as the
borrower needs its memory."""
import warnings as _warnings

import numpy as _np

from . import _C
from . import _dtype as _dt

_SUPPORTED = "bool, uint8, int8, int16, int32, int64, float16, float32 and float64"
_DLPACK_CPU = 1


def _numpy_dtype(dtype):
    if dtype._numpy is None:
        raise TypeError("{} has no NumPy dtype".format(dtype))
    return _np.dtype(dtype._numpy)


def _dtype_of_array(array, fn):
    dtype = _dt._BY_NUMPY.get(array.dtype.name)
    if dtype is None or array.dtype.kind not in "biuf":
        raise TypeError("{}: can't convert a NumPy array of dtype {}; the supported dtypes are {}".format(
            fn, array.dtype, _SUPPORTED))
    return dtype


def _from_numpy_copy(array, dtype=None):
    """A new tensor holding a copy of a NumPy array (converted to dtype if given)."""
    if dtype is None:
        dtype = _dtype_of_array(array, "tensor")
    if dtype._numpy is None:  # bfloat16: NumPy has no such type; convert from float32
        return _from_numpy_copy(array, _dt.float32).to(dtype)
    # np.ascontiguousarray would turn a 0-dim array into a 1-element 1-dim one.
    array = _np.require(array, dtype=_numpy_dtype(dtype), requirements="C")
    return _C.tensor_from_buffer(array, dtype._code, array.shape)


def _tolist(tensor):
    t = tensor.detach()
    dtype = t.dtype
    if dtype._numpy is None:
        t = t.to(_dt.float32)
        dtype = _dt.float32
    flat = _np.frombuffer(_C.tensor_to_bytes(t), dtype=_numpy_dtype(dtype))
    return flat.reshape(t.shape).tolist()


# ---- NumPy -> tensor ----------------------------------------------------------------
def from_numpy(ndarray):
    """A CPU tensor sharing ndarray's memory: writes through either are seen by
    the other, and the array stays alive while the tensor (or a view) does.

    Like torch.from_numpy: negative strides, strides that are not a multiple of
    the item size, unaligned or non-native byte order arrays raise ValueError
    (copy the array first); a read-only array is shared with a UserWarning,
    and writing to the tensor then is undefined behaviour."""
    if not isinstance(ndarray, _np.ndarray):
        raise TypeError("from_numpy: argument 'ndarray' must be a numpy.ndarray, not " + type(ndarray).__name__)
    dtype = _dtype_of_array(ndarray, "from_numpy")
    if not ndarray.dtype.isnative:
        raise ValueError("from_numpy: argument 'ndarray' has a byte order other than the machine's; convert it "
                         "first (array.astype(array.dtype.newbyteorder('=')))")
    _check_strides(ndarray)
    if not ndarray.flags.aligned:
        raise ValueError("from_numpy: argument 'ndarray' is not aligned to its item size; copy it first "
                         "(array.copy())")
    if not ndarray.flags.writeable:
        _warnings.warn("from_numpy: the given NumPy array is not writable, and tensorc tensors are always "
                       "writable: the tensor shares its memory anyway, and writing through it is undefined "
                       "behaviour. Copy the array (array.copy()) or make it writable first.",
                       UserWarning, stacklevel=2)
    return _C.tensor_share_buffer(ndarray, dtype._code)


def _check_strides(ndarray):
    """Raises ValueError for strides a tensor cannot have. A dimension of size 1
    (or any dimension of an empty array) is never stepped over, so its stride
    does not matter; swig/interop.i replaces it."""
    if ndarray.size == 0:
        return
    itemsize = ndarray.itemsize
    for size, stride in zip(ndarray.shape, ndarray.strides):
        if size == 1:
            continue
        if stride < 0:
            raise ValueError("from_numpy: argument 'ndarray' has a negative stride, and tensors with negative "
                             "strides are not supported (make a copy of the array with array.copy() first)")
        if stride % itemsize:
            raise ValueError("from_numpy: argument 'ndarray' has a stride of {} bytes, not a multiple of the "
                             "element size ({} bytes); copy the array (array.copy()) to make its memory "
                             "regular".format(stride, itemsize))


# ---- tensor -> NumPy ----------------------------------------------------------------
def _check_numpy_convertible(tensor, fn):
    if tensor.requires_grad:
        raise RuntimeError("{}: can't call numpy() on a Tensor that requires grad. Use tensor.detach().numpy() "
                           "instead.".format(fn))
    if tensor.device.type != "cpu":
        raise TypeError("{}: can't convert a {} device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
                        "to host memory first.".format(fn, tensor.device))
    if tensor.dtype._numpy is None:
        raise TypeError("{}: NumPy has no dtype for {}; convert the tensor first (e.g. tensor.float())".format(
            fn, tensor.dtype))


def _array_interface(self):
    """The NumPy array interface (v3) of a CPU tensor: np.asarray(t) shares its
    memory, and the array's base is the tensor, which it keeps alive."""
    _check_numpy_convertible(self, "Tensor.__array_interface__")
    dtype = _numpy_dtype(self.dtype)
    itemsize = dtype.itemsize
    shape = _C.tensor_shape(self)
    if 0 in shape:
        # NumPy rejects a NULL data pointer; an empty array has no bytes to share.
        return _np.empty(shape, dtype).__array_interface__
    return {
        "version": 3,
        "shape": shape,
        "typestr": dtype.str,
        "data": (_C.tensor_data_ptr(self), False),
        "strides": tuple(s * itemsize for s in _C.tensor_strides(self)),
    }


def _numpy(self, force=False):
    """A NumPy array sharing this CPU tensor's memory (like torch's Tensor.numpy).
    force=True first detaches and copies to the CPU as needed."""
    tensor = self.detach().cpu() if force else self
    _check_numpy_convertible(tensor, "Tensor.numpy")
    return _np.asarray(tensor)


def _array(self, dtype=None, copy=None):
    """np.array(t) and friends; copy= is NumPy 2's keyword (True: always copy)."""
    array = _numpy(self)
    if dtype is not None:
        array = array.astype(dtype, copy=bool(copy))
    return array.copy() if copy and array.base is self else array


# ---- DLPack ---------------------------------------------------------------------------
def _dlpack(self, stream=None):
    """A "dltensor" capsule sharing this tensor's memory, for any DLPack consumer.
    stream: None or an int (the consumer's CUDA stream); CPU tensors ignore it."""
    if stream is not None and (not isinstance(stream, int) or isinstance(stream, bool)):
        raise TypeError("Tensor.__dlpack__: argument 'stream' must be an int or None, not " + type(stream).__name__)
    if self.requires_grad:
        raise RuntimeError("Tensor.__dlpack__: can't export a tensor that requires grad; use tensor.detach()")
    return _C.tensor_to_dlpack_capsule(self)


def _dlpack_device(self):
    """(DLPack device type, index): (1, 0) for the CPU, (2, i) for cuda:i."""
    type_code, index = _C.tensor_device(self)
    return (type_code, 0 if type_code == _DLPACK_CPU or index < 0 else index)


def from_dlpack(ext_tensor):
    """A tensor sharing the memory of a DLPack producer: an object with
    __dlpack__ (a NumPy array, a torch tensor, a tensorc tensor) or a raw
    "dltensor" capsule, which is consumed (usable once)."""
    producer = getattr(type(ext_tensor), "__dlpack__", None)
    if producer is None:
        if type(ext_tensor).__name__ == "PyCapsule":
            return _C.tensor_from_dlpack_capsule(ext_tensor)
        raise TypeError("from_dlpack: argument 'ext_tensor' must have __dlpack__ or be a DLPack capsule, not "
                        + type(ext_tensor).__name__)
    device_type = ext_tensor.__dlpack_device__()[0] if hasattr(ext_tensor, "__dlpack_device__") else _DLPACK_CPU
    if device_type == _DLPACK_CPU:
        capsule = ext_tensor.__dlpack__()
    else:
        # The C ABI has no stream API yet: ask the producer to order its work
        # before the legacy default stream (1), the one other libraries' default.
        capsule = ext_tensor.__dlpack__(stream=1)
    return _C.tensor_from_dlpack_capsule(capsule)


def _install(cls):
    """Adds the interop methods to tensorc.Tensor."""
    cls.numpy = _numpy
    cls.__array__ = _array
    cls.__array_interface__ = property(_array_interface)
    # As torch does: NumPy's operators see the higher priority and return
    # NotImplemented, so np.float64(2) * t and array + t reach Tensor's reflected
    # operators instead of turning the tensor into an array.
    cls.__array_priority__ = 1000
    cls.__dlpack__ = _dlpack
    cls.__dlpack_device__ = _dlpack_device


from ._tensor import Tensor as _Tensor  # noqa: E402  (_tensor imports this module lazily)

_install(_Tensor)
