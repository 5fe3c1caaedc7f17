# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.onnx.export: the digits MLP and a conv-free transformer block run
in onnxruntime and give tensorc's outputs; an op without an ONNX mapping
fails the export with the list of such ops.

onnxruntime comes from PyPI (tools/dev.sh test installs it into build-venv
and sets TC_REQUIRE_ONNXRUNTIME=1, so there the tests that run a model
cannot skip); the onnx package is Debian's python3-onnx."""
import io
import os

import numpy as np
import pytest

import tensorc

onnx = pytest.importorskip("onnx", reason="the onnx package is missing (apt install python3-onnx)")
try:
    import onnxruntime
except ImportError:
    if os.environ.get("TC_REQUIRE_ONNXRUNTIME"):
        raise
    onnxruntime = None
needs_ort = pytest.mark.skipif(onnxruntime is None,
                               reason="onnxruntime is not installed (tools/dev.sh test installs it into build-venv)")

nn = tensorc.nn
F = nn.functional


class Block(nn.Module):
    """A pre-norm transformer block: attention (2 heads) and a gelu MLP, no convolution."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = (y.reshape(b, t, h, d // h).transpose(1, 2) for y in self.qkv(self.ln1(x)).split(d, dim=-1))
        attention = F.softmax(q.matmul(k.transpose(-2, -1)) * (1.0 / (d // h) ** 0.5), dim=-1)
        x = x + self.proj(attention.matmul(v).transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def _digits_mlp():
    tensorc.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10), nn.LogSoftmax(dim=1))


def _run(path_or_bytes, inputs):
    session = onnxruntime.InferenceSession(path_or_bytes, providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


@needs_ort
def test_digits_mlp_runs_in_onnxruntime(tmp_path):
    model = _digits_mlp()
    path = str(tmp_path / "mlp.onnx")
    proto = tensorc.onnx.export(model, tensorc.rand(32, 64), path, input_names=["pixels"], output_names=["logp"])
    assert len(proto.graph.initializer) == 4 and proto.opset_import[0].version == 17
    x = tensorc.rand(32, 64)
    (got,) = _run(path, {"pixels": x.numpy()})
    np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-5, atol=1e-5)


@needs_ort
def test_transformer_block_runs_in_onnxruntime():
    tensorc.manual_seed(1)
    block = Block()
    buf = io.BytesIO()
    tensorc.onnx.export(tensorc.jit.trace(block, tensorc.randn(2, 5, 16)), tensorc.randn(2, 5, 16), buf)
    ops = {n.op_type for n in onnx.load_from_string(buf.getvalue()).graph.node}
    assert {"LayerNormalization", "Softmax", "MatMul", "Erf", "Split", "Transpose"} <= ops
    for seed in range(3):
        tensorc.manual_seed(10 + seed)
        x = tensorc.randn(2, 5, 16)
        (got,) = _run(buf.getvalue(), {"input0": x.numpy()})
        np.testing.assert_allclose(got, block(x).detach().numpy(), rtol=1e-4, atol=1e-5)


def test_unmappable_ops_are_listed(tmp_path):
    def f(x):
        return tensorc.where(x > 0, x.cumsum(0), x)

    with pytest.raises(NotImplementedError, match=r"no ONNX mapping for aten::cumsum, aten::gt.Scalar, "
                                                  r"aten::where.self"):
        tensorc.onnx.export(f, tensorc.randn(4), str(tmp_path / "f.onnx"))
    assert not (tmp_path / "f.onnx").exists()


def test_export_checks_its_arguments(tmp_path):
    model = _digits_mlp()
    with pytest.raises(ValueError, match="opset_version must be 17, got 13"):
        tensorc.onnx.export(model, tensorc.rand(2, 64), str(tmp_path / "m.onnx"), opset_version=13)
    with pytest.raises(ValueError, match="input_names"):
        tensorc.onnx.export(model, tensorc.rand(2, 64), str(tmp_path / "m.onnx"), input_names=["a", "b"])


@needs_ort
def test_type_promotion_follows_torch():
    def f(i, x):
        return i + 0.5, i / 2, (i * x).sum(), F.softmax(x, dim=0, dtype=tensorc.float64), i.sum()

    i, x = tensorc.tensor([1, 2, 3]), tensorc.tensor([0.5, -1.0, 2.0])
    buf = io.BytesIO()
    tensorc.onnx.export(f, (i, x), buf)
    got = _run(buf.getvalue(), {"input0": i.numpy(), "input1": x.numpy()})
    for g, w in zip(got, f(i, x)):
        assert g.dtype == w.numpy().dtype
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-6)
