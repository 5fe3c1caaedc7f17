# SPDX-License-Identifier: BSD-3-Clause
"""ctypes bindings for tensorc's C ABI, driven by the generated ops.json.

Used by bad_input.py. Only the standard library: no numpy, no pytest.

The C signature of a generated entry point is derived from the op's schema
(as the generator does, see docs/adding-an-op.md section 3): outputs first
(one per non-mutable return), then the arguments, with the `out` arguments of
an out variant moved to the front. `c_params` gives that list; the header
cross-check in bad_input.py compares it with tensorc_ops.h.
"""
import ctypes
import re
import struct

# ---- fixed codes (include/tensorc.h) -------------------------------------
TC_OK = 0
STATUS_NAMES = {
    0: "TC_OK",
    1: "TC_ERROR_INVALID_ARGUMENT",
    2: "TC_ERROR_TYPE",
    3: "TC_ERROR_INDEX",
    4: "TC_ERROR_OUT_OF_MEMORY",
    5: "TC_ERROR_NOT_IMPLEMENTED",
    6: "TC_ERROR_RUNTIME",
    7: "TC_ERROR_DEVICE",
    8: "TC_ERROR_INTERNAL",
}
INVALID_ARGUMENT, TYPE, INDEX, OUT_OF_MEMORY, NOT_IMPLEMENTED, RUNTIME, DEVICE, INTERNAL = range(1, 9)

BOOL, UINT8, INT8, INT16, INT32, INT64, FLOAT16, BFLOAT16, FLOAT32, FLOAT64 = range(10)
DTYPE_SIZE = {BOOL: 1, UINT8: 1, INT8: 1, INT16: 2, INT32: 4, INT64: 8, FLOAT16: 2, BFLOAT16: 2, FLOAT32: 4,
              FLOAT64: 8}
DEVICE_CPU, DEVICE_CUDA, DEVICE_PRIVATEUSE1 = 1, 2, 12
SCALAR_BOOL, SCALAR_INT, SCALAR_FLOAT, SCALAR_TENSOR = 0, 1, 2, 3


class Scalar(ctypes.Structure):
    """tc_scalar {int32 tag; union {bool b; int64 i; double f; tc_tensor t} u;}.

    ctypes refuses unions passed by value, so the union is one int64 payload:
    the same size, alignment and x86-64 / AArch64 argument classification
    (two INTEGER eightbytes)."""
    _fields_ = [("tag", ctypes.c_int32), ("pad", ctypes.c_int32), ("payload", ctypes.c_int64)]


def make_scalar(tag, value):
    s = Scalar()
    s.tag = tag
    s.pad = 0
    if tag == SCALAR_FLOAT:
        s.payload = struct.unpack("<q", struct.pack("<d", float(value)))[0]
    else:
        s.payload = int(value)
    return s


class Device(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int32), ("index", ctypes.c_int32)]


def make_device(dtype_code, index):
    d = Device()
    d.type = dtype_code
    d.index = index
    return d


tc_tensor = ctypes.c_void_p


# ---- schema types -> C parameters -----------------------------------------
class ArgType:
    """A schema type string such as 'int[1]?' or 'Tensor?[]', taken apart."""

    _re = re.compile(r"^(?P<base>[A-Za-z_]+)(?P<opt1>\?)?(?:\[(?P<n>\d*)\])?(?P<opt2>\?)?$")

    def __init__(self, text):
        m = self._re.match(text)
        if not m:
            raise ValueError("cannot parse schema type %r" % text)
        self.text = text
        self.base = m.group("base")
        self.is_list = m.group("n") is not None
        self.list_n = int(m.group("n")) if m.group("n") else None
        self.elem_optional = bool(m.group("opt1")) and self.is_list  # Tensor?[]
        self.optional = bool(m.group("opt2")) or (bool(m.group("opt1")) and not self.is_list)


