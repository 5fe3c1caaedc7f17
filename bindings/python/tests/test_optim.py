# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.optim: SGD and Adam compared step by step with torch 1.13 and with
NumPy re-implementations of their update rules; the Optimizer base's
parameter groups, zero_grad, state_dict and errors."""
import math

import numpy as np
import pytest
import torch

import tensorc as tc
from tensorc import nn, optim

RNG = np.random.default_rng(99)


def to_np(t):
    dtype = {tc.float32: np.float32, tc.float64: np.float64}[t.dtype]
    return np.array(t.detach().tolist(), dtype=dtype)


def randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _run_against_torch(make_tc, make_torch, options, steps=6, shapes=((3, 4), (5,)), skip_grad_of=None):
    """Runs both optimizers over the same parameters and gradients and checks
    the parameters agree after every step."""
    initial = [randn(*s) for s in shapes]
    ours = [nn.Parameter(tc.tensor(v)) for v in initial]
    theirs = [torch.nn.Parameter(torch.tensor(v)) for v in initial]
    opt_ours = make_tc(ours, **options)
    opt_theirs = make_torch(theirs, **options)
    for step in range(steps):
        for i, (p, q) in enumerate(zip(ours, theirs)):
            if skip_grad_of == i:
                continue
            g = randn(*p.shape)
            p.grad = tc.tensor(g)
            q.grad = torch.tensor(g)
        opt_ours.step()
        opt_theirs.step()
        for p, q in zip(ours, theirs):
            np.testing.assert_allclose(to_np(p), q.detach().numpy(), rtol=1e-5, atol=1e-6,
                                       err_msg="step {} with {}".format(step, options))
    return ours, opt_ours, opt_theirs


SGD_OPTIONS = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.5),
    dict(lr=0.05, momentum=0.8, nesterov=True),
    dict(lr=0.1, weight_decay=0.01),
    dict(lr=0.1, momentum=0.9, weight_decay=0.1, nesterov=True),
    dict(lr=0.1, momentum=0.5, maximize=True, weight_decay=0.05),
]


@pytest.mark.parametrize("options", SGD_OPTIONS, ids=str)
def test_sgd_matches_torch(options):
    _run_against_torch(optim.SGD, torch.optim.SGD, options)


ADAM_OPTIONS = [
    dict(),
    dict(lr=0.01, betas=(0.8, 0.99)),
    dict(lr=0.01, weight_decay=0.1),
    dict(lr=0.01, amsgrad=True),
    dict(lr=0.02, eps=1e-3, maximize=True),
    dict(lr=0.01, amsgrad=True, weight_decay=0.05, maximize=True),
]


@pytest.mark.parametrize("options", ADAM_OPTIONS, ids=str)
def test_adam_matches_torch(options):
    _run_against_torch(optim.Adam, torch.optim.Adam, options, steps=8)


@pytest.mark.parametrize("options", [dict(), dict(lr=0.01, weight_decay=0.1, amsgrad=True)], ids=str)
def test_adamw_matches_torch(options):
    _run_against_torch(optim.AdamW, torch.optim.AdamW, options, steps=8)


def test_a_parameter_without_grad_is_left_alone():
    ours, opt, theirs_opt = _run_against_torch(optim.SGD, torch.optim.SGD, dict(lr=0.1, momentum=0.9),
                                               skip_grad_of=1)
    assert ours[1] not in opt.state or not opt.state[ours[1]]
    _run_against_torch(optim.Adam, torch.optim.Adam, dict(lr=0.1), skip_grad_of=0)


def test_sgd_matches_the_formula_in_numpy():
    lr, momentum, dampening, wd = 0.1, 0.9, 0.1, 0.01
    w = randn(4, 3).astype(np.float64)
    p = nn.Parameter(tc.tensor(w))
    opt = optim.SGD([p], lr=lr, momentum=momentum, dampening=dampening, weight_decay=wd)
    buf = None
    for _ in range(5):
        g = randn(4, 3).astype(np.float64)
        p.grad = tc.tensor(g)
        opt.step()
        d = g + wd * w
        buf = d.copy() if buf is None else momentum * buf + (1 - dampening) * d
        w = w - lr * buf
        np.testing.assert_allclose(to_np(p), w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(to_np(opt.state[p]["momentum_buffer"]), buf, rtol=1e-12)


def test_adam_matches_the_formula_in_numpy():
    lr, (b1, b2), eps, wd = 0.01, (0.9, 0.999), 1e-8, 0.05
    w = randn(6).astype(np.float64)
    p = nn.Parameter(tc.tensor(w))
    opt = optim.Adam([p], lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd, amsgrad=True)
    m = v = v_max = np.zeros_like(w)
    for t in range(1, 7):
        g = randn(6).astype(np.float64)
        p.grad = tc.tensor(g)
        opt.step()
        g = g + wd * w
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        v_max = np.maximum(v_max, v)
        w = w - lr / (1 - b1 ** t) * m / (np.sqrt(v_max) / math.sqrt(1 - b2 ** t) + eps)
        np.testing.assert_allclose(to_np(p), w, rtol=1e-10, atol=1e-12)
    assert opt.state[p]["step"].item() == 6


def test_step_runs_without_recording_and_params_stay_leaves():
    model = nn.Linear(3, 2)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(tc.randn(4, 3)).sum().backward()
    opt.step()
    for p in model.parameters():
        assert p.is_leaf and p.grad_fn is None and p.requires_grad
        assert opt.state[p]["momentum_buffer"].grad_fn is None


def test_closure_is_called_with_grad_enabled():
    model = nn.Linear(2, 1)
    opt = optim.SGD(model.parameters(), lr=0.1)
    x = tc.randn(5, 2)

    def closure():
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        return loss

    with tc.no_grad():
        loss = opt.step(closure)
    assert isinstance(loss, tc.Tensor) and loss.dim() == 0


def test_zero_grad():
    p = nn.Parameter(tc.ones(3))
    opt = optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(to_np(p.grad), np.zeros(3))
    opt.zero_grad()
    assert p.grad is None


def test_param_groups_have_their_own_options():
    a, b = nn.Parameter(tc.ones(2)), nn.Parameter(tc.ones(2))
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 1.0}], lr=0.1, momentum=0.0)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 1.0]
    assert opt.param_groups[1]["params"] == [b] and opt.param_groups[0]["momentum"] == 0.0
    a.grad, b.grad = tc.ones(2), tc.ones(2)
    opt.step()
    np.testing.assert_allclose(to_np(a), [0.9, 0.9])
    np.testing.assert_allclose(to_np(b), [0.0, 0.0])
    opt.param_groups[0]["lr"] = 0.5  # changing an option by hand (a schedule) takes effect
    opt.step()
    np.testing.assert_allclose(to_np(a), [0.4, 0.4])
    c = nn.Parameter(tc.ones(1))
    opt.add_param_group({"params": [c], "lr": 0.01})
    assert opt.param_groups[2]["momentum"] == 0.0 and opt.param_groups[2]["lr"] == 0.01


def test_constructor_errors():
    p = nn.Parameter(tc.ones(2))
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.SGD([p], lr=-1)
    with pytest.raises(ValueError, match="Invalid momentum"):
        optim.SGD([p], lr=0.1, momentum=-0.5)
    with pytest.raises(ValueError, match="Invalid weight_decay"):
        optim.SGD([p], lr=0.1, weight_decay=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires"):
        optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        optim.SGD([p])
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Invalid epsilon"):
        optim.Adam([p], eps=-1e-8)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(TypeError, match="iterable of Tensors"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        optim.SGD([{"params": {p}}], lr=0.1)
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        optim.SGD([p, 3.0], lr=0.1)
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([p * 2], lr=0.1)
    opt = optim.SGD([p], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [p]})


def _trained(opt_class, options, steps, model=None, opt=None):
    tc.manual_seed(3)
    if model is None:
        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
        opt = opt_class(model.parameters(), **options)
    x, y = tc.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)), tc.ones(8, 1)
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    return model, opt


@pytest.mark.parametrize("opt_class,options", [(optim.SGD, dict(lr=0.1, momentum=0.9)),
                                               (optim.Adam, dict(lr=0.01, amsgrad=True))])
def test_state_dict_round_trip_resumes_training_exactly(opt_class, options):
    straight, _ = _trained(opt_class, options, 6)
    first, opt = _trained(opt_class, options, 3)
    saved_model, saved_opt = first.state_dict(), opt.state_dict()
    assert sorted(saved_opt["state"]) == [0, 1, 2, 3]
    assert saved_opt["param_groups"][0]["params"] == [0, 1, 2, 3]
    assert saved_opt["param_groups"][0]["lr"] == options["lr"]

    resumed = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    resumed.load_state_dict(saved_model)
    opt2 = opt_class(resumed.parameters(), **options)
    opt2.load_state_dict(saved_opt)
    state_key = "momentum_buffer" if opt_class is optim.SGD else "exp_avg"
    assert opt2.state[resumed[0].weight][state_key] is not opt.state[first[0].weight][state_key]  # a copy
    _trained(opt_class, options, 3, resumed, opt2)
    for p, q in zip(straight.parameters(), resumed.parameters()):
        np.testing.assert_allclose(to_np(q), to_np(p), rtol=1e-6, atol=1e-7)


def test_load_state_dict_errors():
    a, b = nn.Parameter(tc.ones(1)), nn.Parameter(tc.ones(1))
    opt = optim.SGD([a, b], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict(optim.SGD([a], lr=0.1).state_dict())
    other = optim.SGD([a, b], lr=0.5, momentum=0.3)
    opt.load_state_dict(other.state_dict())
    assert opt.param_groups[0]["lr"] == 0.5 and opt.param_groups[0]["params"] == [a, b]


def test_repr():
    opt = optim.SGD([nn.Parameter(tc.ones(1))], lr=0.1, momentum=0.9)
    text = repr(opt)
    assert text.startswith("SGD (\nParameter Group 0\n") and "    lr: 0.1\n" in text and "    momentum: 0.9\n" in text
    assert text.endswith(")") and "params" not in text


def test_sgd_fits_a_linear_regression():
    x = RNG.standard_normal((64, 3))
    w_true = np.array([[1.5], [-2.0], [0.5]])
    y = x @ w_true + 0.3
    model = nn.Linear(3, 1, dtype=tc.float64)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    xt, yt = tc.tensor(x), tc.tensor(y)
    for _ in range(300):
        opt.zero_grad()
        nn.MSELoss()(model(xt), yt).backward()
        opt.step()
    np.testing.assert_allclose(to_np(model.weight), w_true.T, atol=1e-6)
    np.testing.assert_allclose(to_np(model.bias), [0.3], atol=1e-6)


def test_the_digits_example_trains_and_exposes_train_epoch(capsys):
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "train_digits.py")
    spec = importlib.util.spec_from_file_location("train_digits_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main(["--epochs", "2"]) == 0
    out = capsys.readouterr().out
    assert "training on 1438, holding out 359" in out and "held-out accuracy" in out
    # train_epoch on its own, as the benchmark calls it
    pixels, labels = example.load_digits(example.DEFAULT_DATA)
    model = example.make_model()
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = tc.tensor(pixels[:256]), tc.tensor(labels[:256])
    first = example.train_epoch(model, nn.CrossEntropyLoss(), opt, x, y, 32)
    for _ in range(5):
        last = example.train_epoch(model, nn.CrossEntropyLoss(), opt, x, y, 32)
    assert last < first
    with pytest.raises(SystemExit) as info:
        example.main(["--epochs", "0"])
    assert info.value.code == 2
    assert example.main([os.devnull]) == 2
