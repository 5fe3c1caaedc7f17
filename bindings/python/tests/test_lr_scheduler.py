# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.optim.lr_scheduler compared step by step with torch 1.13's: the
rates each scheduler sets (get_last_lr() and every group's lr), the
parameters the optimizer reaches with them, state_dict round trips,
ReduceLROnPlateau on the same metric sequences, and the errors."""
import math
import warnings

import numpy as np
import pytest
import torch

import tensorc as tc
from tensorc import nn, optim
from tensorc.optim import lr_scheduler

STEPS = 30
SHAPES = ((3, 4), (5,))


def rates(optimizer):
    return [group["lr"] for group in optimizer.param_groups]


class Pair:
    """The same two-group model and optimizer in tensorc and in torch, fed the
    same gradients."""

    def __init__(self, optimizer_name="SGD", seed=7, **options):
        self.rng = np.random.default_rng(seed)
        initial = [self.rng.standard_normal(s).astype(np.float32) for s in SHAPES]
        self.ours = [nn.Parameter(tc.tensor(v)) for v in initial]
        self.theirs = [torch.nn.Parameter(torch.tensor(v)) for v in initial]
        # Two groups with different rates, so per-group handling is exercised.
        self.opt_ours = getattr(optim, optimizer_name)(
            [{"params": [self.ours[0]]}, {"params": [self.ours[1]], "lr": 0.05}], lr=0.1, **options)
        self.opt_theirs = getattr(torch.optim, optimizer_name)(
            [{"params": [self.theirs[0]]}, {"params": [self.theirs[1]], "lr": 0.05}], lr=0.1, **options)

    def optimizer_step(self):
        for p, q in zip(self.ours, self.theirs):
            g = self.rng.standard_normal(tuple(p.shape)).astype(np.float32)
            p.grad = tc.tensor(g)
            q.grad = torch.tensor(g)
        self.opt_ours.step()
        self.opt_theirs.step()

    def check_params(self):
        for p, q in zip(self.ours, self.theirs):
            np.testing.assert_allclose(np.array(p.detach().tolist(), dtype=np.float32), q.detach().numpy(),
                                       rtol=1e-5, atol=1e-6)


def check_same(ours, theirs, opt_ours, opt_theirs):
    expected = theirs.get_last_lr()
    assert ours.get_last_lr() == pytest.approx(expected, rel=1e-12)
    assert rates(opt_ours) == pytest.approx(rates(opt_theirs), rel=1e-12)
    assert rates(opt_ours) == pytest.approx(expected, rel=1e-12)
    assert ours.last_epoch == theirs.last_epoch


def _halving_every_third(epoch):
    return 0.5 if epoch % 3 == 0 else 1.0


# (scheduler name, constructor options): each is built with the same options in both libraries.
SCHEDULERS = [
    ("StepLR", dict(step_size=4, gamma=0.5)),
    ("StepLR", dict(step_size=1)),
    ("MultiStepLR", dict(milestones=[3, 8, 8, 20], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=10)),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001)),
    ("LambdaLR", dict(lr_lambda=lambda epoch: 0.95 ** epoch)),
    ("LambdaLR", dict(lr_lambda=[lambda epoch: 1.0 / (epoch + 1), lambda epoch: 0.9 ** (epoch // 2)])),
    ("MultiplicativeLR", dict(lr_lambda=lambda epoch: 0.93)),
    ("MultiplicativeLR", dict(lr_lambda=[_halving_every_third, lambda epoch: 0.99])),
    ("LinearLR", dict()),
    ("LinearLR", dict(start_factor=0.25, end_factor=0.75, total_iters=12)),
    ("LinearLR", dict(start_factor=1.0, end_factor=0.1, total_iters=20)),
    ("ConstantLR", dict()),
    ("ConstantLR", dict(factor=0.5, total_iters=11)),
]
IDS = ["{}-{}".format(name, i) for i, (name, _) in enumerate(SCHEDULERS)]


@pytest.mark.parametrize("optimizer_name", ["SGD", "Adam", "AdamW"])
@pytest.mark.parametrize("name,options", SCHEDULERS, ids=IDS)
def test_schedule_matches_torch(name, options, optimizer_name):
    pair = Pair(optimizer_name)
    ours = getattr(lr_scheduler, name)(pair.opt_ours, **options)
    theirs = getattr(torch.optim.lr_scheduler, name)(pair.opt_theirs, **options)
    assert ours.base_lrs == theirs.base_lrs == [0.1, 0.05]
    assert [g["initial_lr"] for g in pair.opt_ours.param_groups] == [0.1, 0.05]
    check_same(ours, theirs, pair.opt_ours, pair.opt_theirs)
    for _ in range(STEPS):
        pair.optimizer_step()
        ours.step()
        theirs.step()
        check_same(ours, theirs, pair.opt_ours, pair.opt_theirs)
    pair.check_params()


CLOSED_FORM = [(name, options) for name, options in SCHEDULERS
               if hasattr(getattr(torch.optim.lr_scheduler, name), "_get_closed_form_lr")]


@pytest.mark.parametrize("name,options", CLOSED_FORM, ids=[n for n, _ in CLOSED_FORM])
def test_step_with_epoch_uses_the_closed_form_as_torch(name, options):
    pair = Pair()
    ours = getattr(lr_scheduler, name)(pair.opt_ours, **options)
    theirs = getattr(torch.optim.lr_scheduler, name)(pair.opt_theirs, **options)
    for epoch in [3, 4, 9, 1, 25, 25, 12]:
        pair.optimizer_step()
        with pytest.warns(UserWarning, match="epoch parameter"):
            ours.step(epoch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs.step(epoch)
        check_same(ours, theirs, pair.opt_ours, pair.opt_theirs)


def test_closed_form_equals_the_recursive_schedule():
    # The documented schedules, computed independently of both libraries.
    pair = Pair()
    step = lr_scheduler.StepLR(pair.opt_ours, step_size=3, gamma=0.5)
    for epoch in range(1, STEPS):
        pair.optimizer_step()
        step.step()
        assert step.get_last_lr() == pytest.approx([0.1 * 0.5 ** (epoch // 3), 0.05 * 0.5 ** (epoch // 3)])
    pair = Pair()
    cosine = lr_scheduler.CosineAnnealingLR(pair.opt_ours, T_max=8, eta_min=0.01)
    for epoch in range(1, STEPS):
        pair.optimizer_step()
        cosine.step()
        expected = [0.01 + (base - 0.01) * (1 + math.cos(math.pi * epoch / 8)) / 2 for base in (0.1, 0.05)]
        assert cosine.get_last_lr() == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_two_schedulers_chain_on_one_optimizer_as_torch():
    pair = Pair()
    ours = [lr_scheduler.ExponentialLR(pair.opt_ours, gamma=0.9),
            lr_scheduler.MultiStepLR(pair.opt_ours, milestones=[5, 12], gamma=0.1)]
    theirs = [torch.optim.lr_scheduler.ExponentialLR(pair.opt_theirs, gamma=0.9),
              torch.optim.lr_scheduler.MultiStepLR(pair.opt_theirs, milestones=[5, 12], gamma=0.1)]
    for _ in range(STEPS):
        pair.optimizer_step()
        for a, b in zip(ours, theirs):
            a.step()
            b.step()
        # Each scheduler's last rates are those it set, before the next one acted.
        for a, b in zip(ours, theirs):
            assert a.get_last_lr() == pytest.approx(b.get_last_lr(), rel=1e-12)
        assert rates(pair.opt_ours) == pytest.approx(rates(pair.opt_theirs), rel=1e-12)
        assert rates(pair.opt_ours) == pytest.approx(ours[1].get_last_lr(), rel=1e-12)
    pair.check_params()


@pytest.mark.parametrize("name,options", [("CosineAnnealingLR", dict(T_max=9)), ("StepLR", dict(step_size=4)),
                                          ("LinearLR", dict(total_iters=8))])
def test_resuming_with_last_epoch_matches_torch(name, options):
    pair = Pair()
    for group in pair.opt_ours.param_groups + pair.opt_theirs.param_groups:
        group["initial_lr"] = group["lr"]
    ours = getattr(lr_scheduler, name)(pair.opt_ours, last_epoch=5, **options)
    theirs = getattr(torch.optim.lr_scheduler, name)(pair.opt_theirs, last_epoch=5, **options)
    check_same(ours, theirs, pair.opt_ours, pair.opt_theirs)
    for _ in range(10):
        pair.optimizer_step()
        ours.step()
        theirs.step()
        check_same(ours, theirs, pair.opt_ours, pair.opt_theirs)


def test_initial_lr_is_kept_when_already_set():
    pair = Pair()
    for group in pair.opt_ours.param_groups:
        group["initial_lr"] = 1.0
    sched = lr_scheduler.ExponentialLR(pair.opt_ours, gamma=0.5)
    assert sched.base_lrs == [1.0, 1.0]
    assert rates(pair.opt_ours) == [0.1, 0.05]  # the first step leaves lr as it is


class Warmup:
    """A callable object: its attributes are saved by LambdaLR.state_dict."""

    def __init__(self, length):
        self.length = length

    def __call__(self, epoch):
        return min(1.0, (epoch + 1) / self.length)


STATEFUL = [
    ("StepLR", dict(step_size=4, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[3, 14], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=10, eta_min=0.002)),
    ("LinearLR", dict(start_factor=0.2, total_iters=15)),
    ("ConstantLR", dict(factor=0.5, total_iters=13)),
    ("MultiplicativeLR", dict(lr_lambda=lambda epoch: 0.95)),
]


@pytest.mark.parametrize("name,options", STATEFUL, ids=[n for n, _ in STATEFUL])
def test_state_dict_round_trip_continues_as_torch(name, options):
    pair = Pair()
    ours = getattr(lr_scheduler, name)(pair.opt_ours, **options)
    theirs = getattr(torch.optim.lr_scheduler, name)(pair.opt_theirs, **options)
    for _ in range(10):
        pair.optimizer_step()
        ours.step()
        theirs.step()
    saved = ours.state_dict()
    assert "optimizer" not in saved
    assert saved["last_epoch"] == 10 and saved["base_lrs"] == [0.1, 0.05]
    assert set(saved) == set(theirs.state_dict())
    # A fresh optimizer and scheduler over the same parameters take the saved
    # state: the scheduler first (its initial step sets lr), then the optimizer's
    # state (lr and initial_lr), then the scheduler's.
    opt_saved = pair.opt_ours.state_dict()
    pair.opt_ours = optim.SGD([{"params": [pair.ours[0]]}, {"params": [pair.ours[1]]}], lr=0.7)
    ours = getattr(lr_scheduler, name)(pair.opt_ours, **options)
    pair.opt_ours.load_state_dict(opt_saved)
    ours.load_state_dict(saved)
    assert ours.base_lrs == [0.1, 0.05]
    check_same(ours, theirs, pair.opt_ours, pair.opt_theirs)
    for _ in range(STEPS - 10):
        pair.optimizer_step()
        ours.step()
        theirs.step()
        check_same(ours, theirs, pair.opt_ours, pair.opt_theirs)
    pair.check_params()


def test_lambda_lr_state_dict_saves_callable_objects_only():
    pair = Pair()
    sched = lr_scheduler.LambdaLR(pair.opt_ours, lr_lambda=[Warmup(5), lambda epoch: 1.0])
    saved = sched.state_dict()
    assert saved["lr_lambdas"] == [{"length": 5}, None]
    twin = lr_scheduler.LambdaLR(Pair().opt_ours, lr_lambda=[Warmup(50), lambda epoch: 2.0])
    twin.load_state_dict(saved)
    assert twin.lr_lambdas[0].length == 5
    assert twin.lr_lambdas[1](0) == 2.0  # a plain function stays as constructed
    assert saved["lr_lambdas"] == [{"length": 5}, None]  # the saved dict is left whole
    # The restored schedule matches torch's from the same point.
    pair_t = Pair()
    theirs = torch.optim.lr_scheduler.LambdaLR(pair_t.opt_theirs, lr_lambda=[Warmup(5), lambda epoch: 2.0])
    assert twin.lr_lambdas[0](3) == theirs.lr_lambdas[0](3)
    assert theirs.state_dict()["lr_lambdas"] == [{"length": 5}, None]


# --- ReduceLROnPlateau -------------------------------------------------------------

def _metrics(kind):
    rng = np.random.default_rng(3)
    if kind == "falling_then_flat":
        return [1.0 / (i + 1) if i < 8 else 0.11 + 0.001 * rng.standard_normal() for i in range(STEPS)]
    if kind == "noisy":
        return list(1.0 + 0.05 * rng.standard_normal(STEPS))
    if kind == "rising_then_flat":
        return [min(i, 10) * 0.1 for i in range(STEPS)]
    return [0.5] * STEPS  # "flat"


PLATEAU = [
    (dict(), "falling_then_flat"),
    (dict(patience=2), "noisy"),
    (dict(patience=1, factor=0.5, cooldown=2), "flat"),
    (dict(patience=0, factor=0.5, min_lr=0.01), "flat"),
    (dict(patience=0, factor=0.5, min_lr=[0.02, 0.001]), "flat"),
    (dict(patience=1, threshold=0.05, threshold_mode="abs"), "noisy"),
    (dict(mode="max", patience=2, factor=0.2), "rising_then_flat"),
    (dict(mode="max", patience=1, threshold=0.2, threshold_mode="abs", cooldown=1), "rising_then_flat"),
    (dict(mode="max", patience=3, threshold=0.01), "noisy"),
    (dict(patience=0, factor=0.9, eps=0.004), "flat"),
]


@pytest.mark.parametrize("optimizer_name", ["SGD", "Adam"])
@pytest.mark.parametrize("options,metrics", PLATEAU, ids=[str(i) for i in range(len(PLATEAU))])
def test_reduce_on_plateau_matches_torch(options, metrics, optimizer_name):
    pair = Pair(optimizer_name)
    ours = lr_scheduler.ReduceLROnPlateau(pair.opt_ours, **options)
    theirs = torch.optim.lr_scheduler.ReduceLROnPlateau(pair.opt_theirs, **options)
    assert ours.get_last_lr() == [0.1, 0.05]
    for value in _metrics(metrics):
        pair.optimizer_step()
        ours.step(value)
        theirs.step(value)
        assert rates(pair.opt_ours) == pytest.approx(rates(pair.opt_theirs), rel=1e-12)
        assert ours.get_last_lr() == pytest.approx(rates(pair.opt_theirs), rel=1e-12)
        for key in ("best", "num_bad_epochs", "cooldown_counter", "last_epoch"):
            assert getattr(ours, key) == getattr(theirs, key), key
    pair.check_params()


def test_reduce_on_plateau_takes_a_one_element_tensor():
    pair = Pair()
    ours = lr_scheduler.ReduceLROnPlateau(pair.opt_ours, patience=0)
    theirs = torch.optim.lr_scheduler.ReduceLROnPlateau(pair.opt_theirs, patience=0)
    for value in [3.0, 2.0, 2.5, 2.5, 1.0]:
        ours.step(tc.tensor(value))
        theirs.step(torch.tensor(value))
        assert rates(pair.opt_ours) == pytest.approx(rates(pair.opt_theirs), rel=1e-12)
    assert ours.best == theirs.best == 1.0


def test_reduce_on_plateau_state_dict_round_trip():
    pair = Pair()
    ours = lr_scheduler.ReduceLROnPlateau(pair.opt_ours, mode="max", patience=1, cooldown=1)
    theirs = torch.optim.lr_scheduler.ReduceLROnPlateau(pair.opt_theirs, mode="max", patience=1, cooldown=1)
    values = _metrics("noisy")
    for value in values[:12]:
        ours.step(value)
        theirs.step(value)
    saved = ours.state_dict()
    assert "optimizer" not in saved
    twin = lr_scheduler.ReduceLROnPlateau(pair.opt_ours)  # mode "min" until loaded
    twin.load_state_dict(saved)
    assert twin.mode == "max" and twin.mode_worse == -math.inf
    for value in values[12:]:
        twin.step(value)
        theirs.step(value)
        assert rates(pair.opt_ours) == pytest.approx(rates(pair.opt_theirs), rel=1e-12)
        assert twin.num_bad_epochs == theirs.num_bad_epochs


# --- warnings and errors -----------------------------------------------------------

def test_stepping_the_scheduler_before_the_optimizer_warns():
    pair = Pair()
    sched = lr_scheduler.StepLR(pair.opt_ours, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step"):
        sched.step()
    pair = Pair()
    sched = lr_scheduler.StepLR(pair.opt_ours, step_size=2)
    pair.optimizer_step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()
        sched.step()


def test_optimizer_step_is_counted_and_still_returns_the_loss():
    pair = Pair()
    lr_scheduler.ExponentialLR(pair.opt_ours, gamma=0.5)
    lr_scheduler.StepLR(pair.opt_ours, step_size=3)  # a second scheduler does not wrap twice
    assert pair.opt_ours._step_count == 0
    assert pair.opt_ours.step(lambda: 4.5) == 4.5
    assert pair.opt_ours._step_count == 1


def test_get_lr_outside_step_warns():
    pair = Pair()
    sched = lr_scheduler.ExponentialLR(pair.opt_ours, gamma=0.5)
    with pytest.warns(UserWarning, match="get_last_lr"):
        sched.get_lr()


def test_verbose_prints_the_new_rates(capsys):
    pair = Pair()
    sched = lr_scheduler.StepLR(pair.opt_ours, step_size=1, gamma=0.5, verbose=True)
    pair.optimizer_step()
    sched.step()
    out = capsys.readouterr().out
    assert "Adjusting learning rate of group 0 to 5.0000e-02." in out
    assert "Adjusting learning rate of group 1 to 2.5000e-02." in out


def test_base_class_alias_and_subclassing():
    assert lr_scheduler._LRScheduler is lr_scheduler.LRScheduler

    class Halving(lr_scheduler.LRScheduler):
        def get_lr(self):
            return [base / 2 ** self.last_epoch for base in self.base_lrs]

    pair = Pair()
    sched = Halving(pair.opt_ours)
    pair.optimizer_step()
    sched.step()
    sched.step()
    assert sched.get_last_lr() == [0.025, 0.0125]
    with pytest.raises(NotImplementedError, match="get_lr"):
        lr_scheduler.LRScheduler(pair.opt_ours)


@pytest.mark.parametrize("make", [
    lambda opt: lr_scheduler.StepLR(object(), step_size=1),
    lambda opt: lr_scheduler.LambdaLR("sgd", lr_lambda=lambda e: 1.0),
    lambda opt: lr_scheduler.ReduceLROnPlateau([opt]),
])
def test_a_non_optimizer_is_a_type_error(make):
    with pytest.raises(TypeError, match="optimizer"):
        make(Pair().opt_ours)


def test_argument_errors():
    opt = Pair().opt_ours
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.StepLR(opt, step_size=2, last_epoch=4)
    with pytest.raises(ValueError, match="lr_lambda.*expected 2"):
        lr_scheduler.LambdaLR(opt, lr_lambda=[lambda e: 1.0])
    with pytest.raises(ValueError, match="lr_lambda.*expected 2"):
        lr_scheduler.MultiplicativeLR(opt, lr_lambda=[lambda e: 1.0] * 3)
    with pytest.raises(ValueError, match="ConstantLR.*factor"):
        lr_scheduler.ConstantLR(opt, factor=1.5)
    with pytest.raises(ValueError, match="LinearLR.*start_factor"):
        lr_scheduler.LinearLR(opt, start_factor=-0.1)
    with pytest.raises(ValueError, match="LinearLR.*end_factor"):
        lr_scheduler.LinearLR(opt, end_factor=2.0)
    with pytest.raises(ValueError, match="factor"):
        lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode"):
        lr_scheduler.ReduceLROnPlateau(opt, mode="lowest")
    with pytest.raises(ValueError, match="threshold_mode"):
        lr_scheduler.ReduceLROnPlateau(opt, threshold_mode="pct")
    with pytest.raises(ValueError, match="min_lr.*expected 2"):
        lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1])
    with pytest.raises(TypeError, match="ReduceLROnPlateau.step.*metrics"):
        lr_scheduler.ReduceLROnPlateau(opt).step("low")