class Param:
    """One schema argument and the C parameters it becomes.

    kind is one of: tensor, tensor_list, int, int_ptr, int_list, float,
    float_ptr, float_list, bool, bool_ptr, bool_list, str, scalar, scalar_ptr,
    dtype, dtype_ptr, device, device_ptr, generator."""

    def __init__(self, arg):
        self.arg = arg
        self.name = arg["name"]
        self.type = ArgType(arg["type"])
        self.mutable = bool(arg.get("mutable"))
        self.has_default = "default" in arg
        t = self.type
        pointer = t.optional or self.has_default
        base = t.base
        if base == "Tensor":
            self.kind = "tensor_list" if t.is_list else "tensor"
        elif base in ("int", "SymInt"):
            self.kind = "int_list" if t.is_list else ("int_ptr" if pointer else "int")
        elif base == "float":
            self.kind = "float_list" if t.is_list else ("float_ptr" if pointer else "float")
        elif base == "bool":
            self.kind = "bool_list" if t.is_list else ("bool_ptr" if pointer else "bool")
        elif base == "str":
            self.kind = "str"
        elif base == "Scalar":
            self.kind = "scalar_ptr" if pointer else "scalar"
        elif base == "ScalarType":
            self.kind = "dtype_ptr" if pointer else "dtype"
        elif base == "Device":
            self.kind = "device_ptr" if pointer else "device"
        elif base == "Generator":
            self.kind = "generator"
        else:
            raise ValueError("unsupported schema type %r (argument %s)" % (t.text, self.name))

    @property
    def required_tensor(self):
        return self.kind == "tensor" and not self.type.optional

    def c_types(self):
        """[(C type text, parameter name)] as tensorc_ops.h spells them."""
        k, n = self.kind, self.name
        one = {
            "tensor": "tc_tensor", "int": "int64_t", "int_ptr": "const int64_t*", "float": "double",
            "float_ptr": "const double*", "bool": "bool", "bool_ptr": "const bool*", "str": "const char*",
            "scalar": "tc_scalar", "scalar_ptr": "const tc_scalar*", "dtype": "tc_dtype",
            "dtype_ptr": "const tc_dtype*", "device": "tc_device", "device_ptr": "const tc_device*",
            "generator": "tc_generator",
        }
        if k in one:
            return [(one[k], n)]
        elem = {"tensor_list": "const tc_tensor*", "int_list": "const int64_t*", "float_list": "const double*",
                "bool_list": "const bool*"}[k]
        return [(elem, n), ("size_t", n + "_len")]

    def ctypes_types(self):
        k = self.kind
        P = ctypes.POINTER
        table = {
            "tensor": [tc_tensor], "tensor_list": [P(tc_tensor), ctypes.c_size_t], "int": [ctypes.c_int64],
            "int_ptr": [P(ctypes.c_int64)], "int_list": [P(ctypes.c_int64), ctypes.c_size_t],
            "float": [ctypes.c_double], "float_ptr": [P(ctypes.c_double)],
            "float_list": [P(ctypes.c_double), ctypes.c_size_t], "bool": [ctypes.c_bool],
            "bool_ptr": [P(ctypes.c_bool)], "bool_list": [P(ctypes.c_bool), ctypes.c_size_t],
            "str": [ctypes.c_char_p], "scalar": [Scalar], "scalar_ptr": [P(Scalar)], "dtype": [ctypes.c_int32],
            "dtype_ptr": [P(ctypes.c_int32)], "device": [Device], "device_ptr": [P(Device)],
            "generator": [ctypes.c_void_p],
        }
        return table[k]


