# SPDX-License-Identifier: BSD-3-Clause
"""PyTorch names a user reaches for first, checked against torch 1.13."""
import copy
import math
import pickle

import numpy as np
import pytest
import torch

import tensorc


def test_T_and_mT_match_torch():
    a = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    t, p = tensorc.tensor(a), torch.tensor(a)
    m = tensorc.tensor(a[0])
    np.testing.assert_array_equal((m @ m.T).numpy(), (torch.tensor(a[0]) @ torch.tensor(a[0]).T).numpy())
    np.testing.assert_array_equal(t.mT.numpy(), p.mT.numpy())
    assert t.T.shape == (4, 3, 2)
    assert tensorc.tensor([1.0, 2.0]).T.shape == (2,)


def test_legacy_constructor():
    t = tensorc.Tensor(2, 3)
    assert t.shape == (2, 3) and t.dtype is tensorc.float32
    t = tensorc.Tensor([1, 2])
    assert t.tolist() == [1.0, 2.0] and t.dtype is tensorc.float32
    assert tensorc.Tensor().shape == (0,)
    p = tensorc.nn.Parameter(tensorc.Tensor(4, 2))
    assert p.shape == (4, 2) and p.requires_grad
    with pytest.raises(TypeError, match="Tensor"):
        tensorc.Tensor([1, 2], [3])


