# SPDX-License-Identifier: BSD-3-Clause
"""The raw C ABI from a language with nothing generated for it: Python's
ctypes, with every prototype written by hand below (docs/ffi.md explains the
pattern). It loads libtensorc.so, makes tensors (one over memory Python owns,
with a deleter), calls a generated op, calls an op by name through the boxed
entry point, reads the last error after a bad call, and releases everything:
the deleter proves the last reference went away.

Run: /usr/bin/python3 tests/ffi/ctypes_ffi.py path/to/libtensorc.so
"""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])

# ---- the few declarations a user writes (include/tensorc.h) ---------------
tc_status = ctypes.c_int32
tc_tensor = ctypes.c_void_p  # an opaque handle: one strong reference
TC_OK, TC_ERROR_INVALID_ARGUMENT = 0, 1
TC_FLOAT32, TC_INT64 = 8, 5
TC_VALUE_NONE, TC_VALUE_TENSOR, TC_VALUE_INT, TC_VALUE_SCALAR = 0, 1, 2, 5
TC_SCALAR_INT, TC_SCALAR_FLOAT = 1, 2


class Device(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int32), ("index", ctypes.c_int32)]


class ScalarPayload(ctypes.Union):
    _fields_ = [("b", ctypes.c_bool), ("i", ctypes.c_int64), ("f", ctypes.c_double)]


class Scalar(ctypes.Structure):
    """tc_scalar. Passed by pointer below: ctypes cannot pass unions by value."""
    _fields_ = [("tag", ctypes.c_int32), ("u", ScalarPayload)]


class IntList(ctypes.Structure):
    _fields_ = [("data", ctypes.POINTER(ctypes.c_int64)), ("len", ctypes.c_size_t)]


class ValuePayload(ctypes.Union):
    # The members this test uses plus the largest (16 bytes), so the size
    # and alignment match the C union.
    _fields_ = [("tensor", tc_tensor), ("i", ctypes.c_int64), ("f", ctypes.c_double), ("scalar", Scalar),
                ("ints", IntList)]


class Value(ctypes.Structure):
    """tc_value: a tag and a union, as tc_op_call takes and returns them."""
    _fields_ = [("tag", ctypes.c_int32), ("u", ValuePayload)]


Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)


