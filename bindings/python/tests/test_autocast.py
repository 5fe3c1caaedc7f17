# SPDX-License-Identifier: BSD-3-Clause
"""Autocast: each policy of ops.yaml on the CPU, checked against PyTorch's own
CPU autocast where both have the op, plus regions, nesting and gradients."""
import json
import os

import numpy as np
import pytest
import torch

import tensorc

F = tensorc.nn.functional
TF = torch.nn.functional


def _ops_json():
    here = os.path.dirname(tensorc.__file__)
    for path in (os.path.join(here, "..", "..", "generated", "ops.json"),
                 os.path.join(here, "..", "generated", "ops.json")):
        if os.path.exists(path):
            return json.load(open(path))["ops"]
    raise AssertionError("ops.json not found beside the build's python package")


# One call per op with a CPU policy: (ops.json name, tensorc call, torch call).
# Each takes a float32 (4, 4) x, y and a bfloat16 copy xb of x.
CASES = {
    "mm": (lambda m, x, y, xb: m.mm(x, y)),
    "bmm": (lambda m, x, y, xb: m.bmm(x.unsqueeze(0), y.unsqueeze(0))),
    "addmm": (lambda m, x, y, xb: m.addmm(x, x, y)),
    "matmul": (lambda m, x, y, xb: m.matmul(x, y)),
    "linear": (lambda m, x, y, xb: m.nn.functional.linear(x, y)),
    "mse_loss": (lambda m, x, y, xb: m.nn.functional.mse_loss(xb, xb)),
    "nll_loss": (lambda m, x, y, xb: m.nn.functional.nll_loss(xb, m.tensor([0, 1, 2, 3]))),
    "binary_cross_entropy_with_logits":
        (lambda m, x, y, xb: m.nn.functional.binary_cross_entropy_with_logits(xb, xb.sigmoid())),
    "prod": (lambda m, x, y, xb: m.prod(xb)),
    "cat": (lambda m, x, y, xb: m.cat([xb, x])),
    "stack": (lambda m, x, y, xb: m.stack([xb, x])),
    "index_copy": (lambda m, x, y, xb: x.index_copy(0, m.tensor([0]), xb[:1])),
}
# Ops without a CPU policy keep their dtype under autocast.
UNCHANGED = {
    "add": (lambda m, x, y, xb: x + y),
    "sum_bf16": (lambda m, x, y, xb: m.sum(xb)),
    "softmax_bf16": (lambda m, x, y, xb: m.softmax(xb, 1)),
    "exp_bf16": (lambda m, x, y, xb: m.exp(xb)),
    "relu": (lambda m, x, y, xb: m.relu(x)),
}


def _inputs(m):
    rng = np.random.default_rng(0)
    x = m.tensor(rng.standard_normal((4, 4)).astype(np.float32))
    y = m.tensor(rng.standard_normal((4, 4)).astype(np.float32))
    return x, y, x.to(m.bfloat16)


def _name(dt):
    return str(dt).split(".")[-1]


def test_every_cpu_policy_has_a_case():
    with_policy = {op["name"] for op in _ops_json() if "cpu" in op.get("autocast", {})}
    assert with_policy, "no op has a CPU autocast policy"
    assert with_policy <= set(CASES), f"ops with a CPU policy but no case here: {sorted(with_policy - set(CASES))}"


@pytest.mark.parametrize("name", sorted(CASES) + sorted(UNCHANGED))
def test_output_dtype_matches_torch_cpu_autocast(name):
    fn = CASES.get(name) or UNCHANGED[name]
    with tensorc.autocast("cpu"):
        got = fn(tensorc, *_inputs(tensorc))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        want = fn(torch, *_inputs(torch))
    assert _name(got.dtype) == _name(want.dtype)
    np.testing.assert_allclose(got.float().detach().numpy(), want.float().detach().numpy(), rtol=2e-2, atol=2e-2)


def test_regions_nest_and_switch_off():
    x, y, _ = _inputs(tensorc)
    assert not tensorc.is_autocast_enabled("cpu")
    with tensorc.autocast("cpu"):
        assert tensorc.mm(x, y).dtype == tensorc.bfloat16
        with tensorc.autocast("cpu", enabled=False):
            assert tensorc.mm(x, y).dtype == tensorc.float32
        with tensorc.autocast("cpu", dtype=tensorc.float16):
            assert tensorc.mm(x, y).dtype == tensorc.float16
        assert tensorc.mm(x, y).dtype == tensorc.bfloat16
    assert tensorc.mm(x, y).dtype == tensorc.float32
    with tensorc.cpu.amp.autocast():
        assert tensorc.get_autocast_dtype("cpu") == tensorc.bfloat16
    with tensorc.autocast("cuda"):  # a CUDA region leaves CPU tensors alone
        assert tensorc.mm(x, y).dtype == tensorc.float32

    @tensorc.autocast("cpu")
    def product():
        return tensorc.mm(x, y)
    assert product().dtype == tensorc.bfloat16 and not tensorc.is_autocast_enabled("cpu")
    with pytest.raises(ValueError, match="dtype"):
        tensorc.autocast("cpu", dtype=tensorc.float32)
    with pytest.raises(ValueError, match="device_type"):
        tensorc.autocast("tpu")


def test_gradients_flow_back_to_float32_weights():
    rng = np.random.default_rng(1)
    w = tensorc.tensor(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    x = tensorc.tensor(rng.standard_normal((5, 4)).astype(np.float32))
    with tensorc.autocast("cpu"):
        out = F.linear(x, w)
        loss = F.mse_loss(out, tensorc.zeros(5, 3))
    assert out.dtype == tensorc.bfloat16 and loss.dtype == tensorc.float32
    loss.backward()
    assert w.grad.dtype == tensorc.float32 and w.grad.shape == w.shape
    tw = torch.tensor(w.detach().numpy(), requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        tl = TF.mse_loss(TF.linear(torch.tensor(x.numpy()), tw), torch.zeros(5, 3))
    tl.backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=5e-2, atol=5e-2)


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_policies():
    x, y, _ = _inputs(tensorc)
    x, y = x.cuda(), y.cuda()
    h = x.to(tensorc.float16)
    with tensorc.autocast("cuda"):
        assert tensorc.mm(x, y).dtype == tensorc.float16
        assert F.linear(x, y).dtype == tensorc.float16
        assert tensorc.exp(h).dtype == tensorc.float32  # fp32
        assert tensorc.softmax(h, 1).dtype == tensorc.float32  # fp32 unless a dtype is given
        assert tensorc.softmax(h, 1, dtype=tensorc.float16).dtype == tensorc.float16
        assert tensorc.sum(h).dtype == tensorc.float32
        assert tensorc.atan2(h, x).dtype == tensorc.float32  # promote
        assert tensorc.mm(x.cpu(), y.cpu()).dtype == tensorc.float32  # a CUDA region leaves the CPU alone
