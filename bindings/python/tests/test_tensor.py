# SPDX-License-Identifier: BSD-3-Clause
"""The core Tensor API: creation, factories, metadata, values, repr, operators, promotion, errors.

torch 1.13 (Debian's python3-torch) is the reference for dtypes, promotion and repr;
NumPy for values."""
import operator

import numpy as np
import pytest
import torch

import tensorc
from conftest import assert_same, to_numpy

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def tdtype(name):
    return getattr(tensorc, name)


def torch_name(obj):
    """repr text of a tensorc object as torch would print it."""
    return repr(obj).replace("tensorc.", "torch.")


# ---- tensor() ----------------------------------------------------------------------

@pytest.mark.parametrize("data", [
    3, -2, 3.5, True, False, [1, 2, 3], [1.0, 2], [1, 2.5], [True, False], [[1, 2], [3, 4]], [[1.5], [2.5]],
    ((1, 2), (3, 4)), [], [[]], [[True], [False]], [1, True], [0.0, True],
], ids=repr)
def test_tensor_infers_dtype_like_torch(data):
    t = tensorc.tensor(data)
    expected = torch.tensor(data)
    assert torch_name(t.dtype) == repr(expected.dtype)
    assert tuple(t.shape) == tuple(expected.shape)
    assert t.tolist() == expected.tolist()


@pytest.mark.parametrize("np_dtype", [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16,
                                      np.float32, np.float64])
def test_tensor_from_numpy_keeps_dtype_and_copies(np_dtype):
    a = np.arange(6).reshape(2, 3).astype(np_dtype)
    t = tensorc.tensor(a)
    assert torch_name(t.dtype) == repr(torch.from_numpy(a).dtype)
    assert_same(t, a)
    a[0, 0] = 1 if np_dtype is not np.bool_ else True
    a[0, 1] = 0
    assert to_numpy(t)[0, 1] == np.arange(6).reshape(2, 3).astype(np_dtype)[0, 1]


def test_tensor_from_numpy_scalar_and_noncontiguous():
    assert tensorc.tensor(np.float64(2.5)).dtype is tensorc.float64
    a = np.arange(12.0).reshape(3, 4)[:, ::2].T
    assert_same(tensorc.tensor(a), a)


@pytest.mark.parametrize("name", DTYPES)
def test_tensor_dtype_argument(name):
    t = tensorc.tensor([0, 1, 2], dtype=tdtype(name))
    assert t.dtype is tdtype(name)
    assert t.tolist() == torch.tensor([0, 1, 2], dtype=getattr(torch, name)).tolist()


def test_tensor_device_and_requires_grad():
    t = tensorc.tensor([1.0, 2.0], device="cpu", requires_grad=True)
    assert t.device == tensorc.device("cpu") and t.requires_grad and t.is_leaf
    assert tensorc.tensor([1.0], device=tensorc.device("cpu")).device.type == "cpu"


def test_tensor_of_tensors_and_copy_semantics():
    a = tensorc.tensor([1.0, 2.0])
    b = tensorc.tensor(a)
    b[0] = 5
    assert a.tolist() == [1.0, 2.0]
    assert tensorc.tensor([tensorc.tensor(1.0), tensorc.tensor(2.0)]).tolist() == [1.0, 2.0]
    assert tensorc.tensor(a, dtype=tensorc.int64).dtype is tensorc.int64


@pytest.mark.parametrize("data", [["a"], [[1, 2], [3]], object(), {1: 2}], ids=repr)
def test_tensor_rejects_bad_data(data):
    with pytest.raises((TypeError, ValueError)):
        tensorc.tensor(data)


