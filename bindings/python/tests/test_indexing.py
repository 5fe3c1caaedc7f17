# SPDX-License-Identifier: BSD-3-Clause
"""Tensor indexing and assignment, checked against NumPy (and torch where NumPy differs)."""
import numpy as np
import pytest
import torch

import tensorc
from conftest import assert_same, to_numpy

SHAPE = (3, 4, 5)
_ = slice(None)


def base():
    return tensorc.arange(60).reshape(*SHAPE), np.arange(60).reshape(SHAPE)


def as_tensorc_index(index):
    """The same index with NumPy arrays made tensorc tensors (NumPy arrays also work as they are)."""
    def one(x):
        return tensorc.tensor(x.tolist(), dtype=tensorc.bool if x.dtype == np.bool_ else tensorc.int64) \
            if isinstance(x, np.ndarray) else x
    return tuple(one(x) for x in index) if isinstance(index, tuple) else one(index)


# Indices whose result NumPy and PyTorch agree on.
CASES = [
    0, 2, -1, -3,
    (1, 2), (1, 2, 3), (-1, -2, -3),
    slice(1, 3), slice(None, None, 2), slice(1, None, 2), slice(-2, None), slice(None, -1), slice(5, 10),
    slice(2, 1), slice(-100, 100), (_, 0), (_, _, -1), (_, slice(1, 4, 2), slice(0, 5, 3)),
    (0, slice(1, 3)), (slice(0, 2), 1, slice(None, None, 4)),
    Ellipsis, (Ellipsis, 0), (0, Ellipsis), (Ellipsis, 1, 2), (0, Ellipsis, 1), (Ellipsis, slice(1, 3)), (),
    None, (None, 0), (0, None), (_, None, _), (None, Ellipsis, None), (Ellipsis, None),
    (None, None, 1, None, slice(0, 2)),
    [0, 2], [2, 0, 0, 1], [-1, 0], [], (_, [0, 3]), (_, _, [4, 0, 1]), (Ellipsis, [1, 1]),
    ([0, 2], [1, 3]), ([0, 1, 2], [3, 2, 1], [4, 0, 0]), (_, [0, 1], [2, 3]), ([0, 1], _, [1, 2]),
    ([[0, 1], [1, 2]], _, [1, 2]), ([[0], [2]], [1, 2]), ([0, 2], slice(1, 3), [1, 4]),
    (slice(1, 3), [0, 2], slice(None, None, 2)), (_, [[0, 1], [2, 3]]), ([0, 1], None, [0, 1]),
    (None, [0, 2]), ([1], Ellipsis, [2]),
    np.array([True, False, True]), (_, np.array([False, True, True, False])),
    np.array([[True, False, True, False], [False] * 4, [True] * 4]),
    (np.array([True, False, True]), _, [0, 4]), (_, np.array([True, True, False, False]), [1, 3]),
    np.zeros(SHAPE, dtype=bool), np.arange(60).reshape(SHAPE) % 7 == 0,
    (Ellipsis, np.array([True, False, True, False, True])),
    np.array([2, 0]), (np.array([[0, 1]]), np.array([[1], [2]])),
    True, False, (0, True), (True, 0), (_, False), (None, True, 1),
]


@pytest.mark.parametrize("index", CASES, ids=repr)
def test_getitem_matches_numpy(index):
    t, a = base()
    assert_same(t[as_tensorc_index(index)], a[index])


@pytest.mark.parametrize("index", [np.array([2, 0]), (np.array([True, False, True]), 1)], ids=repr)
def test_numpy_arrays_are_indices(index):
    t, a = base()
    assert_same(t[index], a[index])


@pytest.mark.parametrize("index", [tensorc.tensor(1), (tensorc.tensor(-1), tensorc.tensor(2)),
                                   (_, tensorc.tensor([1, 2], dtype=tensorc.int32)),
                                   tensorc.tensor(True), tensorc.tensor(False), np.int64(2),
                                   (np.int32(1), np.int64(-1)), (_, np.bool_(True))], ids=repr)
def test_scalar_like_indices(index):
    t, a = base()
    np_index = tuple(i.item() if isinstance(i, tensorc.Tensor) and i.dim() == 0 else
                     np.array(i.tolist()) if isinstance(i, tensorc.Tensor) else i
                     for i in (index if isinstance(index, tuple) else (index,)))
    assert_same(t[index], a[np_index])


