# SPDX-License-Identifier: BSD-3-Clause
"""NumPy and DLPack interop: zero-copy sharing both ways, lifetimes, bad input.

NumPy 1.24 and Debian's torch 1.13 are the peers: every exchange is checked
by writing through one side and reading through the other."""
import ctypes
import os
import subprocess
import sys
import gc
import warnings
import weakref

import numpy as np
import pytest
import torch
import torch.utils.dlpack
from hypothesis import given, settings, strategies as st

import tensorc

NUMPY_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64]
TENSORC_OF = {np.dtype(d).name: getattr(tensorc, np.dtype(d).name) for d in NUMPY_DTYPES}


def sample(dtype, shape=(2, 3)):
    n = int(np.prod(shape))
    if np.dtype(dtype) == np.bool_:
        return (np.arange(n) % 3 == 0).reshape(shape)
    return np.arange(1, n + 1).astype(dtype).reshape(shape)


def address(array):
    return array.__array_interface__["data"][0]


def collected(ref):
    gc.collect()
    return ref() is None


def make_capsule(name):
    """A PyCapsule that is not a DLPack one, made with the C API."""
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(ctypes.c_void_p(id(object)), name, None)


# ---- from_numpy ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_from_numpy_shares_memory_both_ways(dtype):
    a = sample(dtype)
    t = tensorc.from_numpy(a)
    assert t.dtype is TENSORC_OF[np.dtype(dtype).name]
    assert t.shape == a.shape and t.data_ptr() == address(a)
    assert t.tolist() == a.tolist()
    a[0, 1] = 0
    assert t.tolist() == a.tolist()
    t.fill_(1)  # a write through the tensor
    assert (a == 1).all()


def test_from_numpy_non_contiguous_views():
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    for view in (base[:, ::2], base.T, base[1:3, 1:5], base[::3, 5:], base[None, :, 2]):
        t = tensorc.from_numpy(view)
        assert t.shape == view.shape
        # A size-1 dimension's stride is never used: tensorc may store another one.
        assert [s for s, n in zip(t.stride(), t.shape) if n > 1] == [
            s // 8 for s, n in zip(view.strides, view.shape) if n > 1]
        assert t.tolist() == view.tolist()
    view = base[:, ::2]
    tensorc.from_numpy(view).fill_(-1)
    assert (base[:, ::2] == -1).all() and (base[:, 1::2] >= 0).all()


def test_from_numpy_zero_dim_and_empty():
    s = np.array(2.5, dtype=np.float32)
    t = tensorc.from_numpy(s)
    assert t.shape == () and t.item() == 2.5
    t.fill_(4)
    assert s == 4
    e = tensorc.from_numpy(np.zeros((0, 3), dtype=np.int64))
    assert e.shape == (0, 3) and e.dtype is tensorc.int64 and e.tolist() == []


def test_from_numpy_ignores_strides_of_length_one_dims():
    # a[::-1] of one element has a negative stride that is never stepped over.
    t = tensorc.from_numpy(np.arange(3.0)[2:1:-1])
    assert t.tolist() == [2.0]


def test_from_numpy_broadcast_array_has_zero_strides_and_warns_read_only():
    a = np.broadcast_to(np.arange(3.0), (2, 3))
    with pytest.warns(UserWarning, match="not writable"):
        t = tensorc.from_numpy(a)
    assert t.stride() == (0, 1) and t.tolist() == a.tolist()


def test_from_numpy_read_only_array_is_shared_with_a_warning():
    a = np.arange(4, dtype=np.int32)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="from_numpy: the given NumPy array is not writable"):
        t = tensorc.from_numpy(a)
    assert t.data_ptr() == address(a)


def test_from_numpy_writable_array_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tensorc.from_numpy(np.ones(2))


def test_as_tensor_shares_numpy_memory():
    a = np.ones(3, dtype=np.float32)
    t = tensorc.as_tensor(a)
    a[1] = 7
    assert t.tolist() == [1.0, 7.0, 1.0]


