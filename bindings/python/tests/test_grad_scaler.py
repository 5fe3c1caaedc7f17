# SPDX-License-Identifier: BSD-3-Clause
"""GradScaler and its two ops: _amp_foreach_non_finite_check_and_unscale_ and
_amp_update_scale_, checked against a reference written out in Python (the
rules of ATen's kernels; torch 1.13 has no CPU kernel for either)."""
import math
import random
import warnings

import numpy as np
import pytest

import tensorc

INF, NAN = float("inf"), float("nan")


def _reference_update(scale, tracker, found_inf, growth, backoff, interval):
    """ATen's _amp_update_scale_ rule on Python numbers (scale rounded to float32)."""
    if found_inf:
        return float(np.float32(scale * backoff)), 0
    if tracker + 1 == interval:
        grown = float(np.float32(scale * growth))
        return (grown if math.isfinite(grown) else scale), 0
    return scale, tracker + 1


def test_check_and_unscale_matches_the_rule():
    rng = np.random.default_rng(0)
    for trial in range(20):
        arrays = [rng.standard_normal(n).astype(np.float32) for n in (5, 1, 7)]
        bad = trial % 4  # 0: all finite; 1: an inf; 2: a NaN; 3: -inf in the last one
        if bad == 1:
            arrays[0][2] = INF
        elif bad == 2:
            arrays[1][0] = NAN
        elif bad == 3:
            arrays[2][6] = -INF
        grads = [tensorc.tensor(a) for a in arrays]
        found = tensorc.zeros(1)
        inv = float(np.float32(1 / 1024))
        tensorc._amp_foreach_non_finite_check_and_unscale_(grads, found, tensorc.tensor([inv]))
        assert found.item() == (1.0 if bad else 0.0)
        for g, a in zip(grads, arrays):
            np.testing.assert_array_equal(g.numpy(), a * np.float32(inv))  # exact: a power of two


def test_check_and_unscale_keeps_a_set_flag_and_takes_every_float_dtype():
    found = tensorc.ones(1)
    grads = [tensorc.tensor([2.0, 4.0], dtype=tensorc.float64), tensorc.tensor([8.0], dtype=tensorc.bfloat16)]
    tensorc._amp_foreach_non_finite_check_and_unscale_(grads, found, tensorc.tensor([0.5]))
    assert found.item() == 1.0  # set earlier: never cleared
    assert grads[0].tolist() == [1.0, 2.0] and grads[1].tolist() == [4.0]
    tensorc._amp_foreach_non_finite_check_and_unscale_([], found, tensorc.tensor([0.5]))  # nothing to do


@pytest.mark.parametrize("change, arg", [
    (dict(found=tensorc.zeros(2)), "found_inf"),
    (dict(inv=tensorc.tensor([0.5], dtype=tensorc.float64)), "inv_scale"),
    (dict(grads=[tensorc.ones(2), tensorc.tensor([1, 2])]), "self"),
])
def test_check_and_unscale_refuses_bad_arguments_before_writing(change, arg):
    grads = change.get("grads", [tensorc.ones(2), tensorc.ones(3)])
    before = [g.clone() for g in grads]
    found = change.get("found", tensorc.zeros(1))
    with pytest.raises(tensorc.Error, match="_amp_foreach_non_finite_check_and_unscale_: argument '%s'" % arg):
        tensorc._amp_foreach_non_finite_check_and_unscale_(grads, found, change.get("inv", tensorc.tensor([0.5])))
    for g, b in zip(grads, before):
        assert tensorc.equal(g, b)  # a refused call writes nothing


def test_update_scale_follows_the_rule_over_random_steps():
    random.seed(1)
    for growth, backoff, interval in [(2.0, 0.5, 3), (1.5, 0.25, 1), (2.0, 0.5, 5)]:
        scale_t = tensorc.tensor([1024.0])
        tracker_t = tensorc.tensor([0], dtype=tensorc.int32)
        scale, tracker = 1024.0, 0
        for _ in range(60):
            found = random.random() < 0.2
            out = tensorc._amp_update_scale_(scale_t, tracker_t, tensorc.tensor([1.0 if found else 0.0]),
                                             growth, backoff, interval)
            scale, tracker = _reference_update(scale, tracker, found, growth, backoff, interval)
            assert out is scale_t or tensorc.equal(out, scale_t)
            assert scale_t.item() == scale and tracker_t.item() == tracker