class Output:
    """One non-mutable return: an output pointer parameter."""

    def __init__(self, ret, index, count):
        self.name = ret.get("name") or ("out" if count == 1 else "out%d" % index)
        t = ArgType(ret["type"])
        if t.base == "Tensor":
            self.kind = "tensor_list" if t.is_list else "tensor"
        elif t.base in ("int", "SymInt"):
            self.kind = "int"
        elif t.base == "float":
            self.kind = "float"
        elif t.base == "bool":
            self.kind = "bool"
        elif t.base == "Scalar":
            self.kind = "scalar"
        else:
            raise ValueError("unsupported return type %r" % ret["type"])

    def c_type(self):
        return {"tensor": "tc_tensor*", "tensor_list": "tc_tensor_list*", "int": "int64_t*", "float": "double*",
                "bool": "bool*", "scalar": "tc_scalar*"}[self.kind]

    def ctype(self):
        return {"tensor": tc_tensor, "tensor_list": ctypes.c_void_p, "int": ctypes.c_int64,
                "float": ctypes.c_double, "bool": ctypes.c_bool, "scalar": Scalar}[self.kind]


class OpSig:
    """An op of ops.json with its derived C signature."""

    def __init__(self, op):
        self.op = op
        self.qualified = op["qualified"]
        self.name = op["name"]
        self.c_name = op["c_name"]
        self.kind = op["kind"]
        rets = [r for r in op["returns"] if not r.get("mutable")]
        self.outputs = [Output(r, i, len(rets)) for i, r in enumerate(rets)]
        params = [Param(a) for a in op["arguments"]]
        if self.kind == "out":
            outs = [p for p in params if p.mutable]
            params = outs + [p for p in params if not p.mutable]
        self.params = params

    def param(self, name):
        for p in self.params:
            if p.name == name:
                return p
        return None

    def c_params(self):
        out = [(o.c_type(), o.name) for o in self.outputs]
        for p in self.params:
            out.extend(p.c_types())
        return out

    def argtypes(self):
        ts = [ctypes.POINTER(o.ctype()) for o in self.outputs]
        for p in self.params:
            ts.extend(p.ctypes_types())
        return ts

    def op_names(self):
        """Names an error message may use for this op (qualified or base)."""
        names = {self.qualified, self.name}
        if self.name.endswith("_") and self.name.strip("_"):
            names.add(self.name[:-1])  # add_.Tensor may report as "add"
        return names


def parse_header(path):
    """{c_name: [(C type, parameter name)]} from tensorc_ops.h."""
    text = open(path).read()
    decls = {}
    for m in re.finditer(r"TC_API\s+tc_status\s+(\w+)\s*\(([^)]*)\)\s*;", text):
        params = []
        body = " ".join(m.group(2).split())
        if body and body != "void":
            for part in body.split(","):
                part = part.strip()
                pm = re.match(r"^(.*?)(\w+)$", part)
                ctype = " ".join(pm.group(1).replace("*", " * ").split()).replace(" *", "*")
                params.append((ctype, pm.group(2)))
        decls[m.group(1)] = params
    return decls


