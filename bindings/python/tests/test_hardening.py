# SPDX-License-Identifier: BSD-3-Clause
"""Hostile inputs that once corrupted memory, hit undefined behaviour or gave
silently wrong values; each now gives the right result or a clean error."""
import numpy as np
import pytest

import tensorc


def test_empty_strided_whose_bytes_overflow_is_refused():
    # 2 * 2 elements whose extent fits int64 in elements but not in bytes.
    with pytest.raises(MemoryError, match="empty_strided"):
        tensorc.empty_strided((2, 2), (2**62 - 8, 100))


def test_as_strided_reaching_past_its_storage_is_refused():
    x = tensorc.zeros(4)
    with pytest.raises(ValueError, match="out of bounds"):
        x.as_strided((2, 2), (2**62, 1))
    with pytest.raises(ValueError, match="out of bounds"):
        x.as_strided((2,), (1,), 2**62)


def test_inplace_and_out_over_a_transposed_self_raise_and_keep_values():
    x = tensorc.arange(9.0).reshape(3, 3)
    before = x.tolist()
    with pytest.raises(ValueError, match="single memory location"):
        x.add_(x.T)
    with pytest.raises(ValueError, match="single memory location"):
        tensorc.add(x, 1, out=x.T)
    with pytest.raises(ValueError, match="single memory location"):
        x.copy_(x.T)
    with pytest.raises(ValueError, match="single memory location"):
        tensorc.neg(x, out=x.T)
    assert x.tolist() == before
    # The PyTorch spelling of the fix works.
    x.add_(x.T.clone())
    assert x.tolist() == (np.arange(9.0).reshape(3, 3) * 1 + np.arange(9.0).reshape(3, 3).T).tolist()


def test_disjoint_strided_views_of_one_tensor_still_run():
    x = tensorc.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    x[:, 0].add_(x[:, 1])
    assert x.tolist() == [[3.0, 2.0], [7.0, 4.0], [11.0, 6.0]]


def test_repeat_never_returns_a_view():
    x = tensorc.tensor([1.0, 2.0])
    r = x.repeat(1)
    r[0] = 5.0
    assert x.tolist() == [1.0, 2.0]
    r = tensorc.ones(2, 2).repeat(1, 1)
    r.fill_(3.0)
    assert r.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    with pytest.raises((ValueError, MemoryError)):
        tensorc.ones(2).repeat(2**62, 8)


def test_fill_of_an_int_tensor_with_nan_or_overflow_raises_and_keeps_values():
    x = tensorc.tensor([1, 2], dtype=tensorc.int32)
    for bad in (float("nan"), float("inf"), 2.0**40, 2**40):
        with pytest.raises(ValueError, match="without overflow"):
            x.fill_(bad)
    assert x.tolist() == [1, 2]
    x.fill_(7)
    assert x.tolist() == [7, 7]


def test_arange_at_the_int64_limits():
    with pytest.raises((ValueError, MemoryError)):
        tensorc.arange(0, 2**63 - 1, dtype=tensorc.int64)
    with pytest.raises(ValueError):
        tensorc.arange(0, float("inf"), dtype=tensorc.int64)
    with pytest.raises(ValueError):
        tensorc.arange(0, 1e300, dtype=tensorc.int64)
    r = tensorc.arange(2**63 - 4, 2**63 - 1, dtype=tensorc.int64)
    assert r.tolist() == [2**63 - 4, 2**63 - 3, 2**63 - 2]
    r = tensorc.arange(0, 2**63 - 1, 2**62, dtype=tensorc.int64)
    assert r.tolist() == [0, 2**62]