@pytest.mark.parametrize("bad, error, message", [
    (np.array([1, "a"], dtype=object), TypeError, r"from_numpy: can't convert a NumPy array of dtype object"),
    (np.ones(2, dtype=np.complex64), TypeError, r"from_numpy: can't convert a NumPy array of dtype complex64"),
    (np.array(["ab"]), TypeError, r"from_numpy: can't convert a NumPy array of dtype <U2"),
    (np.ones(2, dtype=np.uint16), TypeError, r"supported dtypes are bool, uint8"),
    ([1.0, 2.0], TypeError, r"from_numpy: argument 'ndarray' must be a numpy.ndarray, not list"),
    (tensorc.ones(2), TypeError, r"must be a numpy.ndarray, not Tensor"),
    (np.arange(4.0)[::-1], ValueError, r"from_numpy: argument 'ndarray' has a negative stride.*array.copy\(\)"),
    (np.arange(6.0).reshape(2, 3)[:, ::-2], ValueError, r"negative stride"),
    (np.lib.stride_tricks.as_strided(np.zeros(10, np.int32), shape=(3,), strides=(6,)), ValueError,
     r"from_numpy: argument 'ndarray' has a stride of 6 bytes, not a multiple of the element size \(4 bytes\)"),
    (np.ones(3, dtype=">f4"), ValueError, r"from_numpy: argument 'ndarray' has a byte order other than"),
    (np.frombuffer(bytearray(13), dtype=np.int32, offset=1), ValueError, r"not aligned"),
])
def test_from_numpy_bad_input(bad, error, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # frombuffer's array is read-only: the error comes first anyway
        with pytest.raises(error, match=message):
            tensorc.from_numpy(bad)


# ---- numpy() and np.asarray ------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_numpy_shares_memory_both_ways(dtype):
    t = tensorc.tensor(sample(dtype))
    a = t.numpy()
    assert a.dtype == np.dtype(dtype) and a.shape == (2, 3)
    assert address(a) == t.data_ptr() and a.base is t
    a[1, 2] = 0
    assert t.tolist() == a.tolist()
    t.fill_(1)
    assert (a == 1).all()


def test_asarray_matches_numpy_and_shares():
    t = tensorc.arange(6.0).reshape(2, 3)
    a = np.asarray(t)
    assert a.dtype == np.float32 and address(a) == t.data_ptr()
    a[0, 0] = 10
    assert t.tolist()[0][0] == 10.0
    assert np.array(t).tolist() == t.tolist()
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert t.__array__().base is t


def test_asarray_of_bool_tensor():
    t = tensorc.tensor([True, False, True])
    a = np.asarray(t)
    assert a.dtype == np.bool_ and a.tolist() == [True, False, True]
    a[1] = True
    assert t.tolist() == [True, True, True]


@pytest.mark.parametrize("make", [
    lambda t: t.t(),
    lambda t: t.narrow(1, 1, 2),
    lambda t: t.select(1, 2),
    lambda t: t.transpose(0, 1).narrow(0, 0, 3),
    lambda t: t.as_strided((2, 2), (1, 4), 1),
    lambda t: t.flip(0).t(),
], ids=["t", "narrow", "select", "transpose_narrow", "as_strided_offset", "flip_t"])
def test_asarray_of_non_contiguous_tensor(make):
    base = tensorc.arange(12, dtype=tensorc.int64).reshape(3, 4)
    view = make(base)
    a = np.asarray(view)
    assert a.tolist() == view.tolist()
    assert a.strides == tuple(s * 8 for s in view.stride())
    assert address(a) == view.data_ptr()


def test_numpy_of_zero_dim_and_empty_tensors():
    z = tensorc.tensor(3.5)
    a = z.numpy()
    assert a.shape == () and a == 3.5
    a[()] = 1.5
    assert z.item() == 1.5
    e = tensorc.zeros(0, 4, dtype=tensorc.int32)
    ea = e.numpy()
    assert ea.shape == (0, 4) and ea.dtype == np.int32


def test_numpy_refuses_tensors_that_require_grad():
    t = tensorc.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Tensor.numpy: can't call numpy\(\) on a Tensor that requires grad\. "
                                           r"Use tensor.detach\(\).numpy\(\) instead"):
        t.numpy()
    with pytest.raises(RuntimeError, match=r"requires grad"):
        np.asarray(t)
    assert t.detach().numpy().tolist() == [1.0, 1.0]
    assert t.numpy(force=True).tolist() == [1.0, 1.0]


