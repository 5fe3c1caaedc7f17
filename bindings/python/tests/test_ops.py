# SPDX-License-Identifier: BSD-3-Clause
"""The generated op surface: signatures, overloads, out= and in-place forms, and values against NumPy."""
import inspect
import math

import numpy as np
import pytest

import tensorc
from tensorc import _ops
from conftest import assert_same, to_numpy


def x34():
    return tensorc.arange(12.0).reshape(3, 4) - 5, np.arange(12.0, dtype=np.float32).reshape(3, 4) - 5


# ---- the surface ---------------------------------------------------------------------------

def test_every_public_function_is_in_the_namespace():
    missing = [n for n in _ops.FUNCTIONS if not n.startswith("_") and not callable(getattr(tensorc, n, None))]
    assert missing == []


def test_every_method_is_on_tensor():
    t = tensorc.ones(1)
    missing = [n for n in _ops.METHODS if not callable(getattr(t, n, None))]
    assert missing == []


def test_functions_and_methods_have_docstrings_with_schemas():
    assert "sum.dim_IntList(Tensor self, int[1]? dim" in tensorc.sum.__doc__
    assert tensorc.exp.__doc__.startswith("exp(Tensor self) -> Tensor")
    assert "var.correction(" in tensorc.Tensor.var.__doc__


def test_signature_uses_schema_names_and_defaults():
    sig = inspect.signature(tensorc.argmax)
    assert list(sig.parameters) == ["input", "dim", "keepdim"]
    assert sig.parameters["keepdim"].default is False and sig.parameters["dim"].default is None
    sig = inspect.signature(tensorc.flatten)
    assert sig.parameters["start_dim"].default == 0 and sig.parameters["end_dim"].default == -1


def test_keyword_arguments_with_schema_names():
    x, a = x34()
    assert_same(tensorc.add(input=x, other=1, alpha=2), a + 2)
    assert_same(tensorc.flatten(x, start_dim=0, end_dim=-1), a.reshape(-1))
    assert_same(tensorc.argmax(x, dim=1, keepdim=True), a.argmax(1)[:, None])
    assert_same(x.transpose(dim0=0, dim1=1), a.T)
    assert_same(tensorc.narrow(x, dim=1, start=1, length=2), a[:, 1:3])
    with pytest.raises(TypeError, match="unexpected keyword"):
        tensorc.add(x, y=1)


def test_keyword_only_after_star():
    x, _a = x34()
    sig = inspect.signature(tensorc.cumsum)
    assert sig.parameters["dtype"].kind is inspect.Parameter.KEYWORD_ONLY
    with pytest.raises(TypeError):
        tensorc.cumsum(x, 1, tensorc.float64)
    assert tensorc.cumsum(x, 1, dtype=tensorc.float64).dtype is tensorc.float64
    with pytest.raises(TypeError):
        tensorc.sum(x, 1, False, tensorc.float64)
    assert tensorc.sum(x, 1, False, dtype=tensorc.float64).dtype is tensorc.float64
    with pytest.raises(TypeError):
        tensorc.add(x, x, 2)  # alpha is keyword-only in add.Tensor
    assert tensorc.add(x, x, alpha=2).tolist() == (x * 3).tolist()


@pytest.mark.parametrize("call,expected", [
    (lambda t: tensorc.sum(t, 1), lambda a: a.sum(1)),
    (lambda t: tensorc.sum(t, [1]), lambda a: a.sum(1)),
    (lambda t: tensorc.sum(t, (0, 1)), lambda a: a.sum((0, 1))),
    (lambda t: tensorc.mean(t, -1, keepdim=True), lambda a: a.mean(-1, keepdims=True)),
    (lambda t: tensorc.amax(t, 0), lambda a: a.max(0)),
    (lambda t: tensorc.amin(t, dim=1), lambda a: a.min(1)),
    (lambda t: t.sum(dim=0), lambda a: a.sum(0)),
])
def test_int_n_accepts_a_bare_int(call, expected):
    x, a = x34()
    assert_same(call(x), expected(a))


