# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.nn against NumPy reference computations: forward values, parameter
gradients after backward, registration rules, state_dict, modes and init."""
import copy
import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import tensorc as tc
from tensorc import nn
from tensorc.nn import functional as F
from tensorc._override_protocol import _PLAIN

RNG = np.random.default_rng(1234)


def to_np(t):
    """The values of t as a NumPy array of t's dtype (independent of the interop module)."""
    dtype = {tc.float32: np.float32, tc.float64: np.float64, tc.int64: np.int64, tc.bool: np.bool_}[t.dtype]
    return np.array(t.detach().tolist(), dtype=dtype)


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def close(actual, expected, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(to_np(actual) if isinstance(actual, tc.Tensor) else actual, expected,
                               rtol=rtol, atol=atol)


# ---- Parameter ----------------------------------------------------------------------

class TestParameter:
    def test_is_a_leaf_tensor_that_requires_grad(self):
        p = nn.Parameter(tc.zeros(2, 3))
        assert isinstance(p, tc.Tensor) and type(p) is nn.Parameter
        assert p.requires_grad and p.is_leaf and p.grad_fn is None
        assert not nn.Parameter(tc.zeros(2), requires_grad=False).requires_grad

    def test_shares_storage_with_its_data(self):
        data = tc.zeros(3)
        p = nn.Parameter(data)
        data.add_(2.0)
        close(p, [2.0, 2.0, 2.0])

    def test_from_a_tensor_that_requires_grad_is_still_a_leaf(self):
        x = tc.ones(2, requires_grad=True) * 3
        p = nn.Parameter(x)
        assert p.is_leaf and p.requires_grad

    def test_ops_return_plain_tensors(self):
        p = nn.Parameter(tc.ones(2, 2))
        for result in (p + 1, p * p, tc.relu(p), p.sum(), p.t(), p @ p, -p):
            assert type(result) is tc.Tensor
        assert nn.Parameter in _PLAIN

    def test_repr(self):
        p = nn.Parameter(tc.tensor([1.0, 2.0]))
        assert repr(p) == "Parameter containing:\n" + repr(tc.tensor([1.0, 2.0], requires_grad=True))

    def test_default_is_empty_and_bad_data_is_refused(self):
        assert nn.Parameter().shape == (0,)
        with pytest.raises(TypeError, match="Parameter"):
            nn.Parameter([1.0, 2.0])

    def test_deepcopy_is_an_independent_parameter(self):
        p = nn.Parameter(tc.tensor([1.0, 2.0]))
        q = copy.deepcopy(p)
        assert type(q) is nn.Parameter and q.requires_grad
        with tc.no_grad():
            p.add_(1)
        close(q, [1.0, 2.0])

    def test_gradient_accumulates(self):
        p = nn.Parameter(tc.tensor([1.0, -2.0]))
        (p * p).sum().backward()
        (p * 3).sum().backward()
        close(p.grad, [2.0 + 3.0, -4.0 + 3.0])


# ---- Linear ---------------------------------------------------------------------------

class TestLinear:
    def test_forward_and_gradients_match_numpy(self):
        layer = nn.Linear(5, 3)
        x, g = randn(4, 5), randn(4, 3)
        w, b = to_np(layer.weight), to_np(layer.bias)
        xt = tc.tensor(x, requires_grad=True)
        y = layer(xt)
        close(y, x @ w.T + b)
        (y * tc.tensor(g)).sum().backward()
        close(layer.weight.grad, g.T @ x)
        close(layer.bias.grad, g.sum(0))
        close(xt.grad, g @ w)

    def test_without_bias(self):
        layer = nn.Linear(5, 3, bias=False)
        assert layer.bias is None
        assert [n for n, _ in layer.named_parameters()] == ["weight"]
        x = randn(2, 5)
        close(layer(tc.tensor(x)), x @ to_np(layer.weight).T)
        assert "bias=False" in repr(layer)

    def test_batch_dims(self):
        layer = nn.Linear(4, 2)
        x = randn(3, 2, 4)
        close(layer(tc.tensor(x)), x @ to_np(layer.weight).T + to_np(layer.bias), rtol=1e-5)

    def test_torch_default_init(self):
        tc.manual_seed(0)
        layer = nn.Linear(400, 300)
        w, b = to_np(layer.weight), to_np(layer.bias)
        bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) gives 1/sqrt(fan_in)
        assert w.shape == (300, 400) and b.shape == (300,)
        assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
        assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound  # std of U(-a, a) is a/sqrt(3)
        assert abs(w.mean()) < 0.02 * bound

    def test_dtype_and_repr(self):
        layer = nn.Linear(3, 2, dtype=tc.float64)
        assert layer.weight.dtype == tc.float64 and layer.bias.dtype == tc.float64
        assert repr(layer) == "Linear(in_features=3, out_features=2, bias=True)"
        with pytest.raises(ValueError, match="in_features"):
            nn.Linear(-1, 2)

    def test_identity(self):
        x = tc.randn(3)
        assert nn.Identity(54, unused="x")(x) is x


