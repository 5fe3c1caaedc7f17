# SPDX-License-Identifier: BSD-3-Clause
"""Python code that once crashed the interpreter (found by review under ASan);
each must now give a result or a clean exception."""
import numbers
import threading

import numpy as np
import pytest

import tensorc
from tensorc import _C


def test_bad_argument_before_an_int_list_is_a_type_error():
    # The int[] buffer's cleanup ran on an uninitialised pointer.
    with pytest.raises(TypeError):
        tensorc.sum("x", dim=(0,))
    with pytest.raises(TypeError):
        _C.tc_sum_dim_IntList("x", (0,), None, None)
    with pytest.raises(TypeError):
        tensorc.permute(tensorc.ones(2, 2), list(range(20)) + ["x"])


class _Seq:
    """A sequence (not a list): converting it makes a temporary that holds the only references."""

    def __len__(self):
        return 3

    def __getitem__(self, i):
        if i >= 3:
            raise IndexError
        return tensorc.ones(4) * (i + 1)


def test_tensor_lists_from_any_sequence_keep_their_tensors():
    assert tensorc.cat(_Seq()).tolist() == [1.0] * 4 + [2.0] * 4 + [3.0] * 4
    assert tensorc.stack(_Seq()).sum(1).tolist() == [4.0, 8.0, 12.0]


class _Swapper:
    """An int whose __index__ replaces a tensor's memory while the call reads its arguments."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __index__(self):
        self.tensor.data = tensorc.zeros(3)
        return 0


numbers.Integral.register(_Swapper)


def test_an_argument_replaced_during_the_call_stays_alive():
    t = tensorc.ones(64, 64)
    result = tensorc.sum(t, dim=_Swapper(t))
    assert result.tolist() == [64.0] * 64  # the call used the tensor it was given
    assert t.shape == (3,)


def test_replacing_data_while_other_threads_compute():
    p = tensorc.randn(128, 128)
    stop = threading.Event()

    def swap():
        while not stop.is_set():
            p.data = tensorc.randn(128, 128)

    worker = threading.Thread(target=swap)
    worker.start()
    try:
        for _ in range(200):
            assert (p @ p).shape == (128, 128)
            assert (p + p).shape == (128, 128)
            assert tensorc.mm(p, p).shape == (128, 128)
    finally:
        stop.set()
        worker.join()


class _MutatingMeta(type):
    victim = []

    def __hash__(cls):
        return hash(int)

    def __eq__(cls, other):
        _MutatingMeta.victim.clear()
        return False


class _RaisingMeta(type):
    def __hash__(cls):
        raise RuntimeError("no hash for you")


def test_override_precheck_survives_odd_metaclasses():
    odd = _MutatingMeta("Odd", (), {})()
    items = [tensorc.ones(1), odd, odd, odd]
    _MutatingMeta.victim = items
    assert _C.needs_override_check(items) in (True, False)
    raising = _RaisingMeta("Raising", (), {})()
    with pytest.raises(RuntimeError, match="no hash for you"):
        _C.needs_override_check([raising])


def test_buffer_shapes_that_overflow_are_value_errors():
    with pytest.raises(ValueError, match="overflows"):
        _C.tensor_from_buffer(np.zeros(4, np.float32), tensorc.float32._code, (2**62, 2**62))
    with pytest.raises(ValueError, match="negative|overflows"):
        _C.tensor_from_buffer(np.zeros(4, np.float32), tensorc.float32._code, (-1, -16))


def test_out_of_range_codes_are_overflow_errors():
    with pytest.raises(OverflowError, match="dtype"):
        _C.tc_zeros((2,), 2**32 + 6, None)
    with pytest.raises(OverflowError, match="device"):
        _C.tc_zeros((2,), None, (2**40, 0))


def test_a_bare_tensorbase_in_an_operator():
    bare = _C.TensorBase()
    with pytest.raises((TypeError, ValueError)):
        bare + 1
    with pytest.raises((TypeError, ValueError)):
        1 - bare
