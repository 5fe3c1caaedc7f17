# SPDX-License-Identifier: BSD-3-Clause
"""Property tests (hypothesis): shapes, dtypes, broadcasting, reductions and indexing against NumPy.

Example counts are kept small so the whole file runs in a few seconds."""
import numpy as np
import torch
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tensorc
from conftest import NP_DTYPES, assert_same, to_numpy

FAST = settings(max_examples=int(__import__("os").environ.get("TC_HYP_EXAMPLES", 60)), deadline=None)

NUMERIC = ["float32", "float64", "int64", "int32", "int16", "uint8"]
SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)


def np_dtype(name):
    return np.dtype(NP_DTYPES[getattr(tensorc, name)])


@st.composite
def arrays(draw, dtypes=NUMERIC, shape=SHAPES):
    name = draw(st.sampled_from(dtypes))
    dtype = np_dtype(name)
    if dtype.kind == "f":
        elements = st.floats(-100, 100, width=32)
    elif dtype == np.uint8:
        elements = st.integers(0, 255)
    else:
        elements = st.integers(-1000, 1000)
    return draw(hnp.arrays(dtype, draw(shape) if isinstance(shape, st.SearchStrategy) else shape,
                           elements=elements))


@FAST
@given(arrays())
def test_round_trip_keeps_shape_dtype_and_values(a):
    t = tensorc.tensor(a)
    assert tuple(t.shape) == a.shape and t.ndim == a.ndim and t.numel() == a.size
    assert NP_DTYPES[t.dtype] == a.dtype
    assert_same(t, a)


@FAST
@given(arrays(shape=hnp.array_shapes(min_dims=1, max_dims=4, max_side=4)), st.data())
def test_reshape_and_transpose(a, data):
    t = tensorc.tensor(a)
    perm = data.draw(st.permutations(range(a.ndim)))
    assert_same(t.permute(*perm), a.transpose(perm))
    assert_same(t.reshape(-1), a.reshape(-1))
    assert_same(t.permute(*perm).contiguous().reshape(a.size), a.transpose(perm).reshape(a.size))


@st.composite
def broadcastable_pair(draw):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4))
    left = draw(arrays(dtypes=["float32", "float64", "int64", "int32"], shape=shapes.input_shapes[0]))
    right = draw(arrays(dtypes=["float32", "float64", "int64", "int32"], shape=shapes.input_shapes[1]))
    return left, right, shapes.result_shape


@FAST
@given(broadcastable_pair(), st.sampled_from(["add", "sub", "mul", "maximum", "minimum", "eq", "lt", "ge"]))
def test_binary_ops_broadcast_like_numpy(pair, op):
    a, b, result_shape = pair
    got = getattr(tensorc, op)(tensorc.tensor(a), tensorc.tensor(b))
    reference = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum,
                 "minimum": np.minimum, "eq": np.equal, "lt": np.less, "ge": np.greater_equal}[op]
    # Python-side float64 arithmetic, then the result dtype tensorc chose (checked against torch elsewhere).
    expected = reference(a.astype(np.float64), b.astype(np.float64))
    assert tuple(got.shape) == result_shape
    assert_same(got, expected.astype(NP_DTYPES[got.dtype]), rtol=1e-5, atol=1e-3)


@FAST
@given(broadcastable_pair())
def test_result_dtype_follows_promotion(pair):
    """torch's rule (not NumPy's): categories first, then 0-d tensors yield to dimensioned ones."""
    a, b, _shape = pair
    got = (tensorc.tensor(a) + tensorc.tensor(b)).dtype
    expected = (torch.from_numpy(a) + torch.from_numpy(b)).dtype
    assert repr(got).replace("tensorc.", "torch.") == repr(expected)


@FAST
@given(arrays(dtypes=["float32", "float64"], shape=hnp.array_shapes(min_dims=1, max_dims=4, max_side=4)),
       st.data(), st.booleans())