# ---- factories --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
@pytest.mark.parametrize("args", [(2, 3), ((2, 3),), ([2, 3],), (tensorc.Size([2, 3]),)], ids=repr)
def test_factories_take_varargs_and_sequences(name, args):
    t = getattr(tensorc, name)(*args)
    assert t.shape == (2, 3) and t.dtype is tensorc.float32
    assert not t.requires_grad


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_factories_take_size_keyword_dtype_and_requires_grad(name):
    t = getattr(tensorc, name)((4,), dtype=tensorc.float64, requires_grad=True)
    assert t.shape == (4,) and t.dtype is tensorc.float64 and t.requires_grad and t.is_leaf
    t = getattr(tensorc, name)(size=(4,), dtype=tensorc.float64, requires_grad=True)
    assert t.shape == (4,) and t.dtype is tensorc.float64 and t.requires_grad and t.is_leaf


def test_zero_dim_and_empty_factories():
    assert tensorc.zeros(()).shape == () and tensorc.zeros([]).dim() == 0
    assert tensorc.ones(0, 3).shape == (0, 3) and tensorc.ones(0, 3).numel() == 0


def test_values_of_zeros_ones_full():
    assert_same(tensorc.zeros(2, 2), np.zeros((2, 2)))
    assert_same(tensorc.ones(3, dtype=tensorc.int32), np.ones(3, np.int32))
    assert tensorc.ones(3, dtype=tensorc.int32).dtype is tensorc.int32
    for value, dtype in ((7, "int64"), (7.5, "float32"), (True, "bool")):
        t = tensorc.full((2, 3), value)
        assert t.dtype is tdtype(dtype) and t.tolist() == torch.full((2, 3), value).tolist()
    assert tensorc.full([2], 3, dtype=tensorc.float64).dtype is tensorc.float64


@pytest.mark.parametrize("args,kwargs", [
    ((5,), {}), ((2, 7), {}), ((1, 10, 3), {}), ((0, 1, 0.25), {}), ((5.0,), {}), ((10, 0, -2), {}),
    ((3,), {"dtype": tensorc.float64}), ((0, 2.5, 0.5), {}), ((-3, 3), {"dtype": tensorc.int32}),
    ((), {"end": 4}), ((1,), {"end": 4}), ((0, 5), {"step": 2}),
], ids=repr)
def test_arange_forms(args, kwargs):
    t = tensorc.arange(*args, **kwargs)
    tkw = {k: (getattr(torch, v._name) if isinstance(v, tensorc.dtype) else v) for k, v in kwargs.items()}
    expected = torch.arange(*args, **tkw)
    assert torch_name(t.dtype) == repr(expected.dtype)
    np.testing.assert_allclose(t.tolist(), expected.tolist())


@pytest.mark.parametrize("args", [(0, 1, 5), (-2, 2, 9), (1, 1, 1), (0, 10, 0), (3, -3, 4)])
def test_linspace(args):
    assert_same(tensorc.linspace(*args), np.linspace(*args, dtype=np.float32))


@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (0,)])
def test_eye(args):
    assert_same(tensorc.eye(*args), np.eye(*args, dtype=np.float32))


def test_randint_forms():
    a = tensorc.randint(10, (1000,))
    assert a.dtype is tensorc.int64 and a.shape == (1000,)
    assert 0 <= a.min().item() and a.max().item() < 10
    b = tensorc.randint(-3, 4, (50, 20))
    assert b.shape == (50, 20) and -3 <= b.min().item() and b.max().item() <= 3
    assert set(b.flatten().tolist()) == set(range(-3, 4))
    assert tensorc.randint(0, 5, size=(3,), dtype=tensorc.int32).dtype is tensorc.int32


def test_random_value_ranges():
    r = to_numpy(tensorc.rand(20000))
    assert r.min() >= 0 and r.max() < 1 and abs(r.mean() - 0.5) < 0.02
    n = to_numpy(tensorc.randn(20000))
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05


@pytest.mark.parametrize("make", [
    lambda **kw: tensorc.rand(5, **kw), lambda **kw: tensorc.randn(2, 3, **kw),
    lambda **kw: tensorc.randint(0, 100, (6,), **kw),
])
def test_manual_seed_and_generators_reproduce(make):
    tensorc.manual_seed(42)
    a = make().tolist()
    b = make().tolist()
    tensorc.manual_seed(42)
    assert make().tolist() == a and a != b
    g = tensorc.Generator().manual_seed(7)
    c = make(generator=g).tolist()
    g.manual_seed(7)
    assert make(generator=g).tolist() == c
    assert g.initial_seed() == 7