def test_out_variants_write_in_place_and_return_out():
    x, a = x34()
    for call, expected in ((lambda o: tensorc.add(x, x, out=o), a + a), (lambda o: tensorc.exp(x, out=o), np.exp(a)),
                           (lambda o: tensorc.mul(x, x, out=o), a * a),
                           (lambda o: tensorc.mm(x, x.t(), out=o), a @ a.T)):
        out = tensorc.empty(*expected.shape)
        ptr = out.data_ptr()
        result = call(out)
        assert result is out and out.data_ptr() == ptr
        assert_same(out, expected, rtol=1e-4)
    out = tensorc.empty(3)
    assert tensorc.sum(x, 1, out=out) is out
    assert_same(out, a.sum(1))


def test_out_variant_resizes_an_empty_out():
    x, a = x34()
    out = tensorc.empty(0)
    assert tensorc.abs(x, out=out) is out
    assert_same(out, np.abs(a))


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparison_in_place_and_out_forms(name):
    a = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], dtype=np.float32)
    b = np.array([2.0, 2.0, 2.0], dtype=np.float32)
    expected = BINARY[name](a, b)
    # in place: self keeps its dtype and holds 0 or 1
    x = tensorc.tensor(a)
    assert getattr(x, name + "_")(tensorc.tensor(b)) is x
    assert x.dtype == tensorc.float32
    assert_same(x, expected.astype(np.float32))
    x = tensorc.tensor(a)
    getattr(x, name + "_")(2)
    assert_same(x, BINARY[name](a, 2.0).astype(np.float32))
    # out=, Tensor and Scalar overloads; a float out gets 0.0 / 1.0
    out = tensorc.empty(0, dtype=tensorc.bool)
    assert getattr(tensorc, name)(tensorc.tensor(a), tensorc.tensor(b), out=out) is out
    assert_same(out, expected)
    out = tensorc.empty(2, 3)
    getattr(tensorc, name)(tensorc.tensor(a), 2, out=out)
    assert_same(out, BINARY[name](a, 2.0).astype(np.float32))


def test_sub_refuses_bool_before_touching_out():
    t = tensorc.tensor([True, False])
    out = tensorc.zeros(5)
    with pytest.raises(TypeError, match="subtraction"):
        tensorc.sub(t, t, out=out)
    assert out.shape == (5,)  # not resized
    with pytest.raises(TypeError, match="subtraction"):
        t.sub_(1)
    assert_same(t, np.array([True, False]))
    # rsub runs the same meta step with the operands swapped
    assert_same(tensorc.rsub(tensorc.tensor([1.0, 2.0]), tensorc.tensor([5.0, 5.0]), alpha=2), [3.0, 1.0])


IN_PLACE = ["abs_", "neg_", "exp_", "sin_", "cos_", "tanh_", "sigmoid_", "relu_", "floor_", "ceil_", "round_",
            "trunc_", "sqrt_", "log1p_", "zero_"]


@pytest.mark.parametrize("name", IN_PLACE)
def test_in_place_methods_return_self(name):
    x = tensorc.tensor([0.25, 1.5, 2.0])
    expected = getattr(tensorc, name[:-1])(x) if name != "zero_" else tensorc.zeros(3)
    ptr = x.data_ptr()
    result = getattr(x, name)()
    assert result is x and x.data_ptr() == ptr
    assert_same(x, to_numpy(expected))


@pytest.mark.parametrize("name,args", [("add_", (1,)), ("sub_", (tensorc.tensor([1.0, 1, 1]),)), ("mul_", (3,)),
                                       ("div_", (2,)), ("clamp_", (0.5, 1.8)), ("pow_", (2,)), ("fill_", (7,)),
                                       ("copy_", (tensorc.tensor([9.0, 8, 7]),))])
def test_in_place_binary_methods_return_self(name, args):
    x = tensorc.tensor([0.25, 1.5, 2.0])
    expected = x.clone()
    result = getattr(x, name)(*args)
    assert result is x
    reference = {"add_": lambda e: e + 1, "sub_": lambda e: e - 1, "mul_": lambda e: e * 3,
                 "div_": lambda e: e / 2, "clamp_": lambda e: e.clamp(0.5, 1.8), "pow_": lambda e: e ** 2,
                 "fill_": lambda e: tensorc.full((3,), 7.0), "copy_": lambda e: tensorc.tensor([9.0, 8, 7])}[name]
    assert_same(x, to_numpy(reference(expected)))