def test_numpy_of_bfloat16_is_a_type_error():
    t = tensorc.ones(2, dtype=tensorc.bfloat16)
    with pytest.raises(TypeError, match=r"Tensor.numpy: NumPy has no dtype for tensorc.bfloat16"):
        t.numpy()
    with pytest.raises(TypeError, match=r"NumPy has no dtype for tensorc.bfloat16"):
        np.asarray(t)
    assert t.float().numpy().tolist() == [1.0, 1.0]


def test_round_trip_numpy_tensor_numpy_shares_one_buffer():
    a = np.arange(5, dtype=np.int16)
    b = tensorc.from_numpy(a).numpy()
    b[4] = 99
    assert a[4] == 99 and address(a) == address(b)


def test_tolist_matches_numpy():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    assert tensorc.tensor(a).t().tolist() == a.T.tolist()
    assert tensorc.tensor(True).tolist() is True


# ---- lifetimes ---------------------------------------------------------------------------
def test_array_deleted_while_tensor_lives():
    a = np.arange(1000, dtype=np.float64)
    ref = weakref.ref(a)
    t = tensorc.from_numpy(a)
    del a
    assert not collected(ref)  # the tensor keeps the array alive
    assert t.sum().item() == sum(range(1000))
    view = t.narrow(0, 10, 5)
    del t
    assert not collected(ref)  # so does a view of the tensor
    assert view.tolist() == [10.0, 11.0, 12.0, 13.0, 14.0]
    del view
    assert collected(ref)


def test_from_numpy_keeps_numpy_from_resizing_the_array():
    a = np.zeros(4)
    t = tensorc.from_numpy(a)
    with pytest.raises(ValueError, match="cannot resize"):
        a.resize(100)
    del t
    gc.collect()
    a.resize(8)
    assert a.shape == (8,)


def test_tensor_deleted_while_numpy_view_lives():
    t = tensorc.arange(100.0)
    ref = weakref.ref(t)
    a = t.numpy()
    del t
    assert not collected(ref)
    assert a.sum() == sum(range(100))
    del a
    assert collected(ref)


def test_numpy_tensor_numpy_chain_keeps_the_first_array_alive():
    a = np.arange(10, dtype=np.int32)
    ref = weakref.ref(a)
    b = tensorc.from_numpy(a).numpy()
    del a
    assert not collected(ref)
    assert b.tolist() == list(range(10))
    del b
    assert collected(ref)


def test_from_numpy_tensor_released_by_autograd_after_backward():
    a = np.ones(3, dtype=np.float32)
    ref = weakref.ref(a)
    x = tensorc.from_numpy(a).requires_grad_()
    y = (x * 2).sum()
    del a, x
    y.backward()
    assert not collected(ref)
    del y
    assert collected(ref)


# ---- DLPack: tensorc -> peers ---------------------------------------------------------------
DLPACK_DTYPES = [np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64]


def test_dlpack_device():
    assert tensorc.ones(1).__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("dtype", DLPACK_DTYPES, ids=lambda d: np.dtype(d).name)
def test_numpy_from_dlpack_shares_memory(dtype):
    t = tensorc.tensor(sample(dtype))
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(dtype) and address(a) == t.data_ptr()
    t.fill_(3)  # NumPy 1.24 marks DLPack imports read-only: write through the tensor
    assert (a == 3).all()


@pytest.mark.parametrize("dtype", DLPACK_DTYPES, ids=lambda d: np.dtype(d).name)
def test_torch_from_dlpack_shares_memory(dtype):
    t = tensorc.tensor(sample(dtype))
    for tt in (torch.from_dlpack(t), torch.utils.dlpack.from_dlpack(t.__dlpack__())):
        assert tt.data_ptr() == t.data_ptr() and tt.tolist() == t.tolist()
        assert str(tt.dtype) == "torch." + np.dtype(dtype).name
        tt.fill_(2)
        assert t.tolist() == [[2, 2, 2], [2, 2, 2]]
        t.fill_(5)
        assert (tt == 5).all()