def test_generator_does_not_disturb_the_default_stream():
    tensorc.manual_seed(1)
    expected = tensorc.rand(4).tolist()
    tensorc.manual_seed(1)
    tensorc.rand(3, generator=tensorc.Generator().manual_seed(9))
    assert tensorc.rand(4).tolist() == expected


def test_like_factories():
    base = tensorc.ones(2, 3, dtype=tensorc.float64)
    for name in ("zeros_like", "ones_like", "empty_like"):
        t = getattr(tensorc, name)(base)
        assert t.shape == base.shape and t.dtype is tensorc.float64
    assert tensorc.full_like(base, 4).tolist() == [[4.0] * 3] * 2
    assert tensorc.zeros_like(base, dtype=tensorc.int32).dtype is tensorc.int32


# ---- dtype and device objects ---------------------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
def test_dtype_objects(name):
    d = tdtype(name)
    assert repr(d) == "tensorc." + name
    assert isinstance(d, tensorc.dtype)
    td = getattr(torch, name)
    assert d.is_floating_point == td.is_floating_point
    assert d.itemsize == torch.tensor([], dtype=td).element_size()


def test_dtype_aliases():
    assert tensorc.float is tensorc.float32 and tensorc.double is tensorc.float64
    assert tensorc.half is tensorc.float16 and tensorc.long is tensorc.int64
    assert tensorc.int is tensorc.int32 and tensorc.short is tensorc.int16


@pytest.mark.parametrize("args,text,type_,index", [
    (("cpu",), "cpu", "cpu", None), (("cuda",), "cuda", "cuda", None), (("cuda:1",), "cuda:1", "cuda", 1),
    (("cuda", 0), "cuda:0", "cuda", 0), ((2,), "cuda:2", "cuda", 2),
])
def test_device_objects(args, text, type_, index):
    d = tensorc.device(*args)
    assert str(d) == text and d.type == type_ and d.index == index
    assert repr(d) == repr(torch.device(*args))
    assert d == tensorc.device(text) and hash(d) == hash(tensorc.device(text))


@pytest.mark.parametrize("bad", ["gpu", "cuda:x", "cuda:-1"])
def test_bad_device_strings(bad):
    with pytest.raises((ValueError, RuntimeError)):
        tensorc.device(bad)


# ---- metadata and values ------------------------------------------------------------------

def test_metadata():
    t = tensorc.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, tensorc.Size)
    assert t.size() == (2, 3, 4) and t.size(1) == 3 and t.size(-1) == 4
    assert t.dtype is tensorc.float32 and t.device == tensorc.device("cpu")
    assert t.ndim == 3 and t.dim() == 3 and t.numel() == 24 and len(t) == 2
    assert t.stride() == (12, 4, 1) and t.is_contiguous() and t.element_size() == 4
    assert repr(t.shape) == "tensorc.Size([2, 3, 4])"
    with pytest.raises(IndexError):
        t.size(3)


def test_len_and_iteration():
    t = tensorc.tensor([[1, 2], [3, 4], [5, 6]])
    rows = list(t)
    assert len(rows) == 3 and all(type(r) is tensorc.Tensor for r in rows)
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4], [5, 6]]
    assert [x.item() for x in tensorc.tensor([7, 8])] == [7, 8]
    with pytest.raises(TypeError):
        len(tensorc.tensor(1.0))
    with pytest.raises(TypeError):
        iter(tensorc.tensor(1.0))


@pytest.mark.parametrize("name,value", [("float32", 2.5), ("float64", -1.25), ("int64", 7), ("int32", -3),
                                        ("bool", True), ("uint8", 200), ("float16", 0.5)])