def test_in_place_function_form_returns_its_argument():
    x = tensorc.tensor([-1.0, 2.0])
    assert tensorc.relu_(x) is x and x.tolist() == [0.0, 2.0]


def test_methods_and_functions_agree():
    x, _a = x34()
    for name, args in (("sum", (1,)), ("add", (2,)), ("transpose", (0, 1)), ("reshape", ((4, 3),)),
                       ("softmax", (1,)), ("clamp", (-1, 1)), ("pow", (2,)), ("argmax", (0,))):
        assert getattr(x, name)(*args).tolist() == getattr(tensorc, name)(x, *args).tolist()


def test_methods_take_varargs_shapes():
    x, a = x34()
    assert x.reshape(4, 3).shape == (4, 3) and x.reshape((4, 3)).shape == (4, 3)
    assert x.permute(1, 0).shape == (4, 3) and x.permute((1, 0)).shape == (4, 3)
    assert x.view(-1).shape == (12,) and x.expand(2, 3, 4).shape == (2, 3, 4)
    assert_same(x.flip(0), a[::-1])


# ---- overload resolution ----------------------------------------------------------------------

def test_add_tensor_and_scalar_overloads():
    x, a = x34()
    assert_same(tensorc.add(x, 2), a + 2)
    assert_same(tensorc.add(x, 2, alpha=3), a + 6)
    assert_same(tensorc.add(x, x, alpha=0.5), a * 1.5)
    assert_same(tensorc.add(x, tensorc.tensor(1.0)), a + 1)
    assert_same(tensorc.sub(x, 1, alpha=2), a - 2)
    assert_same(tensorc.rsub(x, 1), 1 - a)


def test_sum_overloads():
    x, a = x34()
    assert tensorc.sum(x).dim() == 0 and tensorc.sum(x).item() == a.sum()
    assert_same(tensorc.sum(x, 1), a.sum(1))
    assert_same(tensorc.sum(x, 1, True), a.sum(1, keepdims=True))
    assert_same(tensorc.sum(x, dim=[0, 1], keepdim=True), a.sum((0, 1), keepdims=True))
    i = tensorc.tensor([1, 2, 3], dtype=tensorc.int32)
    assert tensorc.sum(i).dtype is tensorc.int64
    assert tensorc.sum(i, dtype=tensorc.float64).dtype is tensorc.float64


def test_max_and_min_overloads():
    x, a = x34()
    assert tensorc.max(x).item() == a.max() and tensorc.min(x).item() == a.min()
    r = tensorc.max(x, 1)
    values, indices = r
    assert type(r).__name__ == "max" and r._fields == ("values", "indices")
    assert_same(values, a.max(1))
    assert_same(indices, a.argmax(1))
    assert r.values is values and r.indices is indices
    r = tensorc.min(x, dim=0, keepdim=True)
    assert_same(r.values, a.min(0, keepdims=True))
    assert_same(r.indices, a.argmin(0)[None])
    assert x.max(1).values.tolist() == values.tolist()


def test_max_of_two_tensors_is_no_overload():
    # The schema has no max.other (use maximum): the call matches no overload
    # and says so, instead of reading the tensor as a dim.
    x, a = x34()
    with pytest.raises(TypeError, match=r"max\(\): no overload matches"):
        tensorc.max(x, x * 0)
    assert_same(tensorc.maximum(x, x * 0), np.maximum(a, 0))


@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_div_rounding_modes(mode, dtype):
    a = np.array([7, -7, 5, -5, 9]).astype(dtype)
    b = np.array([2, 2, -3, -3, 3]).astype(dtype)
    got = tensorc.div(tensorc.tensor(a), tensorc.tensor(b), rounding_mode=mode)
    exact = a.astype(np.float64) / b
    expected = {None: exact, "trunc": np.trunc(exact), "floor": np.floor(exact)}[mode]
    if mode is None:
        assert got.dtype is tensorc.float32
    else:
        assert got.dtype is tensorc.tensor(a).dtype
    assert_same(got, expected.astype(to_numpy(got).dtype))
    scalar = tensorc.div(tensorc.tensor(a), 2, rounding_mode=mode)
    expected = {None: a / 2.0, "trunc": np.trunc(a / 2.0), "floor": np.floor(a / 2.0)}[mode]
    assert_same(scalar, expected.astype(to_numpy(scalar).dtype))


