# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.jit.trace: recording, replay on new inputs, the text form, save and
load, the warnings for input-dependent traces, autograd and autocast through a
replayed graph."""
import json
import warnings

import numpy as np
import pytest

import tensorc

nn = tensorc.nn


def _mlp():
    tensorc.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def test_trace_replays_a_module_on_new_inputs():
    model = _mlp()
    traced = tensorc.jit.trace(model, (tensorc.randn(5, 4),))
    assert traced.graph.nodes() == 3  # linear, relu, linear: each composite once
    text = str(traced.graph)
    assert text.startswith("graph(%0 : float32[5, 4]):")
    assert text.count("prim::Parameter()") == 4 and text.count("aten::linear(") == 2
    for _ in range(3):
        x = tensorc.randn(5, 4)
        np.testing.assert_allclose(traced(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)


def test_several_inputs_and_outputs_and_dead_code():
    def f(a, b):
        unused = a.exp()  # noqa: F841  (dropped: nothing uses it)
        s = a + b
        return s * 2, (a - b).abs()

    a, b = tensorc.randn(3), tensorc.randn(3)
    traced = tensorc.jit.trace(f, (a, b))
    assert "exp" not in traced.code and traced.graph.nodes() == 4
    a2, b2 = tensorc.randn(3), tensorc.randn(3)
    got, want = traced(a2, b2), f(a2, b2)
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        assert tensorc.equal(g, w)


def test_wrong_inputs_are_errors():
    traced = tensorc.jit.trace(lambda x: x.relu(), tensorc.randn(2, 3))
    with pytest.raises(tensorc.Error, match=r"input 0 expected float32\[2, 3\]"):
        traced(tensorc.randn(3, 2))
    with pytest.raises(tensorc.Error, match="expected 1 input"):
        traced()
    with pytest.raises(TypeError, match="must return a tensor"):
        tensorc.jit.trace(lambda x: 3, tensorc.ones(1))
    tensorc.jit.trace(lambda x: x + 1, tensorc.ones(1))  # the failed trace above ended tracing


def test_save_and_load_round_trip(tmp_path):
    model = _mlp()
    x = tensorc.randn(5, 4)
    traced = tensorc.jit.trace(model, x)
    path = str(tmp_path / "mlp.json")
    tensorc.jit.save(traced, path)
    doc = json.load(open(path))
    assert doc["format"] == "tensorc-graph" and doc["version"] == 1 and len(doc["constants"]) == 4
    loaded = tensorc.jit.load(path)
    assert loaded.code == traced.code
    before = traced(x).detach()
    assert tensorc.equal(loaded(x).detach(), before)
    with tensorc.no_grad():
        model[0].weight.add_(1.0)  # the traced graph shares the live weights; the loaded one has the saved ones
    assert tensorc.equal(loaded(x).detach(), before)
    assert not tensorc.equal(traced(x).detach(), before)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "tensorc-graph",\n "version": 1,\n "values": [ }')
    with pytest.raises(tensorc.Error, match="bad.json.*line 3"):
        tensorc.jit.load(str(bad))


def test_gradients_flow_through_a_replay_into_the_parameters():
    model = _mlp()
    x = tensorc.randn(5, 4)
    traced = tensorc.jit.trace(model, x)
    traced(x).sum().backward()
    replay_grad = model[0].weight.grad.clone()
    model.zero_grad()
    model(x).sum().backward()
    np.testing.assert_allclose(replay_grad.numpy(), model[0].weight.grad.numpy(), rtol=1e-6)


def test_input_dependent_control_flow_warns():
    def f(a):
        if a.sum() > 0:
            return a * 2
        return a - 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = tensorc.jit.trace(f, tensorc.ones(3))
    assert any(issubclass(w.category, tensorc.jit.TracerWarning) for w in caught)
    assert "example inputs" in traced.warnings[0]
    assert tensorc.equal(traced(-tensorc.ones(3)), -2 * tensorc.ones(3))  # the branch traced, not f's
    with pytest.raises(RuntimeError, match="check_trace"):
        state = {"n": 0}

        def g(a):
            state["n"] += 1
            return a * state["n"]  # depends on more than its input
        tensorc.jit.trace(g, tensorc.ones(2), check_trace=True)


def test_autocast_casts_are_recorded():
    model = _mlp()
    x = tensorc.randn(5, 4)
    with tensorc.autocast("cpu"):
        traced = tensorc.jit.trace(model, x)
        want = model(x)
    assert "aten::_to_copy(" in traced.code and "bfloat16" in traced.code
    got = traced(x)  # replayed outside any autocast region: the recorded casts still apply
    assert got.dtype == tensorc.bfloat16 and tensorc.equal(got, want)


def test_autocast_cache_is_bypassed_while_tracing():
    model = _mlp()
    x = tensorc.randn(5, 4)
    with tensorc.autocast("cpu"):
        model(x)  # fills the cast cache with bfloat16 copies of the weights
        traced = tensorc.jit.trace(model, x)
    captures = [line for line in traced.code.splitlines() if "prim::" in line]
    assert len(captures) == 4 and all("float32" in line for line in captures)  # the weights, not cached copies
    assert traced.code.count("aten::_to_copy(") >= 5  # the weights' casts are recorded, not cached copies


def test_a_kernels_own_reads_do_not_warn_and_random_ops_stay():
    def f(x):
        noise = tensorc.rand(3)  # unused, but dropping it would shift the generator's later draws
        return x.clone().fill_(x.sum()), noise * 0 if False else x + 1

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # fill_ reads its 0-dim value inside the kernel: not the caller's item()
        traced = tensorc.jit.trace(f, tensorc.ones(3))
    assert traced.warnings == [] and "aten::rand(" in traced.code
    a, b = traced(tensorc.full((3,), 2.0))
    assert a.tolist() == [6.0, 6.0, 6.0] and b.tolist() == [3.0, 3.0, 3.0]
