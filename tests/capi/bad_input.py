#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Drives bad input into every generated C entry point of tensorc (ctypes).

For each op of the generated ops.json the script derives the C signature
from the schema (cross-checked against tensorc_ops.h), builds otherwise-valid
arguments (small float32 CPU tensors, ints 0, NULL for defaults; a few
per-op overrides so the call is valid) and checks that each bad input is an
error status with a message naming the op and the argument:

  signature      the derived C signature equals the header's declaration
  baseline       the valid call returns TC_OK (so the bad inputs below are
                 the only thing wrong with the calls that follow)
  null_output    NULL output pointer -> TC_ERROR_INVALID_ARGUMENT naming it
  null_tensor    NULL required Tensor -> TC_ERROR_INVALID_ARGUMENT naming it
  bad_list       Tensor[] as (NULL, 2), with a NULL element, or empty ->
                 TC_ERROR_INVALID_ARGUMENT naming it
  bad_dtype      dtype code 99 / -1 / 10 (reserved complex64) -> TC_ERROR_TYPE
                 naming it
  bad_scalar_tag scalar tag 9 / -1 -> an error naming it; TC_SCALAR_TENSOR
                 with a NULL tensor -> TC_ERROR_INVALID_ARGUMENT naming it
  bad_device     device type 5 / 0, or PrivateUse1 index -5 -> TC_ERROR_DEVICE
                 naming it
  bad_string     str argument 'bogus' -> TC_ERROR_INVALID_ARGUMENT naming it
  device_mix     one tensor on PrivateUse1 (tc_tensor_from_blob over host
                 memory) -> TC_ERROR_DEVICE naming it, or
                 TC_ERROR_NOT_IMPLEMENTED (no PrivateUse1 kernel)
  dim_range      dim-like argument 100 -> TC_ERROR_INDEX naming it
  size_negative  size-like argument with a negative size -> INVALID_ARGUMENT
  size_huge      size [2**40, 2**40] -> OUT_OF_MEMORY or INVALID_ARGUMENT
                 naming it
  broadcast      pointwise op with shapes (2,3) and (4,) -> INVALID_ARGUMENT
  unchanged      in-place / out ops: after every failing call above, the
                 written tensor's sizes, bytes and version are unchanged
  outputs_null   after every failing call, output handles are NULL
  status_range   every bad call returns a status in 1..8
  message_format no failing call's message repeats the op prefix ("op: op: ")
  no_crash       each op's checks ran to the end (a crash or hang of the
                 library fails that op; the remaining ops still run)

Checks that do not apply to an op are skipped with a reason. Prints
per-category counts, the failures, and a final line "N passed, M failed";
exits 1 if M > 0.

The checks run in a child process; if the library crashes, the parent
records the op as failed and restarts the child after it (the environment
variable TC_BAD_INPUT_CRASH_AT=<qualified op> fakes a crash, to test that).

Usage: bad_input.py --lib libtensorc.so --ops build/generated/ops.json
       [--header tensorc_ops.h] [--schema schema/ops.yaml] [--only OP,...] [-v]