@pytest.mark.parametrize("make", [
    lambda: tensorc.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True),
    lambda: tensorc.tensor([True, False]),
    lambda: tensorc.arange(6).reshape(2, 3)[:, 1],
    lambda: tensorc.tensor([1.5, 2.5], dtype=tensorc.bfloat16),
])
def test_copy_and_pickle_make_equal_independent_tensors(make):
    t = make()
    for other in (copy.copy(t), pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        assert other.dtype is t.dtype and other.shape == t.shape
        assert other.tolist() == t.tolist() and other.requires_grad == t.requires_grad
        assert other.data_ptr() != t.data_ptr()


def test_factories_take_requires_grad_and_like_variants():
    for t in (tensorc.eye(3, 4, requires_grad=True), tensorc.linspace(0, 1, 5, requires_grad=True),
              tensorc.zeros_like(tensorc.ones(2), requires_grad=True)):
        assert t.requires_grad and t.is_leaf
    x = tensorc.ones(3, 4, dtype=tensorc.float64)
    for t in (tensorc.rand_like(x), tensorc.randn_like(x)):
        assert t.shape == (3, 4) and t.dtype is tensorc.float64
    r = tensorc.randint_like(x, 5)
    assert r.shape == (3, 4) and 0 <= r.min().item() and r.max().item() < 5
    r = tensorc.randint_like(x, 3, 5)
    assert 3 <= r.min().item() and r.max().item() < 5


def test_new_factories_follow_self():
    x = tensorc.ones(2, dtype=tensorc.float64)
    assert x.new_zeros(3, 2).dtype is tensorc.float64 and x.new_zeros((3, 2)).shape == (3, 2)
    assert x.new_ones(2).tolist() == [1.0, 1.0]
    assert x.new_full((2,), 7).tolist() == [7.0, 7.0]
    assert x.new_tensor([1, 2]).dtype is tensorc.float64
    assert x.new_empty(4).shape == (4,)


def test_numpy_array_operands_become_tensors():
    t = tensorc.ones(2)
    for got, want in ((t + np.ones(2), torch.ones(2) + np.ones(2)),
                      (t * np.full(2, 3.0), torch.ones(2) * np.full(2, 3.0))):
        assert isinstance(got, tensorc.Tensor) and got.dtype is tensorc.float64
        assert got.tolist() == want.tolist()
    # An array on the left: torch 1.13 raises here; tensorc gives the tensor result.
    for got, want in ((np.ones(2) + t, [2.0, 2.0]), (np.full(2, 3.0) - t, [2.0, 2.0])):
        assert isinstance(got, tensorc.Tensor) and got.tolist() == want


def test_cuda_module_answers():
    available = tensorc.cuda.is_available()
    assert isinstance(available, bool)
    if available:
        assert tensorc.cuda.unavailable_reason() is None
        assert tensorc.cuda.device_count() >= 1
        assert 0 <= tensorc.cuda.current_device() < tensorc.cuda.device_count()
        x = tensorc.ones(3, device="cuda")
        assert x.is_cuda and x.cpu().tolist() == [1.0, 1.0, 1.0]
        assert ((x * 2).exp() - 1).cpu().tolist() == pytest.approx([6.389056] * 3, rel=1e-5)
        held = tensorc.cuda.memory_allocated()
        y = tensorc.empty(1 << 20, device="cuda")
        assert tensorc.cuda.memory_allocated() >= held + (4 << 20)
        assert tensorc.cuda.memory_stats()["allocated_bytes.all.peak"] >= held + (4 << 20)
        del y
        assert tensorc.cuda.memory_allocated() == held
        tensorc.cuda.empty_cache()
        tensorc.cuda.reset_peak_memory_stats()
        assert tensorc.cuda.max_memory_allocated() == held
    else:
        # The backend's reason, the same one every CUDA call raises with.
        why = tensorc.cuda.unavailable_reason()
        assert "not available" in why
        assert tensorc.cuda.device_count() == 0
        with pytest.raises(RuntimeError, match="not available"):
            tensorc.ones(3, device="cuda")
        with pytest.raises(RuntimeError, match="not available"):
            tensorc.cuda.synchronize()
        for stat in (tensorc.cuda.memory_allocated, tensorc.cuda.max_memory_reserved, tensorc.cuda.memory_stats,
                     tensorc.cuda.reset_peak_memory_stats, tensorc.cuda.empty_cache):
            with pytest.raises(RuntimeError, match="not available"):
                stat()
        # Page-locked memory needs CUDA too; nothing is pinned.
        x = tensorc.ones(3)
        assert not x.is_pinned()
        with pytest.raises(RuntimeError, match="not available"):
            x.pin_memory()


def test_cuda_streams_and_events():
    if not tensorc.cuda.is_available():
        # Without a device: every stream call raises the backend's reason;
        # an event needs no device until it is recorded.
        for make in (tensorc.cuda.Stream, tensorc.cuda.current_stream, tensorc.cuda.default_stream):
            with pytest.raises(RuntimeError, match="not available"):
                make()
        event = tensorc.cuda.Event(enable_timing=True)
        assert event.query() is True
        event.synchronize()
        with pytest.raises(ValueError, match="never recorded"):
            event.elapsed_time(tensorc.cuda.Event(enable_timing=True))
        with pytest.raises(NotImplementedError):
            tensorc.cuda.Event(interprocess=True)
        return
    side = tensorc.cuda.Stream()
    assert side != tensorc.cuda.default_stream() and side.device == tensorc.device("cuda", 0)
    start, end = tensorc.cuda.Event(enable_timing=True), tensorc.cuda.Event(enable_timing=True)
    x = tensorc.ones(1 << 20, device="cuda")
    side.wait_stream(tensorc.cuda.current_stream())
    with tensorc.cuda.stream(side):
        assert tensorc.cuda.current_stream() == side
        start.record()
        y = x * 3
        end.record()
    x.record_stream(side)
    assert tensorc.cuda.current_stream() == tensorc.cuda.default_stream()
    tensorc.cuda.current_stream().wait_stream(side)
    end.synchronize()
    assert end.query() and side.query()
    assert end.elapsed_time(end) == 0.0 and start.elapsed_time(end) >= 0.0
    assert y[:3].cpu().tolist() == [3.0, 3.0, 3.0]
    with pytest.raises(ValueError, match="priority"):
        tensorc.cuda.Stream(priority=1)


def test_backends_cuda_matmul_allow_tf32_is_a_setting():
    # torch.backends.cuda.matmul.allow_tf32: off by default, settable without a GPU
    assert tensorc.backends.cuda.matmul.allow_tf32 is False
    tensorc.backends.cuda.matmul.allow_tf32 = True
    try:
        assert tensorc.backends.cuda.matmul.allow_tf32 is True
    finally:
        tensorc.backends.cuda.matmul.allow_tf32 = False
    assert tensorc.backends.cuda.matmul.allow_tf32 is False


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_matmul_and_linear_match_the_cpu():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((33, 17)).astype(np.float32)
    w = rng.standard_normal((9, 17)).astype(np.float32)
    b = rng.standard_normal(9).astype(np.float32)
    x, weight, bias = tensorc.tensor(a), tensorc.tensor(w), tensorc.tensor(b)
    want = tensorc.nn.functional.linear(x, weight, bias)
    got = tensorc.nn.functional.linear(x.cuda(), weight.cuda(), bias.cuda())
    assert got.is_cuda
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-4, atol=1e-4)
    batch = tensorc.tensor(rng.standard_normal((4, 5, 17)).astype(np.float32))
    np.testing.assert_allclose(tensorc.matmul(batch.cuda(), weight.cuda().t()).cpu().numpy(),
                               tensorc.matmul(batch, weight.t()).numpy(), rtol=1e-4, atol=1e-4)