# An int beside an advanced index is a select in PyTorch (a broadcast index in
# NumPy): the index dims then move differently. tensorc follows PyTorch.
@pytest.mark.parametrize("index", [(0, _, [1, 2]), ([0, 1], 2, _), (1, [0, 2], [1, 3]), ([0, 1], 1, 0)],
                         ids=repr)
def test_int_beside_advanced_index_follows_torch(index):
    t, a = base()
    expected = torch.from_numpy(a)[index].numpy()
    assert_same(t[index], expected)


def test_index_on_other_dtypes_and_0d():
    f = tensorc.tensor([[1.5, 2.5], [3.5, 4.5]])
    assert f[1, 0].item() == 3.5 and f[1, 0].dim() == 0
    b = tensorc.tensor([True, False, True])
    assert b[1].item() is False
    s = tensorc.tensor(7.0)
    assert s[()].item() == 7.0 and s[...].shape == ()
    assert s[None].shape == (1,)
    assert s[True].shape == (1,) and s[False].shape == (0,)


# ---- views and copies ----------------------------------------------------------------

@pytest.mark.parametrize("index", [0, -1, slice(1, 3), (_, 2), (Ellipsis, 1), (1, slice(0, 4, 2)), None,
                                   (None, 0, None), Ellipsis, ()], ids=repr)
def test_basic_indexing_is_a_view(index):
    t = tensorc.zeros(3, 4, 5)
    view = t[index]
    view.fill_(1)
    a = np.zeros(SHAPE)
    a[index] = 1
    assert_same(t, a)
    assert view.data_ptr() >= t.data_ptr()


def test_view_offset_and_strides():
    t = tensorc.zeros(3, 4, 5)
    v = t[1, :, 2:]
    assert v.data_ptr() == t.data_ptr() + (1 * 20 + 2) * 4
    assert v.stride() == (5, 1)
    assert t[:, ::2].stride() == (20, 10, 1)


@pytest.mark.parametrize("index", [[0, 1], (_, [1]), np.array([True, False, True]), True], ids=repr)
def test_advanced_indexing_copies(index):
    t = tensorc.zeros(3, 4, 5)
    copy = t[index]
    copy.fill_(1)
    assert t.sum().item() == 0


def test_writing_through_a_view_shows_in_the_base():
    t = tensorc.zeros(2, 3)
    row = t[1]
    row[2] = 7
    t[0][1] = 5
    assert t.tolist() == [[0, 5, 0], [0, 0, 7]]


# ---- assignment ----------------------------------------------------------------------

SET_CASES = [
    (0, 1.5), (-1, -2), ((1, 2), 9), ((1, 2, 3), 4), (slice(1, 3), 7), (slice(None, None, 2), 3),
    ((_, 0), 8), ((Ellipsis, 1), 6), ((), 2), (Ellipsis, 5), (None, 1),
    (0, np.arange(20).reshape(4, 5)), (0, np.arange(5)), ((_, 1), np.arange(15).reshape(3, 5)),
    ((slice(0, 2), slice(1, 3)), np.array([[10], [20]])), ((_, _, 0), np.array([1, 2, 3, 4])),
    (0, np.ones((1, 4, 5))), ((1, 2), np.ones((1, 1, 5))),
    ([0, 2], 1), ((_, [1, 3]), -1), (([0, 1], [2, 3]), 5), (([0, 1], [2, 3], [4, 0]), np.array([7, 8])),
    (([0, 2], _, [1, 4]), np.arange(8).reshape(2, 4)), ((_, [0, 1], [2, 3]), np.array([[1, 2]])),
    (np.array([True, False, True]), 3), ((_, np.array([True, False, False, True])), np.arange(5)),
    (np.arange(60).reshape(SHAPE) % 3 == 0, -5), (np.arange(60).reshape(SHAPE) % 3 == 0, np.arange(20)),
    (([0, 2], slice(1, 3)), np.array([1, 2, 3, 4, 5])), (True, 4), (([1, 1],), np.arange(20).reshape(4, 5)),
    ((Ellipsis, [0, 4]), np.array([1, 2])),
]