def test_div_bad_rounding_mode():
    with pytest.raises(ValueError, match="rounding_mode"):
        tensorc.div(tensorc.ones(2), 2, rounding_mode="bogus")


def test_squeeze_forms():
    z = tensorc.zeros(1, 2, 1, 3)
    assert tensorc.squeeze(z).shape == (2, 3)
    assert tensorc.squeeze(z, 0).shape == (2, 1, 3)
    assert z.squeeze(-2).shape == (1, 2, 3)
    assert tensorc.squeeze(z, 1).shape == (1, 2, 1, 3)
    assert tensorc.squeeze(z, (0, 2)).shape == (2, 3)
    assert z.squeeze(dim=[0]).shape == (2, 1, 3)


def test_pow_forms():
    i = tensorc.tensor([0, 1, 2, 3])
    assert tensorc.pow(2, i).tolist() == [1, 2, 4, 8] and tensorc.pow(2, i).dtype is tensorc.int64
    assert tensorc.pow(2.5, tensorc.tensor([1.0, 2.0])).tolist() == [2.5, 6.25]
    assert tensorc.pow(i, 2).tolist() == [0, 1, 4, 9]
    assert tensorc.pow(i, tensorc.tensor([2, 2, 2, 2])).tolist() == [0, 1, 4, 9]
    assert (2 ** i).tolist() == [1, 2, 4, 8]
    assert_same(tensorc.pow(tensorc.tensor([4.0, 9.0]), 0.5), [2.0, 3.0])


def test_clamp_forms():
    x, a = x34()
    assert_same(tensorc.clamp(x, -1, 2), np.clip(a, -1, 2))
    assert_same(tensorc.clamp(x, min=0), np.maximum(a, 0))
    assert_same(tensorc.clamp(x, max=1.5), np.minimum(a, 1.5))
    lo = np.array([-2, -1, 0, 1], np.float32)
    assert_same(tensorc.clamp(x, tensorc.tensor(lo), tensorc.tensor(lo + 2)), np.clip(a, lo, lo + 2))
    assert_same(tensorc.clamp(x, max=tensorc.tensor(lo)), np.minimum(a, lo))
    assert_same(x.clamp(min=tensorc.tensor(lo)), np.maximum(a, lo))
    with pytest.raises(ValueError, match="min"):
        tensorc.clamp(x)