def test_zero_dim_tensor_as_a_scalar_argument():
    # As PyTorch's argument parser: a 0-dim tensor is read as the number where
    # the op has no Tensor overload, unless it requires grad (its gradient
    # would be lost); where one exists it promotes as a 0-dim tensor.
    half = tensorc.tensor(0.5, dtype=tensorc.float64)
    assert tensorc.full((2,), half).tolist() == [0.5, 0.5]
    assert tensorc.full((2,), half).dtype == tensorc.float32  # the number's default, as torch.full
    assert (tensorc.tensor([1, 2], dtype=tensorc.int32) + half).dtype == tensorc.float64
    w = tensorc.tensor(0.5, requires_grad=True)
    with pytest.raises(tensorc.InvalidArgumentError, match="fill_value"):
        tensorc.full((2,), w)
    assert tensorc.full((2,), w.detach()).tolist() == [0.5, 0.5]


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_zero_dim_tensor_as_a_scalar_argument():
    x = tensorc.tensor([1.0, -2.0, 3.0])
    s = tensorc.tensor(0.5)
    xc, sc = x.cuda(), s.cuda()
    for got, want in [(xc + sc, x + s), (xc.mul(sc), x.mul(s)), (tensorc.clamp(xc, min=sc), tensorc.clamp(x, min=s)),
                      (xc.pow(sc.abs()), x.pow(s.abs())), (xc.eq(sc), x.eq(s)),
                      (tensorc.full((2,), sc, device="cuda"), tensorc.full((2,), s))]:
        assert got.is_cuda
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy())
    y = xc.clone()
    y.fill_(sc)
    assert y.cpu().tolist() == [0.5, 0.5, 0.5]
    z = tensorc.zeros(3)
    z.fill_(sc)  # a CPU tensor filled from a CUDA 0-dim value: read, as PyTorch does
    assert z.tolist() == [0.5, 0.5, 0.5]


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_ops_over_more_than_2_31_elements():
    # Past the element loop's and the reduction's 32-bit index paths: 2 GiB of int8.
    n = 2**31 + 37
    x = tensorc.ones(n, dtype=tensorc.int8, device="cuda")
    x[n - 5:] = 3
    y = x + x  # the element loop over 64-bit offsets
    assert y[0].item() == 2 and y[n - 6].item() == 2 and y[n - 1].item() == 6
    assert y.sum(dtype=tensorc.int64).item() == 2 * (n - 5) + 6 * 5
    assert y.max().item() == 6 and y.argmax().item() == n - 5
    del x, y
    tensorc.cuda.empty_cache()


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_where_matches_the_cpu_bit_for_bit():
    nan, inf = float("nan"), float("inf")
    c = tensorc.tensor([True, False, True])
    x = tensorc.tensor([[-0.0, nan, 3.0], [inf, 5.0, -inf]])
    y = tensorc.tensor([-1.0, -0.0, nan])
    big = tensorc.tensor([2**62 + 1, -(2**62) - 3, 7])  # int64 values a float computation would round
    cases = [(c, x, y), (c, x, tensorc.tensor(7.5)), (c, big, tensorc.tensor([1, 2, 3], dtype=tensorc.int32)),
             (c, tensorc.tensor([True, False, False]), tensorc.tensor([False, True, True])),
             (c, x.to(tensorc.float16), y), (tensorc.tensor(False), x, y)]
    payload = tensorc.tensor(np.array([0x7E01, 0x3C00, 0xFE03], dtype=np.uint16).view(np.float16))  # NaNs with payloads
    cases.append((c, payload, tensorc.tensor([1.0, 2.0, 3.0], dtype=tensorc.float16)))
    for args in cases:
        want = tensorc.where(*args)
        got = tensorc.where(*[a.cuda() if a.dim() else a for a in args])  # 0-dim CPU tensors stay: scalars
        assert got.is_cuda and got.dtype == want.dtype
        assert got.cpu().numpy().tobytes() == want.numpy().tobytes()


def test_inference_mode_turns_recording_off():
    x = tensorc.ones(2, requires_grad=True)
    with tensorc.inference_mode():
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm_matches_torch(norm_type):
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(5).astype(np.float32)]
    ts = [tensorc.zeros(g.shape, requires_grad=True) for g in grads]
    ps = [torch.zeros(g.shape, requires_grad=True) for g in grads]
    for t, p, g in zip(ts, ps, grads):
        t.grad, p.grad = tensorc.tensor(g), torch.tensor(g)
    got = tensorc.nn.utils.clip_grad_norm_(ts, 1.0, norm_type)
    want = torch.nn.utils.clip_grad_norm_(ps, 1.0, norm_type)
    assert got.item() == pytest.approx(want.item(), rel=1e-5)
    for t, p in zip(ts, ps):
        np.testing.assert_allclose(t.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-7)
    tensorc.nn.utils.clip_grad_value_(ts, 0.01)
    assert max(abs(v) for t in ts for v in t.grad.flatten().tolist()) <= 0.01 + 1e-7


