#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs every generated C entry point on the CPU and on a device with the
same inputs, and compares.

The calls are bad_input.py's otherwise-valid ones (small tensors holding a
fixed pattern), in variants:

  base       as bad_input builds them: (2, 2) float32, contiguous
  strided    every tensor a view with reversed dims (the tensor is made with
             its sizes reversed, moved, then permuted on its device)
  float64, float16, bfloat16, int64
             the float32 tensors (and dtype arguments) in that dtype
  empty      the (2, 2) tensors as (0, 2)
  zero_dim   the (2, 2) tensors as ()
  broadcast  every (2, 2) tensor after the first as (2,)
  tensor_scalars
             every Scalar argument given as a 0-dim tensor on the device
             (TC_SCALAR_TENSOR): through the op's Tensor overload, or read

Each tensor is made on the CPU and copied to the device under test, so both
runs see the same values; factories get that device as their `device`. The
default generator is reseeded before each call, and both devices draw from
it the same way, so random ops are compared too. Per call the two runs must
agree: both fail with the same status, or both succeed with outputs of the
same shape and dtype and values equal within the dtype's tolerance
(exactly, for integers, bools and --device cpu). In-place and out= arguments
are compared as outputs. Ops whose outputs are uninitialised (empty...) are
compared by shape and dtype only.

  device_parity.py --lib libtensorc.so --ops ops.json --device cuda [--only OP,...] [-v]