def test_reductions_over_random_dims(a, data, keepdim):
    dims = data.draw(st.lists(st.integers(0, a.ndim - 1), min_size=1, max_size=a.ndim, unique=True))
    t = tensorc.tensor(a)
    a64 = a.astype(np.float64)
    assert_same(tensorc.sum(t, dims, keepdim=keepdim), a64.sum(tuple(dims), keepdims=keepdim), rtol=1e-4, atol=1e-3)
    if all(a.shape[d] > 0 for d in dims):
        assert_same(tensorc.amax(t, dims, keepdim=keepdim), a.max(tuple(dims), keepdims=keepdim))
        assert_same(tensorc.mean(t, dims, keepdim=keepdim), a64.mean(tuple(dims), keepdims=keepdim),
                    rtol=1e-4, atol=1e-4)
    dim = dims[0]
    if a.shape[dim] > 0:
        values, indices = tensorc.max(t, dim, keepdim)
        assert_same(values, a.max(dim, keepdims=keepdim))
        picked = np.take_along_axis(a, to_numpy(indices) if keepdim else np.expand_dims(to_numpy(indices), dim), dim)
        assert_same(values, picked if keepdim else picked.squeeze(dim))


@st.composite
def basic_index(draw, shape):
    """A random tuple of ints, slices (positive steps), None and at most one Ellipsis for `shape`."""
    items = []
    dim = 0
    used_ellipsis = False
    while dim < len(shape) and draw(st.booleans()):
        kind = draw(st.sampled_from(["int", "slice", "slice", "none", "ellipsis"]))
        size = shape[dim]
        if kind == "int" and size > 0:
            items.append(draw(st.integers(-size, size - 1)))
            dim += 1
        elif kind == "none":
            items.append(None)
        elif kind == "ellipsis" and not used_ellipsis:
            items.append(Ellipsis)
            used_ellipsis = True
            dim = len(shape)  # the rest is taken by the ellipsis; nothing may follow that consumes a dim
        else:
            start = draw(st.none() | st.integers(-size - 2, size + 2))
            stop = draw(st.none() | st.integers(-size - 2, size + 2))
            step = draw(st.none() | st.integers(1, 3))
            items.append(slice(start, stop, step))
            dim += 1
    return tuple(items)


@FAST
@given(arrays(shape=hnp.array_shapes(min_dims=1, max_dims=4, max_side=5)), st.data())
def test_basic_indexing_matches_numpy_and_is_a_view(a, data):
    index = data.draw(basic_index(a.shape))
    t = tensorc.tensor(a)
    got = t[index]
    assert_same(got, a[index])
    if got.numel():
        got.fill_(1)
        expected = a.copy()
        expected[index] = 1
        assert_same(t, expected)


@FAST
@given(arrays(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5)), st.data())
def test_advanced_indexing_matches_numpy(a, data):
    dim = data.draw(st.integers(0, a.ndim - 1))
    size = a.shape[dim]
    positions = data.draw(hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=3),
                                     elements=st.integers(-size, size - 1)))
    index = (slice(None),) * dim + (positions,)
    t = tensorc.tensor(a)
    assert_same(t[tuple(tensorc.tensor(i) if isinstance(i, np.ndarray) else i for i in index)], a[index])
    mask = data.draw(hnp.arrays(np.bool_, a.shape[:dim + 1]))
    assert_same(t[tensorc.tensor(mask)], a[mask])


@FAST
@given(arrays(dtypes=["float32", "int64"], shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)),
       st.data())
def test_setitem_matches_numpy(a, data):
    index = data.draw(basic_index(a.shape))
    t = tensorc.tensor(a)
    expected = a.copy()
    value = data.draw(st.integers(-5, 5))
    t[index] = value
    expected[index] = value
    assert_same(t, expected)
    mask = data.draw(hnp.arrays(np.bool_, a.shape))
    t[tensorc.tensor(mask)] = 42
    expected[mask] = 42
    assert_same(t, expected)