"""
import argparse
import collections
import ctypes
import json
import os
import re
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tc_ctypes as tc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CATEGORIES = ["signature", "baseline", "null_output", "null_tensor", "bad_list", "bad_dtype", "bad_scalar_tag",
              "bad_device", "bad_string", "device_mix", "dim_range", "size_negative", "size_huge", "broadcast",
              "unchanged", "outputs_null", "status_range", "message_format", "no_crash"]

DIM_NAMES = {"dim", "dim0", "dim1", "dim2", "dimension", "start_dim", "end_dim", "dims"}
SIZE_NAMES = {"size", "shape", "split_sizes"}


class TSpec:
    """A tensor argument to create fresh for each call."""

    def __init__(self, shape=(2, 2), dtype=tc.FLOAT32, device=tc.DEVICE_CPU):
        self.shape, self.dtype, self.device = tuple(shape), dtype, device

    def on(self, device):
        return TSpec(self.shape, self.dtype, device)

    def reshaped(self, shape):
        return TSpec(shape, self.dtype, self.device)


class NullData:
    """A list argument passed as (NULL, n)."""

    def __init__(self, n):
        self.n = n


# ---- otherwise-valid arguments ----------------------------------------------
# Ints (by op, then by argument name) and required int[] values that make the
# call valid; everything not listed is 0 / NULL (the default) / None.
INT_VALUES = {
    "unfold": {"size": 1, "step": 1},
    "split.Tensor": {"split_size": 1},
    "narrow": {"length": 1},
    "chunk": {"chunks": 1},
    "linspace": {"steps": 2},
    "eye": {"n": 2},
    "eye.m": {"n": 2, "m": 2},
    "randint": {"high": 10},
    "randint.low": {"high": 10},
    "randperm": {"n": 4},
    "embedding_dense_backward": {"num_weights": 3},
    "_amp_update_scale_": {"growth_interval": 1},
}
LIST_VALUES = {"size": [2, 2], "stride": [2, 1], "shape": [4], "dims": [1, 0], "dim": [0], "split_sizes": [1, 1],
               "normalized_shape": [2], "repeats": [1, 1], "pad": [0, 1]}
# Optional Scalars that must not all be None (clamp needs a min or a max).
SCALAR_PTR_VALUES = {"clamp": {"min": 0}, "clamp_": {"min": 0}, "clamp.out": {"min": 0}}


# Tensor arguments of the nn ops that need another shape or dtype than a
# (2, 2) float32 tensor: {op name: {argument: (shape, dtype)}}. Integer
# tensors hold 1, 2, ...: class / row indices below 3.
_CLASSES = {"self": ((2, 3), tc.FLOAT32), "target": ((2,), tc.INT64), "weight": ((3,), tc.FLOAT32)}
_LAYER_NORM = {"weight": ((2,), tc.FLOAT32), "bias": ((2,), tc.FLOAT32), "mean": ((2, 1), tc.FLOAT32),
               "rstd": ((2, 1), tc.FLOAT32)}
TENSOR_VALUES = {
    "nll_loss_forward": _CLASSES,
    "nll_loss_backward": dict(_CLASSES, grad_output=((2,), tc.FLOAT32), total_weight=((), tc.FLOAT32)),
    "nll_loss": _CLASSES,
    "cross_entropy_loss": _CLASSES,
    "native_dropout_backward": {"mask": ((2, 2), tc.BOOL)},
    "native_layer_norm": _LAYER_NORM,
    "native_layer_norm_backward": _LAYER_NORM,
    "layer_norm": _LAYER_NORM,
    "embedding": {"weight": ((3, 2), tc.FLOAT32), "indices": ((2,), tc.INT64)},
    "embedding_dense_backward": {"indices": ((2,), tc.INT64)},
    "_amp_foreach_non_finite_check_and_unscale_": {"found_inf": ((1,), tc.FLOAT32), "inv_scale": ((1,), tc.FLOAT32)},
    "_amp_update_scale_": {"self": ((1,), tc.FLOAT32), "growth_tracker": ((1,), tc.INT32),
                           "found_inf": ((1,), tc.FLOAT32)},
}
_VEC2 = ((2,), tc.FLOAT32)
_BOOL_MASK = ((2, 2), tc.BOOL)
TENSOR_VALUES.update({
    "dot": {"self": _VEC2, "tensor": _VEC2}, "mv": {"vec": _VEC2}, "outer": {"self": _VEC2, "vec2": _VEC2},
    "ger": {"self": _VEC2, "vec2": _VEC2}, "masked_fill": {"mask": _BOOL_MASK, "value": ((), tc.FLOAT32)},
    "masked_fill_": {"mask": _BOOL_MASK, "value": ((), tc.FLOAT32)},
})
# Foreach ops, which take an empty list as nothing to do (as ATen's do).
EMPTY_LIST_OK = {"_amp_foreach_non_finite_check_and_unscale_"}
# Index arguments: one index (value 1) into the dims of size 2.
_SLICE_INDEX = {"index": ((1,), tc.INT64), "source": ((1, 2), tc.FLOAT32)}
_ELEMENT_INDEX = {"index": ((1, 1), tc.INT64)}
_ADVANCED_INDEX = {"indices": ((1,), tc.INT64), "values": ((1,), tc.FLOAT32)}
for _name, _spec in [("index_select", dict(_SLICE_INDEX, out=((1, 2), tc.FLOAT32))), ("index_copy", _SLICE_INDEX), ("index_copy_", _SLICE_INDEX),
                     ("index_add", _SLICE_INDEX), ("index_add_", _SLICE_INDEX), ("gather", dict(_ELEMENT_INDEX, out=((1, 1), tc.FLOAT32))),
                     ("scatter", _ELEMENT_INDEX), ("scatter_", _ELEMENT_INDEX), ("scatter_add", _ELEMENT_INDEX),
                     ("scatter_add_", _ELEMENT_INDEX), ("index", _ADVANCED_INDEX), ("index_put", _ADVANCED_INDEX),
                     ("index_put_", _ADVANCED_INDEX)]:
    TENSOR_VALUES[_name] = _spec


def tensor_dtype(sig, pname):
    if pname in TENSOR_VALUES.get(sig.name, {}):
        return TENSOR_VALUES[sig.name][pname][1]
    if sig.name.startswith("bitwise_"):
        return tc.INT64  # bitwise ops take integral or bool tensors only
    if sig.name == "where" and pname == "condition":
        return tc.BOOL
    return tc.FLOAT32


def tensor_shape(sig, pname):
    if pname in TENSOR_VALUES.get(sig.name, {}):
        return TENSOR_VALUES[sig.name][pname][0]
    if sig.name == "bmm":
        return (2, 2, 2)
    if sig.name in ("fill", "fill_") and pname == "value":
        return ()  # fill.Tensor takes a zero-dim value
    if sig.qualified in ("sum.IntList_out", "mean.out") and pname == "out":
        return ()  # dim=None reduces everything
    return (2, 2)


def valid_values(sig):
    vals = {}
    for p in sig.params:
        k, n = p.kind, p.name
        if k == "tensor":
            vals[n] = TSpec(tensor_shape(sig, n), tensor_dtype(sig, n))
        elif k == "tensor_list":
            vals[n] = [TSpec(tensor_shape(sig, n), tensor_dtype(sig, n)), TSpec(tensor_shape(sig, n), tensor_dtype(sig, n))]
        elif k == "int":
            vals[n] = INT_VALUES.get(sig.qualified, {}).get(n, 0)
        elif k == "int_list":
            vals[n] = None if (p.has_default or p.type.optional) else list(LIST_VALUES.get(n, [0]))
        elif k in ("float", "bool"):
            vals[n] = 0.0 if k == "float" else False
        elif k == "bool_list":  # e.g. bool[3] output_mask: every output
            vals[n] = None if (p.has_default or p.type.optional) else [True] * (p.type.list_n or 1)
        elif k == "scalar":
            vals[n] = (tc.SCALAR_INT, 1)
        elif k == "scalar_ptr":
            v = SCALAR_PTR_VALUES.get(sig.qualified, {}).get(n)
            vals[n] = None if v is None else (tc.SCALAR_INT, v)
        elif k == "dtype":
            vals[n] = tc.FLOAT32
        elif k == "device":
            vals[n] = (tc.DEVICE_CPU, -1)
        else:  # pointers for defaults / None, str, generator, lists with defaults
            vals[n] = None
    return vals


# ---- the schema yaml: device_check and the pointwise section ----------------
def read_schema(path):
    """(set of ops with device_check: false, set of pointwise ops) from ops.yaml."""
    no_check, pointwise = set(), set()
    in_pointwise = True
    current = None
    for line in open(path):
        m = re.match(r"^- func:\s*([\w.]+)\(", line)
        if m:
            current = m.group(1)
            if current == "view":
                in_pointwise = False  # the pointwise section ends where the views start
            if in_pointwise:
                pointwise.add(current)
            continue
        if current and re.match(r"^\s+device_check:\s*false\b", line):
            no_check.add(current)
    return no_check, pointwise


# ---- calling an op ----------------------------------------------------------
class Result:
    pass


class Caller:
    def __init__(self, lib):
        self.lib = lib
        self.fns = {}

    def function(self, sig):
        if sig.c_name not in self.fns:
            self.fns[sig.c_name] = self.lib.fn(sig.c_name, sig.argtypes())
        return self.fns[sig.c_name]

    def make_tensor(self, spec):
        """(new handle, host buffer or None) for a TSpec."""
        return self.lib.tensor(spec.shape, spec.dtype, spec.device)

    def make_scalar(self, v):
        """The tc_scalar for a Scalar argument's value (tag, value)."""
        return tc.make_scalar(*v)

    def call(self, sig, vals, null_outputs=(), watch=(), read=None):
        """Calls the op with `vals`; NULL for the outputs named in
        null_outputs. Snapshots the tensors named in `watch` before and after.
        read(sig, outs, tensors), if given, runs before anything is released
        (outs: the output ctypes values; tensors: {param name: handle or
        [handles]}) after a successful call; its result is the Result's
        `read`."""
        lib = self.lib
        handles, keep, watched, tensors = [], [], {}, {}

        def make(spec):
            h, buf = self.make_tensor(spec)
            handles.append(h)
            return h, buf

        args = []
        outs = []
        for o in sig.outputs:
            if o.name in null_outputs:
                args.append(None)
                outs.append(None)
            else:
                v = o.ctype()()
                outs.append(v)
                args.append(ctypes.byref(v))
        for p in sig.params:
            v = vals.get(p.name)
            k = p.kind
            if k == "tensor":
                if v is None:
                    args.append(None)
                else:
                    h, buf = make(v)
                    if p.name in watch:
                        watched[p.name] = (h, buf)
                    tensors[p.name] = h
                    args.append(h)
            elif k == "tensor_list":
                if v is None:
                    args += [None, 0]
                elif isinstance(v, NullData):
                    args += [None, v.n]
                else:
                    arr = (tc.tc_tensor * max(1, len(v)))(*[None if s is None else make(s)[0] for s in v])
                    tensors[p.name] = list(arr)[:len(v)]
                    keep.append(arr)
                    args += [arr, len(v)]
            elif k in ("int_list", "float_list", "bool_list"):
                ct = {"int_list": ctypes.c_int64, "float_list": ctypes.c_double, "bool_list": ctypes.c_bool}[k]
                if v is None:
                    args += [None, 0]
                elif isinstance(v, NullData):
                    args += [None, v.n]
                else:
                    arr = (ct * max(1, len(v)))(*v)
                    keep.append(arr)
                    args += [arr, len(v)]
            elif k in ("int_ptr", "float_ptr", "bool_ptr", "dtype_ptr"):
                ct = {"int_ptr": ctypes.c_int64, "float_ptr": ctypes.c_double, "bool_ptr": ctypes.c_bool,
                      "dtype_ptr": ctypes.c_int32}[k]
                if v is None:
                    args.append(None)
                else:
                    x = ct(v)
                    keep.append(x)
                    args.append(ctypes.byref(x))
            elif k == "scalar":
                args.append(self.make_scalar(v))
            elif k == "scalar_ptr":
                if v is None:
                    args.append(None)
                else:
                    x = self.make_scalar(v)
                    keep.append(x)
                    args.append(ctypes.byref(x))
            elif k == "device":
                args.append(tc.make_device(*v))
            elif k == "device_ptr":
                if v is None:
                    args.append(None)
                else:
                    x = tc.make_device(*v)
                    keep.append(x)
                    args.append(ctypes.byref(x))
            elif k == "str":
                args.append(None if v is None else v.encode())
            elif k in ("int", "float", "bool", "dtype"):
                args.append(v)
            elif k == "generator":
                args.append(None)
            else:
                raise AssertionError(k)

        before = {n: lib.snapshot(h, buf) for n, (h, buf) in watched.items()}
        r = Result()
        r.status = self.function(sig)(*args)
        r.message = lib.message() if r.status != tc.TC_OK else ""
        r.changed = {}
        if r.status != tc.TC_OK:
            for n, (h, buf) in watched.items():
                after = lib.snapshot(h, buf)
                what = [w for w, a, b in zip(("sizes", "bytes", "version"), before[n], after) if a != b]
                r.changed[n] = what
        if read is not None and r.status == tc.TC_OK:
            r.read = read(sig, outs, tensors)
        # Outputs: any handle set is released; on failure it should be NULL.
        r.outputs_set = []
        for o, v in zip(sig.outputs, outs):
            if v is None:
                continue
            if o.kind in ("tensor", "tensor_list") and v.value:
                r.outputs_set.append(o.name)
                if o.kind == "tensor":
                    lib.dll.tc_tensor_release(v.value)
                else:
                    lib.dll.tc_tensor_list_release(v.value)
        for h in handles:
            lib.dll.tc_tensor_release(h)
        del keep
        return r