# ---- activations ------------------------------------------------------------------------

def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x, dim):
    e = np.exp(x - x.max(dim, keepdims=True))
    return e / e.sum(dim, keepdims=True)


def _erf(x):
    return np.vectorize(math.erf)(x)


ACTIVATIONS = [
    # module, forward reference, derivative reference
    (nn.ReLU(), lambda x: np.maximum(x, 0), lambda x: (x > 0).astype(x.dtype)),
    (nn.Tanh(), np.tanh, lambda x: 1 - np.tanh(x) ** 2),
    (nn.Sigmoid(), _sigmoid, lambda x: _sigmoid(x) * (1 - _sigmoid(x))),
    (nn.GELU(), lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2))),
     lambda x: 0.5 * (1 + _erf(x / math.sqrt(2))) + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi)),
    (nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x), lambda x: np.where(x > 0, 1.0, 0.2)),
    (nn.ELU(), lambda x: np.where(x > 0, x, np.expm1(x)), lambda x: np.where(x > 0, 1.0, np.exp(x))),
    (nn.SiLU(), lambda x: x * _sigmoid(x), lambda x: _sigmoid(x) * (1 + x * (1 - _sigmoid(x)))),
    (nn.Softplus(), lambda x: np.log1p(np.exp(x)), _sigmoid),
    (nn.Hardtanh(), lambda x: np.clip(x, -1, 1), lambda x: ((x > -1) & (x < 1)).astype(x.dtype)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6), lambda x: ((x > 0) & (x < 6)).astype(x.dtype)),
    (nn.Identity(), lambda x: x, np.ones_like),
]


@pytest.mark.parametrize("module,forward,derivative", ACTIVATIONS, ids=lambda v: type(v).__name__)
def test_activation_forward_and_gradient(module, forward, derivative):
    x = randn(4, 6, dtype=np.float64) * 3
    xt = tc.tensor(x, requires_grad=True)
    y = module(xt)
    close(y, forward(x), rtol=1e-6, atol=1e-8)
    y.sum().backward()
    close(xt.grad, derivative(x), rtol=1e-6, atol=1e-8)


def test_relu_inplace():
    x = tc.tensor([-1.0, 2.0])
    assert nn.ReLU(inplace=True)(x) is x
    close(x, [0.0, 2.0])
    assert repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)" and repr(nn.ReLU()) == "ReLU()"


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_and_log_softmax(dim):
    x, g = randn(3, 5, dtype=np.float64), randn(3, 5, dtype=np.float64)
    s = _softmax(x, dim)
    xt = tc.tensor(x, requires_grad=True)
    y = nn.Softmax(dim)(xt)
    close(y, s, atol=1e-10)
    (y * tc.tensor(g)).sum().backward()
    close(xt.grad, s * (g - (g * s).sum(dim, keepdims=True)), atol=1e-10)

    xt = tc.tensor(x, requires_grad=True)
    y = nn.LogSoftmax(dim)(xt)
    close(y, np.log(s), atol=1e-10)
    (y * tc.tensor(g)).sum().backward()
    close(xt.grad, g - s * g.sum(dim, keepdims=True), atol=1e-10)
    assert repr(nn.Softmax(dim)) == "Softmax(dim={})".format(dim)


def test_softmax_implicit_dim_warns_and_picks_torchs_dim():
    x = randn(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension"):
        y = F.softmax(tc.tensor(x))
    close(y, _softmax(x, 1))
    close(nn.Softmin(1)(tc.tensor(x)), _softmax(-x, 1))


def test_flatten():
    x = tc.randn(2, 3, 4, 5)
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(0, 2)(x).shape == (24, 5)
    close(nn.Flatten()(x), to_np(x).reshape(2, 60))


# ---- losses ------------------------------------------------------------------------------

def _reduce(loss, reduction):
    return loss if reduction == "none" else loss.mean() if reduction == "mean" else loss.sum()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss(reduction):
    x, t = randn(4, 3, dtype=np.float64), randn(4, 3, dtype=np.float64)
    xt = tc.tensor(x, requires_grad=True)
    loss = nn.MSELoss(reduction=reduction)(xt, tc.tensor(t))
    close(loss, _reduce((x - t) ** 2, reduction))
    loss.sum().backward()
    close(xt.grad, 2 * (x - t) / (x.size if reduction == "mean" else 1))


def test_mse_loss_legacy_arguments_and_bad_reduction():
    assert nn.MSELoss(size_average=False).reduction == "sum"
    assert nn.MSELoss(reduce=False).reduction == "none"
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="average")
    with pytest.raises(ValueError, match="mse_loss"):
        F.mse_loss(tc.zeros(2), tc.zeros(2), reduction="average")