def test_bfloat16_goes_to_torch():
    t = tensorc.ones(3, dtype=tensorc.bfloat16)
    tt = torch.from_dlpack(t)
    assert tt.dtype == torch.bfloat16 and tt.data_ptr() == t.data_ptr()


def test_dlpack_non_contiguous_zero_dim_and_empty_to_peers():
    base = tensorc.arange(12.0).reshape(3, 4)
    view = base.t().narrow(0, 1, 2)
    a = np.from_dlpack(view)
    tt = torch.from_dlpack(view)
    assert a.tolist() == view.tolist() == tt.tolist()
    assert a.strides == tuple(4 * s for s in view.stride()) and tt.stride() == view.stride()
    assert address(a) == view.data_ptr() == tt.data_ptr()
    z = tensorc.tensor(7.0)
    assert np.from_dlpack(z).shape == () and torch.from_dlpack(z).item() == 7.0
    e = tensorc.zeros(0, 3)
    assert np.from_dlpack(e).shape == (0, 3) and torch.from_dlpack(e).shape == (0, 3)


def test_bool_dlpack_round_trips_in_tensorc_and_the_peers_refuse_it():
    t = tensorc.tensor([True, False, True])
    u = tensorc.from_dlpack(t)
    assert u.dtype is tensorc.bool and u.tolist() == [True, False, True] and u.data_ptr() == t.data_ptr()
    # The peers on these machines predate DLPack's bool (kDLBool, code 6): both refuse it.
    with pytest.raises(RuntimeError, match="Unsupported dtype"):
        np.from_dlpack(t)
    with pytest.raises(RuntimeError, match="Unsupported code 6"):
        torch.from_dlpack(t)
    with pytest.raises(RuntimeError, match="Bool type is not supported by dlpack"):
        tensorc.from_dlpack(torch.tensor([True]))


def test_dlpack_refuses_tensors_that_require_grad():
    t = tensorc.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Tensor.__dlpack__: can't export a tensor that requires grad; "
                                           r"use tensor.detach\(\)"):
        t.__dlpack__()
    assert torch.from_dlpack(t.detach()).tolist() == [1.0, 1.0]


def test_dlpack_stream_argument():
    t = tensorc.ones(2)
    assert tensorc.from_dlpack(t.__dlpack__(stream=None)).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match=r"Tensor.__dlpack__: argument 'stream' must be an int or None, not str"):
        t.__dlpack__(stream="default")


# ---- DLPack: peers -> tensorc -----------------------------------------------------------------
@pytest.mark.parametrize("dtype", DLPACK_DTYPES, ids=lambda d: np.dtype(d).name)
def test_from_dlpack_numpy_shares_memory(dtype):
    a = sample(dtype)
    for t in (tensorc.from_dlpack(a), tensorc.from_dlpack(a.__dlpack__())):
        assert t.dtype is TENSORC_OF[np.dtype(dtype).name] and t.data_ptr() == address(a)
        a[0, 0] = 9
        assert t.tolist() == a.tolist()
        t.fill_(4)
        assert (a == 4).all()
        a[...] = sample(dtype)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
                                   torch.bfloat16, torch.float32, torch.float64], ids=str)
def test_from_dlpack_torch_shares_memory(dtype):
    tt = torch.arange(6).reshape(2, 3).to(dtype)
    name = str(dtype).split(".")[1]
    for t in (tensorc.from_dlpack(tt), tensorc.from_dlpack(torch.utils.dlpack.to_dlpack(tt))):
        assert t.dtype is getattr(tensorc, name) and t.data_ptr() == tt.data_ptr()
        tt[1, 1] = 9
        assert t.float().tolist() == tt.float().tolist()
        t.fill_(1)
        assert (tt == 1).all()
        tt.copy_(torch.arange(6).reshape(2, 3).to(dtype))