@pytest.mark.parametrize("args,kwargs", [
    ((), {}), ((5,), {}), ((2, 8), {}), ((1, 2, 0.5), {}), ((0.0, 1.0), {"step": 0.1}), ((4,), {"dtype": tensorc.int32}),
    ((), {"start": 1, "end": 3}), ((10, 0, -3), {}),
])
def test_arange_forms(args, kwargs):
    if not args and "end" not in kwargs:
        with pytest.raises(TypeError):
            tensorc.arange()
        return
    np_kwargs = dict(kwargs)
    np_kwargs.pop("dtype", None)
    if "end" in np_kwargs:
        np_kwargs["stop"] = np_kwargs.pop("end")
    expected = np.arange(*args, **np_kwargs)
    got = tensorc.arange(*args, **kwargs)
    np.testing.assert_allclose(got.tolist(), expected.tolist(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_forms(name):
    x, a = x34()
    a = a.astype(np.float64)
    f = getattr(tensorc, name)
    g = getattr(np, name)
    assert f(x).item() == pytest.approx(g(a, ddof=1))
    assert f(x, unbiased=False).item() == pytest.approx(g(a))
    assert f(x, False).item() == pytest.approx(g(a))
    assert_same(f(x, dim=1), g(a, 1, ddof=1))
    assert_same(f(x, [0], unbiased=False, keepdim=True), g(a, 0, keepdims=True))
    assert_same(f(x, dim=1, correction=0), g(a, 1))
    assert_same(f(x, dim=(0, 1), correction=2), g(a, ddof=2))
    assert_same(getattr(x, name)(dim=0), g(a, 0, ddof=1))


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_positional_dim(name):
    x, a = x34()
    assert_same(getattr(tensorc, name)(x, 1), getattr(np, name)(a.astype(np.float64), 1, ddof=1))
    assert_same(getattr(x, name)(0), getattr(np, name)(a.astype(np.float64), 0, ddof=1))


def test_sort_topk_return_named_tuples():
    t = tensorc.tensor([3.0, 1.0, 2.0])
    r = tensorc.sort(t, descending=True)
    assert r.values.tolist() == [3, 2, 1] and r.indices.tolist() == [0, 2, 1]
    r = tensorc.topk(t, 2)
    assert r.values.tolist() == [3, 2] and r.indices.tolist() == [0, 2]


def test_no_match_lists_the_signatures():
    x, _a = x34()
    with pytest.raises(TypeError) as info:
        tensorc.add(x, "a")
    text = str(info.value)
    assert "add" in text and "add.Tensor(" in text and "add.Scalar(" in text
    assert not isinstance(info.value, tensorc.Error)
    with pytest.raises(TypeError) as info:
        tensorc.clamp(x, "lo")
    assert "clamp" in str(info.value)
    with pytest.raises(TypeError) as info:
        tensorc.squeeze(x, "a")
    assert "squeeze.dims(" in str(info.value)


def test_wrong_argument_type_is_a_type_error():
    x, _a = x34()
    with pytest.raises(TypeError):
        tensorc.sum(x, tensorc.float32)  # dtype is keyword-only
    with pytest.raises(TypeError):
        tensorc.transpose(x, "a", 1)
    with pytest.raises(TypeError):
        tensorc.exp(3.0)


# ---- values against NumPy ------------------------------------------------------------------------

def _erf(a):
    return np.vectorize(math.erf)(a)


UNARY = {
    "abs": (np.abs, (-3, 3)), "neg": (np.negative, (-3, 3)), "exp": (np.exp, (-3, 3)),
    "expm1": (np.expm1, (-1, 1)), "log": (np.log, (0.1, 5)), "log2": (np.log2, (0.1, 5)),
    "log10": (np.log10, (0.1, 5)), "log1p": (np.log1p, (-0.5, 5)), "sqrt": (np.sqrt, (0, 9)),
    "rsqrt": (lambda a: 1 / np.sqrt(a), (0.1, 9)), "sin": (np.sin, (-3, 3)), "cos": (np.cos, (-3, 3)),
    "tan": (np.tan, (-1.2, 1.2)), "asin": (np.arcsin, (-0.95, 0.95)), "acos": (np.arccos, (-0.95, 0.95)),
    "atan": (np.arctan, (-5, 5)), "sinh": (np.sinh, (-2, 2)), "cosh": (np.cosh, (-2, 2)),
    "tanh": (np.tanh, (-3, 3)), "asinh": (np.arcsinh, (-3, 3)), "acosh": (np.arccosh, (1.1, 5)),
    "atanh": (np.arctanh, (-0.9, 0.9)), "sigmoid": (lambda a: 1 / (1 + np.exp(-a)), (-5, 5)),
    "relu": (lambda a: np.maximum(a, 0), (-3, 3)), "erf": (_erf, (-2, 2)), "ceil": (np.ceil, (-3, 3)),
    "floor": (np.floor, (-3, 3)), "round": (np.round, (-3, 3)), "trunc": (np.trunc, (-3, 3)),
    "sign": (np.sign, (-3, 3)), "reciprocal": (lambda a: 1 / a, (0.5, 3)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_ops_against_numpy(name, dtype):
    reference, (lo, hi) = UNARY[name]
    a = np.random.default_rng(len(name)).uniform(lo, hi, (4, 5)).astype(dtype)
    t = tensorc.tensor(a)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    assert_same(getattr(tensorc, name)(t), reference(a.astype(np.float64)).astype(dtype), rtol=rtol, atol=rtol)
    assert_same(getattr(t, name)(), reference(a.astype(np.float64)).astype(dtype), rtol=rtol, atol=rtol)
    view = tensorc.tensor(a.T.copy()).t()  # non-contiguous input
    assert_same(getattr(tensorc, name)(view), reference(a.astype(np.float64)).astype(dtype), rtol=rtol, atol=rtol)
    if name + "_" in _ops.METHODS:
        c = t.clone()
        assert getattr(c, name + "_")() is c
        assert_same(c, reference(a.astype(np.float64)).astype(dtype), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", ["abs", "neg", "sign", "relu"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8"])
def test_unary_ops_on_integers(name, dtype):
    reference = UNARY[name][0]
    a = np.array([[-3, -1, 0], [1, 2, 5]]).astype(dtype)
    assert_same(getattr(tensorc, name)(tensorc.tensor(a)), reference(a).astype(dtype))


BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "maximum": np.maximum,
    "minimum": np.minimum, "atan2": np.arctan2, "fmod": np.fmod, "remainder": np.mod, "pow": np.power,
    "floor_divide": np.floor_divide,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3))], ids=str)
