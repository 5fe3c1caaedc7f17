# SPDX-License-Identifier: BSD-3-Clause
"""Autograd from Python: requires_grad, .grad, backward, autograd.grad, grad
modes, detach, retain_grad, grad_fn, leaf rules and the errors, checked
against NumPy formulas and Debian's torch 1.13."""
import numpy as np
import pytest
import torch

import tensorc
from tensorc import autograd


def leaf(values, dtype=tensorc.float64):
    return tensorc.tensor(values, dtype=dtype, requires_grad=True)


def array(t):
    return np.array(t.tolist())


X = [[0.5, -1.25, 2.0], [3.0, 0.75, -0.5]]


# ---- requires_grad and leaves ------------------------------------------------------------

def test_requires_grad_defaults_and_setters():
    t = tensorc.tensor([1.0, 2.0])
    assert t.requires_grad is False and t.is_leaf and t.grad is None and t.grad_fn is None
    assert t.requires_grad_() is t and t.requires_grad
    t.requires_grad = False
    assert not t.requires_grad
    assert tensorc.zeros(2, requires_grad=True).requires_grad


def test_only_floating_tensors_can_require_grad():
    with pytest.raises(TypeError, match="floating point"):
        tensorc.tensor([1, 2]).requires_grad_()
    with pytest.raises(tensorc.Error):
        tensorc.tensor([1, 2]).requires_grad = True


def test_leaf_rules():
    x = leaf(X)
    y = x * 2
    assert x.is_leaf and not y.is_leaf and y.requires_grad
    z = tensorc.tensor(X) * 2  # no input requires grad: no graph, still a leaf
    assert z.is_leaf and not z.requires_grad and z.grad_fn is None
    with pytest.raises(tensorc.Error, match="leaf"):
        y.requires_grad_(False)  # only leaves may turn it off (the C ABI's INVALID_ARGUMENT: a ValueError)


def test_grad_fn_names_match_torch():
    x, t = leaf(X), torch.tensor(X, dtype=torch.float64, requires_grad=True)
    for op in (lambda a: a * a, lambda a: a + a, lambda a: a.sum(), lambda a: a.exp(), lambda a: a.view(3, 2),
               lambda a: a.unsqueeze(0), lambda a: a.relu()):
        assert op(x).grad_fn.name() == op(t).grad_fn.name()
    assert repr((x * x).grad_fn) == "<MulBackward0 object>"
    assert "grad_fn=<MulBackward0>" in repr(x * x)


# ---- backward and .grad --------------------------------------------------------------------

def test_backward_of_a_scalar_matches_the_formula():
    x = leaf(X)
    ((x * x * x).sum()).backward()
    np.testing.assert_allclose(array(x.grad), 3 * np.array(X) ** 2)
    assert x.grad.requires_grad is False


def test_backward_with_gradient_argument():
    x = leaf(X)
    g = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    (x.exp()).backward(tensorc.tensor(g, dtype=tensorc.float64))
    np.testing.assert_allclose(array(x.grad), np.exp(X) * np.array(g))


def test_gradients_accumulate_and_can_be_cleared():
    x = leaf(X)
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(array(x.grad), np.full((2, 3), 5.0))
    x.grad = None
    assert x.grad is None
    (x * 4).sum().backward()
    np.testing.assert_allclose(array(x.grad), np.full((2, 3), 4.0))


def test_grad_setter_checks_shape():
    x = leaf(X)
    with pytest.raises(tensorc.Error):
        x.grad = tensorc.zeros(3, dtype=tensorc.float64)


def test_gradients_match_torch_for_a_small_network():
    rng = np.random.default_rng(0)
    a, w, b = rng.standard_normal((4, 3)), rng.standard_normal((3, 5)), rng.standard_normal(5)
    xs = [leaf(v.tolist()) for v in (a, w, b)]
    ts = [torch.tensor(v, requires_grad=True) for v in (a, w, b)]
    (tensorc.tanh(xs[0] @ xs[1] + xs[2]) ** 2).mean().backward()
    (torch.tanh(ts[0] @ ts[1] + ts[2]) ** 2).mean().backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(array(x.grad), t.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_backward_twice_needs_retain_graph():
    x = leaf(X)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()  # allowed: the graph was kept
    np.testing.assert_allclose(array(x.grad), 4 * np.array(X))
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()
    with pytest.raises(tensorc.Error):
        y.backward()


def test_backward_on_a_tensor_without_grad_is_an_error():
    with pytest.raises(RuntimeError, match="does not require grad"):
        tensorc.tensor([1.0]).sum().backward()


def test_backward_of_a_non_scalar_needs_a_gradient():
    with pytest.raises(RuntimeError, match="scalar outputs"):
        (leaf(X) * 2).backward()


def test_create_graph_gives_second_derivatives():
    x = leaf([0.5, -1.0, 2.0])
    y = (x ** 3).sum()
    y.backward(create_graph=True)
    g = x.grad
    assert g.requires_grad  # the backward itself was recorded
    np.testing.assert_allclose(array(g), 3 * np.array([0.5, -1.0, 2.0]) ** 2)
    x.grad = None
    g.sum().backward()
    np.testing.assert_allclose(array(x.grad), 6 * np.array([0.5, -1.0, 2.0]))


def test_autograd_backward_with_several_roots():
    x = leaf(X)
    a, b = x * 2, x.exp()
    autograd.backward([a, b], [tensorc.ones(2, 3, dtype=tensorc.float64), tensorc.full((2, 3), 2.0,
                                                                                        dtype=tensorc.float64)])
    np.testing.assert_allclose(array(x.grad), 2 + 2 * np.exp(X))


def test_backward_inputs_accumulates_only_there():
    x, w = leaf(X), leaf([[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]])
    (x * w).sum().backward(inputs=[x])
    assert w.grad is None
    np.testing.assert_allclose(array(x.grad), array(w))
    (x * w).sum().backward(inputs=[x])
    np.testing.assert_allclose(array(x.grad), 2 * array(w))
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * w).sum().backward(inputs=[])


