# SPDX-License-Identifier: BSD-3-Clause
"""dot, mv, outer/ger, masked_fill (Scalar and Tensor value, in place), tril
and triu against Debian's torch 1.13: values, dtypes, gradients and errors."""
import numpy as np
import pytest
import torch

import tensorc


def _both(shape, seed, dtype="float32"):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return tensorc.tensor(a), torch.tensor(a)


def _same(t, ref):
    assert str(t.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    np.testing.assert_allclose(t.detach().numpy(), ref.detach().numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("diagonal", [-2, -1, 0, 1, 3])
def test_tril_triu_match_torch_batched(diagonal):
    x, xr = _both((2, 3, 4), diagonal + 10)
    _same(x.tril(diagonal), xr.tril(diagonal))
    _same(tensorc.triu(x, diagonal), torch.triu(xr, diagonal))
    y, yr = x.clone(), xr.clone()
    y.triu_(diagonal)
    yr.triu_(diagonal)
    _same(y, yr)
    out = tensorc.empty(2, 3, 4)
    tensorc.tril(x, diagonal, out=out)
    _same(out, xr.tril(diagonal))


def test_tril_gradient_and_errors():
    x = tensorc.randn(3, 3, requires_grad=True)
    x.tril().sum().backward()
    assert tensorc.equal(x.grad, tensorc.ones(3, 3).tril())
    with pytest.raises(tensorc.Error, match="tril: input tensor must have at least 2 dimensions"):
        tensorc.ones(3).tril()


def test_masked_fill_matches_torch():
    x, xr = _both((3, 4), 1)
    m = np.random.default_rng(2).random((3, 4)) > 0.5
    mask, maskr = tensorc.tensor(m), torch.tensor(m)
    _same(x.masked_fill(mask, -1.5), xr.masked_fill(maskr, -1.5))
    _same(x.masked_fill(mask[0], 2.0), xr.masked_fill(maskr[0], 2.0))  # the mask broadcasts
    _same(x.masked_fill(mask, tensorc.tensor(7.0, dtype=tensorc.float64)),
          xr.masked_fill(maskr, torch.tensor(7.0, dtype=torch.float64)))  # self's dtype wins
    ints = tensorc.tensor([1, 2, 3])
    assert ints.masked_fill(tensorc.tensor([True, False, True]), 4.7).tolist() == [4, 2, 4]  # truncates, as torch
    y, yr = x.clone(), xr.clone()
    y.masked_fill_(mask, 0.0)
    yr.masked_fill_(maskr, 0.0)
    _same(y, yr)


def test_masked_fill_gradients_reach_self_and_value():
    x = tensorc.randn(2, 3, requires_grad=True)
    v = tensorc.tensor(2.0, requires_grad=True)
    mask = tensorc.tensor([[True, False, False], [False, True, True]])
    (x.masked_fill(mask, v) * tensorc.arange(6.0).reshape(2, 3)).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]]
    assert v.grad.item() == 0.0 + 4.0 + 5.0


def test_masked_fill_errors_leave_self_unchanged():
    x = tensorc.ones(2)
    with pytest.raises(tensorc.Error, match="only supports boolean masks"):
        x.masked_fill_(tensorc.ones(2), 0.0)
    with pytest.raises(tensorc.Error, match="0-dimensional value tensor"):
        x.masked_fill_(tensorc.tensor([True, False]), tensorc.ones(2))
    with pytest.raises(tensorc.Error, match="in-place ops cannot broadcast self"):
        x.masked_fill_(tensorc.ones(3, 2, dtype=tensorc.bool), 5.0)
    assert x.tolist() == [1.0, 1.0]


def test_dot_mv_outer_match_torch():
    a, ar = _both((5,), 3)
    b, br = _both((5,), 4)
    m, mr = _both((3, 5), 5)
    _same(tensorc.dot(a, b), torch.dot(ar, br))
    _same(a.dot(b), ar.dot(br))
    _same(tensorc.mv(m, a), torch.mv(mr, ar))
    _same(tensorc.outer(a, b), torch.outer(ar, br))
    _same(tensorc.ger(a, b), torch.ger(ar, br))
    assert tensorc.dot(tensorc.tensor([1, 2]), tensorc.tensor([3, 4])).item() == 11  # integers too
    assert tensorc.outer(tensorc.tensor([1, 2]), tensorc.ones(2)).dtype == tensorc.float32  # promotes


def test_dot_mv_gradients():
    a = tensorc.randn(4, requires_grad=True)
    m = tensorc.randn(3, 4, requires_grad=True)
    tensorc.mv(m, a).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), m.detach().sum(0).numpy(), rtol=1e-6)
    np.testing.assert_allclose(m.grad.numpy(), np.tile(a.detach().numpy(), (3, 1)), rtol=1e-6)


@pytest.mark.parametrize("call, message", [
    (lambda: tensorc.dot(tensorc.ones(2, 2), tensorc.ones(2)), "dot: 1D tensors expected, but got 2D and 1D"),
    (lambda: tensorc.dot(tensorc.ones(2), tensorc.ones(3)), "dot: argument 'tensor' has 3 elements"),
    (lambda: tensorc.dot(tensorc.ones(2), tensorc.ones(2, dtype=tensorc.float64)), "same dtype"),
    (lambda: tensorc.mv(tensorc.ones(2, 3), tensorc.ones(2)), "mv: size mismatch"),
    (lambda: tensorc.mv(tensorc.ones(2), tensorc.ones(2)), "mv: expected a 2-D matrix"),
    (lambda: tensorc.outer(tensorc.ones(2, 2), tensorc.ones(2)), "outer: expected 1-D argument 'self'"),
])
def test_product_errors_name_the_op(call, message):
    with pytest.raises(tensorc.Error, match=message):
        call()