# ---- the checks -------------------------------------------------------------
class Child:
    def __init__(self, args):
        self.args = args
        self.lib = tc.Lib(args.lib)
        self.caller = Caller(self.lib)
        self.no_check, self.pointwise = read_schema(args.schema)
        self.header = tc.parse_header(args.header) if args.header else None

    def emit(self, kind, **kw):
        sys.stdout.write(kind + " " + json.dumps(kw) + "\n")
        sys.stdout.flush()

    def record(self, cat, sig, ok, desc, res=None, why=""):
        d = {"cat": cat, "op": sig.qualified if sig else "*", "ok": bool(ok), "desc": desc}
        if res is not None:
            d["status"] = res.status
            d["message"] = res.message
        if why:
            d["why"] = why
        self.emit("REC", **d)

    def skip(self, cat, sig, reason):
        self.emit("SKIP", cat=cat, op=sig.qualified, reason=reason)

    @staticmethod
    def names_op(sig, msg):
        for n in sorted(sig.op_names(), key=len, reverse=True):
            pat = r"(?<![\w.])" + re.escape(n) + (r"(?=[:(.'\" ])" if len(n) <= 2 else r"(?![\w])")
            if re.search(pat, msg):
                return True
        return False

    def bad(self, cat, sig, desc, vals, codes, arg=None, arg_for=None, null_outputs=()):
        """One bad-input call: expects a status in `codes`, a message naming
        the op and (for statuses in arg_for, default all) `'arg'`; then the
        unchanged / outputs_null / status_range checks."""
        watch = [p.name for p in sig.params if p.mutable and p.kind == "tensor" and vals.get(p.name) is not None]
        res = self.caller.call(sig, vals, null_outputs=null_outputs, watch=watch)
        st, msg = res.status, res.message
        if st != tc.TC_OK and re.match(r"^([^ :]+): \1: ", msg):
            self.doubled.append(msg)
        problems = []
        if st not in codes:
            problems.append("expected %s" % " or ".join(tc.STATUS_NAMES[c] for c in codes))
        if st != tc.TC_OK:
            if not self.names_op(sig, msg):
                problems.append("message does not name the op")
            if arg and (arg_for is None or st in arg_for) and ("'%s'" % arg) not in msg:
                problems.append("message does not name '%s'" % arg)
        self.record(cat, sig, not problems, desc, res, "; ".join(problems))
        self.record("status_range", sig, 1 <= st <= 8, "%s: %s" % (cat, desc), res,
                    "" if 1 <= st <= 8 else "status %d outside 1..8" % st)
        if st != tc.TC_OK:
            if sig.kind in ("inplace", "out"):
                if not res.changed:
                    self.skip("unchanged", sig, "the written tensor was passed as NULL")
                for n, what in res.changed.items():
                    self.record("unchanged", sig, not what, "%s: %s, '%s'" % (cat, desc, n), res,
                                ("'%s' changed: %s" % (n, ", ".join(what))) if what else "")
            if sig.outputs:
                self.record("outputs_null", sig, not res.outputs_set, "%s: %s" % (cat, desc), res,
                            ("output(s) %s not NULL after the failure" % ", ".join(res.outputs_set))
                            if res.outputs_set else "")
        return res

    # -- per-op --
    def check_signature(self, sig):
        if self.header is None:
            self.skip("signature", sig, "no header given")
            return True
        decl = self.header.get(sig.c_name)
        if decl is None:
            self.record("signature", sig, False, "declared in tensorc_ops.h", why="%s not declared" % sig.c_name)
            return False
        mine = sig.c_params()
        ok = decl == mine
        why = "" if ok else "header %s, derived %s" % (decl, mine)
        try:
            getattr(self.lib.dll, sig.c_name)
        except AttributeError:
            ok, why = False, "%s not exported by the library" % sig.c_name
        self.record("signature", sig, ok, "C signature", why=why)
        return ok

    def run_op(self, sig):
        if not self.check_signature(sig):
            for c in CATEGORIES[1:-1]:
                self.skip(c, sig, "signature check failed: not called")
            return
        valid = valid_values(sig)
        self.doubled = []
        res = self.caller.call(sig, valid)
        self.record("baseline", sig, res.status == tc.TC_OK, "valid call", res,
                    "" if res.status == tc.TC_OK else "the otherwise-valid call failed")

        def with_(**changes):
            v = dict(valid)
            v.update(changes)
            return v

        # 1. NULL output pointers
        if sig.outputs:
            for o in sig.outputs:
                self.bad("null_output", sig, "NULL output '%s'" % o.name, valid, [tc.INVALID_ARGUMENT], o.name,
                         null_outputs=[o.name])
        else:
            self.skip("null_output", sig, "no output pointers (%s op)" % sig.kind)

        # 2. NULL required tensors
        req = [p for p in sig.params if p.required_tensor]
        for p in req:
            self.bad("null_tensor", sig, "NULL '%s'" % p.name, with_(**{p.name: None}), [tc.INVALID_ARGUMENT], p.name)
        if not req:
            self.skip("null_tensor", sig, "no required Tensor argument")

        # 3. lists, dtypes, scalars, devices, strings
        lists = [p for p in sig.params if p.kind == "tensor_list"]
        for p in lists:
            self.bad("bad_list", sig, "'%s' = (NULL, 2)" % p.name, with_(**{p.name: NullData(2)}),
                     [tc.INVALID_ARGUMENT], p.name)
            if p.type.elem_optional:  # Tensor?[] (indices): NULL entries and [] are valid; a float index is not
                self.bad("bad_list", sig, "'%s' = [float tensor]" % p.name,
                         with_(**{p.name: [TSpec((2, 2), tc.FLOAT32)]}), [tc.TYPE], p.name)
                continue
            self.bad("bad_list", sig, "'%s' = [tensor, NULL]" % p.name, with_(**{p.name: [valid[p.name][0], None]}),
                     [tc.INVALID_ARGUMENT], p.name)
            if sig.name in EMPTY_LIST_OK:
                res = self.caller.call(sig, with_(**{p.name: []}))
                self.record("bad_list", sig, res.status == tc.TC_OK, "'%s' = [] (empty) is valid" % p.name, res,
                            "" if res.status == tc.TC_OK else "an empty list must be nothing to do")
                continue
            self.bad("bad_list", sig, "'%s' = [] (empty)" % p.name, with_(**{p.name: []}),
                     [tc.INVALID_ARGUMENT], p.name)
        if not lists:
            self.skip("bad_list", sig, "no Tensor[] argument")
        dts = [p for p in sig.params if p.kind in ("dtype", "dtype_ptr")]
        for p in dts:
            for code in (99, -1, 10):
                self.bad("bad_dtype", sig, "'%s' = %d" % (p.name, code), with_(**{p.name: code}), [tc.TYPE], p.name)
        if not dts:
            self.skip("bad_dtype", sig, "no ScalarType argument")
        scs = [p for p in sig.params if p.kind in ("scalar", "scalar_ptr")]
        for p in scs:
            for tag in (9, -1):
                self.bad("bad_scalar_tag", sig, "'%s' tag %d" % (p.name, tag), with_(**{p.name: (tag, 1)}),
                         list(range(1, 9)), p.name)
            self.bad("bad_scalar_tag", sig, "'%s' TC_SCALAR_TENSOR with a NULL tensor" % p.name,
                     with_(**{p.name: (tc.SCALAR_TENSOR, 0)}), [tc.INVALID_ARGUMENT], p.name)
        if not scs:
            self.skip("bad_scalar_tag", sig, "no Scalar argument")
        devs = [p for p in sig.params if p.kind in ("device", "device_ptr")]
        for p in devs:
            for dev in ((5, 0), (0, 0), (tc.DEVICE_PRIVATEUSE1, -5)):
                self.bad("bad_device", sig, "'%s' = {type %d, index %d}" % ((p.name,) + dev),
                         with_(**{p.name: dev}), [tc.DEVICE], p.name)
        if not devs:
            self.skip("bad_device", sig, "no Device argument")
        strs = [p for p in sig.params if p.kind == "str"]
        for p in strs:
            self.bad("bad_string", sig, "'%s' = 'bogus'" % p.name, with_(**{p.name: "bogus"}),
                     [tc.INVALID_ARGUMENT], p.name)
        if not strs:
            self.skip("bad_string", sig, "no str argument")

        # 4. one tensor on another device
        self.check_device_mix(sig, valid, with_)

        # 5. dims and sizes
        dims = [p for p in sig.params if p.name in DIM_NAMES and p.kind in ("int", "int_ptr", "int_list")]
        for p in dims:
            if p.kind == "int_list":
                bad = [100] + (valid[p.name][1:] if p.name == "dims" and valid[p.name] else [])
            else:
                bad = 100
            self.bad("dim_range", sig, "'%s' = %s" % (p.name, bad), with_(**{p.name: bad}), [tc.INDEX], p.name)
        if not dims:
            self.skip("dim_range", sig, "no dim-like int argument")
        sizes = [p for p in sig.params if p.name in SIZE_NAMES and p.kind == "int_list"]
        for p in sizes:
            neg = {"view": [-2], "reshape": [-2], "expand": [2, -2], "split_with_sizes": [-1, 3]}.get(sig.name, [-1])
            ch = {p.name: neg}
            if sig.param("stride") is not None:
                ch["stride"] = [1] * len(neg)
            self.bad("size_negative", sig, "'%s' = %s" % (p.name, neg), with_(**ch), [tc.INVALID_ARGUMENT], p.name)
            huge = [2 ** 40, 2 ** 40]
            ch = {p.name: huge}
            if sig.param("stride") is not None:
                ch["stride"] = [2 ** 40, 1]
            self.bad("size_huge", sig, "'%s' = [2**40, 2**40]" % p.name, with_(**ch),
                     [tc.OUT_OF_MEMORY, tc.INVALID_ARGUMENT], p.name)
        if not sizes:
            self.skip("size_negative", sig, "no size-like int[] argument")
            self.skip("size_huge", sig, "no size-like int[] argument")

        # 6. shapes that do not broadcast
        self.check_broadcast(sig, valid)

        self.record("message_format", sig, not self.doubled, "no message repeats the op prefix",
                    why=("%d message(s) repeat the op prefix, e.g. \"%s\"" % (len(self.doubled), self.doubled[0]))
                    if self.doubled else "")

    def check_device_mix(self, sig, valid, with_):
        slots = []  # (param name, list index or None)
        for p in sig.params:
            v = valid.get(p.name)
            if p.kind == "tensor" and v is not None:
                slots.append((p.name, None))
            elif p.kind == "tensor_list" and v:
                slots += [(p.name, i) for i in range(len(v))]
        if len(slots) < 2:
            self.skip("device_mix", sig, "fewer than 2 tensor arguments")
            return
        if sig.qualified in self.no_check:
            self.skip("device_mix", sig, "device_check: false in the schema")
            return
        for name, idx in slots:
            if idx not in (None, 1):
                continue  # one element of a list is enough
            others = [(n, i) for n, i in slots if (n, i) != (name, idx)]

            def spec_of(n, i):
                return valid[n] if i is None else valid[n][i]
            if all(spec_of(n, i).shape == () for n, i in others):
                self.skip("device_mix", sig, "the other tensors are zero-dim CPU tensors (may mix with any device)")
                continue
            if idx is None:
                vals = with_(**{name: valid[name].on(tc.DEVICE_PRIVATEUSE1)})
                desc = "'%s' on privateuseone" % name
            else:
                lst = list(valid[name])
                lst[idx] = lst[idx].on(tc.DEVICE_PRIVATEUSE1)
                vals = with_(**{name: lst})
                desc = "'%s'[%d] on privateuseone" % (name, idx)
            self.bad("device_mix", sig, desc, vals, [tc.DEVICE, tc.NOT_IMPLEMENTED], name, arg_for=[tc.DEVICE])

    def check_broadcast(self, sig, valid):
        if sig.qualified not in self.pointwise:
            self.skip("broadcast", sig, "not a pointwise op")
            return
        ins = [p for p in sig.params if p.kind == "tensor" and valid.get(p.name) is not None and
               (not p.mutable or sig.kind == "inplace")]  # the out tensor of an out op is no input
        if len(ins) < 2:
            self.skip("broadcast", sig, "fewer than 2 tensor inputs")
            return
        vals = dict(valid)
        for p in sig.params:
            if p.kind == "tensor" and valid.get(p.name) is not None:
                vals[p.name] = valid[p.name].reshaped((2, 3))
        vals[ins[1].name] = valid[ins[1].name].reshaped((4,))
        self.bad("broadcast", sig, "'%s' (2,3) with '%s' (4,)" % (ins[0].name, ins[1].name), vals,
                 [tc.INVALID_ARGUMENT])

    def run(self, ops, start):
        self.lib.dll.tc_set_num_threads(1)
        if self.header is not None and start == 0 and not self.args.only:
            extra = sorted(set(self.header) - {o.c_name for o in ops})
            self.emit("REC", cat="signature", op="*", ok=not extra, desc="every header declaration is in ops.json",
                      why=("not in ops.json: %s" % ", ".join(extra)) if extra else "")
        for i in range(start, len(ops)):
            self.emit("BEGIN", index=i, op=ops[i].qualified)
            if os.environ.get("TC_BAD_INPUT_CRASH_AT") == ops[i].qualified:  # to test the crash guard
                ctypes.string_at(0)
            self.run_op(ops[i])
            self.emit("END", index=i, op=ops[i].qualified)
        self.emit("DONE")