--device cpu compares the CPU with itself on separate copies, which tests
the harness (and that every op is deterministic) where no GPU is. With
--device cuda and no usable device it prints SKIPPED and the reason and
exits 77. Only the standard library is used."""
import argparse
import ctypes
import math
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_input  # noqa: E402
import tc_ctypes as tc  # noqa: E402

SKIPPED = 77
VARIANTS = ["base", "strided", "float64", "float16", "bfloat16", "int64", "empty", "zero_dim", "broadcast",
            "tensor_scalars"]
FLOATING = {tc.FLOAT16, tc.BFLOAT16, tc.FLOAT32, tc.FLOAT64}
# (relative, absolute) tolerance per dtype for a device against the CPU:
# transcendental functions and reduction orders differ in the last bits.
TOLERANCE = {tc.FLOAT16: (1e-2, 1e-3), tc.BFLOAT16: (2e-2, 1e-2), tc.FLOAT32: (1e-4, 1e-5),
             tc.FLOAT64: (1e-10, 1e-12)}
# Outputs that hold whatever the memory held: shapes and dtypes only.
UNINITIALISED = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"}
DEVICES = {"cpu": tc.DEVICE_CPU, "cuda": tc.DEVICE_CUDA}


def variant_spec(spec, variant, position):
    """The TSpec of a tensor argument in `variant` (position: its index among
    the call's tensor arguments)."""
    shape, dtype = spec.shape, spec.dtype
    if variant in ("float64", "float16", "bfloat16", "int64") and dtype == tc.FLOAT32:
        dtype = {"float64": tc.FLOAT64, "float16": tc.FLOAT16, "bfloat16": tc.BFLOAT16, "int64": tc.INT64}[variant]
    if shape == (2, 2):
        if variant == "empty":
            shape = (0, 2)
        elif variant == "zero_dim":
            shape = ()
        elif variant == "broadcast" and position > 0:
            shape = (2,)
    return bad_input.TSpec(shape, dtype)


def variant_values(sig, variant, device):
    """bad_input's valid arguments for sig, changed for the variant and with
    `device` for the Device arguments."""
    vals = bad_input.valid_values(sig)
    position = 0
    for p in sig.params:
        v = vals.get(p.name)
        if p.kind == "tensor" and v is not None:
            vals[p.name] = variant_spec(v, variant, position)
            position += 1
        elif p.kind == "tensor_list" and v:
            vals[p.name] = [variant_spec(s, variant, position + i) for i, s in enumerate(v)]
            position += len(v)
        elif p.kind in ("dtype", "dtype_ptr") and v == tc.FLOAT32:
            vals[p.name] = variant_spec(bad_input.TSpec((), tc.FLOAT32), variant, 0).dtype
        elif p.kind in ("device", "device_ptr"):
            vals[p.name] = (device, 0 if device != tc.DEVICE_CPU else -1)
        elif p.kind in ("scalar", "scalar_ptr") and v is not None and variant == "tensor_scalars":
            vals[p.name] = ("tensor",) + tuple(v)
    return vals


class DeviceCaller(bad_input.Caller):
    """Makes each tensor on the CPU with bad_input's pattern, in the spec's
    dtype, copies it to `device` and, for the strided variant, permutes it."""

    def __init__(self, lib, device, strided):
        super().__init__(lib)
        self.device, self.strided = device, strided
        d, P = lib.dll, ctypes.POINTER
        self.to_device = lib.fn("tc_to_device", [P(tc.tc_tensor), tc.tc_tensor, tc.Device, ctypes.c_int32,
                                                 P(ctypes.c_bool), P(ctypes.c_bool)])
        self.permute = lib.fn("tc_permute", [P(tc.tc_tensor), tc.tc_tensor, P(ctypes.c_int64), ctypes.c_size_t])
        d.tc_tensor_list_size.argtypes = [P(ctypes.c_size_t), ctypes.c_void_p]
        d.tc_tensor_list_size.restype = ctypes.c_int32
        d.tc_tensor_list_get.argtypes = [P(tc.tc_tensor), ctypes.c_void_p, ctypes.c_size_t]
        d.tc_tensor_list_get.restype = ctypes.c_int32

    def make_scalar(self, v):
        """A ("tensor", tag, value) Scalar becomes a 0-dim tensor of the
        number's default dtype on the device, passed as TC_SCALAR_TENSOR."""
        if v[0] != "tensor":
            return super().make_scalar(v)
        tag, value = v[1], v[2]
        dtype = {tc.SCALAR_FLOAT: tc.FLOAT32, tc.SCALAR_INT: tc.INT64, tc.SCALAR_BOOL: tc.BOOL}[tag]
        fmt = {tc.FLOAT32: "<f", tc.INT64: "<q", tc.BOOL: "<?"}[dtype]
        data = struct.pack(fmt, float(value) if dtype == tc.FLOAT32 else (bool(value) if dtype == tc.BOOL else int(value)))
        host = tc.tc_tensor()
        self.check(self.lib.dll.tc_tensor_from_data(ctypes.byref(host), data, dtype, None, 0), "a scalar tensor")
        moved = tc.tc_tensor()
        yes = ctypes.c_bool(True)
        st = self.to_device(ctypes.byref(moved), host, tc.make_device(self.device, 0), dtype, None, ctypes.byref(yes))
        self.lib.dll.tc_tensor_release(host)
        self.check(st, "moving a scalar tensor")
        self.scalars.append(moved)
        return tc.make_scalar(tc.SCALAR_TENSOR, moved.value)

    def call(self, sig, vals, **kw):
        self.scalars = []
        try:
            return super().call(sig, vals, **kw)
        finally:
            for h in self.scalars:
                self.lib.dll.tc_tensor_release(h)

    def check(self, st, what):
        if st != tc.TC_OK:
            raise RuntimeError("%s failed: %s" % (what, self.lib.message()))

    def make_tensor(self, spec):
        lib = self.lib
        shape = tuple(reversed(spec.shape)) if self.strided else spec.shape
        pattern = spec.dtype if spec.dtype in (tc.BOOL, tc.INT32, tc.INT64, tc.FLOAT64) else tc.FLOAT32
        host, _ = lib.tensor(shape, pattern)
        moved = tc.tc_tensor()
        yes = ctypes.c_bool(True)
        st = self.to_device(ctypes.byref(moved), host, tc.make_device(self.device, 0), spec.dtype, None,
                            ctypes.byref(yes))
        lib.dll.tc_tensor_release(host)
        self.check(st, "moving a test tensor")
        if not self.strided or len(shape) < 2:
            return moved, None
        dims = (ctypes.c_int64 * len(shape))(*reversed(range(len(shape))))
        view = tc.tc_tensor()
        st = self.permute(ctypes.byref(view), moved, dims, len(shape))
        lib.dll.tc_tensor_release(moved)
        self.check(st, "permuting a test tensor")
        return view, None

    def read_tensor(self, h):
        """(sizes, dtype, values as a tuple) of a tensor on any device."""
        lib = self.lib
        shape, data, _ = lib.snapshot(h)
        dt = ctypes.c_int32()
        self.check(lib.dll.tc_tensor_dtype(ctypes.byref(dt), h), "tc_tensor_dtype")
        return shape, dt.value, decode(data, dt.value)

    def read(self, sig, outs, tensors):
        """Every output and every written argument, read back to the host."""
        got = {}
        for o, v in zip(sig.outputs, outs):
            if o.kind == "tensor":
                got[o.name] = self.read_tensor(v.value) if v.value else None
            elif o.kind == "tensor_list":
                n = ctypes.c_size_t()
                self.check(self.lib.dll.tc_tensor_list_size(ctypes.byref(n), v.value), "tc_tensor_list_size")
                items = []
                for i in range(n.value):
                    h = tc.tc_tensor()
                    self.check(self.lib.dll.tc_tensor_list_get(ctypes.byref(h), v.value, i), "tc_tensor_list_get")
                    items.append(self.read_tensor(h))
                    self.lib.dll.tc_tensor_release(h)
                got[o.name] = items
            elif o.kind == "scalar":
                got[o.name] = ((), tc.FLOAT64, (scalar_value(v),))
            else:
                got[o.name] = ((), tc.FLOAT64, (float(v.value),))
        for p in sig.params:
            if p.mutable and p.name in tensors and tensors[p.name]:
                h = tensors[p.name]
                got[p.name] = [self.read_tensor(x) for x in h] if isinstance(h, list) else self.read_tensor(h)
        return got


def scalar_value(s):
    if s.tag == tc.SCALAR_FLOAT:
        return struct.unpack("<d", struct.pack("<q", s.payload))[0]
    return float(s.payload if s.tag == tc.SCALAR_INT else s.payload & 0xFF)


def decode(data, dtype):
    if dtype == tc.BFLOAT16:
        halves = struct.unpack("<%dH" % (len(data) // 2), data)
        return tuple(struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in halves)
    fmt = {tc.BOOL: "B", tc.UINT8: "B", tc.INT8: "b", tc.INT16: "h", tc.INT32: "i", tc.INT64: "q", tc.FLOAT16: "e",
           tc.FLOAT32: "f", tc.FLOAT64: "d"}[dtype]
    return struct.unpack("<%d%s" % (len(data) // tc.DTYPE_SIZE[dtype], fmt), data)


def differ(want, got, exact, values):
    """Why two read tensors differ, or ''."""
    (ws, wd, wv), (gs, gd, gv) = want, got
    if ws != gs or wd != gd:
        return "shape/dtype %s %d on the CPU, %s %d on the device" % (ws, wd, gs, gd)
    if not values:
        return ""
    rtol, atol = (0.0, 0.0) if exact or wd not in FLOATING else TOLERANCE[wd]
    for i, (a, b) in enumerate(zip(wv, gv)):
        if a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)):
            continue
        if not (math.isinf(a) or math.isinf(b)) and abs(a - b) <= atol + rtol * abs(a):
            continue
        return "element %d: %r on the CPU, %r on the device" % (i, a, b)
    return ""


def compare(sig, want, got, exact):
    if want.status != got.status:
        return "status %s on the CPU (%s), %s on the device (%s)" % (
            tc.STATUS_NAMES.get(want.status), want.message, tc.STATUS_NAMES.get(got.status), got.message)
    if want.status != tc.TC_OK:
        return ""
    values = sig.name not in UNINITIALISED
    for name, w in want.read.items():
        g = got.read.get(name)
        if (w is None) != (g is None):
            return "output '%s' undefined on one side only" % name
        if w is None:
            continue
        pairs = zip(w, g) if isinstance(w, list) else [(w, g)]
        if isinstance(w, list) and len(w) != len(g):
            return "output '%s': %d tensors on the CPU, %d on the device" % (name, len(w), len(g))
        for k, (a, b) in enumerate(pairs):
            why = differ(a, b, exact, values)
            if why:
                return "output '%s'%s: %s" % (name, "[%d]" % k if isinstance(w, list) else "", why)
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="path to libtensorc.so")
    ap.add_argument("--ops", required=True, help="path to the generated ops.json")
    ap.add_argument("--device", choices=sorted(DEVICES), default="cuda")
    ap.add_argument("--only", help="comma-separated ops (qualified, base or C name)")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("-v", "--verbose", action="store_true", help="print every call as it starts")
    args = ap.parse_args()
    t0 = time.time()
    lib = tc.Lib(args.lib)
    device = DEVICES[args.device]
    check = lib.fn("tc_device_check", [ctypes.c_int32])
    if check(device) != tc.TC_OK:
        print("SKIPPED: no usable %s device: %s" % (args.device, lib.message()))
        return SKIPPED
    seed = lib.fn("tc_manual_seed", [ctypes.c_uint64])
    ops = bad_input.load_ops(argparse.Namespace(ops=args.ops, only=args.only))
    variants = args.variants.split(",")
    exact = device == tc.DEVICE_CPU
    counts, failures = {v: [0, 0, 0] for v in variants}, []  # agree, differ, of which both succeeded
    for v in variants:
        cpu = DeviceCaller(lib, tc.DEVICE_CPU, v == "strided")
        dev = DeviceCaller(lib, device, v == "strided")
        for sig in ops:
            if args.verbose:
                print("%s [%s]" % (sig.qualified, v), flush=True)
            vals_cpu = variant_values(sig, v, tc.DEVICE_CPU)
            vals_dev = variant_values(sig, v, device)
            seed(1234)
            want = cpu.call(sig, vals_cpu, read=cpu.read)
            seed(1234)
            got = dev.call(sig, vals_dev, read=dev.read)
            why = compare(sig, want, got, exact)
            counts[v][1 if why else 0] += 1
            counts[v][2] += not why and want.status == tc.TC_OK
            if v == "base" and want.status != tc.TC_OK:  # bad_input's baseline: every call is valid on the CPU
                failures.append("%s [base]: the valid call failed on the CPU: %s" % (sig.qualified, want.message))
            if why:
                failures.append("%s [%s]: %s" % (sig.qualified, v, why))
    print("tensorc device parity, CPU against %s: %d ops, %.1fs" % (args.device, len(ops), time.time() - t0))
    for v in variants:
        print("  %-10s %5d agree (%d ran, %d failed alike), %4d differ" % (v, counts[v][0], counts[v][2],
                                                                      counts[v][0] - counts[v][2], counts[v][1]))
    for f in failures:
        print("  DIFFER " + f)
    print("%d passed, %d failed" % (sum(c[0] for c in counts.values()) - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