def test_integer_extremes_in_scalars_are_defined():
    x = tensorc.tensor([1, 2], dtype=tensorc.int64)
    # sub with alpha=INT64_MIN negates alpha: wraps as int64 arithmetic does.
    got = tensorc.sub(x, x, alpha=-(2**63)).tolist()
    wrap = lambda v: (v + 2**63) % 2**64 - 2**63  # noqa: E731
    assert got == [wrap(v - v * -(2**63)) for v in (1, 2)]
    # ATen's formula scales by 10^|decimals| (infinite here): 0 * inf is nan.
    assert np.isnan(tensorc.round(tensorc.tensor([1.5]), decimals=-(2**63)).item())


def test_log_softmax_over_a_non_last_dim():
    x = tensorc.randn(3, 4, 5)
    got = tensorc.log_softmax(x, 1).numpy()
    a = x.numpy()
    want = a - np.log(np.exp(a - a.max(1, keepdims=True)).sum(1, keepdims=True)) - a.max(1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_split_and_unbind_of_empty_tensors():
    x = tensorc.empty(0, 3)
    parts = x.split(1, 1)
    assert [tuple(p.shape) for p in parts] == [(0, 1)] * 3
    assert [tuple(p.shape) for p in x.unbind(1)] == [(0,)] * 3


def test_updating_a_parameter_through_data_keeps_its_grad():
    p = tensorc.ones(3, requires_grad=True)
    (p * 2).sum().backward()
    p.data += 1
    assert p.grad is not None and p.grad.tolist() == [2.0, 2.0, 2.0]
    assert p.requires_grad and p.is_leaf and p.tolist() == [2.0, 2.0, 2.0]
    p.data = tensorc.zeros(3)
    assert p.grad.tolist() == [2.0, 2.0, 2.0] and p.requires_grad
    (p * 3).sum().backward()
    assert p.grad.tolist() == [5.0, 5.0, 5.0]


_GEMM_UNDER_RLIMIT = r"""
import resource, sys
import tensorc
tensorc.set_num_threads(1)
a = tensorc.ones(256, 256)
out = tensorc.empty(256, 256)
def vm_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
# Room for small allocations, none for BLIS's first pack buffers.
limit = vm_bytes() + (2 << 20)
resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
try:
    tensorc.mm(a, a, out=out)
    print("no error")
except MemoryError as e:
    print("MemoryError:", e)
# Once BLIS has its buffers, the same limit no longer matters.
resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
tensorc.mm(a, a, out=out)
resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
tensorc.mm(a, a, out=out)
print("warm:", out[0, 0].item())
"""


def test_gemm_under_an_address_space_limit_raises_instead_of_aborting():
    import os
    import subprocess
    import sys
    if "asan" in os.environ.get("LD_PRELOAD", "") or "ASAN_OPTIONS" in os.environ:
        pytest.skip("AddressSanitizer reserves terabytes of address space: RLIMIT_AS cannot be tested under it")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-c", _GEMM_UNDER_RLIMIT], env=env, capture_output=True, text=True,
                       timeout=120)
    # BLIS aborted the process here (SIGABRT) before tensorc reserved its pack memory first.
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    assert "MemoryError: mm.out: gemm: out of memory reserving" in r.stdout, r.stdout
    assert "warm: 256.0" in r.stdout, r.stdout


def test_empty_tensors_with_huge_sizes_reduce_and_copy():
    # Found by fuzzing: merging an empty tensor's other sizes overflowed.
    x = tensorc.empty(0, 2**62, 5)
    assert x.sum().item() == 0.0
    assert x.is_contiguous()
    y = x.as_strided((0, 3, 5), (1, 2**62, 2**61))
    assert y.sum().item() == 0.0 and (y + 1).numel() == 0


def test_integer_arithmetic_wraps_as_pytorch():
    big = tensorc.tensor([2**62, -(2**63)], dtype=tensorc.int64)
    assert (big * 4).tolist() == [0, 0]
    assert (big + big).tolist() == [-(2**63), 0]
    assert tensorc.add(big, big, alpha=3).tolist() == [0, 0]
    s = tensorc.tensor([300], dtype=tensorc.int16)
    assert tensorc.pow(s, 3).tolist() == [np.int16(300) ** np.int16(3)]