def _cross_entropy_np(x, y, weight=None, ignore_index=-100, reduction="mean"):
    logp = np.log(_softmax(x, 1))
    w = np.ones(x.shape[1]) if weight is None else weight
    keep = y != ignore_index
    safe = np.where(keep, y, 0)
    per = -logp[np.arange(len(y)), safe] * w[safe] * keep
    if reduction == "none":
        return per
    if reduction == "sum":
        return per.sum()
    return per.sum() / (w[safe] * keep).sum()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_loss(reduction, weighted):
    x = randn(6, 4, dtype=np.float64)
    y = np.array([0, 3, 1, 1, 2, 3])
    weight = np.array([0.5, 1.0, 2.0, 0.25]) if weighted else None
    module = nn.CrossEntropyLoss(weight=None if weight is None else tc.tensor(weight), reduction=reduction)
    xt = tc.tensor(x, requires_grad=True)
    loss = module(xt, tc.tensor(y))
    close(loss, _cross_entropy_np(x, y, weight, reduction=reduction), atol=1e-10)
    loss.sum().backward()
    w = np.ones(4) if weight is None else weight
    expected = (_softmax(x, 1) - np.eye(4)[y]) * w[y][:, None]
    if reduction == "mean":
        expected /= w[y].sum()
    close(xt.grad, expected, atol=1e-10)


def test_cross_entropy_ignore_index_and_weight_buffer():
    x = randn(5, 3, dtype=np.float64)
    y = np.array([0, -100, 2, 1, -100])
    close(nn.CrossEntropyLoss()(tc.tensor(x), tc.tensor(y)), _cross_entropy_np(x, y), atol=1e-10)
    y2 = np.array([0, 1, 2, 1, 1])
    close(nn.CrossEntropyLoss(ignore_index=1)(tc.tensor(x), tc.tensor(y2)), _cross_entropy_np(x, y2, ignore_index=1),
          atol=1e-10)
    module = nn.CrossEntropyLoss(weight=tc.ones(3))
    assert [n for n, _ in module.named_buffers()] == ["weight"]


def test_cross_entropy_label_smoothing_and_probability_targets():
    x = randn(5, 4, dtype=np.float64)
    y = np.array([0, 3, 2, 1, 1])
    eps = 0.2
    logp = np.log(_softmax(x, 1))
    smoothed = np.eye(4)[y] * (1 - eps) + eps / 4
    expected = -(smoothed * logp).sum(1).mean()
    close(nn.CrossEntropyLoss(label_smoothing=eps)(tc.tensor(x), tc.tensor(y)), expected, atol=1e-10)
    probs = _softmax(randn(5, 4, dtype=np.float64), 1)
    xt = tc.tensor(x, requires_grad=True)
    loss = F.cross_entropy(xt, tc.tensor(probs))
    close(loss, -(probs * logp).sum(1).mean(), atol=1e-10)
    loss.backward()
    close(xt.grad, (_softmax(x, 1) - probs) / 5, atol=1e-10)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss(reduction):
    x = np.log(_softmax(randn(4, 5, dtype=np.float64), 1))
    y = np.array([4, 0, 2, 2])
    xt = tc.tensor(x, requires_grad=True)
    loss = nn.NLLLoss(reduction=reduction)(xt, tc.tensor(y))
    close(loss, _reduce(-x[np.arange(4), y], reduction), atol=1e-10)
    loss.sum().backward()
    expected = -np.eye(5)[y] / (4 if reduction == "mean" else 1)
    close(xt.grad, expected, atol=1e-10)


