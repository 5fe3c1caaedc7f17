# SPDX-License-Identifier: BSD-3-Clause
"""Tensor.__getitem__ and Tensor.__setitem__: PyTorch's indexing over the schema's view ops.

An index is taken apart left to right, as PyTorch does:
  - an int (or anything with __index__, or a 0-d integer tensor) selects and drops the dim
    (select.int); out of range is the C ABI's TensorIndexError;
  - a slice narrows the dim (slice.Tensor); steps must be positive, as in PyTorch;
  - None adds a dim of size 1 (unsqueeze); ... stands for as many ':' as needed;
  - a Python bool (or 0-d bool tensor) adds a dim of size 1 and indexes it with [0] or [];
  - an integer tensor, a list of ints or a NumPy array is an advanced index, and a bool
    or uint8 tensor is a mask covering as many dims as it has.
The ints, slices, None and ... make a view of self; the advanced indices, if
any, are then gathered by index.Tensor (or written by index_put_), whose C
kernel places the broadcast index shape where NumPy would: in place of the
indexed dims when they are adjacent, first otherwise.

Where PyTorch and NumPy differ, this follows PyTorch: an int beside an
advanced index is a select, not a broadcast index, so x[0, :, [1, 2]] has
shape (4, 2) for a (3, 4, 5) x (NumPy gives (2, 4)).

Every step is an op, so autograd flows through indexing and assignment."""
import numbers as _numbers
import operator as _operator

from . import _C
from . import _dtype as _dt
from ._op_support import _is_scalar
from ._override_protocol import _has_override, _handle_override, _needs_check
from ._tensor import Tensor
from .autograd.grad_mode import no_grad as _no_grad

_select = _C.tc_select_int
_slice = _C.tc_slice_Tensor
_unsqueeze = _C.tc_unsqueeze
_alias = _C.tc_alias
_index = _C.tc_index_Tensor
_index_put_ = _C.tc_index_put_inplace
_copy_ = _C.tc_copy_inplace
_fill_ = _C.tc_fill_inplace_Scalar
_dim = _C.tensor_dim
_TensorBase = _C.TensorBase
_Integral = _numbers.Integral
_MASK_DTYPES = (_dt.bool, _dt.uint8)
_INDEX_DTYPES = (_dt.int64, _dt.int32, _dt.int16, _dt.int8, _dt.uint8, _dt.bool)


def _slice_args(s):
    """(start, stop, step) of a slice, step checked: PyTorch has no negative steps."""
    step = s.step
    if step is None:
        step = 1
    elif step <= 0:
        raise ValueError("step must be greater than zero (got {}); negative steps are not supported".format(step))
    return s.start, s.stop, step


def _take_basic(self, index):
    """self[index] for a tuple of only ints and slices, or None if it holds anything else."""
    for item in index:
        t = type(item)
        if t is not int and t is not slice:
            return None
    if len(index) > _dim(self):
        raise IndexError("too many indices for tensor of dimension {}".format(_dim(self)))
    result = self
    dim = 0
    for item in index:
        if type(item) is int:
            result = _select(result, dim, item)
        else:
            start, stop, step = _slice_args(item)
            result = _slice(result, dim, start, stop, step)
            dim += 1
    return result


def _as_index_tensor(item):
    """A list / NumPy array / tensor used as an advanced index, as a tensor."""
    if not isinstance(item, _TensorBase):
        from ._creation import tensor
        try:
            item = tensor(item)
        except (TypeError, ValueError) as e:
            raise IndexError("an index of type {} must be a sequence of ints or bools ({})".format(
                type(item).__name__, e)) from None
        if item.numel() == 0:  # [] indexes nothing; its inferred dtype is float32
            item = item.to(_dt.int64)
    if item.dtype not in _INDEX_DTYPES:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors, got {}".format(
            item.dtype))
    return item


def _normalise(item):
    """An index entry with lists, nested tuples and NumPy arrays made tensors; others unchanged."""
    t = type(item)
    if t is int or t is slice or item is None or item is Ellipsis or t is bool:
        return item
    if isinstance(item, _TensorBase):
        return _as_index_tensor(item)
    if t.__name__ == "bool_":  # numpy.bool_ is no bool subclass
        return bool(item)
    if isinstance(item, _Integral):
        return int(item)
    if isinstance(item, (list, tuple)) or hasattr(item, "__array_interface__"):
        return _as_index_tensor(list(item) if isinstance(item, tuple) else item)
    if hasattr(t, "__index__"):
        return _operator.index(item)
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None, bools and integer or "
                     "bool tensors are valid indices (got {})".format(t.__name__))


def _dims_taken(item):
    """How many dims of self one (normalised) index entry consumes; None, ... and bools take none."""
    if item is None or item is Ellipsis or type(item) is bool:
        return 0
    if isinstance(item, _TensorBase) and item.dtype in _MASK_DTYPES:
        return item.dim()
    return 1