def test_binary_ops_against_numpy(name, shapes):
    rng = np.random.default_rng(7)
    a = rng.uniform(0.5, 4, shapes[0]).astype(np.float32)
    b = rng.uniform(0.5, 4, shapes[1]).astype(np.float32)
    if name in ("eq", "ne", "le", "ge"):
        b = np.round(b)
        a = np.round(a)
    expected = BINARY[name](a.astype(np.float64), b.astype(np.float64))
    expected = expected.astype(np.bool_ if expected.dtype == np.bool_ else np.float32)
    got = getattr(tensorc, name)(tensorc.tensor(a), tensorc.tensor(b))
    assert_same(got, expected, rtol=1e-5, atol=1e-5)
    assert_same(getattr(tensorc.tensor(a), name)(tensorc.tensor(b)), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "maximum", "minimum", "remainder", "floor_divide",
                                  "fmod", "eq", "lt", "ge"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_binary_ops_on_integers(name, dtype):
    a = np.array([[7, 9, 3], [4, 12, 8]]).astype(dtype)
    b = np.array([2, 5, 3]).astype(dtype)
    got = getattr(tensorc, name)(tensorc.tensor(a), tensorc.tensor(b))
    expected = BINARY[name](a, b)
    assert_same(got, expected)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_ops(name):
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    assert_same(getattr(tensorc, name)(tensorc.tensor(a), tensorc.tensor(b)), getattr(np, name)(a, b))
    assert_same(getattr(tensorc, name)(tensorc.tensor([0.0, 1, 2, 0]), tensorc.tensor([1, 0, 3, 0])),
                getattr(np, name)([0.0, 1, 2, 0], [1, 0, 3, 0]))
    assert_same(tensorc.logical_not(tensorc.tensor(a)), ~a)


REDUCTIONS = {
    "sum": lambda a, d, k: a.sum(axis=d, keepdims=k),
    "mean": lambda a, d, k: a.mean(axis=d, keepdims=k),
    "amax": lambda a, d, k: a.max(axis=d, keepdims=k),
    "amin": lambda a, d, k: a.min(axis=d, keepdims=k),
    "prod": lambda a, d, k: a.prod(axis=d, keepdims=k),
    "var": lambda a, d, k: a.var(axis=d, keepdims=k, ddof=1),
    "std": lambda a, d, k: a.std(axis=d, keepdims=k, ddof=1),
    "argmax": lambda a, d, k: np.expand_dims(a.argmax(d), d) if k else a.argmax(d),
    "argmin": lambda a, d, k: np.expand_dims(a.argmin(d), d) if k else a.argmin(d),
    "cumsum": lambda a, d, k: a.cumsum(d),
    "logsumexp": None,
}


@pytest.mark.parametrize("name", [n for n, f in REDUCTIONS.items() if f is not None])
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions_over_a_dim(name, dim, keepdim):
    a = np.random.default_rng(3).uniform(-2, 2, (3, 4, 5)).astype(np.float32)
    t = tensorc.tensor(a)
    if name == "cumsum":
        got = tensorc.cumsum(t, dim)
    elif name == "prod":
        got = tensorc.prod(t, dim, keepdim=keepdim)
    else:
        got = getattr(tensorc, name)(t, dim=dim, keepdim=keepdim)
    expected = REDUCTIONS[name](a.astype(np.float64), dim, keepdim)
    assert_same(got, expected.astype(np.int64 if name.startswith("arg") else np.float32), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "prod", "var", "std", "argmax", "argmin"])