def proto(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype, f.argtypes = restype, list(argtypes)
    return f


P = ctypes.POINTER
tc_tensor_from_data = proto("tc_tensor_from_data", tc_status, P(tc_tensor), ctypes.c_void_p, ctypes.c_int32,
                            P(ctypes.c_int64), ctypes.c_size_t)
tc_tensor_from_blob = proto("tc_tensor_from_blob", tc_status, P(tc_tensor), ctypes.c_void_p, ctypes.c_int32,
                            P(ctypes.c_int64), P(ctypes.c_int64), ctypes.c_size_t, Device, Deleter, ctypes.c_void_p)
tc_tensor_release = proto("tc_tensor_release", None, tc_tensor)
tc_tensor_copy_to_buffer = proto("tc_tensor_copy_to_buffer", tc_status, ctypes.c_void_p, ctypes.c_size_t, tc_tensor)
tc_tensor_numel = proto("tc_tensor_numel", tc_status, P(ctypes.c_int64), tc_tensor)
# A generated entry: tc_add_Tensor(out, self, other, alpha) (alpha: NULL = default 1).
tc_add_Tensor = proto("tc_add_Tensor", tc_status, P(tc_tensor), tc_tensor, tc_tensor, P(Scalar))
tc_op_call = proto("tc_op_call", tc_status, P(Value), ctypes.c_size_t, P(ctypes.c_size_t), ctypes.c_char_p,
                   P(Value), ctypes.c_size_t)
tc_values_release = proto("tc_values_release", None, P(Value), ctypes.c_size_t)
tc_last_error_code = proto("tc_last_error_code", tc_status)
tc_last_error_message = proto("tc_last_error_message", ctypes.c_char_p)
tc_status_name = proto("tc_status_name", ctypes.c_char_p, tc_status)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def ok(status, what):
    msg = tc_last_error_message().decode() if status != TC_OK else ""
    check(status == TC_OK, f"{what}: {tc_status_name(status).decode()} {msg}")


def floats(t):
    n = ctypes.c_int64()
    ok(tc_tensor_numel(ctypes.byref(n), t), "numel")
    buf = (ctypes.c_float * n.value)()
    ok(tc_tensor_copy_to_buffer(buf, ctypes.sizeof(buf), t), "copy_to_buffer")
    return list(buf)


# ---- tensors: one copied from Python data, one over Python-owned memory ----
shape = (ctypes.c_int64 * 2)(2, 3)
a_data = (ctypes.c_float * 6)(1, 2, 3, 4, 5, 6)
a = tc_tensor()
ok(tc_tensor_from_data(ctypes.byref(a), a_data, TC_FLOAT32, shape, 2), "from_data")

deleted = []
b_data = (ctypes.c_float * 6)(10, 20, 30, 40, 50, 60)


@Deleter
def on_delete(data, user_data):
    deleted.append(data)


b = tc_tensor()
ok(tc_tensor_from_blob(ctypes.byref(b), b_data, TC_FLOAT32, shape, None, 2, Device(1, -1), on_delete, None),
   "from_blob")

# ---- a generated op -----------------------------------------------------
c = tc_tensor()
two = Scalar(TC_SCALAR_INT, ScalarPayload(i=2))
ok(tc_add_Tensor(ctypes.byref(c), a, b, ctypes.byref(two)), "tc_add_Tensor")
check(floats(c) == [21, 42, 63, 84, 105, 126], f"a + 2*b = {floats(c)}")

# ---- any op by name, boxed: sum.dim_IntList(c, dim=[1], keepdim=False) -------
dims = (ctypes.c_int64 * 1)(1)
args = (Value * 3)()
args[0].tag, args[0].u.tensor = TC_VALUE_TENSOR, c
args[1].tag, args[1].u.ints = 7, IntList(dims, 1)  # TC_VALUE_INT_LIST
args[2].tag = TC_VALUE_NONE  # keepdim: its default
outs = (Value * 1)()
n_outs = ctypes.c_size_t()
ok(tc_op_call(outs, 1, ctypes.byref(n_outs), b"sum.dim_IntList", args, 2), "tc_op_call sum.dim_IntList")
check(n_outs.value == 1 and outs[0].tag == TC_VALUE_TENSOR, "one tensor back")
check(floats(outs[0].u.tensor) == [126, 315], f"row sums = {floats(outs[0].u.tensor)}")
tc_values_release(outs, n_outs.value)

# ---- a bad call: the status and the thread's last error ----------------------
bad_shape = (ctypes.c_int64 * 1)(4)
d_data = (ctypes.c_float * 4)()
d = tc_tensor()
ok(tc_tensor_from_data(ctypes.byref(d), d_data, TC_FLOAT32, bad_shape, 1), "from_data (4)")
e = tc_tensor()
status = tc_add_Tensor(ctypes.byref(e), a, d, None)
message = tc_last_error_message().decode()
check(status == TC_ERROR_INVALID_ARGUMENT and tc_last_error_code() == status,
      f"shapes that don't broadcast: status {status}")
check("add" in message and "broadcast" in message, f"message names the op and the problem: {message!r}")
check(not e.value, "no output on failure")
status = tc_op_call(outs, 1, ctypes.byref(n_outs), b"no_such_op", args, 0)
check(status != TC_OK and "no_such_op" in tc_last_error_message().decode(), "unknown op by name")

# ---- release everything; the blob's deleter runs exactly once --------------
for t in (a, c, d):
    tc_tensor_release(t)
check(deleted == [], "b still alive")
tc_tensor_release(b)
check(len(deleted) == 1 and deleted[0] == ctypes.addressof(b_data), f"deleter ran once on b's memory: {deleted}")
tc_tensor_release(None)  # NULL-safe

print("ctypes FFI:", "ok" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