def test_item_types(name, value):
    item = tensorc.tensor(value, dtype=tdtype(name)).item()
    assert item == value and type(item) is type(torch.tensor(value, dtype=getattr(torch, name)).item())
    assert tensorc.tensor([[value]], dtype=tdtype(name)).item() == value


def test_item_of_many_elements_raises():
    with pytest.raises(ValueError):
        tensorc.ones(2).item()


@pytest.mark.parametrize("data", [[1.5, 2.0], [[1, 2], [3, 4]], [[True], [False]], 3, 2.5, [], [[[1]]]], ids=repr)
def test_tolist_round_trips(data):
    t = tensorc.tensor(data)
    assert t.tolist() == torch.tensor(data).tolist()
    assert type(t.tolist()) is type(torch.tensor(data).tolist())


def test_python_number_conversions():
    t = tensorc.tensor([3.7])
    assert float(t) == pytest.approx(3.7) and int(t) == 3 and bool(tensorc.tensor(0.0)) is False
    assert [10, 20, 30][tensorc.tensor(1)] == 20
    with pytest.raises(TypeError):
        [1, 2][tensorc.tensor(1.0)]
    with pytest.raises(RuntimeError):
        bool(tensorc.ones(2))
    assert format(tensorc.tensor(2.5), ".2f") == "2.50"


# ---- repr ------------------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "m.tensor(3)", "m.tensor(3.5)", "m.tensor(True)", "m.tensor([1, 2, 3])", "m.tensor([1.5, -2.25])",
    "m.tensor([[1, 2], [3, 4]])", "m.arange(24).reshape(2, 3, 4)", "m.zeros(0)", "m.zeros(2, 0)",
    "m.tensor([1.0, 2.0], dtype=m.float64)", "m.tensor([1, 2], dtype=m.int32)", "m.tensor([True, False])",
    "m.tensor([1e10, 1.0])", "m.tensor([0.1, 100.0])", "m.tensor([1e-5, 1.0])", "m.arange(2000.0)",
    "m.arange(12.0).reshape(3, 4)", "m.tensor([float('nan'), float('inf'), -float('inf'), 1.0])",
    "m.tensor([1.0, 2.0], requires_grad=True)", "m.tensor([1, 2], dtype=m.uint8)",
    "m.tensor([1.5], dtype=m.float16)", "m.ones(2, 3, dtype=m.int64) * -100",
    "m.tensor([[0.001, 1000.0], [1.0, -5.5]])", "m.arange(1200).reshape(40, 30)",
], ids=str)
def test_repr_like_torch(expr):
    ours = torch_name(eval(expr, {"m": tensorc}))
    theirs = repr(eval(expr, {"m": torch}))
    assert ours == theirs


def test_repr_names_grad_fn():
    x = tensorc.tensor([1.0, 2.0], requires_grad=True)
    text = repr(x + x)
    assert text.startswith("tensor([2., 4.], grad_fn=<") and "Backward" in text
    assert repr(x.detach()) == "tensor([1., 2.])"


# ---- operators: values against NumPy ------------------------------------------------------

BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow,
}


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_binary_operators_on_tensors(op, dtype):
    a_np = np.array([[5, -7, 3], [8, 2, -4]]).astype(dtype)
    b_np = np.array([2, 3, 5]).astype(dtype)
    f = BINARY[op]
    a, b = tensorc.tensor(a_np), tensorc.tensor(b_np)
    expected = f(a_np.astype(np.float64), b_np.astype(np.float64)) if op in ("/", "**") else f(a_np, b_np)
    got = f(a, b)
    assert_same(got, expected.astype(np.float32 if op == "/" and dtype.startswith("int") else expected.dtype))
    assert torch_name(got.dtype) == repr(f(torch.from_numpy(a_np), torch.from_numpy(b_np)).dtype)


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("scalar", [3, 2.5, -2, True], ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_python_scalars_on_either_side(op, scalar, dtype):
    data = [[4, 9], [6, 3]]
    a, ta = tensorc.tensor(data, dtype=tdtype(dtype)), torch.tensor(data, dtype=getattr(torch, dtype))
    f = BINARY[op]
    for left, right, tleft, tright in ((a, scalar, ta, scalar), (scalar, a, scalar, ta)):
        try:
            expected = f(tleft, tright)
        except RuntimeError:
            with pytest.raises(tensorc.Error):
                f(left, right)
            continue
        got = f(left, right)
        assert torch_name(got.dtype) == repr(expected.dtype), (left, right)
        np.testing.assert_allclose(got.tolist(), expected.tolist(), rtol=1e-6)


@pytest.mark.parametrize("op", ["&", "|", "^"])
@pytest.mark.parametrize("dtype", ["bool", "int64", "int32", "uint8"])
def test_bitwise_operators(op, dtype):
    f = {"&": operator.and_, "|": operator.or_, "^": operator.xor}[op]
    x = np.array([0, 1, 5, 6]).astype(dtype)
    y = np.array([1, 1, 3, 0]).astype(dtype)
    assert_same(f(tensorc.tensor(x), tensorc.tensor(y)), f(x, y))
    s = True if dtype == "bool" else 3
    assert_same(f(tensorc.tensor(x), s), f(x, np.array(s, dtype=dtype)))
    assert_same(f(s, tensorc.tensor(x)), f(np.array(s, dtype=dtype), x))


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_comparisons(op):
    f = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
         ">=": operator.ge}[op]
    x = np.array([1.0, 2.0, 3.0, np.nan], np.float32)
    y = np.array([3.0, 2.0, 1.0, 1.0], np.float32)
    got = f(tensorc.tensor(x), tensorc.tensor(y))
    assert got.dtype is tensorc.bool
    assert_same(got, f(x, y))
    assert_same(f(tensorc.tensor(x), 2), f(x, 2))
    assert_same(f(2, tensorc.tensor(x)), f(2, x))
    assert_same(f(tensorc.tensor([1, 2, 3]), 2.5), f(np.array([1, 2, 3]), 2.5))


def test_unary_operators():
    x = np.array([-2.5, 0.0, 3.0], np.float32)
    assert_same(-tensorc.tensor(x), -x)
    assert_same(abs(tensorc.tensor(x)), abs(x))
    assert_same(+tensorc.tensor(x), x)
    assert_same(~tensorc.tensor([True, False]), [False, True])
    assert_same(~tensorc.tensor([0, 5, -1]), ~np.array([0, 5, -1]))
    with pytest.raises(tensorc.Error):
        -tensorc.tensor([True])
    with pytest.raises(tensorc.Error):
        ~tensorc.tensor([1.0])


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 2)),
                                    ((5, 2, 3), (5, 3, 2)), ((3,), (3, 2)), ((4, 1, 2, 3), (5, 3, 1))])
def test_matmul_operator(shapes):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shapes[0]).astype(np.float32)
    b = rng.standard_normal(shapes[1]).astype(np.float32)
    assert_same(tensorc.tensor(a) @ tensorc.tensor(b), a @ b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op,name", [("+=", "add"), ("-=", "sub"), ("*=", "mul"), ("/=", "div"), ("//=", "fd"),
                                     ("%=", "mod"), ("**=", "pow")])
@pytest.mark.parametrize("other", [2, 1.5, "tensor"], ids=repr)
def test_in_place_operators_keep_the_object(op, name, other):
    t = tensorc.tensor([3.0, 4.0, 8.0])
    ptr, obj = t.data_ptr(), t
    value = tensorc.tensor([2.0, 3.0, 4.0]) if other == "tensor" else other
    scope = {"t": t, "v": value}
    exec("t {} v".format(op), scope)
    assert scope["t"] is obj and obj.data_ptr() == ptr
    expected = eval("a {} b".format(op[:-1]), {"a": np.array([3.0, 4.0, 8.0]),
                                               "b": np.array([2.0, 3.0, 4.0]) if other == "tensor" else other})
    assert_same(obj, expected.astype(np.float32))