def test_from_dlpack_non_contiguous_zero_dim_and_empty_from_peers():
    a = np.arange(24, dtype=np.int64).reshape(4, 6)[1:, ::2]
    t = tensorc.from_dlpack(a)
    assert t.tolist() == a.tolist() and t.stride() == (6, 2) and t.data_ptr() == address(a)
    tt = torch.arange(12.0).reshape(3, 4).t()[1:]
    u = tensorc.from_dlpack(tt)
    assert u.tolist() == tt.tolist() and u.stride() == tt.stride() and u.data_ptr() == tt.data_ptr()
    assert tensorc.from_dlpack(np.array(3.0)).shape == ()
    assert tensorc.from_dlpack(torch.tensor(3)).item() == 3
    assert tensorc.from_dlpack(np.zeros((2, 0))).shape == (2, 0)
    assert tensorc.from_dlpack(torch.zeros(0, 5)).shape == (0, 5)


def test_from_dlpack_of_tensorc_tensor_shares():
    t = tensorc.arange(4.0)
    u = tensorc.from_dlpack(t)
    u.fill_(8)
    assert t.tolist() == [8.0] * 4


# ---- capsules ---------------------------------------------------------------------------------
def test_capsule_is_consumed_once():
    capsule = tensorc.arange(3.0).__dlpack__()
    assert tensorc.from_dlpack(capsule).tolist() == [0.0, 1.0, 2.0]
    assert "used_dltensor" in repr(capsule)
    with pytest.raises(ValueError, match=r"from_dlpack: argument 'ext_tensor' is a DLPack capsule that was "
                                         r"already consumed"):
        tensorc.from_dlpack(capsule)


def test_capsule_consumed_by_torch_cannot_be_reused():
    capsule = tensorc.arange(3.0).__dlpack__()
    torch.utils.dlpack.from_dlpack(capsule)
    assert "used_dltensor" in repr(capsule)
    with pytest.raises(ValueError, match=r"already consumed"):
        tensorc.from_dlpack(capsule)


def test_capsule_consumed_by_tensorc_is_refused_by_torch():
    capsule = torch.arange(3).__dlpack__()
    tensorc.from_dlpack(capsule)
    with pytest.raises(RuntimeError):
        torch.utils.dlpack.from_dlpack(capsule)


def test_wrong_capsule_and_wrong_objects():
    with pytest.raises(TypeError, match=r"from_dlpack: argument 'ext_tensor' is a capsule named 'other', "
                                        r"not a DLPack capsule named 'dltensor'"):
        tensorc.from_dlpack(make_capsule(b"other"))
    with pytest.raises(TypeError, match=r"from_dlpack: argument 'ext_tensor' must have __dlpack__ or be a DLPack "
                                        r"capsule, not list"):
        tensorc.from_dlpack([1, 2])
    with pytest.raises(TypeError, match=r"not NoneType"):
        tensorc.from_dlpack(None)


def test_unconsumed_capsule_releases_the_tensor():
    a = np.arange(8.0)
    ref = weakref.ref(a)
    capsule = tensorc.from_numpy(a).__dlpack__()
    del a
    assert not collected(ref)  # the capsule holds the tensor, which holds the array
    del capsule
    assert collected(ref)


def test_consumed_capsule_ownership_moves_to_the_consumer():
    a = np.arange(8.0)
    ref = weakref.ref(a)
    capsule = tensorc.from_numpy(a).__dlpack__()
    tt = torch.utils.dlpack.from_dlpack(capsule)
    del a, capsule
    assert not collected(ref)
    assert tt.sum().item() == 28.0
    del tt
    assert collected(ref)


def test_numpy_producer_lives_while_tensorc_uses_its_memory():
    a = np.arange(6.0)
    ref = weakref.ref(a)
    t = tensorc.from_dlpack(a.__dlpack__())
    del a
    assert not collected(ref)
    view = t.narrow(0, 2, 2)
    del t
    assert not collected(ref) and view.tolist() == [2.0, 3.0]
    del view
    assert collected(ref)


def test_tensorc_producer_lives_while_numpy_uses_its_memory():
    t = tensorc.arange(5.0)
    ref = weakref.ref(t)
    a = np.from_dlpack(t)
    del t
    gc.collect()
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]  # the capsule's reference keeps the memory alive
    del a
    assert collected(ref)