def _plan(self, index):
    """Applies the basic part of `index` to self. Returns (view, indices): indices is the
    Tensor?[] list for index.Tensor / index_put_ on view, or None when nothing is advanced."""
    index = [_normalise(item) for item in (index if type(index) is tuple else (index,))]
    specified = 0
    ellipses = 0
    for item in index:
        if item is Ellipsis:
            ellipses += 1
        else:
            specified += _dims_taken(item)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    ndim = _dim(self)
    if specified > ndim:
        raise IndexError("too many indices for tensor of dimension {}".format(ndim))
    result = self
    dim = 0
    indices = None  # entry k indexes dim k of result

    def record(tensor, at):
        nonlocal indices
        if indices is None:
            indices = []
        indices.extend([None] * (at + 1 - len(indices)))
        indices[at] = tensor

    for item in index:
        t = type(item)
        if t is int:
            result = _select(result, dim, item)
        elif t is slice:
            start, stop, step = _slice_args(item)
            result = _slice(result, dim, start, stop, step)
            dim += 1
        elif item is None:
            result = _unsqueeze(result, dim)
            dim += 1
        elif item is Ellipsis:
            dim += ndim - specified
        elif t is bool:
            result = _unsqueeze(result, dim)
            record(_bool_position(item), dim)
            dim += 1
        elif item.dim() == 0 and item.dtype in _MASK_DTYPES:  # a 0-d mask: as a Python bool
            result = _unsqueeze(result, dim)
            record(_bool_position(bool(item.item())), dim)
            dim += 1
        elif item.dim() == 0:  # a 0-d integer tensor: as a Python int, like PyTorch
            result = _select(result, dim, int(item.item()))
        else:
            record(item, dim)
            dim += item.dim() if item.dtype in _MASK_DTYPES else 1
    if indices is not None:
        indices = [_on_cpu(ix) for ix in indices]
    return result, indices


def _bool_position(flag):
    """x[True] indexes the new dim with [0], x[False] with []."""
    return _C.tc_zeros([1 if flag else 0], _dt.int64, None)


def _on_cpu(ix):
    # index.Tensor's C kernel reads the index values on the host, whatever self's device.
    if ix is None or ix.device.type == "cpu":
        return ix
    return ix.to("cpu")


def getitem(self, index):
    """self[index]: a view for ints, slices, None and ...; a copy when an index is advanced."""
    t = type(index)
    if type(self) is Tensor or not _has_override((self,)):
        # The common cases first, straight to the C ops: t[0], t[1:3], t[:, 0].
        if t is int:
            return _select(self, 0, index)
        if t is slice and index.step is None:
            return _slice(self, 0, index.start, index.stop, 1)
        if t is tuple:
            result = _take_basic(self, index)
            if result is not None:
                return result
    if _needs_check(self, index) and _has_override((self, index)):
        return _handle_override(Tensor.__getitem__, (self, index), (self, index), {})
    result, indices = _plan(self, index)
    if indices is None:
        return _alias(self) if result is self else result
    return _index(result, indices)


def setitem(self, index, value):
    """self[index] = value: value is a Python number or anything broadcastable to self[index]."""
    if _needs_check(self, index, value) and _has_override((self, index, value)):
        _handle_override(Tensor.__setitem__, (self, index, value), (self, index, value), {})
        return
    if _C.grad_mode_is_enabled() and (_C.tensor_requires_grad(self) or (
            isinstance(value, _TensorBase) and _C.tensor_requires_grad(value))):
        _setitem_tracked(self, index, value)
        return
    t = type(index)
    view = None
    if t is int:
        view = _select(self, 0, index)
    elif t is slice and index.step is None:
        view = _slice(self, 0, index.start, index.stop, 1)
    elif t is tuple:
        view = _take_basic(self, index)
    if view is None:
        view, indices = _plan(self, index)
        if indices is not None:
            _index_put_(view, indices, _values(value, view), False)
            return
    if _is_scalar(value):
        _fill_(view, value)
    else:
        if not isinstance(value, _TensorBase):
            value = _values(value, view)
        _copy_(view, _strip_leading_ones(value, _dim(view)), False)


def _setitem_tracked(self, index, value):
    """self[index] = value when autograd records it: one index_put_ on self itself.

    The C autograd has no in-place ops on views of tensors that require grad
    (PyTorch rebases the view's history; tensorc refuses), so the write is
    not made through a view. Instead the flat positions self[index] covers are
    found by indexing an arange of self's shape the same way, and turned into
    one coordinate tensor per dim: index_put_ then writes exactly those
    elements, and its backward sends gradients to self and value."""
    shape = _C.tensor_shape(self)
    with _no_grad():
        flat = _C.tc_arange(_C.tensor_numel(self), _dt.int64, None)
        positions = getitem(_C.tc_reshape(flat, list(shape)), index)
        coords = []
        rest = positions
        for size in reversed(shape):
            coords.append(_C.tc_remainder_Scalar(rest, size))
            rest = _C.tc_floor_divide_Scalar(rest, size)
        coords.reverse()
    _index_put_(self, coords, _strip_leading_ones(_values(value, self), _dim(positions)), False)


def _values(value, like):
    """value as a tensor of like's dtype and device (index_put_ takes only that)."""
    if isinstance(value, _TensorBase):
        if value.dtype is not like.dtype or value.device != like.device:
            value = value.to(like.device, like.dtype)
        return value
    if _is_scalar(value):
        return _C.tc_scalar_tensor(value, like.dtype, like.device)
    from ._creation import tensor
    try:
        return tensor(value, dtype=like.dtype, device=like.device)
    except (TypeError, ValueError) as e:
        raise TypeError("can't assign a {} to a tensor of dtype {} ({})".format(
            type(value).__name__, like.dtype, e)) from None


def _strip_leading_ones(value, ndim):
    """x[0] = v where v has extra leading dims of size 1 (NumPy and PyTorch allow it)."""
    while _dim(value) > ndim and value.shape[0] == 1:
        value = _select(value, 0, 0)
    return value


def install():
    Tensor.__getitem__ = getitem
    Tensor.__setitem__ = setitem
    getitem.__name__, getitem.__qualname__ = "__getitem__", "Tensor.__getitem__"
    setitem.__name__, setitem.__qualname__ = "__setitem__", "Tensor.__setitem__"


install()
