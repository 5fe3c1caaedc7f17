#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the Python op surface from the schema model tc_codegen exports.

    gen_python.py <ops.json> <out_dir>

Outputs (rewritten only when their text changes):
  ops.i       SWIG: the list typemaps applied to each list argument by name,
              then the generated C header itself (every tc_<op> entry point).
  _ops.py     the package's functions and Tensor methods: PyTorch signatures
              (keyword names, defaults, keyword-only after *, out=), overload
              resolution by argument type, the __tensorc_function__ check.

This generator is Python because it writes Python; it reads ops.json, which
tc_codegen writes from schema/ops.yaml, so the schema stays the one source.
"""
import json
import keyword
import os
import sys

# ---- the model ------------------------------------------------------------

LIST_TYPES = {"int[]", "int[1]", "int[2]", "int[3]", "int[]?", "int[1]?", "int[2]?"}
TENSOR_LIKE = {"Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "Scalar", "Scalar?"}

# Schema default literals that are not Python literals.
DEFAULTS = {"True": "True", "False": "False", "None": "None", "[]": "()", "Mean": "1", "Sum": "2"}

# How a value is recognised when overloads differ in an argument's type.
CHECKS = {
    "Tensor": "isinstance({v}, _TensorBase)",
    "Tensor?": "({v} is None or isinstance({v}, _TensorBase))",
    "Tensor[]": "_is_tensor_list({v})",
    "Tensor?[]": "_is_tensor_list({v}, True)",
    "Scalar": "_is_scalar({v})",
    "Scalar?": "({v} is None or _is_scalar({v}))",
    "int": "_is_int({v})",
    "int?": "({v} is None or _is_int({v}))",
    "float": "_is_float({v})",
    "float?": "({v} is None or _is_float({v}))",
    "bool": "_is_bool({v})",
    "bool?": "({v} is None or _is_bool({v}))",
    "str": "isinstance({v}, str)",
    "str?": "({v} is None or isinstance({v}, str))",
    "ScalarType": "_is_dtype({v})",
    "ScalarType?": "({v} is None or _is_dtype({v}))",
    "Device": "_is_device({v})",
    "Device?": "({v} is None or _is_device({v}))",
    "Generator?": "({v} is None or _is_generator({v}))",
}


def check_expr(type_, var):
    if type_ in CHECKS:
        return CHECKS[type_].format(v=var)
    if type_.startswith("int["):
        base = "_is_int_list({v})".format(v=var)
        return "({v} is None or {b})".format(v=var, b=base) if type_.endswith("?") else base
    if type_.startswith("bool["):
        return "_is_bool_list({v})".format(v=var)
    raise SystemExit("gen_python: no check for schema type " + type_)


def py_default(arg):
    d = arg["default"]
    if d in DEFAULTS:
        return DEFAULTS[d]
    if d.startswith("'") or d.startswith('"'):
        return repr(d[1:-1])
    if d.startswith("["):
        return "(" + d[1:-1] + ("," if d[1:-1] and "," not in d else "") + ")"
    float(d)  # a number, or the schema has a default this table lacks
    return d


def py_name(name):
    return name + "_" if keyword.iskeyword(name) else name


def c_value(arg, var):
    """The expression passed to the SWIG wrapper for one argument."""
    t = arg["type"]
    if t in ("Device", "Device?"):
        return "_device_arg({})".format(var)
    if t.startswith("int[") and t[4] not in "]":  # int[N]: a bare int means N copies
        n = int(t[4:t.index("]")])
        if n > 1:
            return "_expand_ints({}, {})".format(var, n)
    return var


class Param:
    """One Python parameter of a candidate signature."""

    def __init__(self, name, type_, kwarg_only, default, out=False):
        self.name, self.type, self.kwarg_only, self.default, self.out = name, type_, kwarg_only, default, out


class Candidate:
    """One functional/in-place overload (with its out= twin, if any) as Python sees it."""

    def __init__(self, op, method, out_twin):
        self.op, self.method, self.out_twin = op, method, out_twin
        self.self_name = "self" if method else "input"
        args = op["arguments"]
        if method:  # the bound tensor comes first, named self
            args = [a for a in args if a["name"] == "self"] + [a for a in args if a["name"] != "self"]
            args = args[1:]
        self.params = []
        for a in args:
            name = self.self_name if (a["name"] == "self" and not method) else py_name(a["name"])
            default = py_default(a) if "default" in a else None
            self.params.append(Param(name, a["type"], a["kwarg_only"], default))
        if out_twin is not None:
            self.params.append(Param("out", "Tensor", True, "None", out=True))
        self.arg_vars = {a["name"]: (self.self_name if a["name"] == "self" else py_name(a["name"])) for a in op["arguments"]}

    def positional(self):
        return [p for p in self.params if not p.kwarg_only]

    def call(self, value_of, indent, only_out=False):
        """Lines that call the C entry point and return the Python result
        (only_out: just the out= variant's call)."""
        op = self.op
        lines = []

        def c_args(o):
            vals = []
            for a in o["arguments"]:
                if o["kind"] == "out" and a["mutable"]:
                    continue
                vals.append(c_value(a, value_of(self.arg_vars[a["name"]])))
            return vals

        def emit(o, pad):
            args = c_args(o)
            if o["kind"] == "out":
                outs = [a for a in o["arguments"] if a["mutable"]]
                args = [value_of("out")] * len(outs) + args
                lines.append(pad + "_C.{}({})".format(o["c_name"], ", ".join(args)))
                lines.append(pad + "return " + value_of("out"))
            elif o["kind"] == "inplace":
                lines.append(pad + "_C.{}({})".format(o["c_name"], ", ".join(args)))
                lines.append(pad + "return " + value_of(self.self_name))
            elif len(o["returns"]) > 1:
                lines.append(pad + "return {}(*_C.{}({}))".format(return_type_name(o), o["c_name"], ", ".join(args)))
            else:
                lines.append(pad + "return _C.{}({})".format(o["c_name"], ", ".join(args)))

        pad = " " * indent
        if only_out:
            emit(self.out_twin, pad)
            return lines
        if self.out_twin is not None:
            lines.append(pad + "if {} is not None:".format(value_of("out")))
            emit(self.out_twin, pad + "    ")
        emit(op, pad)
        return lines


def signature_text_varargs(params, leading):
    """(*size, <keyword-only params>, **_kw): the sizes as varargs or as size=."""
    parts = [leading] if leading else []
    for p in params:
        if getattr(p, "varargs", False):
            parts.append("*" + p.name)
        else:
            parts.append(p.name if p.default is None else "{}={}".format(p.name, p.default))
    parts.append("**_kw")
    return ", ".join(parts)


def return_type_name(op):
    return "_ret_" + op["c_name"][3:]


def signature_text(params, leading=None):
    parts = [leading] if leading else []
    star = False
    if any(getattr(p, "varargs", False) for p in params):
        return signature_text_varargs(params, leading)
    for p in params:
        if getattr(p, "varargs", False):
            parts.append("*" + p.name)
            star = True
            continue
        if p.kwarg_only and not star:
            parts.append("*")
            star = True
        parts.append(p.name if p.default is None else "{}={}".format(p.name, p.default))
    return ", ".join(parts)


# ---- grouping overloads -----------------------------------------------------

def same_args(fn, out):
    a = [(x["name"], x["type"]) for x in fn["arguments"]]
    b = [(x["name"], x["type"]) for x in out["arguments"] if not x["mutable"]]
    return a == b


def candidates(ops, method):
    """Per public name, its candidates in schema order."""
    groups = {}
    variant = "method" if method else "function"
    for op in ops:
        if variant not in op["variants"] or op["kind"] == "out":
            continue
        groups.setdefault(op["name"], []).append(op)
    outs = {}
    if not method:
        for op in ops:
            if op["kind"] == "out" and "function" in op["variants"]:
                outs.setdefault(op["name"], []).append(op)
    result = {}
    for name, group in groups.items():
        pending = list(outs.get(name, []))
        cands = []
        for op in group:
            twin = next((o for o in pending if same_args(op, o)), None)
            if twin is not None:
                pending.remove(twin)
            cands.append(Candidate(op, method, twin))
        for o in pending:  # an out overload without a functional twin: its own candidate
            raise SystemExit("gen_python: {} has no functional twin".format(o["qualified"]))
        result[name] = cands
    for name in outs:
        if name not in groups and not method:
            raise SystemExit("gen_python: out-only op " + name)
    return result


UNSET = "_UNSET"


def merge(cands):
    """One Python signature for all candidates, or None when their positional
    parameters disagree (then a generic resolver binds each in turn)."""
    first = cands[0]
    kw_first = {p.name for p in first.params if p.kwarg_only}
    positional = []
    for c in cands:
        pos = [p.name for p in c.params if not p.kwarg_only and p.name not in kw_first]
        common = min(len(pos), len(positional))
        if pos[:common] != positional[:common]:
            return None
        if len(pos) > len(positional):
            positional = pos
    names = list(positional)
    for c in cands:
        for p in c.params:
            if p.name not in names:
                names.append(p.name)
    merged = []
    for name in names:
        owners = [next((p for p in c.params if p.name == name), None) for c in cands]
        present = [p for p in owners if p is not None]
        defaults = {p.default for p in present}
        if len(present) == len(cands) and len(defaults) == 1:
            default = present[0].default
        else:
            default = UNSET
        kw = name not in positional
        if name == "out" and any(c.out_twin is not None for c in cands):
            merged.append(Param(name, None, True, "None", out=True))
            continue
        merged.append(Param(name, None, kw, default))
    # Python: a parameter without a default cannot follow one with a default.
    seen_default = False
    for p in merged:
        if p.kwarg_only:
            continue
        if p.default is not None:
            seen_default = True
        elif seen_default:
            p.default = UNSET
    return merged


def override_check(cands, params, func_ref, leading):
    """Lines that hand the call to __tensorc_function__ when an argument asks."""
    overridable = {p.name for c in cands for p in c.params if p.type in TENSOR_LIKE or p.out}
    names = ([leading] if leading else []) + [p.name for p in params if p.name in overridable]
    if not names:
        return []
    args = [leading] if leading else []
    args += [p.name for p in params if not p.kwarg_only]
    kwargs = ["{0!r}: {0}".format(p.name) for p in params if p.kwarg_only]
    rel = ", ".join(names)
    return [
        "    if _needs_check({}) and _has_override(({},)):".format(rel, rel),
        "        return _handle_override({}, ({},), ({}), {{{}}})".format(
            func_ref, rel, "".join(a + ", " for a in args), ", ".join(kwargs)),
    ]


def number_out_fallback(cands, merged_names):
    """add(a, 1, out=o): the out= variants take tensors only, and PyTorch wraps
    a Python number given for one in a 0-dim tensor. Tried after every
    overload failed, with the first candidate that has an out= twin."""
    c = next((c for c in cands if c.out_twin is not None), None)
    if c is None:
        return []
    first = c.positional()[0].name if c.positional() else None
    wrapped = [p.name for p in c.params if p.type == "Tensor" and not p.out and p.name != first]
    if not wrapped:
        return []
    conds = ["out is not None"]
    for p in c.params:
        m = merged_names[p.name]
        if p.name in wrapped:
            conds.append("(isinstance({0}, _TensorBase) or _is_scalar({0}))".format(p.name))
        elif not p.out and m.default == UNSET:
            conds.append("{} is not _UNSET".format(p.name) if p.default is None else "True")

    def value_of(v):
        if v in wrapped:
            return "_number_tensor({})".format(v)
        p = next((x for x in c.params if x.name == v), None)
        m = merged_names.get(v)
        if p is not None and m is not None and m.default == UNSET and p.default is not None:
            return "({} if {} is _UNSET else {})".format(p.default, v, v)
        return v
    return ["    if {}:".format(" and ".join(conds))] + c.call(value_of, 8, only_out=True)


def emit_group(name, cands, method, out):
    pyname = ("_m_" if method else "") + name
    leading = "self" if method else None
    schemas = [c.op["schema"] for c in cands] + [c.out_twin["schema"] for c in cands if c.out_twin]
    doc = "\n".join(schemas)
    merged = merge(cands) if len(cands) > 1 else cands[0].params
    varargs = None
    if len(cands) == 1:
        pos = cands[0].positional()
        if len(pos) == 1 and pos[0].type.startswith("int[") and not pos[0].type.endswith("?") and pos[0].default is None:
            varargs = pos[0]  # zeros(2, 3) as well as zeros((2, 3)), like PyTorch
            varargs.varargs = True
    if merged is not None:
        out.append("def {}({}):".format(pyname, signature_text(merged, leading)))
        out.append('    """{}"""'.format(doc.replace("\\", "\\\\")))
        if varargs is not None:  # size=(2, 3) as a keyword works too, as in PyTorch
            out.append("    {0} = _varargs_ints({0}, _kw, {0!r}, {1!r})".format(varargs.name, name))
        out.extend(override_check(cands, merged, pyname, leading))
        if len(cands) == 1:
            out.extend(cands[0].call(lambda v: v, 4))
            out.append("")
            return
        merged_names = {p.name: p for p in merged}
        for c in cands:
            mine = {p.name: p for p in c.params}
            conds = []
            for m in merged:
                p = mine.get(m.name)
                if m.out:
                    if p is None:
                        conds.append("out is None")
                    continue
                if p is None:
                    conds.append("{} is _UNSET".format(m.name))
                    continue
                if m.default == UNSET and p.default is None:
                    conds.append("{} is not _UNSET".format(m.name))
                types = {x.type for cc in cands for x in cc.params if x.name == m.name}
                everywhere = all(any(x.name == m.name for x in cc.params) for cc in cands)
                if len(types) > 1 or not everywhere:  # the value decides between overloads
                    chk = check_expr(p.type, m.name)
                    if m.default == UNSET and p.default is not None:
                        chk = "({} is _UNSET or {})".format(m.name, chk)
                    conds.append(chk)

            def value_of(v, mine=mine):
                p = mine.get(v)
                m = merged_names.get(v)
                if p is not None and m is not None and m.default == UNSET and p.default is not None:
                    return "({} if {} is _UNSET else {})".format(p.default, v, v)
                return v

            body = c.call(value_of, 8)
            out.append("    if {}:".format(" and ".join(conds) if conds else "True"))
            out.extend(body)
        out.extend(number_out_fallback(cands, merged_names))
        values = "".join(n + ", " for n in ([leading] if leading else []) + [p.name for p in merged])
        out.append("    raise _no_match({!r}, {}, ({}))".format(name, pyname, values))
        out.append("")
        return
    # Generic: bind each candidate's own signature in turn.
    for i, c in enumerate(cands):
        sig = signature_text(c.params, leading)
        names = ([leading] if leading else []) + [p.name for p in c.params]
        out.append("def _g_{}_b{}({}):".format(pyname, i, sig))
        out.append("    return ({},)".format(", ".join(names)))
        out.append("def _g_{}_c{}({}):".format(pyname, i, ", ".join(names)))
        conds = [check_expr(p.type, p.name) for p in c.params if not p.out]
        out.append("    if not ({}):".format(" and ".join(conds) if conds else "True"))
        out.append("        return _NOMATCH")
        out.extend(c.call(lambda v: v, 4))
    out.append("def {}(*args, **kwargs):".format(pyname))
    out.append('    """{}"""'.format(doc))
    out.append("    if _needs_check(*args, *kwargs.values()) and _has_override(args + tuple(kwargs.values())):")
    out.append("        return _handle_override({}, args + tuple(kwargs.values()), args, kwargs)".format(pyname))
    out.append("    for bind, call in ({},):".format(
        ", ".join("(_g_{0}_b{1}, _g_{0}_c{1})".format(pyname, i) for i in range(len(cands)))))
    out.append("        try:")
    out.append("            bound = bind(*args, **kwargs)")
    out.append("        except TypeError:")
    out.append("            continue")
    out.append("        result = call(*bound)")
    out.append("        if result is not _NOMATCH:")
    out.append("            return result")
    out.append("    raise _no_match({!r}, {}, args, kwargs)".format(name, pyname))
    out.append("")


def generate_py(ops):
    out = [
        "# Generated by bindings/python/codegen/gen_python.py from ops.json. Do not edit.",
        "from collections import namedtuple as _namedtuple",
        "from . import _C",
        "from ._override_protocol import _needs_check, _has_override, _handle_override",
        "from ._op_support import (_TensorBase, _UNSET, _NOMATCH, _no_match, _device_arg, _expand_ints, _is_tensor, _is_tensor_list, _is_scalar,",
        "                          _is_int, _is_float, _is_bool, _is_dtype, _is_device, _is_generator, _is_int_list,",
        "                          _is_bool_list, _varargs_ints, _number_tensor)",
        "",
    ]
    for op in ops:
        if len(op["returns"]) > 1:
            names = [r.get("name") or "out{}".format(i) for i, r in enumerate(op["returns"])]
            out.append("{} = _namedtuple({!r}, {!r})".format(return_type_name(op), op["name"], names))
    out.append("")
    functions = candidates(ops, method=False)
    methods = candidates(ops, method=True)
    for name, cands in functions.items():
        emit_group(name, cands, False, out)
    for name, cands in methods.items():
        emit_group(name, cands, True, out)
    out.append("FUNCTIONS = {")
    out.extend("    {!r}: {},".format(n, n) for n in functions)
    out.append("}")
    out.append("METHODS = {")
    out.extend("    {!r}: _m_{},".format(n, n) for n in methods)
    out.append("}")
    # The schemas of each public name, for tensorc.overrides.
    out.append("SCHEMAS = {")
    for name, cands in functions.items():
        out.append("    {!r}: {!r},".format(name, [c.op["schema"] for c in cands]))
    out.append("}")
    out.append("METHOD_SCHEMAS = {")
    for name, cands in methods.items():
        out.append("    {!r}: {!r},".format(name, [c.op["schema"] for c in cands]))
    out.append("}")
    return "\n".join(out) + "\n"


def generate_swig(ops):
    ints, tensors, bools = set(), set(), set()
    for op in ops:
        for a in op["arguments"]:
            t = a["type"]
            if t.startswith("int["):
                ints.add(a["name"])
            elif t in ("Tensor[]", "Tensor?[]"):
                tensors.add(a["name"])
            elif t.startswith("bool["):
                bools.add(a["name"])
    lines = ["/* Generated by bindings/python/codegen/gen_python.py from ops.json. Do not edit. */"]
    for n in sorted(ints):
        lines.append("%apply (const int64_t* INTS, size_t INTS_LEN) {{ (const int64_t* {0}, size_t {0}_len) }};".format(n))
    for n in sorted(tensors):
        lines.append("%apply (const tc_tensor* TENSORS, size_t TENSORS_LEN) {{ (const tc_tensor* {0}, size_t {0}_len) }};".format(n))
    for n in sorted(bools):
        lines.append("%apply (const bool* BOOLS, size_t BOOLS_LEN) {{ (const bool* {0}, size_t {0}_len) }};".format(n))
    lines.append('%include "tensorc_ops.h"')
    return "\n".join(lines) + "\n"


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    with open(argv[1]) as f:
        ops = json.load(f)["ops"]
    os.makedirs(argv[2], exist_ok=True)
    write_if_changed(os.path.join(argv[2], "ops.i"), generate_swig(ops))
    write_if_changed(os.path.join(argv[2], "_ops.py"), generate_py(ops))


if __name__ == "__main__":
    main(sys.argv)