def test_full_reductions(name):
    a = np.random.default_rng(5).uniform(0.5, 1.5, (4, 6)).astype(np.float32)
    got = getattr(tensorc, name)(tensorc.tensor(a))
    expected = {"sum": a.sum(), "mean": a.mean(), "amax": a.max(), "amin": a.min(), "prod": a.prod(),
                "var": a.var(ddof=1), "std": a.std(ddof=1), "argmax": a.argmax(), "argmin": a.argmin()}[name]
    assert got.dim() == 0
    assert got.item() == pytest.approx(float(expected), rel=1e-4)


@pytest.mark.parametrize("dims", [(0, 1), (0, 2), (1, 2), (-1, 0), (0, 1, 2)], ids=str)
def test_reductions_over_several_dims(dims):
    a = np.random.default_rng(9).uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    t = tensorc.tensor(a)
    assert_same(tensorc.sum(t, dims), a.sum(dims), rtol=1e-5)
    assert_same(tensorc.mean(t, dims, keepdim=True), a.mean(dims, keepdims=True), rtol=1e-5)
    assert_same(tensorc.amax(t, dims), a.max(dims))


def test_boolean_reductions():
    a = np.array([[True, False], [True, True]])
    t = tensorc.tensor(a)
    assert tensorc.all(t).item() is False and tensorc.any(t).item() is True
    assert_same(tensorc.all(t, 1), a.all(1))
    assert_same(tensorc.any(t, 0), a.any(0))
    assert tensorc.sum(t).item() == 3


def test_shape_ops_against_numpy():
    a = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    t = tensorc.tensor(a)
    assert_same(tensorc.cat([t, t], 1), np.concatenate([a, a], 1))
    assert_same(tensorc.stack([t, t], 0), np.stack([a, a], 0))
    assert_same(tensorc.permute(t, (2, 0, 1)), a.transpose(2, 0, 1))
    assert_same(tensorc.flip(t, (0, 2)), a[::-1, :, ::-1])
    assert_same(tensorc.flatten(t, 1), a.reshape(2, 12))
    assert [to_numpy(p).shape for p in tensorc.split(t, 2, 2)] == [(2, 3, 2), (2, 3, 2)]
    assert [to_numpy(p).shape for p in tensorc.chunk(t, 3, 1)] == [(2, 1, 4)] * 3
    assert_same(tensorc.where(t > 10, t, tensorc.zeros(1)), np.where(a > 10, a, 0))
    assert_same(tensorc.gather(t, 2, tensorc.tensor([[[0], [1], [3]]] * 2)),
                np.take_along_axis(a, np.array([[[0], [1], [3]]] * 2), 2))
    assert_same(tensorc.index_select(t, 1, tensorc.tensor([2, 0])), a[:, [2, 0]])
    assert_same(tensorc.nonzero(tensorc.tensor([0, 3, 0, 5])), np.argwhere([0, 3, 0, 5]))
    assert_same(tensorc.diagonal(t[0]), np.diagonal(a[0]))
    assert_same(tensorc.matmul(t, tensorc.ones(4, 2)), a @ np.ones((4, 2), np.float32))


def test_softmax_family_against_numpy():
    a = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)
    e = np.exp(a - a.max(1, keepdims=True))
    sm = e / e.sum(1, keepdims=True)
    assert_same(tensorc.softmax(tensorc.tensor(a), 1), sm, rtol=1e-5)
    assert_same(tensorc.log_softmax(tensorc.tensor(a), dim=1), np.log(sm), rtol=1e-5, atol=1e-5)