@pytest.mark.parametrize("op", ["&=", "|=", "^="])
def test_in_place_bitwise(op):
    t = tensorc.tensor([1, 2, 3])
    obj = t
    scope = {"t": t}
    exec("t {} 6".format(op), scope)
    assert scope["t"] is obj
    assert obj.tolist() == eval("np.array([1, 2, 3]) {} 6".format(op[:-1])).tolist()


def test_in_place_operator_cannot_change_dtype():
    t = tensorc.tensor([1, 2])
    with pytest.raises(tensorc.Error, match="add_"):
        t += 1.5
    assert t.tolist() == [1, 2]


def test_reflected_operators():
    t = tensorc.tensor([1.0, 2.0, 4.0])
    assert (10 - t).tolist() == [9, 8, 6]
    assert (8 / t).tolist() == [8, 4, 2]
    assert (2 ** t).tolist() == [2, 4, 16]
    assert (9 // t).tolist() == [9, 4, 2]
    assert (9 % t).tolist() == [0, 1, 1]
    assert (3 * t).tolist() == [3, 6, 12]
    assert (0.5 + t).tolist() == [1.5, 2.5, 4.5]
    assert (2 ** tensorc.tensor([3])).dtype is tensorc.int64


# ---- promotion, checked against torch's documented results ------------------------------

PROMOTION_CASES = [
    ("m.tensor([1, 2]) + 2.5", "float32"),
    ("m.tensor([1, 2]) / m.tensor([2, 2])", "float32"),
    ("m.tensor([1, 2]) / 2", "float32"),
    ("m.tensor([True]) + m.tensor([True])", "bool"),
    ("m.tensor([True]) + 1", "int64"),
    ("m.tensor([True]) * 1.5", "float32"),
    ("m.tensor([1, 2], dtype=m.int32) + 5", "int32"),
    ("m.tensor([1, 2], dtype=m.int32) + m.tensor([1])", "int64"),
    ("m.tensor([1, 2], dtype=m.uint8) + m.tensor([1], dtype=m.int8)", "int16"),
    ("m.tensor([1.0], dtype=m.float16) + 2.0", "float16"),
    ("m.tensor([1.0], dtype=m.float16) + m.tensor([1.0])", "float32"),
    ("m.tensor([1.0]) + m.tensor(1.0, dtype=m.float64)", "float32"),
    ("m.tensor([1]) + m.tensor(1.5, dtype=m.float64)", "float64"),
    ("m.tensor([1.0], dtype=m.float64) + m.tensor([1.0])", "float64"),
    ("m.tensor(2) + m.tensor([1], dtype=m.int8)", "int8"),
    ("m.tensor([1, 2], dtype=m.uint8) * 300", "uint8"),
    ("m.ones(1, dtype=m.bfloat16) * m.ones(1, dtype=m.float16)", "float32"),
    ("m.tensor([3]) // 2.0", "float32"),
    ("m.tensor([3]) % 2.0", "float32"),
    ("m.tensor([3]) ** 2.0", "float32"),
    ("m.tensor([3], dtype=m.int16) ** 2", "int16"),
    ("m.tensor([True]) & m.tensor([1], dtype=m.uint8)", "uint8"),
    ("m.tensor([1, 2]) < 1.5", "bool"),
    ("m.tensor([1, 2]).sum()", "int64"),
    ("m.tensor([True, True]).sum()", "int64"),
    ("m.tensor([1, 2], dtype=m.int32).sum()", "int64"),
    ("m.tensor([1.0, 2.0], dtype=m.float16).sum()", "float16"),
    ("m.tensor([True]) / m.tensor([True])", "float32"),
]


@pytest.mark.parametrize("expr,expected", PROMOTION_CASES, ids=[c[0] for c in PROMOTION_CASES])
def test_promotion(expr, expected):
    assert repr(eval(expr, {"m": torch}).dtype) == "torch." + expected  # the reference itself
    assert eval(expr, {"m": tensorc}).dtype is tdtype(expected)


# ---- exceptions ---------------------------------------------------------------------------

ERROR_CLASSES = [
    ("InvalidArgumentError", ValueError), ("TensorTypeError", TypeError), ("TensorIndexError", IndexError),
    ("OutOfMemoryError", MemoryError), ("TensorNotImplementedError", NotImplementedError),
    ("TensorRuntimeError", RuntimeError), ("DeviceError", RuntimeError), ("InternalError", RuntimeError),
]


@pytest.mark.parametrize("name,builtin", ERROR_CLASSES)
def test_error_classes(name, builtin):
    cls = getattr(tensorc, name)
    assert issubclass(cls, tensorc.Error) and issubclass(cls, builtin)
    assert issubclass(tensorc.Error, Exception)


ERROR_CASES = [
    (lambda: tensorc.zeros(2) + tensorc.zeros(3), "InvalidArgumentError", ["add", "broadcast"]),
    (lambda: tensorc.zeros(2, 3).view(4), "InvalidArgumentError", ["view", "size"]),
    (lambda: tensorc.ones(2) @ tensorc.ones(3), "InvalidArgumentError", ["matmul", "other"]),
    (lambda: tensorc.tensor([1, 2]).mean(), "TensorTypeError", ["mean", "dtype"]),
    (lambda: tensorc.tensor([1.5]).bitwise_and(tensorc.tensor([1.5])), "TensorTypeError", ["bitwise_and"]),
    (lambda: tensorc.zeros(2).sum(3), "TensorIndexError", ["sum", "dim"]),
    (lambda: tensorc.zeros(2, 3).select(0, 5), "TensorIndexError", ["select", "index"]),
    (lambda: tensorc.zeros(2 ** 62), "OutOfMemoryError", ["zeros"]),
    (lambda: tensorc.zeros(2, device="privateuseone"), "TensorNotImplementedError", ["zeros", "kernel"]),
    (lambda: tensorc.ones(2, requires_grad=True).add_(1), "TensorRuntimeError", ["add_", "leaf"]),
]


@pytest.mark.parametrize("call,cls,words", ERROR_CASES, ids=[c[1] + "-" + c[2][0] for c in ERROR_CASES])
def test_errors_carry_the_c_message(call, cls, words):
    with pytest.raises(getattr(tensorc, cls)) as info:
        call()
    message = str(info.value)
    for word in words:
        assert word in message


@pytest.mark.parametrize("expr", ["a + b", "a - b", "a * b", "a / b", "a @ b", "a // b", "a % b", "a ** b",
                                  "a == b", "a < b", "a & c", "a | c", "a ^ c"])
def test_error_inside_an_operator_is_that_error(expr):
    scope = {"a": tensorc.ones(2, 3, dtype=tensorc.int64), "b": tensorc.ones(4, dtype=tensorc.int64),
             "c": tensorc.ones(5, dtype=tensorc.int64)}
    with pytest.raises(tensorc.Error) as info:
        eval(expr, scope)
    assert not isinstance(info.value, TypeError)


def test_error_inside_reflected_operator():
    with pytest.raises(tensorc.TensorTypeError):
        2 & tensorc.tensor([1.5])


@pytest.mark.parametrize("expr", ["a + x", "x + a", "a - x", "x * a", "a / x", "a @ x", "a // x", "a % x",
                                  "a ** x", "a & x", "x | a", "a < x"])
@pytest.mark.parametrize("foreign", [None, "text", object(), [1, 2], {1: 2}], ids=repr)
def test_foreign_operand_gives_python_type_error(expr, foreign):
    with pytest.raises(TypeError) as info:
        eval(expr, {"a": tensorc.ones(2), "x": foreign})
    assert not isinstance(info.value, tensorc.Error)


def test_equality_with_foreign_objects_is_false():
    t = tensorc.ones(2)
    assert (t == None) is False  # noqa: E711
    assert (t != "x") is True