@pytest.mark.parametrize("index,value", SET_CASES, ids=repr)
def test_setitem_matches_numpy(index, value):
    t, a = base()
    t = t.to(tensorc.float32)
    a = a.astype(np.float32)
    t[as_tensorc_index(index)] = tensorc.tensor(value.tolist()) if isinstance(value, np.ndarray) else value
    a[index] = value
    assert_same(t, a)


@pytest.mark.parametrize("index,value", SET_CASES[:12], ids=repr)
def test_setitem_accepts_numpy_and_lists(index, value):
    t, a = base()
    t[index] = value.tolist() if isinstance(value, np.ndarray) else value
    a[index] = value
    assert_same(t, a)


def test_setitem_converts_dtype():
    t = tensorc.zeros(3, dtype=tensorc.int64)
    t[0] = 2.7
    t[[1]] = tensorc.tensor([3.9])
    t[2:] = tensorc.tensor([True])
    assert t.tolist() == [2, 3, 1]
    assert t.dtype == tensorc.int64


def test_setitem_bool_mask_from_comparison():
    t = tensorc.tensor([[1.0, -2.0], [-3.0, 4.0]])
    t[t < 0] = 0
    assert t.tolist() == [[1.0, 0.0], [0.0, 4.0]]


def test_setitem_tensor_value_broadcasts():
    t = tensorc.zeros(2, 3)
    t[:] = tensorc.tensor([1.0, 2.0, 3.0])
    assert t.tolist() == [[1, 2, 3], [1, 2, 3]]
    t[...] = tensorc.tensor([[5.0], [6.0]])
    assert t.tolist() == [[5, 5, 5], [6, 6, 6]]


# ---- autograd ------------------------------------------------------------------------

def test_grad_through_basic_getitem():
    x = tensorc.arange(12.0).reshape(3, 4).requires_grad_()
    (x[1, 1:3] * tensorc.tensor([2.0, 3.0])).sum().backward()
    expected = np.zeros((3, 4))
    expected[1, 1:3] = [2, 3]
    assert_same(x.grad, expected)


def test_grad_through_advanced_getitem_accumulates_repeats():
    x = tensorc.arange(5.0, requires_grad=True)
    x[[0, 2, 2, 4]].sum().backward()
    assert x.grad.tolist() == [1, 0, 2, 0, 1]


def test_grad_through_mask_getitem():
    x = tensorc.tensor([[1.0, -1.0], [-2.0, 3.0]], requires_grad=True)
    (x[x > 0] ** 2).sum().backward()
    assert x.grad.tolist() == [[2.0, 0.0], [0.0, 6.0]]


def test_grad_through_setitem_of_scalar():
    x = tensorc.ones(2, 3, requires_grad=True)
    y = x * 2
    y[0, 1] = 0
    y.sum().backward()
    assert x.grad.tolist() == [[2, 0, 2], [2, 2, 2]]


def test_grad_through_setitem_of_tensor():
    x = tensorc.ones(2, 3, requires_grad=True)
    v = tensorc.tensor([5.0, 6.0], requires_grad=True)
    y = x * 1
    y[:, 2] = v * 3
    w = tensorc.arange(6.0).reshape(2, 3)
    (y * w).sum().backward()
    assert x.grad.tolist() == [[0, 1, 0], [3, 4, 0]]
    assert v.grad.tolist() == [6, 15]
    assert y.tolist() == [[1, 1, 15], [1, 1, 18]]