def test_split_takes_sizes_like_torch():
    a = np.arange(12.0, dtype=np.float32).reshape(2, 6)
    t, p = tensorc.tensor(a), torch.tensor(a)
    for args in ((2,), ([1, 5], 1), ([1, 2, 3],), (4, 1)):
        dim_args = args if len(args) > 1 else (args[0], 1)
        got = t.split(*dim_args)
        want = p.split(*dim_args)
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
    assert [x.shape for x in tensorc.split(t, [2, 4], dim=1)] == [(2, 2), (2, 4)]


@pytest.mark.parametrize("value", [0.0, 2, True])
def test_where_takes_python_numbers_like_torch(value):
    a = np.array([[1.0, -2.0], [-3.0, 4.0]], dtype=np.float64)
    t, p = tensorc.tensor(a), torch.tensor(a)
    got, want = tensorc.where(t > 0, t, value), torch.where(p > 0, p, value)
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    # torch 1.13's method form takes only tensors; tensorc's takes numbers too.
    np.testing.assert_array_equal(t.where(t > 0, value).numpy(), want.numpy())


def test_isclose_allclose_equal_match_torch():
    a = np.array([1.0, 2.0, np.nan, 4.0], dtype=np.float32)
    b = a + np.array([1e-6, 1e-3, 0.0, 0.0], dtype=np.float32)
    t, u, p, q = tensorc.tensor(a), tensorc.tensor(b), torch.tensor(a), torch.tensor(b)
    for kw in ({}, {"equal_nan": True}, {"rtol": 1e-2}, {"atol": 1e-2, "equal_nan": True}):
        assert tensorc.isclose(t, u, **kw).tolist() == torch.isclose(p, q, **kw).tolist()
        assert tensorc.allclose(t, u, **kw) == torch.allclose(p, q, **kw)
    assert tensorc.equal(t[:2], t[:2].clone()) and not tensorc.equal(t[:2], u[:2])
    assert not tensorc.equal(t[:2], t[:3])


def test_save_and_load_state_dicts_and_modules(tmp_path):
    model = tensorc.nn.Sequential(tensorc.nn.Linear(3, 4), tensorc.nn.ReLU(), tensorc.nn.Linear(4, 2)).double()
    opt = tensorc.optim.Adam(model.parameters(), lr=0.01)
    model(tensorc.ones(5, 3, dtype=tensorc.float64)).sum().backward()
    opt.step()
    path = tmp_path / "ckpt.tc"
    tensorc.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 3}, path)
    ckpt = tensorc.load(path, map_location="cpu")
    fresh = tensorc.nn.Sequential(tensorc.nn.Linear(3, 4), tensorc.nn.ReLU(), tensorc.nn.Linear(4, 2)).double()
    fresh.load_state_dict(ckpt["model"])
    for (name, p), (_, q) in zip(model.state_dict().items(), fresh.state_dict().items()):
        assert p.dtype is q.dtype is tensorc.float64 and p.tolist() == q.tolist(), name
    opt2 = tensorc.optim.Adam(fresh.parameters(), lr=0.01)
    opt2.load_state_dict(ckpt["opt"])
    assert ckpt["epoch"] == 3
    whole = tmp_path / "model.tc"
    tensorc.save(model, whole)
    again = tensorc.load(whole)
    assert isinstance(again[0].weight, tensorc.nn.Parameter) and again[0].weight.requires_grad
    x = tensorc.ones(2, 3, dtype=tensorc.float64)
    assert again(x).tolist() == model(x).tolist()
    with pytest.raises(NotImplementedError, match="map_location"):
        tensorc.load(whole, map_location="cuda")