def test_l1_smooth_l1_and_binary_losses():
    x, t = randn(3, 4, dtype=np.float64), randn(3, 4, dtype=np.float64)
    d = np.abs(x - t)
    close(nn.L1Loss()(tc.tensor(x), tc.tensor(t)), d.mean())
    close(nn.SmoothL1Loss(beta=0.5)(tc.tensor(x), tc.tensor(t)), np.where(d < 0.5, 0.5 * d * d / 0.5, d - 0.25).mean())
    target = (RNG.random((3, 4)) > 0.5).astype(np.float64)
    p = _sigmoid(x)
    bce = -(target * np.log(p) + (1 - target) * np.log(1 - p))
    close(nn.BCEWithLogitsLoss()(tc.tensor(x), tc.tensor(target)), bce.mean())
    close(nn.BCELoss(reduction="sum")(tc.tensor(p), tc.tensor(target)), bce.sum())


# ---- Dropout ------------------------------------------------------------------------------

class TestDropout:
    def test_training_statistics_and_scaling(self):
        p = 0.3
        x = tc.ones(200000)
        y = to_np(nn.Dropout(p)(x))
        zeros = (y == 0).mean()
        assert abs(zeros - p) < 0.01  # 0.3 +- 6 standard deviations of a binomial mean over 200000 draws
        np.testing.assert_allclose(y[y != 0], 1 / (1 - p), rtol=1e-6)
        assert abs(y.mean() - 1.0) < 0.02  # the scaling keeps the expectation

    def test_gradient_is_the_mask_scaled(self):
        x = tc.ones(1000, requires_grad=True)
        y = nn.Dropout(0.5)(x)
        y.sum().backward()
        np.testing.assert_allclose(to_np(x.grad), to_np(y), rtol=1e-6)  # y = mask * 2 and dy/dx = mask * 2

    def test_eval_is_the_identity(self):
        x = tc.randn(100)
        drop = nn.Dropout(0.9).eval()
        close(drop(x), to_np(x))
        close(F.dropout(x, 0.5, training=False), to_np(x))

    def test_extremes_and_bad_p(self):
        x = tc.randn(50)
        close(nn.Dropout(0.0)(x), to_np(x))
        close(nn.Dropout(1.0)(x), np.zeros(50))
        for p in (-0.1, 1.5):
            with pytest.raises(ValueError, match="dropout probability"):
                nn.Dropout(p)
            with pytest.raises(ValueError, match="dropout probability"):
                F.dropout(x, p)
        assert repr(nn.Dropout(0.25)) == "Dropout(p=0.25, inplace=False)"


# ---- containers ----------------------------------------------------------------------------

def _mlp():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


class TestSequential:
    def test_forward_chains_the_modules(self):
        model = _mlp()
        x = randn(5, 4)
        w1, b1, w2, b2 = (to_np(p) for p in model.parameters())
        close(model(tc.tensor(x)), np.maximum(x @ w1.T + b1, 0) @ w2.T + b2, rtol=1e-5)

    def test_indexing_len_iteration(self):
        model = _mlp()
        assert len(model) == 3
        assert isinstance(model[0], nn.Linear) and isinstance(model[-2], nn.ReLU) and model[-1] is model[2]
        assert list(model) == [model[0], model[1], model[2]]
        head = model[:2]
        assert type(head) is nn.Sequential and len(head) == 2 and head[0] is model[0]
        with pytest.raises(IndexError, match="out of range"):
            model[3]
        with pytest.raises(IndexError):
            model[-4]

    def test_append_insert_delete_set(self):
        model = _mlp()
        model.append(nn.Tanh())
        assert len(model) == 4 and isinstance(model[3], nn.Tanh)
        assert [n for n, _ in model.named_children()] == ["0", "1", "2", "3"]
        del model[1]
        assert [type(m).__name__ for m in model] == ["Linear", "Linear", "Tanh"]
        assert list(model._modules) == ["0", "1", "2"]
        model.insert(1, nn.ReLU())
        assert [type(m).__name__ for m in model] == ["Linear", "ReLU", "Linear", "Tanh"]
        model[3] = nn.Sigmoid()
        assert isinstance(model[3], nn.Sigmoid)

    def test_ordered_dict_names(self):
        model = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
        assert [n for n, _ in model.named_parameters()] == ["fc.weight", "fc.bias"]
        assert model.fc is model[0]

    def test_repr(self):
        assert repr(_mlp()) == ("Sequential(\n"
                                "  (0): Linear(in_features=4, out_features=8, bias=True)\n"
                                "  (1): ReLU()\n"
                                "  (2): Linear(in_features=8, out_features=3, bias=True)\n"
                                ")")
        nested = nn.Sequential(nn.Sequential(nn.ReLU()))
        assert repr(nested) == "Sequential(\n  (0): Sequential(\n    (0): ReLU()\n  )\n)"