# ---- properties ----------------------------------------------------------------------------------
@st.composite
def strided_views(draw):
    dtype = draw(st.sampled_from(NUMPY_DTYPES))
    shape = draw(st.lists(st.integers(0, 5), min_size=0, max_size=3))
    base = sample(dtype, tuple(shape)) if shape else np.array(sample(dtype, (1,))[0])
    index = tuple(slice(draw(st.integers(0, 2)), None, draw(st.integers(1, 3))) for _ in shape)
    view = base[index] if shape else base
    if draw(st.booleans()):
        view = view.T
    return view


@settings(max_examples=60, deadline=None, database=None)
@given(strided_views())
def test_property_views_share_through_every_path(view):
    t = tensorc.from_numpy(view)
    assert t.tolist() == view.tolist()
    back = np.asarray(t)
    assert back.dtype == view.dtype and back.shape == view.shape
    np.testing.assert_array_equal(back, view)
    if view.size:
        assert address(back) == address(view) == t.data_ptr()
    if view.dtype != np.bool_:
        np.testing.assert_array_equal(np.from_dlpack(t), view)
        np.testing.assert_array_equal(tensorc.from_dlpack(view).numpy(), view)
        np.testing.assert_array_equal(torch.from_dlpack(t).numpy(), view)


# ---- reference counts and shutdown --------------------------------------------------------------
def test_sharing_leaks_no_reference_to_the_array():
    a = np.arange(4.0)
    before = sys.getrefcount(a)
    for _ in range(100):
        t = tensorc.from_numpy(a)
        b = t.numpy()
        c = tensorc.from_dlpack(a)
        d = tensorc.from_dlpack(a.__dlpack__())
        e = torch.from_dlpack(t)
        f = tensorc.from_numpy(a).__dlpack__()  # never consumed
        del t, b, c, d, e, f
    gc.collect()
    assert sys.getrefcount(a) == before


def test_shared_tensors_alive_at_interpreter_exit():
    # Deleters that run during (or after) finalisation must neither crash nor hang.
    script = (
        "import numpy as np, tensorc, torch\n"
        "a = np.arange(5.0)\n"
        "t = tensorc.from_numpy(a)\n"
        "u = tensorc.from_dlpack(np.arange(3))\n"
        "c = tensorc.from_numpy(np.ones(2)).__dlpack__()\n"
        "n = tensorc.arange(4.0).numpy()\n"
        "w = torch.from_dlpack(tensorc.from_numpy(np.zeros(3)))\n"
        "keep = [t, u, c, n, w]\n"
        "print('ok')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok\n"


# ---- NumPy operands next to tensors ------------------------------------------------------------------
def test_numpy_scalar_on_the_left_defers_to_the_tensor():
    # __array_priority__ (as torch sets it) keeps NumPy from turning the tensor into an array.
    t = tensorc.ones(2)
    r = np.float64(2.0) * t
    assert isinstance(r, tensorc.Tensor) and r.tolist() == [2.0, 2.0]
    assert type(np.float64(2.0) * torch.ones(2)) is torch.Tensor


def test_array_protocol_copy_keyword():
    t = tensorc.arange(3.0)
    assert t.__array__().base is t
    copied = t.__array__(copy=True)
    copied[0] = 5
    assert t.tolist() == [0.0, 1.0, 2.0]
    assert t.__array__(np.float64).dtype == np.float64


# ---- CUDA (runs only where tensorc has a GPU) ------------------------------------------------------
def cuda_tensor():
    try:
        return tensorc.arange(4.0).to("cuda")
    except (tensorc.DeviceError, tensorc.TensorNotImplementedError) as e:
        pytest.skip("no CUDA device for tensorc: {}".format(e))


def test_cuda_tensor_interop():
    t = cuda_tensor()
    with pytest.raises(TypeError, match=r"Tensor.numpy: can't convert a cuda:0 device type tensor to numpy\. "
                                        r"Use Tensor.cpu\(\)"):
        t.numpy()
    assert t.numpy(force=True).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert t.__dlpack_device__() == (2, 0)
    u = tensorc.from_dlpack(t)
    assert u.device == t.device and u.data_ptr() == t.data_ptr()
    u.fill_(1)
    assert t.cpu().tolist() == [1.0] * 4