# ---- the library ----------------------------------------------------------
class Lib:
    def __init__(self, path):
        self.dll = ctypes.CDLL(path)
        d = self.dll
        P = ctypes.POINTER
        sig = {
            "tc_last_error_message": (ctypes.c_char_p, []),
            "tc_last_error_code": (ctypes.c_int32, []),
            "tc_error_clear": (None, []),
            "tc_tensor_from_data": (ctypes.c_int32, [P(tc_tensor), ctypes.c_void_p, ctypes.c_int32,
                                                     P(ctypes.c_int64), ctypes.c_size_t]),
            "tc_tensor_from_blob": (ctypes.c_int32, [P(tc_tensor), ctypes.c_void_p, ctypes.c_int32,
                                                     P(ctypes.c_int64), P(ctypes.c_int64), ctypes.c_size_t, Device,
                                                     ctypes.c_void_p, ctypes.c_void_p]),
            "tc_tensor_release": (None, [tc_tensor]),
            "tc_tensor_sizes": (ctypes.c_int32, [P(ctypes.c_int64), ctypes.c_size_t, P(ctypes.c_size_t), tc_tensor]),
            "tc_tensor_numel": (ctypes.c_int32, [P(ctypes.c_int64), tc_tensor]),
            "tc_tensor_dtype": (ctypes.c_int32, [P(ctypes.c_int32), tc_tensor]),
            "tc_tensor_version": (ctypes.c_int32, [P(ctypes.c_uint32), tc_tensor]),
            "tc_tensor_copy_to_buffer": (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_size_t, tc_tensor]),
            "tc_tensor_list_release": (None, [ctypes.c_void_p]),
            "tc_set_num_threads": (ctypes.c_int32, [ctypes.c_int]),
        }
        for name, (res, args) in sig.items():
            f = getattr(d, name)
            f.restype = res
            f.argtypes = args
        self._keep = []  # host memory lent to from_blob tensors (never freed by tensorc: no deleter)

    def fn(self, c_name, argtypes):
        f = getattr(self.dll, c_name)
        f.restype = ctypes.c_int32
        f.argtypes = argtypes
        return f

    def message(self):
        m = self.dll.tc_last_error_message()
        return m.decode("utf-8", "replace") if m is not None else None

    @staticmethod
    def _pattern(dtype, numel):
        if dtype == FLOAT32:
            return struct.pack("<%df" % numel, *[0.125 * (k + 1) for k in range(numel)])
        if dtype == FLOAT64:
            return struct.pack("<%dd" % numel, *[0.125 * (k + 1) for k in range(numel)])
        if dtype == INT64:
            return struct.pack("<%dq" % numel, *[k + 1 for k in range(numel)])
        if dtype == INT32:
            return struct.pack("<%di" % numel, *[k + 1 for k in range(numel)])
        if dtype == BOOL:
            return bytes((k + 1) % 2 for k in range(numel))
        raise ValueError("no data pattern for dtype %d" % dtype)

    def tensor(self, shape, dtype=FLOAT32, device=DEVICE_CPU):
        """A new tensor of `shape` filled with a fixed pattern; on the CPU
        (tc_tensor_from_data) or, for another device, over host memory
        (tc_tensor_from_blob). Returns (handle, host buffer or None)."""
        numel = 1
        for s in shape:
            numel *= s
        data = self._pattern(dtype, numel)
        sizes = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        h = tc_tensor()
        if device == DEVICE_CPU:
            st = self.dll.tc_tensor_from_data(ctypes.byref(h), data, dtype, sizes, len(shape))
            buf = None
        else:
            buf = ctypes.create_string_buffer(data, max(1, len(data)))
            self._keep.append(buf)
            st = self.dll.tc_tensor_from_blob(ctypes.byref(h), buf, dtype, sizes, None, len(shape),
                                             make_device(device, 0), None, None)
        if st != TC_OK:
            raise RuntimeError("cannot create a test tensor %r dtype %d device %d: %s" %
                               (shape, dtype, device, self.message()))
        return h, buf

    def snapshot(self, h, host_buf=None):
        """(sizes, bytes, version) of a tensor, for the unchanged-on-error check."""
        ndim = ctypes.c_size_t()
        sizes = (ctypes.c_int64 * 16)()
        if self.dll.tc_tensor_sizes(sizes, 16, ctypes.byref(ndim), h) != TC_OK:
            raise RuntimeError("tc_tensor_sizes failed: %s" % self.message())
        shape = tuple(sizes[i] for i in range(ndim.value))
        ver = ctypes.c_uint32()
        if self.dll.tc_tensor_version(ctypes.byref(ver), h) != TC_OK:
            raise RuntimeError("tc_tensor_version failed: %s" % self.message())
        if host_buf is not None:
            data = bytes(host_buf.raw)
        else:
            numel = ctypes.c_int64()
            dt = ctypes.c_int32()
            self.dll.tc_tensor_numel(ctypes.byref(numel), h)
            self.dll.tc_tensor_dtype(ctypes.byref(dt), h)
            n = numel.value * DTYPE_SIZE[dt.value]
            buf = ctypes.create_string_buffer(max(1, n))
            if self.dll.tc_tensor_copy_to_buffer(buf if n else None, n, h) != TC_OK:
                raise RuntimeError("tc_tensor_copy_to_buffer failed: %s" % self.message())
            data = bytes(buf.raw[:n])
        return shape, data, ver.value