def test_grad_mode_decorators_cover_generator_functions():
    x = tensorc.ones(2, requires_grad=True)

    @tensorc.no_grad()
    def gen():
        for _ in range(2):
            yield x * 2

    @torch.no_grad()
    def torch_gen():
        yield torch.ones(2, requires_grad=True) * 2

    assert [y.requires_grad for y in gen()] == [False, False]
    assert [y.requires_grad for y in torch_gen()] == [False]
    assert tensorc.is_grad_enabled()
    g = gen()
    next(g)
    assert tensorc.is_grad_enabled()  # the caller's mode between resumptions
    g.close()


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "remainder", "pow", "eq", "lt"])
@pytest.mark.parametrize("value", [2, 2.5])
def test_out_variants_take_python_numbers_like_torch(name, value):
    a = np.array([1.0, -2.0, 3.0], dtype=np.float32)
    t, p = tensorc.tensor(a), torch.tensor(a)
    want = getattr(torch, name)(p, value)
    o = tensorc.empty(0, dtype=getattr(tensorc, str(want.dtype).split(".")[1]))
    got = getattr(tensorc, name)(t, value, out=o)
    assert got is o
    np.testing.assert_allclose(o.numpy(), want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["fmod", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor"])
@pytest.mark.parametrize("dtype", ["int64", "int16", "uint8", "bool"])
def test_modulo_and_bitwise_variants_match_torch(name, dtype):
    # Every variant the binary_modulo / bitwise families derive: Tensor and
    # Scalar, functional, in place and out= (.Tensor_out / .Scalar_out).
    if name in ("fmod", "remainder") and dtype == "bool":
        pytest.skip("torch has no bool fmod/remainder (checked as an error below)")
    a = np.array([[7, 9, 3], [4, 12, 8]]).astype(dtype)
    b = np.array([2, 5, 3]).astype(dtype) if dtype != "bool" else np.array([True, False, True])
    scalar = True if dtype == "bool" else 3
    t, p = tensorc.tensor(a), torch.tensor(a)
    for other_t, other_p in ((tensorc.tensor(b), torch.tensor(b)), (scalar, scalar)):
        want = getattr(torch, name)(p, other_p)
        assert getattr(tensorc, name)(t, other_t).tolist() == want.tolist()
        o = tensorc.empty(0, dtype=getattr(tensorc, str(want.dtype).split(".")[1]))
        assert getattr(tensorc, name)(t, other_t, out=o) is o and o.tolist() == want.tolist()
        x = t.clone()
        getattr(x, name + "_")(other_t)
        assert x.tolist() == want.tolist()


@pytest.mark.parametrize("name", ["fmod", "remainder"])
def test_integer_zero_divisors_are_refused_before_anything_is_written(name):
    x = tensorc.tensor([5, 7, 9])
    version = x._version
    with pytest.raises(ValueError, match=name + "_: integer division by zero"):
        getattr(x, name + "_")(tensorc.tensor([1, 0, 2]))
    assert x.tolist() == [5, 7, 9] and x._version == version
    o = tensorc.empty(0, dtype=tensorc.int64)
    with pytest.raises(ValueError, match="integer division by zero"):
        getattr(tensorc, name)(x, 0, out=o)
    assert o.shape == (0,)  # not resized
    with pytest.raises(ValueError, match="integer division by zero"):
        getattr(tensorc, name)(x, tensorc.tensor([False]))  # a bool zero divides too
    # Floating results divide by zero as IEEE says.
    assert math.isnan(getattr(tensorc, name)(tensorc.tensor([1.0]), 0).item())
    if name == "remainder":
        with pytest.raises(ValueError, match="integer division by zero"):
            tensorc.remainder(4, tensorc.tensor([2, 0]))


def test_bitwise_ops_refuse_floats_before_planning():
    x = tensorc.tensor([1, 2, 3])
    o = tensorc.empty(0, dtype=tensorc.int64)
    with pytest.raises(TypeError, match="bitwise_and: expected integral or bool tensors, got float32"):
        tensorc.bitwise_and(x, tensorc.tensor([1.5, 2.0, 3.0]), out=o)
    assert o.shape == (0,)
    with pytest.raises(TypeError, match="bitwise_or_: expected integral or bool"):
        x.bitwise_or_(1.5)
    assert x.tolist() == [1, 2, 3]
    with pytest.raises(TypeError, match="bitwise_xor"):
        tensorc.bitwise_xor(2.5, x)
    with pytest.raises(TypeError):
        tensorc.fmod(tensorc.tensor([True]), tensorc.tensor([True]))


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
@pytest.mark.parametrize("name", ["fmod", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor"])
def test_modulo_and_bitwise_on_cuda_match_the_cpu(name):
    dtypes = ["int64", "int8", "uint8", "bool"] if name.startswith("bitwise") else ["int64", "int32", "float32",
                                                                                        "float64", "float16"]
    rng = np.random.default_rng(5)
    for dtype in dtypes:
        a = rng.integers(-20, 20, (4, 5)).astype(dtype)
        b = rng.integers(1, 7, (5,)).astype(dtype) * (1 if dtype in ("uint8", "bool") else -1) ** np.arange(5)
        b = b.astype(dtype)
        t, u = tensorc.tensor(a), tensorc.tensor(b)
        want = getattr(tensorc, name)(t, u)
        got = getattr(tensorc, name)(t.cuda(), u.cuda())
        assert got.is_cuda and got.dtype == want.dtype
        np.testing.assert_allclose(got.cpu().numpy().astype(np.float64), want.numpy().astype(np.float64),
                                   rtol=1e-3, atol=1e-3)
        x = t.cuda().t().contiguous().t()  # a non-contiguous destination, in place with a number
        getattr(x, name + "_")(True if dtype == "bool" else 3)
        assert x.cpu().tolist() == getattr(tensorc, name)(t, True if dtype == "bool" else 3).tolist()
    if not name.startswith("bitwise"):
        x = tensorc.tensor([5, 7], device="cuda")
        with pytest.raises(ValueError, match="integer division by zero"):
            getattr(x, name + "_")(tensorc.tensor([1, 0], device="cuda"))
        assert x.cpu().tolist() == [5, 7]


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_random_fills_draw_the_cpus_numbers_and_gelu_matches():
    for dtype in (tensorc.float32, tensorc.float64, tensorc.float16):
        tensorc.manual_seed(21)
        on_gpu = tensorc.rand(17, 33, dtype=dtype, device="cuda")
        tensorc.manual_seed(21)
        assert on_gpu.cpu().tolist() == tensorc.rand(17, 33, dtype=dtype).tolist()
        tensorc.manual_seed(22)
        on_gpu = tensorc.randn(17, 33, dtype=dtype, device="cuda")
        tensorc.manual_seed(22)
        np.testing.assert_allclose(on_gpu.cpu().double().numpy(), tensorc.randn(17, 33, dtype=dtype).double().numpy(),
                                   rtol=1e-3, atol=1e-3)
    x = tensorc.randn(64, 64)
    tensorc.manual_seed(5)
    dropped = tensorc.nn.functional.dropout(x.cuda(), 0.25, training=True)
    tensorc.manual_seed(5)
    np.testing.assert_allclose(dropped.cpu().numpy(), tensorc.nn.functional.dropout(x, 0.25, training=True).numpy())
    for approximate in ("none", "tanh"):
        xc = x.clone().requires_grad_()
        xg = x.cuda().requires_grad_()
        yc = tensorc.nn.functional.gelu(xc, approximate=approximate)
        yg = tensorc.nn.functional.gelu(xg, approximate=approximate)
        np.testing.assert_allclose(yg.detach().cpu().numpy(), yc.detach().numpy(), rtol=1e-5, atol=1e-6)
        yc.sum().backward()
        yg.sum().backward()
        np.testing.assert_allclose(xg.grad.cpu().numpy(), xc.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_factories_clamp_and_layer_norm_match_the_cpu():
    for args, kwargs in (((10,), {}), ((2, 11, 3), {}), ((0.5, 3.0, 0.25), {}), ((5, -7, -2), {}),
                         ((0, 1, 0.1), {"dtype": tensorc.float64}), ((3,), {"dtype": tensorc.float16})):
        assert tensorc.arange(*args, device="cuda", **kwargs).cpu().tolist() == tensorc.arange(*args,
                                                                                               **kwargs).tolist()
    for steps in (0, 1, 2, 7, 100):
        for dtype in (tensorc.float32, tensorc.float64, tensorc.int64):
            assert (tensorc.linspace(-3, 5, steps, dtype=dtype, device="cuda").cpu().tolist()
                    == tensorc.linspace(-3, 5, steps, dtype=dtype).tolist())
    assert tensorc.eye(3, 4, device="cuda").cpu().tolist() == tensorc.eye(3, 4).tolist()
    x = tensorc.tensor([[1.5, float("nan"), -3.0], [0.25, 7.0, -0.5]])
    for lo, hi in ((0.0, 1.0), (None, 2), (-1, None)):
        np.testing.assert_array_equal(tensorc.clamp(x.cuda(), lo, hi).cpu().numpy(), tensorc.clamp(x, lo, hi).numpy())
    ln_x = tensorc.randn(4, 6, 8)
    ln = tensorc.nn.LayerNorm(8)
    want = ln(ln_x)
    got = ln.cuda()(ln_x.cuda())
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_division_modes_pow_atan2_and_small_ops_match_the_cpu():
    rng = np.random.default_rng(9)
    for dtype in ("int64", "int8", "uint8", "float32", "float64", "float16"):
        a = rng.integers(-30, 30, (4, 5)).astype(dtype)
        b = (rng.integers(1, 7, (5,)) * (1 if dtype == "uint8" else -1) ** np.arange(5)).astype(dtype)
        t, u = tensorc.tensor(a), tensorc.tensor(b)
        calls = [lambda x, y: tensorc.div(x, y, rounding_mode="trunc"),
                 lambda x, y: tensorc.div(x, y, rounding_mode="floor"),
                 lambda x, y: tensorc.div(x, 3, rounding_mode="floor"), tensorc.floor_divide,
                 lambda x, y: tensorc.rsub(x, y, alpha=2), lambda x, y: tensorc.rsub(x, 5),
                 lambda x, y: tensorc.remainder(7, y), lambda x, y: tensorc.pow(x, 2),
                 lambda x, y: tensorc.pow(x.abs(), y.abs()), lambda x, y: tensorc.pow(2, y.abs())]
        if not dtype.startswith("float"):
            calls += [lambda x, y: tensorc.bitwise_and(6, x), lambda x, y: tensorc.bitwise_xor(-1, y),
                      tensorc.bitwise_not]
        else:
            calls += [tensorc.atan2, lambda x, y: tensorc.pow(x, 0.5), lambda x, y: tensorc.pow(x, -2),
                      lambda x, y: tensorc.lerp(x, y, 0.3), lambda x, y: tensorc.lerp(x, y, 0.8),
                      lambda x, y: tensorc.round(x / 7, decimals=2)]
        for call in calls:
            want = call(t, u) if call is not tensorc.bitwise_not else call(t)
            got = call(t.cuda(), u.cuda()) if call is not tensorc.bitwise_not else call(t.cuda())
            assert got.is_cuda and got.dtype == want.dtype
            np.testing.assert_allclose(got.cpu().numpy().astype(np.float64), want.numpy().astype(np.float64),
                                       rtol=2e-3, atol=1e-6, equal_nan=True)
    x = tensorc.tensor([5, 7], device="cuda")
    with pytest.raises(ValueError, match="integer division by zero"):
        tensorc.div(x, tensorc.tensor([1, 0], device="cuda"), rounding_mode="floor")
    with pytest.raises(ValueError, match="negative integer powers"):
        tensorc.pow(x, -1)
    flags = tensorc.tensor([True, False], device="cuda")
    assert tensorc.div(flags, tensorc.tensor([True, True], device="cuda")).cpu().tolist() == [1.0, 0.0]
    with pytest.raises(TypeError, match="unsupported dtype bool"):
        tensorc.div(flags, flags, rounding_mode="floor")
    y = tensorc.zeros(2, 3, device="cuda")
    y.fill_(tensorc.tensor(2.5, device="cuda"))
    assert y.cpu().tolist() == [[2.5] * 3] * 2
    y.fill_(tensorc.tensor(-1))
    assert y.cpu().tolist() == [[-1.0] * 3] * 2
    assert tensorc.scalar_tensor(3, device="cuda").cpu().item() == 3.0
    for draw in (lambda **kw: tensorc.randint(3, 50, (4, 7), **kw), lambda **kw: tensorc.randperm(40, **kw),
                 lambda **kw: tensorc.randint(-2**40, 2**41, (3, 5), **kw),  # two stream words per element
                 lambda **kw: tensorc.randint(0, 2, (9,), dtype=tensorc.bool, **kw),
                 lambda **kw: tensorc.randint(-2**30, 2**30, (9,), dtype=tensorc.bfloat16, **kw),  # via float
                 lambda **kw: tensorc.bernoulli(tensorc.full((5, 6), 0.3, **kw)),
                 lambda **kw: tensorc.bernoulli(tensorc.rand(6, 4, dtype=tensorc.float64, **kw).t())):
        tensorc.manual_seed(13)
        on_gpu = draw(device="cuda")
        tensorc.manual_seed(13)
        assert on_gpu.is_cuda and on_gpu.cpu().tolist() == draw().tolist()
    with pytest.raises(tensorc.InvalidArgumentError, match="at element 1"):
        tensorc.bernoulli(tensorc.tensor([0.5, 1.5], device="cuda"))


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_scatter_index_add_and_embedding_backward_match_the_cpu():
    rng = np.random.default_rng(11)
    for dtype in ("float32", "float64", "float16", "int64", "int32", "int8", "uint8"):
        self_ = tensorc.tensor(rng.integers(-5, 5, (4, 6)).astype(dtype))
        src = tensorc.tensor(rng.integers(-5, 5, (4, 6)).astype(dtype))
        perm = tensorc.tensor(np.stack([rng.permutation(6) for _ in range(4)]))  # no repeats along dim 1
        repeated = tensorc.tensor(rng.integers(0, 6, (4, 6)))
        rows = tensorc.tensor([3, 0, 3, 1])
        cases = [lambda s, x, p, r, i: tensorc.scatter(s, 1, p, x),
                 lambda s, x, p, r, i: tensorc.scatter(s, 1, p[:, :3], 7),
                 lambda s, x, p, r, i: tensorc.scatter_add(s, 1, r, x),
                 lambda s, x, p, r, i: tensorc.index_add(s, 0, i, x, alpha=2),
                 lambda s, x, p, r, i: tensorc.index_copy(s, 0, i[1:3], x[:2])]
        for case in cases:
            want = case(self_, src, perm, repeated, rows)
            got = case(self_.cuda(), src.cuda(), perm.cuda(), repeated.cuda(), rows.cuda())
            assert got.is_cuda and got.dtype == want.dtype
            np.testing.assert_allclose(got.cpu().numpy().astype(np.float64), want.numpy().astype(np.float64),
                                       rtol=1e-3, atol=1e-3)
    flags = tensorc.tensor([True, False, False])
    assert tensorc.scatter_add(flags.cuda(), 0, tensorc.tensor([1, 1], device="cuda"),
                               tensorc.tensor([True, False], device="cuda")).cpu().tolist() == [True, True, False]
    with pytest.raises(IndexError):
        tensorc.scatter(self_.cuda(), 1, tensorc.tensor([[6]], device="cuda"), 1)
    emb = tensorc.nn.Embedding(10, 4, padding_idx=0)
    ids = tensorc.tensor([[1, 0, 3], [3, 3, 9]])
    emb(ids).pow(2).sum().backward()
    want = emb.weight.grad.clone()
    emb.weight.grad = None
    emb.cuda()
    emb(ids.cuda()).pow(2).sum().backward()
    np.testing.assert_allclose(emb.weight.grad.cpu().numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_cumsum_and_nonzero_match_the_cpu():
    rng = np.random.default_rng(12)
    for shape, dim in (((5,), 0), ((3, 40), 1), ((40, 3), 0), ((2, 1000, 3), 1), ((7, 2, 5), -1), ((0, 4), 1)):
        for dtype in ("float32", "float64", "float16", "int32", "uint8", "bool"):
            x = tensorc.tensor((rng.standard_normal(shape) * 3).astype(dtype) if dtype != "bool"
                               else rng.integers(0, 2, shape).astype(bool))
            want, got = tensorc.cumsum(x, dim), tensorc.cumsum(x.cuda(), dim)
            assert got.is_cuda and got.dtype == want.dtype
            np.testing.assert_allclose(got.cpu().numpy().astype(np.float64), want.numpy().astype(np.float64),
                                       rtol=2e-3, atol=2e-3)
            assert tensorc.nonzero(x.cuda()).cpu().tolist() == tensorc.nonzero(x).tolist()
    assert tensorc.cumsum(tensorc.ones(3, device="cuda"), 0, dtype=tensorc.float64).dtype == tensorc.float64
    mask = tensorc.tensor([[True, False], [False, True]], device="cuda")
    y = tensorc.arange(4.0, device="cuda").reshape(2, 2)
    assert y[mask].cpu().tolist() == [0.0, 3.0]


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_sort_and_topk_match_the_cpu():
    rng = np.random.default_rng(13)
    base = rng.integers(-4, 4, (3, 7, 5)).astype(np.float64)  # many ties
    base[0, 1, 2], base[1, 3, 0], base[2, 0, 4] = np.nan, -0.0, np.nan
    for dtype in ("float32", "float64", "float16", "bfloat16", "int64", "int8", "bool"):
        x = tensorc.tensor(base).to(getattr(tensorc, dtype)) if dtype != "bool" else tensorc.tensor(base > 0)
        for dim in (0, 1, -1):
            for descending in (False, True):
                want, got = tensorc.sort(x, dim, descending), tensorc.sort(x.cuda(), dim, descending)
                assert got[1].cpu().tolist() == want[1].tolist()
                np.testing.assert_array_equal(got[0].cpu().double().numpy(), want[0].double().numpy())
            for k in (0, 1, 3):
                for largest in (True, False):
                    want, got = tensorc.topk(x, k, dim, largest), tensorc.topk(x.cuda(), k, dim, largest)
                    assert got[1].cpu().tolist() == want[1].tolist()
    assert tensorc.argsort(tensorc.tensor([3.0, 1.0, 2.0], device="cuda")).cpu().tolist() == [1, 2, 0]
    with pytest.raises(IndexError):
        tensorc.topk(tensorc.ones(3, device="cuda"), 4)


@pytest.mark.skipif(not tensorc.cuda.is_available(), reason="needs a CUDA device (none present)")
def test_cuda_pin_memory_and_non_blocking_copies():
    x = tensorc.randn(1 << 20)
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned() and p.pin_memory().data_ptr() == p.data_ptr()
    d = p.to("cuda", non_blocking=True)
    del p  # the pinned block outlives the copy
    back = tensorc.empty(1 << 20).pin_memory()
    back.copy_(d, non_blocking=True)
    tensorc.cuda.synchronize()
    assert back.tolist() == x.tolist()
    with pytest.raises(RuntimeError, match="only CPU tensors"):
        d.pin_memory()