def test_grad_through_advanced_setitem():
    y = tensorc.zeros(4)
    v = tensorc.tensor([1.0, 2.0], requires_grad=True)
    y[[3, 0]] = v
    (y * tensorc.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert v.grad.tolist() == [4, 1]


def test_setitem_on_a_leaf_that_requires_grad_raises():
    x = tensorc.ones(3, requires_grad=True)
    with pytest.raises(tensorc.Error, match="leaf"):
        x[0] = 2
    with tensorc.no_grad():
        x[0] = 2
    assert x.tolist() == [2, 1, 1]


# ---- errors --------------------------------------------------------------------------

@pytest.mark.parametrize("index", [3, -4, (0, 4), (0, 0, 5), (0, -6)], ids=repr)
def test_int_out_of_range_raises_index_error(index):
    t, _a = base()
    with pytest.raises(IndexError) as info:
        t[index]
    assert isinstance(info.value, tensorc.Error)
    assert "out of range" in str(info.value) or "out of bounds" in str(info.value)
    with pytest.raises(IndexError):
        t[index] = 1


@pytest.mark.parametrize("index", [[0, 3], (_, [4]), ([0], [0], [9]), [-4]], ids=repr)
def test_advanced_index_out_of_range_raises_index_error(index):
    t, _a = base()
    with pytest.raises(IndexError, match="out of"):
        t[index]
    with pytest.raises(IndexError, match="out of"):
        t[index] = 0


@pytest.mark.parametrize("index", [(0, 0, 0, 0), (Ellipsis, 0, 0, 0, 0), (np.ones((3, 4, 5, 1), bool))],
                         ids=repr)
def test_too_many_indices(index):
    t, _a = base()
    with pytest.raises(IndexError):
        t[index]


def test_index_of_0d_tensor_raises():
    with pytest.raises(IndexError):
        tensorc.tensor(1.0)[0]


@pytest.mark.parametrize("step", [-1, -2, 0])
def test_non_positive_steps_raise_value_error(step):
    t, _a = base()
    with pytest.raises(ValueError, match="step"):
        t[::step]
    with pytest.raises(ValueError, match="step"):
        t[:, ::step]


@pytest.mark.parametrize("index", [1.5, "a", (0, 2.0), {1: 2}, [0.5, 1.0], tensorc.tensor([0.0])], ids=repr)
def test_invalid_index_types_raise_index_error(index):
    t, _a = base()
    with pytest.raises(IndexError):
        t[index]


def test_two_ellipses_raise():
    t, _a = base()
    with pytest.raises(IndexError, match="ellipsis"):
        t[..., 0, ...]


def test_mask_shape_mismatch_raises():
    t, _a = base()
    with pytest.raises(IndexError, match="mask"):
        t[tensorc.tensor([True, False])]


def test_setitem_shape_mismatch_raises():
    t = tensorc.zeros(3, 4)
    with pytest.raises(tensorc.Error):
        t[0] = tensorc.ones(3)
    with pytest.raises(tensorc.Error):
        t[[0, 1]] = tensorc.ones(3)


def test_setitem_unconvertible_value_raises_type_error():
    t = tensorc.zeros(3)
    with pytest.raises(TypeError):
        t[0] = object()


def test_indexing_result_is_a_tensor():
    t, _a = base()
    assert type(t[0]) is tensorc.Tensor
    assert type(t[[0]]) is tensorc.Tensor
    assert to_numpy(t[0]).shape == (4, 5)


# ---- the override protocol -----------------------------------------------------------

class Sub(tensorc.Tensor):
    pass


class Recorder(tensorc.Tensor):
    calls = []

    @classmethod
    def __tensorc_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(func.__name__)
        return "handled"


@pytest.mark.parametrize("index", [0, slice(0, 1), (_, 1), [0, 1], np.array([True, False])], ids=repr)
def test_subclasses_keep_their_type_through_indexing(index):
    s = tensorc.arange(6.0).reshape(2, 3).as_subclass(Sub)
    assert type(s[index]) is Sub
    s[index] = 7
    assert type(s) is Sub and 7 in s.tolist()[0] + s.tolist()[1]


@pytest.mark.parametrize("index", [0, slice(1, 2), (0, 0), [1]], ids=repr)
def test_getitem_and_setitem_honour_tensorc_function(index):
    r = tensorc.ones(2, 2).as_subclass(Recorder)
    Recorder.calls.clear()
    assert r[index] == "handled"
    r[index] = 3
    assert Recorder.calls == ["__getitem__", "__setitem__"]


def test_grad_through_setitem_with_extra_leading_ones():
    x = tensorc.ones(2, 3, requires_grad=True)
    v = tensorc.full((1, 1, 3), 2.0, requires_grad=True)
    y = x * 1
    y[1] = v
    y.sum().backward()
    assert y.tolist() == [[1, 1, 1], [2, 2, 2]]
    assert x.grad.tolist() == [[1, 1, 1], [0, 0, 0]] and v.grad.tolist() == [[[1, 1, 1]]]


class IndexLike:
    """Not an int, but usable as one (operator.index)."""

    def __index__(self):
        return 1


def test_objects_with_index_are_ints():
    t, a = base()
    assert_same(t[IndexLike()], a[1])
    assert_same(t[0, IndexLike()], a[0, 1])