def test_update_scale_does_not_grow_into_inf():
    scale = tensorc.tensor([3.0e38])
    tracker = tensorc.tensor([0], dtype=tensorc.int32)
    tensorc._amp_update_scale_(scale, tracker, tensorc.zeros(1), 2.0, 0.5, 1)
    assert scale.item() == np.float32(3.0e38) and tracker.item() == 0


def test_update_scale_refuses_bad_arguments_before_writing():
    scale, tracker = tensorc.tensor([8.0]), tensorc.tensor([1], dtype=tensorc.int32)
    with pytest.raises(tensorc.Error, match="argument 'growth_tracker' expected dtype int32"):
        tensorc._amp_update_scale_(scale, tensorc.tensor([1]), tensorc.zeros(1), 2.0, 0.5, 2)
    with pytest.raises(tensorc.Error, match="argument 'growth_interval' expected a positive int32"):
        tensorc._amp_update_scale_(scale, tracker, tensorc.zeros(1), 2.0, 0.5, 0)
    with pytest.raises(tensorc.Error, match="argument 'self' expected a 1-element tensor"):
        tensorc._amp_update_scale_(tensorc.ones(2), tracker, tensorc.zeros(1), 2.0, 0.5, 2)
    assert scale.item() == 8.0 and tracker.item() == 1


def _model_and_data(seed=0):
    tensorc.manual_seed(seed)
    model = tensorc.nn.Linear(4, 3)
    x, y = tensorc.randn(8, 4), tensorc.randn(8, 3)
    return model, x, y