def test_module_list_and_dict_register_their_modules():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(layers) == 3 and len(list(layers.parameters())) == 6
    layers.append(nn.ReLU())
    layers += [nn.Tanh()]
    assert [type(m).__name__ for m in layers] == ["Linear"] * 3 + ["ReLU", "Tanh"]
    assert isinstance(layers[-1], nn.Tanh) and type(layers[1:3]) is nn.ModuleList
    with pytest.raises(TypeError, match="iterable"):
        layers.extend(nn.ReLU())
    table = nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.ReLU()})
    assert list(table.keys()) == ["a", "b"] and "a" in table and len(table) == 2
    assert [n for n, _ in table.named_parameters()] == ["a.weight", "a.bias"]


# ---- Module: registration ---------------------------------------------------------------------

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.scale = nn.Parameter(tc.ones(1))
        self.register_buffer("running", tc.zeros(2))
        self.register_buffer("scratch", tc.zeros(2), persistent=False)
        self.note = "not a parameter"

    def forward(self, x):
        return self.fc(x) * self.scale + self.running


class TestRegistration:
    def test_setattr_sorts_attributes(self):
        net = Net()
        assert list(net._parameters) == ["scale"] and list(net._modules) == ["fc"]
        assert list(net._buffers) == ["running", "scratch"]
        assert "note" in net.__dict__ and "scale" not in net.__dict__
        assert [n for n, _ in net.named_parameters()] == ["scale", "fc.weight", "fc.bias"]
        assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
        assert [n for n, _ in net.named_buffers()] == ["running", "scratch"]
        assert len(list(net.parameters())) == 3 and len(list(net.buffers())) == 2
        assert "scale" in dir(net) and "fc" in dir(net)

    def test_modules_and_children(self):
        net = Net()
        assert [n for n, _ in net.named_modules()] == ["", "fc"]
        assert list(net.modules()) == [net, net.fc]
        assert list(net.children()) == [net.fc]
        assert net.get_submodule("fc") is net.fc

    def test_assigning_a_tensor_to_a_parameter_name_is_refused(self):
        net = Net()
        with pytest.raises(TypeError, match="cannot assign 'tensorc.FloatTensor' as parameter 'scale'"):
            net.scale = tc.ones(1)
        net.scale = None
        assert net.scale is None and list(net.parameters())[0] is net.fc.weight
        with pytest.raises(TypeError, match="as child module 'fc'"):
            net.fc = 3
        with pytest.raises(TypeError, match="as buffer 'running'"):
            net.running = [0.0]
        net.running = tc.ones(2)
        close(net.running, [1.0, 1.0])

    def test_reassigning_a_name_moves_it_between_registries(self):
        net = Net()
        net.note = nn.Parameter(tc.zeros(1))
        assert "note" in net._parameters and "note" not in net.__dict__
        net.running = nn.Parameter(tc.zeros(2))
        assert "running" in net._parameters and "running" not in net._buffers

    def test_register_errors(self):
        net = Net()
        with pytest.raises(KeyError, match="contain"):
            net.register_parameter("a.b", nn.Parameter(tc.ones(1)))
        with pytest.raises(KeyError, match="empty string"):
            net.register_buffer("", tc.ones(1))
        with pytest.raises(KeyError, match="already exists"):
            net.register_parameter("note", nn.Parameter(tc.ones(1)))
        with pytest.raises(TypeError, match="parameter name should be a string"):
            net.register_parameter(3, None)
        with pytest.raises(TypeError, match="tensorc.nn.Parameter or None required"):
            net.register_parameter("w", tc.ones(1))
        with pytest.raises(TypeError, match="tensorc.Tensor or None required"):
            net.register_buffer("b", 1.0)
        with pytest.raises(TypeError, match="is not a Module subclass"):
            net.add_module("m", 3)
        with pytest.raises(TypeError, match="Parameter or None required"):
            net.register_parameter("w", nn.Parameter(tc.ones(1)) * 2)  # ops on a Parameter give a Tensor

    def test_non_leaf_parameter_is_refused(self):
        class Sneaky(nn.Parameter):
            pass
        net = nn.Module()
        leaf = nn.Parameter(tc.ones(2))
        nonleaf = tc._C.tensor_as_subclass(leaf * 2, nn.Parameter)
        assert nonleaf.grad_fn is not None
        with pytest.raises(ValueError, match="non-leaf Tensor"):
            net.register_parameter("w", nonleaf)
        net.register_parameter("ok", Sneaky(tc.ones(1)))

    def test_before_init(self):
        class Early(nn.Module):
            def __init__(self):
                self.w = nn.Parameter(tc.ones(1))
        with pytest.raises(AttributeError, match="before Module.__init__"):
            Early()

    def test_missing_attribute_and_delete(self):
        net = Net()
        with pytest.raises(AttributeError, match="'Net' object has no attribute 'nothing'"):
            net.nothing
        del net.scale, net.running, net.fc, net.note
        assert not net._parameters and not net._modules and list(net._buffers) == ["scratch"]

    def test_shared_parameter_counts_once(self):
        a = nn.Linear(2, 2)
        model = nn.Sequential(a, nn.ReLU(), a)
        assert len(list(model.parameters())) == 2
        assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias"]
        assert len(list(model.named_parameters(remove_duplicate=False))) == 4
        assert len(list(model.modules())) == 3

    def test_missing_forward(self):
        with pytest.raises(NotImplementedError, match='missing the required "forward"'):
            nn.Module()(tc.ones(1))

    def test_init_takes_no_arguments(self):
        with pytest.raises(TypeError, match="takes no arguments"):
            nn.Module(3)

    def test_forward_hooks(self):
        model = nn.Linear(2, 2)
        seen = []
        pre = model.register_forward_pre_hook(lambda m, args: seen.append("pre"))
        post = model.register_forward_hook(lambda m, args, out: out * 0)
        close(model(tc.ones(1, 2)), np.zeros((1, 2)))
        assert seen == ["pre"]
        pre.remove()
        post.remove()
        assert to_np(model(tc.ones(1, 2))).any()