# ---- autograd.grad -------------------------------------------------------------------------

def test_grad_returns_a_tuple_and_leaves_dot_grad_alone():
    x = leaf(X)
    (gx,) = autograd.grad((x.sin()).sum(), x)
    np.testing.assert_allclose(array(gx), np.cos(X))
    assert x.grad is None


def test_grad_with_grad_outputs_and_several_inputs():
    x, y = leaf(X), leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    go = tensorc.full((2, 3), 0.5, dtype=tensorc.float64)
    gx, gy = autograd.grad([x * y], [x, y], [go])
    np.testing.assert_allclose(array(gx), 0.5 * array(y))
    np.testing.assert_allclose(array(gy), 0.5 * np.array(X))


def test_grad_allow_unused():
    x, unused = leaf(X), leaf([1.0])
    with pytest.raises(RuntimeError):
        autograd.grad((x * 2).sum(), [x, unused])
    gx, gu = autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert gu is None
    np.testing.assert_allclose(array(gx), np.full((2, 3), 2.0))


def test_grad_create_graph_second_derivative_matches_torch():
    v = [0.3, -0.7, 1.1]
    x, t = leaf(v), torch.tensor(v, dtype=torch.float64, requires_grad=True)
    (g,) = autograd.grad((x.sin() * x).sum(), x, create_graph=True)
    (gg,) = autograd.grad(g.sum(), x)
    (tg,) = torch.autograd.grad((t.sin() * t).sum(), t, create_graph=True)
    (tgg,) = torch.autograd.grad(tg.sum(), t)
    np.testing.assert_allclose(array(g), tg.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(array(gg), tgg.numpy(), rtol=1e-12)


def test_grad_arguments_are_checked():
    with pytest.raises(TypeError, match="inputs"):
        autograd.grad(leaf([1.0]).sum(), 3)


# ---- grad modes ------------------------------------------------------------------------------

def test_no_grad_context_manager():
    x = leaf(X)
    with tensorc.no_grad():
        assert not tensorc.is_grad_enabled()
        y = x * 2
    assert tensorc.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf


def test_no_grad_and_enable_grad_as_decorators():
    x = leaf(X)

    @tensorc.no_grad()
    def doubled(t):
        return t * 2

    @tensorc.enable_grad()
    def tripled(t):
        return t * 3

    assert not doubled(x).requires_grad
    with tensorc.no_grad():
        assert tripled(x).requires_grad
        assert not (x * 1).requires_grad
    assert doubled.__name__ == "doubled"


def test_enable_grad_inside_no_grad_nests():
    x = leaf(X)
    with tensorc.no_grad():
        with tensorc.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad


def test_grad_mode_is_restored_after_an_exception():
    with pytest.raises(KeyError):
        with tensorc.no_grad():
            raise KeyError("inside")
    assert tensorc.is_grad_enabled()


def test_set_grad_enabled_as_call_context_and_decorator():
    x = leaf(X)
    tensorc.set_grad_enabled(False)
    try:
        assert not (x * 2).requires_grad
    finally:
        tensorc.set_grad_enabled(True)
    with tensorc.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad

    @tensorc.set_grad_enabled(False)
    def f(t):
        return t * 2

    assert tensorc.is_grad_enabled()
    assert not f(x).requires_grad and tensorc.is_grad_enabled()
    assert autograd.no_grad is tensorc.no_grad and autograd.set_grad_enabled is tensorc.set_grad_enabled


# ---- detach, retain_grad ---------------------------------------------------------------------

def test_detach_shares_memory_and_drops_history():
    x = leaf(X)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    assert d.data_ptr() == y.data_ptr()
    d.mul_(10)  # visible through y: same memory
    np.testing.assert_allclose(array(y), 20 * np.array(X))


def test_detach_in_place():
    y = leaf(X) * 2
    assert y.detach_() is y
    assert not y.requires_grad and y.is_leaf


def test_retain_grad_on_a_non_leaf():
    x = leaf(X)
    y = x * 3
    z = x * 4
    y.retain_grad()
    (y * z).sum().backward()
    np.testing.assert_allclose(array(y.grad), array(z.detach()))
    assert z.grad is None  # non-leaves keep no .grad unless asked
    np.testing.assert_allclose(array(x.grad), 24 * np.array(X))


def test_retain_grad_needs_requires_grad():
    with pytest.raises(RuntimeError):
        tensorc.tensor([1.0]).retain_grad()