def test_scaled_gradients_are_unscaled_to_the_plain_ones():
    model, x, y = _model_and_data()
    tensorc.nn.functional.mse_loss(model(x), y).backward()
    plain = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    opt = tensorc.optim.SGD(model.parameters(), lr=0.1)
    scaler = tensorc.amp.GradScaler("cpu", init_scale=256.0)
    scaler.scale(tensorc.nn.functional.mse_loss(model(x), y)).backward()
    assert np.allclose(model.weight.grad.numpy(), plain[0].numpy() * 256, rtol=1e-5)
    scaler.unscale_(opt)
    for p, g in zip(model.parameters(), plain):
        np.testing.assert_allclose(p.grad.numpy(), g.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    before = model.weight.detach().clone()
    scaler.step(opt)  # the step uses the unscaled gradients
    np.testing.assert_allclose(model.weight.detach().numpy(), (before - 0.1 * plain[0]).numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 256.0  # one clean step of 2000: unchanged


def test_an_overflow_skips_the_step_and_backs_off_then_clean_steps_grow():
    model, x, y = _model_and_data()
    opt = tensorc.optim.SGD(model.parameters(), lr=0.1)
    scaler = tensorc.cpu.amp.GradScaler(init_scale=64.0, growth_interval=2)
    loss = tensorc.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    model.weight.grad[0, 0] = INF
    before = [p.detach().clone() for p in model.parameters()]
    assert scaler.step(opt) is None
    for p, b in zip(model.parameters(), before):
        assert tensorc.equal(p.detach(), b)  # skipped
    scaler.update()
    assert scaler.get_scale() == 32.0
    for step in range(2):
        opt.zero_grad()
        scaler.scale(tensorc.nn.functional.mse_loss(model(x), y)).backward()
        scaler.step(opt)
        scaler.update()
    assert scaler.get_scale() == 64.0  # two clean steps: grown once
    assert not tensorc.equal(model.weight.detach(), before[0])


def test_state_dict_round_trip_and_set_scale():
    scaler = tensorc.amp.GradScaler("cpu", init_scale=8.0, growth_factor=4.0, backoff_factor=0.25,
                                    growth_interval=7)
    scaler.scale(tensorc.ones(1))
    scaler._growth_tracker.fill_(3)
    state = scaler.state_dict()
    assert state == {"scale": 8.0, "growth_factor": 4.0, "backoff_factor": 0.25, "growth_interval": 7,
                     "_growth_tracker": 3}
    other = tensorc.cpu.amp.GradScaler()
    other.load_state_dict(state)
    assert other.state_dict() == state
    assert scaler.scale(tensorc.tensor([2.0])).item() == 16.0
    scaler.update(new_scale=2.0)
    assert scaler.get_scale() == 2.0
    with pytest.raises(ValueError, match="new_scale"):
        scaler.update(new_scale=tensorc.ones(2))


def test_misuse_is_an_error():
    with pytest.raises(ValueError, match="growth factor"):
        tensorc.amp.GradScaler("cpu", growth_factor=1.0)
    scaler = tensorc.amp.GradScaler("cpu")
    opt = tensorc.optim.SGD([tensorc.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(RuntimeError, match="did not use scaler.scale"):
        scaler.step(opt)
    scaler.scale(tensorc.ones(1))
    with pytest.raises(RuntimeError, match="Closure"):
        scaler.step(opt, closure=lambda: None)
    half = tensorc.zeros(1, dtype=tensorc.float16, requires_grad=True)
    half.grad = tensorc.ones(1, dtype=tensorc.float16)
    with pytest.raises(ValueError, match="FP16 gradients"):
        scaler.unscale_(tensorc.optim.SGD([half], lr=0.1))


def test_disabled_scaler_passes_through():
    scaler = tensorc.amp.GradScaler("cpu", enabled=False)
    loss = tensorc.ones(1)
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0 and scaler.state_dict() == {}


@pytest.mark.skipif(tensorc.cuda.is_available(), reason="checks the no-CUDA path: a CUDA device is present")
def test_cuda_scaler_without_a_device_warns_and_disables():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = tensorc.cuda.amp.GradScaler()
    assert not scaler.is_enabled() and any("CUDA is not available" in str(w.message) for w in caught)


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_scaler_matches_the_cpu_one():
    results = []
    for device in ("cpu", "cuda"):
        model, x, y = _model_and_data(3)
        model.to(device)
        x, y = x.to(device), y.to(device)
        opt = tensorc.optim.SGD(model.parameters(), lr=0.05)
        scaler = tensorc.amp.GradScaler(device, init_scale=2.0 ** 20, growth_interval=3)
        for step in range(8):
            opt.zero_grad()
            scaler.scale(tensorc.nn.functional.mse_loss(model(x), y)).backward()
            if step == 2:
                model.weight.grad[0, 0] = NAN
            scaler.step(opt)
            scaler.update()
        results.append((scaler.get_scale(), model.weight.detach().cpu().numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-6)


def test_one_element_tensors_of_any_shape_mix():
    g = tensorc.tensor(8.0)  # a 0-dim gradient (a scalar parameter's)
    found = tensorc.zeros(1)
    tensorc._amp_foreach_non_finite_check_and_unscale_([g], found, tensorc.tensor([0.25]))
    assert g.item() == 2.0 and found.item() == 0.0
    scale, tracker = tensorc.tensor([4.0]), tensorc.tensor(1, dtype=tensorc.int32)  # [1] and 0-dim
    tensorc._amp_update_scale_(scale, tracker, tensorc.zeros(1, 1), 2.0, 0.5, 2)
    assert scale.item() == 8.0 and tracker.item() == 0


def test_an_expanded_gradient_is_refused_before_anything_is_written():
    first, expanded = tensorc.tensor([float("inf")]), tensorc.ones(1).expand(3)
    found = tensorc.zeros(1)
    with pytest.raises(tensorc.Error, match="share memory"):
        tensorc._amp_foreach_non_finite_check_and_unscale_([first, expanded], found, tensorc.tensor([0.5]))
    assert found.item() == 0.0 and first.item() == INF
