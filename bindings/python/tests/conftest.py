# SPDX-License-Identifier: BSD-3-Clause
"""Helpers the tests share: NumPy views of tensors and comparisons against NumPy."""
import numpy as np
import pytest

import tensorc
import tensorc._indexing  # noqa: F401  (installs Tensor.__getitem__/__setitem__ until __init__ imports it)

NP_DTYPES = {
    tensorc.bool: np.bool_, tensorc.uint8: np.uint8, tensorc.int8: np.int8, tensorc.int16: np.int16,
    tensorc.int32: np.int32, tensorc.int64: np.int64, tensorc.float16: np.float16,
    tensorc.float32: np.float32, tensorc.float64: np.float64,
}


def to_numpy(t):
    """A NumPy copy of t made from tolist(), so it does not depend on the interop code under test."""
    return np.array(t.tolist(), dtype=NP_DTYPES[t.dtype]).reshape(tuple(t.shape))


def assert_same(t, expected, rtol=1e-5, atol=1e-6):
    """t equals the NumPy array `expected` in shape, dtype kind and values."""
    expected = np.asarray(expected)
    got = to_numpy(t)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if expected.dtype.kind == "f" or got.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