# ---- state_dict ---------------------------------------------------------------------------------

class TestStateDict:
    def test_keys_values_and_sharing(self):
        net = Net()
        state = net.state_dict()
        assert list(state) == ["scale", "running", "fc.weight", "fc.bias"]  # the non-persistent buffer is left out
        assert all(not v.requires_grad for v in state.values())
        with tc.no_grad():
            net.scale.fill_(5.0)
        close(state["scale"], [5.0])  # detached but sharing storage, as torch's
        assert net.state_dict(keep_vars=True)["scale"] is net.scale
        assert list(net.state_dict(prefix="net.")) == ["net.scale", "net.running", "net.fc.weight", "net.fc.bias"]

    def test_round_trip_gives_the_same_model(self):
        a, b = _mlp(), _mlp()
        x = tc.randn(3, 4)
        assert not np.allclose(to_np(a(x)), to_np(b(x)))
        result = b.load_state_dict(a.state_dict())
        assert result.missing_keys == [] and result.unexpected_keys == []
        assert repr(result) == "<All keys matched successfully>"
        close(b(x), to_np(a(x)))
        for p, q in zip(a.parameters(), b.parameters()):
            assert p is not q and q.requires_grad and q.is_leaf

    def test_missing_and_unexpected_keys(self):
        model = _mlp()
        state = model.state_dict()
        del state["2.bias"]
        state["2.extra"] = tc.ones(1)
        state["9.weight"] = tc.ones(1)
        with pytest.raises(tc.Error) as info:
            model.load_state_dict(state)
        message = str(info.value)
        assert isinstance(info.value, RuntimeError)
        assert message.startswith("Error(s) in loading state_dict for Sequential:")
        assert 'Missing key(s) in state_dict: "2.bias".' in message
        assert 'Unexpected key(s) in state_dict: "9.weight", "2.extra".' in message  # torch's order
        result = model.load_state_dict(state, strict=False)
        assert result.missing_keys == ["2.bias"] and result.unexpected_keys == ["9.weight", "2.extra"]

    def test_wrong_shape_raises_even_when_not_strict(self):
        model = _mlp()
        state = model.state_dict()
        state["0.weight"] = tc.zeros(4, 8)
        for strict in (True, False):
            with pytest.raises(tc.Error, match=r"size mismatch for 0.weight: copying a param with shape "
                                               r"tensorc.Size\(\[4, 8\]\) from checkpoint, the shape in current "
                                               r"model is tensorc.Size\(\[8, 4\]\)"):
                model.load_state_dict(state, strict=strict)

    def test_bad_inputs(self):
        model = _mlp()
        with pytest.raises(TypeError, match="dict-like"):
            model.load_state_dict([("0.weight", tc.zeros(8, 4))])
        state = model.state_dict()
        state["0.bias"] = [0.0] * 8
        with pytest.raises(tc.Error, match='parameter named "0.bias", expected tensorc.Tensor'):
            model.load_state_dict(state)

    def test_buffers_load_too(self):
        a, b = Net(), Net()
        with tc.no_grad():
            a.running.fill_(3.0)
        b.load_state_dict(a.state_dict())
        close(b.running, [3.0, 3.0])