# ---- the parent: runs the child, survives crashes, reports ------------------
def load_ops(args):
    ops = [tc.OpSig(o) for o in json.load(open(args.ops))["ops"]]
    if args.only:
        want = set(args.only.split(","))
        ops = [o for o in ops if o.qualified in want or o.name in want or o.c_name in want]
    return ops


def parent(args):
    t0 = time.time()
    ops = load_ops(args)
    passed = collections.Counter()
    failed = collections.Counter()
    skipped = collections.defaultdict(collections.Counter)
    failures = []
    start = 0
    while start < len(ops):
        cmd = [sys.executable, os.path.abspath(__file__), "--child", "--start", str(start)] + args.forward
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
        current = None
        done = False
        hung = False
        while True:
            ready, _, _ = select.select([proc.stdout], [], [], args.op_timeout)
            if not ready:
                hung = True
                proc.kill()
                break
            line = proc.stdout.readline()
            if not line:
                break
            kind, _, rest = line.rstrip("\n").partition(" ")
            d = json.loads(rest) if rest else {}
            if kind == "BEGIN":
                current = d["index"]
            elif kind == "END":
                passed["no_crash"] += 1
                current = None
            elif kind == "DONE":
                done = True
            elif kind == "SKIP":
                skipped[d["cat"]][d["reason"]] += 1
            elif kind == "REC":
                if d["ok"]:
                    passed[d["cat"]] += 1
                else:
                    failed[d["cat"]] += 1
                    failures.append(d)
                if args.verbose:
                    print("%s [%s] %s: %s%s%s" % (
                        "ok  " if d["ok"] else "FAIL", d["cat"], d["op"], d["desc"],
                        "" if d["ok"] else " (%s)" % d.get("why", ""),
                        " -> %s: %s" % (tc.STATUS_NAMES.get(d["status"], d["status"]), d["message"])
                        if d.get("status") else ""))
            else:
                print(line, end="")
        rc = proc.wait()
        if done and rc == 0:
            break
        if current is None:
            print("error: the child stopped outside an op (rc %s)" % rc)
            failed["no_crash"] += 1
            failures.append({"cat": "no_crash", "op": "*", "desc": "child process", "why": "rc %s" % rc})
            break
        why = ("no output for %ss (hang?)" % args.op_timeout) if hung else (
            "killed by signal %d" % -rc if rc < 0 else "exit status %d" % rc)
        failed["no_crash"] += 1
        failures.append({"cat": "no_crash", "op": ops[current].qualified, "desc": "the op's checks", "why": why})
        start = current + 1

    print("tensorc C API bad-input test: %d ops, %.1fs" % (len(ops), time.time() - t0))
    for c in CATEGORIES:
        sk = skipped.get(c, {})
        line = "  %-15s %5d passed, %4d failed, %4d skipped" % (c, passed[c], failed[c], sum(sk.values()))
        if sk:
            line += "  (" + "; ".join("%d: %s" % (n, r) for r, n in sorted(sk.items(), key=lambda x: -x[1])) + ")"
        print(line)
    if failures:
        print("failures:")
        shown = collections.Counter()
        for d in failures:
            shown[d["cat"]] += 1
            if not args.verbose and shown[d["cat"]] > args.max_shown:
                continue
            extra = ""
            if "status" in d:
                extra = " -> %s: %s" % (tc.STATUS_NAMES.get(d["status"], str(d["status"])), d.get("message", ""))
            print("  FAIL [%s] %s: %s: %s%s" % (d["cat"], d["op"], d["desc"], d.get("why", ""), extra))
        for c, n in shown.items():
            if not args.verbose and n > args.max_shown:
                rest = [d["op"] for d in failures if d["cat"] == c][args.max_shown:]
                print("  ... and %d more [%s] failures (-v shows all): %s" % (len(rest), c, ", ".join(rest)))
    n_pass, n_fail = sum(passed.values()), sum(failed.values())
    print("%d passed, %d failed" % (n_pass, n_fail))
    return 1 if n_fail else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="path to libtensorc.so")
    ap.add_argument("--ops", required=True, help="path to the generated ops.json")
    ap.add_argument("--header", help="generated tensorc_ops.h (default: next to ops.json)")
    ap.add_argument("--schema", default=os.path.join(HERE, "..", "..", "schema", "ops.yaml"))
    ap.add_argument("--only", help="comma-separated ops (qualified, base or C name)")
    ap.add_argument("--op-timeout", type=float, default=60.0, help="seconds without progress before a hang")
    ap.add_argument("--max-shown", type=int, default=10, help="failures printed per category (all with -v)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every check")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.header is None:
        guess = os.path.join(os.path.dirname(os.path.abspath(args.ops)), "include", "tensorc_ops.h")
        args.header = guess if os.path.exists(guess) else None
    if args.child:
        ops = load_ops(args)
        Child(args).run(ops, args.start)
        return 0
    args.forward = ["--lib", args.lib, "--ops", args.ops, "--schema", args.schema]
    if args.header:
        args.forward += ["--header", args.header]
    if args.only:
        args.forward += ["--only", args.only]
    return parent(args)


if __name__ == "__main__":
    sys.exit(main())