# ---- modes, gradients, conversions -------------------------------------------------------------------

def test_train_eval_flags_are_recursive():
    model = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Dropout(), nn.ReLU()))
    assert all(m.training for m in model.modules())
    assert model.eval() is model
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())
    model[1].train(False)
    assert model.training and not model[1][0].training
    with pytest.raises(ValueError, match="boolean"):
        model.train("yes")


def test_zero_grad():
    model = _mlp()
    model(tc.randn(2, 4)).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    model.zero_grad(set_to_none=False)
    assert all(not to_np(p.grad).any() for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_requires_grad_and_apply():
    model = _mlp()
    model.requires_grad_(False)
    assert not any(p.requires_grad for p in model.parameters())
    visited = []
    model.apply(lambda m: visited.append(type(m).__name__))
    assert visited == ["Linear", "ReLU", "Linear", "Sequential"]

    def init_weights(m):
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight, 0.5)
            nn.init.zeros_(m.bias)
    model.apply(init_weights)
    close(model(tc.ones(1, 4)), np.full((1, 3), 8.0))


def test_double_float_and_to():
    model = _mlp()
    weight = model[0].weight
    assert model.to(tc.float32) is model and model[0].weight is weight  # nothing to convert: same objects
    model.double()
    assert all(p.dtype == tc.float64 for p in model.parameters())
    assert all(type(p) is nn.Parameter and p.requires_grad for p in model.parameters())
    x = randn(2, 4, dtype=np.float64)
    assert model(tc.tensor(x)).dtype == tc.float64
    model.float()
    assert all(p.dtype == tc.float32 for p in model.parameters())
    model.to("cpu", dtype=tc.float64)
    assert model[2].bias.dtype == tc.float64
    with pytest.raises(TypeError, match="floating point"):
        model.to(tc.int64)
    net = Net()
    net.register_buffer("counts", tc.zeros(2, dtype=tc.int64))
    net.double()
    assert net.counts.dtype == tc.int64 and net.running.dtype == tc.float64


# ---- nn.init -------------------------------------------------------------------------------------------

class TestInit:
    def test_fans_and_gain(self):
        assert nn.init.calculate_fan_in_and_fan_out(tc.empty(3, 5)) == (5, 3)
        assert nn.init._calculate_fan_in_and_fan_out(tc.empty(4, 2, 3, 3)) == (18, 36)
        with pytest.raises(ValueError, match="fewer than 2 dimensions"):
            nn.init.calculate_fan_in_and_fan_out(tc.empty(3))
        assert nn.init.calculate_gain("relu") == math.sqrt(2)
        assert nn.init.calculate_gain("tanh") == 5 / 3
        assert nn.init.calculate_gain("leaky_relu", math.sqrt(5)) == math.sqrt(2 / 6)
        with pytest.raises(ValueError, match="unsupported nonlinearity"):
            nn.init.calculate_gain("swish")

    def test_fills_and_stays_a_leaf(self):
        p = nn.Parameter(tc.empty(100, 50))
        assert nn.init.uniform_(p, -2, 3) is p
        v = to_np(p)
        assert v.min() >= -2 and v.max() <= 3 and abs(v.mean() - 0.5) < 0.1
        assert p.is_leaf and p.grad_fn is None
        nn.init.normal_(p, 1.0, 0.5)
        v = to_np(p)
        assert abs(v.mean() - 1.0) < 0.02 and abs(v.std() - 0.5) < 0.02
        nn.init.constant_(p, 0.25)
        assert (to_np(p) == 0.25).all()
        nn.init.ones_(p)
        assert (to_np(p) == 1).all()
        nn.init.zeros_(p)
        assert (to_np(p) == 0).all()
        nn.init.eye_(p)
        assert (to_np(p) == np.eye(100, 50)).all()

    def test_kaiming_and_xavier_bounds(self):
        w = tc.empty(300, 200)
        nn.init.kaiming_uniform_(w, nonlinearity="relu")
        bound = math.sqrt(2) * math.sqrt(3 / 200)
        v = to_np(w)
        assert np.abs(v).max() <= bound and np.abs(v).max() > 0.95 * bound
        nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu")
        assert np.abs(to_np(w)).max() <= math.sqrt(2) * math.sqrt(3 / 300)
        nn.init.xavier_uniform_(w, gain=2.0)
        assert np.abs(to_np(w)).max() <= 2.0 * math.sqrt(6 / 500)
        nn.init.kaiming_normal_(w)
        assert abs(to_np(w).std() - math.sqrt(2) / math.sqrt(200)) < 0.005
        nn.init.xavier_normal_(w)
        assert abs(to_np(w).std() - math.sqrt(2 / 500)) < 0.003
        with pytest.raises(ValueError, match="fan_in, fan_out"):
            nn.init.kaiming_uniform_(w, mode="fan_middle")


# ---- functional ----------------------------------------------------------------------------------------

def test_functional_matches_the_modules():
    x, w, b = randn(3, 4), randn(2, 4), randn(2)
    close(F.linear(tc.tensor(x), tc.tensor(w), tc.tensor(b)), x @ w.T + b, rtol=1e-5)
    close(F.linear(tc.tensor(x), tc.tensor(w)), x @ w.T, rtol=1e-5)
    close(F.relu(tc.tensor(x)), np.maximum(x, 0))
    close(F.sigmoid(tc.tensor(x)), _sigmoid(x))
    close(F.tanh(tc.tensor(x)), np.tanh(x))
    close(F.log_softmax(tc.tensor(x), dim=1), np.log(_softmax(x, 1)), atol=1e-6)
    close(F.one_hot(tc.tensor([2, 0, 1])), np.eye(3, dtype=np.int64)[[2, 0, 1]])
    close(F.pad(tc.tensor(x), (1, 2)), np.pad(x, ((0, 0), (1, 2))))
    close(F.normalize(tc.tensor(x)), x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-5)


def test_layer_norm_and_embedding():
    ln = nn.LayerNorm(4)
    x = randn(3, 4, dtype=np.float32)
    expected = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
    close(ln(tc.tensor(x)), expected, rtol=1e-4, atol=1e-5)
    assert [n for n, _ in ln.named_parameters()] == ["weight", "bias"]
    emb = nn.Embedding(10, 3, padding_idx=0)
    table = to_np(emb.weight)
    assert (table[0] == 0).all()
    close(emb(tc.tensor([[1, 0], [9, 1]])), table[[[1, 0], [9, 1]]])
    assert repr(emb) == "Embedding(10, 3, padding_idx=0)"


# ---- the seed's "Extending torch.nn" Linear module --------------------------------------------------------

class SeedLinear(nn.Module):
    """The seed's module, with plain ops in forward (the Function version is below)."""

    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(tc.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(tc.empty(output_features))
        else:
            self.register_parameter('bias', None)
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, input):
        output = input.mm(self.weight.t())
        if self.bias is not None:
            output = output + self.bias.unsqueeze(0).expand_as(output)
        return output

    def extra_repr(self):
        return 'input_features={}, output_features={}, bias={}'.format(
            self.input_features, self.output_features, self.bias is not None
        )


def _check_seed_linear(module_class):
    layer = module_class(3, 2)
    assert repr(layer) == "{}(input_features=3, output_features=2, bias=True)".format(module_class.__name__)
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    w, b = to_np(layer.weight), to_np(layer.bias)
    assert np.abs(w).max() <= 0.1 and np.abs(b).max() <= 0.1
    x, g = randn(4, 3), randn(4, 2)
    xt = tc.tensor(x, requires_grad=True)
    y = layer(xt)
    close(y, x @ w.T + b, rtol=1e-5)
    (y * tc.tensor(g)).sum().backward()
    close(layer.weight.grad, g.T @ x, rtol=1e-5)
    close(layer.bias.grad, g.sum(0), rtol=1e-5)
    close(xt.grad, g @ w, rtol=1e-5)
    no_bias = module_class(3, 2, bias=False)
    assert no_bias.bias is None and "bias=False" in repr(no_bias)
    close(no_bias(tc.tensor(x)), x @ to_np(no_bias.weight).T, rtol=1e-5)


def test_seed_linear_module_with_plain_ops():
    _check_seed_linear(SeedLinear)


def test_seed_linear_module_with_its_linear_function():
    Function = tc.autograd.Function

    class LinearFunction(Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    class Linear(SeedLinear):
        def forward(self, input):
            return LinearFunction.apply(input, self.weight, self.bias)

    _check_seed_linear(Linear)


def test_no_warnings_from_ordinary_use():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = _mlp()
        loss = nn.CrossEntropyLoss()(model(tc.randn(4, 4)), tc.tensor([0, 1, 2, 0]))
        loss.backward()


def test_deepcopy_of_a_model_is_independent():
    model = _mlp()
    twin = copy.deepcopy(model)
    assert all(type(p) is nn.Parameter and p.requires_grad for p in twin.parameters())
    x = tc.randn(2, 4)
    close(twin(x), to_np(model(x)))
    with tc.no_grad():
        model[0].weight.zero_()
    assert to_np(twin[0].weight).any()
