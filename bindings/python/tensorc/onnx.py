# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.onnx.export: a traced graph as an ONNX model (opset 17).

``tensorc.onnx.export(model, (x,), "model.onnx")`` traces ``model(x)`` (or
takes a TracedFunction from tensorc.jit.trace), maps each recorded op to
ONNX operators, stores the parameters and constants as initializers and
writes the file with the ``onnx`` package (Debian's python3-onnx). An op
without a mapping fails the export with the list of every such op in the
graph. Shapes are the traced ones (no dynamic axes)."""
import base64 as _base64

import numpy as _np

from . import _C
from . import jit as _jit
from ._tensor import Tensor

OPSET = 17

# tensorc dtype name -> (ONNX TensorProto data type, numpy dtype)
_DTYPES = {
    "float32": (1, _np.float32), "uint8": (2, _np.uint8), "int8": (3, _np.int8), "int16": (5, _np.int16),
    "int32": (6, _np.int32), "int64": (7, _np.int64), "bool": (9, _np.bool_), "float16": (10, _np.float16),
    "float64": (11, _np.float64), "bfloat16": (16, None),
}


class _Builder:
    """Collects ONNX nodes and initializers while the graph's nodes are mapped."""

    def __init__(self, onnx, values):
        self.onnx, self.helper = onnx, onnx.helper
        self.values = values  # value id -> {"dtype", "shape"}
        self.nodes, self.initializers = [], []
        self._n = 0

    def fresh(self, hint="t"):
        self._n += 1
        return f"{hint}_{self._n}"

    def node(self, op_type, inputs, outputs=None, **attrs):
        outputs = outputs or [self.fresh(op_type.lower())]
        self.nodes.append(self.helper.make_node(op_type, inputs, outputs, name=self.fresh("n"), **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def const(self, array, hint="c"):
        name = self.fresh(hint)
        self.initializers.append(self.onnx.numpy_helper.from_array(_np.asarray(array), name))
        return name

    def ints(self, xs):
        return self.const(_np.asarray(xs, dtype=_np.int64), "ints")

    def scalar_like(self, value, vid):
        """A 0-dim constant in the dtype of value vid (ONNX's binary ops take one type)."""
        np_dtype = _DTYPES[self.values[vid]["dtype"]][1]
        if np_dtype is None:
            raise _Unmappable("bfloat16 scalar")
        return self.const(_np.asarray(value, dtype=np_dtype), "scalar")

    def rank(self, vid):
        return len(self.values[vid]["shape"])

    def dtype(self, vid):
        return self.values[vid]["dtype"]

    def as_dtype(self, vid, dtype):
        """Value vid's name, through a Cast when its dtype is not `dtype` (ONNX does not promote)."""
        if self.dtype(vid) == dtype:
            return _v(vid)
        return self.node("Cast", [_v(vid)], to=_onnx_type(dtype))

    def scalar_of(self, value, dtype):
        np_dtype = _DTYPES[dtype][1]
        if np_dtype is None:
            raise _Unmappable(f"a {dtype} scalar")
        return self.const(_np.asarray(value, dtype=np_dtype), "scalar")


class _Unmappable(Exception):
    pass


def _onnx_type(dtype):
    if dtype not in _DTYPES:
        raise _Unmappable(f"dtype {dtype}")
    return _DTYPES[dtype][0]


def _arg(a):
    """(kind, payload) of a node argument from the graph JSON; a Scalar is its number."""
    (kind, payload), = a.items()
    if kind == "scalar":
        (_, payload), = payload.items()
    if kind in ("float", "scalar") and isinstance(payload, str):  # "inf", "-inf", "nan"
        payload = float(payload)
    return kind, payload


def _v(name):
    return f"v{name}"


def _binary(op_type):
    """An arithmetic op computed in the output's dtype (torch's type promotion:
    int64 x + 0.5 is float32, integer / integer is float32)."""
    def emit(b, args, outs):
        (_, x), (k, y) = _arg(args[0]), _arg(args[1])
        dtype = b.dtype(outs[0])
        rhs = b.as_dtype(y, dtype) if k == "value" else b.scalar_of(y, dtype)
        if len(args) > 2:  # alpha
            _, alpha = _arg(args[2])
            if alpha != 1:
                rhs = b.node("Mul", [rhs, b.scalar_of(alpha, dtype)])
        b.node(op_type, [b.as_dtype(x, dtype), rhs], [_v(outs[0])])
    return emit


def _unary(op_type, **attrs):
    def emit(b, args, outs):
        b.node(op_type, [_v(_arg(args[0])[1])], [_v(outs[0])], **attrs)
    return emit


def _linear(b, args, outs):
    x, w = _arg(args[0])[1], _arg(args[1])[1]
    wt = b.node("Transpose", [_v(w)], perm=[1, 0])
    kind, bias = _arg(args[2])
    if kind == "value":
        y = b.node("MatMul", [_v(x), wt])
        b.node("Add", [y, _v(bias)], [_v(outs[0])])
    else:
        b.node("MatMul", [_v(x), wt], [_v(outs[0])])


def _addmm(b, args, outs):
    s, m1, m2 = (_arg(a)[1] for a in args[:3])
    beta, alpha = float(_arg(args[3])[1]), float(_arg(args[4])[1])
    b.node("Gemm", [_v(m1), _v(m2), _v(s)], [_v(outs[0])], alpha=alpha, beta=beta)


def _softmax(op_type):
    def emit(b, args, outs):  # a dtype argument (or half_to_float): computed in the output's dtype
        x, dim = _arg(args[0])[1], _arg(args[1])[1]
        b.node(op_type, [b.as_dtype(x, b.dtype(outs[0]))], [_v(outs[0])], axis=int(dim))
    return emit


def _layer_norm(b, args, outs):
    x, shape = _arg(args[0])[1], _arg(args[1])[1]
    wk, w = _arg(args[2])
    bk, bias = _arg(args[3])
    eps = float(_arg(args[4])[1])
    np_dtype = _DTYPES[b.values[x]["dtype"]][1]
    scale = _v(w) if wk == "value" else b.const(_np.ones(shape, dtype=np_dtype), "ones")
    inputs = [_v(x), scale] + ([_v(bias)] if bk == "value" else [])
    b.node("LayerNormalization", inputs, [_v(outs[0])], axis=-len(shape), epsilon=eps)


def _reshape(b, args, outs):  # allowzero: a 0 in the shape is a size 0, as in torch
    b.node("Reshape", [_v(_arg(args[0])[1]), b.ints(_arg(args[1])[1])], [_v(outs[0])], allowzero=1)


def _transpose(b, args, outs):
    x, d0, d1 = _arg(args[0])[1], _arg(args[1])[1], _arg(args[2])[1]
    n = b.rank(x)
    if n == 0:
        return b.node("Identity", [_v(x)], [_v(outs[0])])
    perm = list(range(n))
    d0, d1 = d0 % n, d1 % n
    perm[d0], perm[d1] = perm[d1], perm[d0]
    b.node("Transpose", [_v(x)], [_v(outs[0])], perm=perm)


def _permute(b, args, outs):
    x, dims = _arg(args[0])[1], _arg(args[1])[1]
    n = b.rank(x)
    b.node("Transpose", [_v(x)], [_v(outs[0])], perm=[d % n for d in dims])


def _t(b, args, outs):
    x = _arg(args[0])[1]
    b.node("Transpose" if b.rank(x) == 2 else "Identity", [_v(x)], [_v(outs[0])],
           **({"perm": [1, 0]} if b.rank(x) == 2 else {}))


def _gelu(b, args, outs):
    x = _v(_arg(args[0])[1])
    approximate = _arg(args[1])[1] if len(args) > 1 else "none"
    vid = _arg(args[0])[1]
    half, one = b.scalar_like(0.5, vid), b.scalar_like(1.0, vid)
    if approximate == "tanh":  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = b.node("Mul", [b.node("Mul", [x, x]), x])
        inner = b.node("Add", [x, b.node("Mul", [cube, b.scalar_like(0.044715, vid)])])
        t = b.node("Tanh", [b.node("Mul", [inner, b.scalar_like((2 / _np.pi) ** 0.5, vid)])])
    else:  # 0.5 x (1 + erf(x / sqrt 2))
        t = b.node("Erf", [b.node("Div", [x, b.scalar_like(2 ** 0.5, vid)])])
    b.node("Mul", [b.node("Mul", [x, half]), b.node("Add", [t, one])], [_v(outs[0])])


def _silu(b, args, outs):
    x = _v(_arg(args[0])[1])
    b.node("Mul", [x, b.node("Sigmoid", [x])], [_v(outs[0])])


def _split(b, args, outs):
    x, size, dim = _arg(args[0])[1], _arg(args[1])[1], _arg(args[2])[1]
    total = b.values[x]["shape"][dim]
    sizes = [min(size, total - s) for s in range(0, total, size)]
    b.node("Split", [_v(x), b.ints(sizes)], [_v(o) for o in outs], axis=int(dim))


def _reduce_sum(b, args, outs):  # summed in the output's dtype (int64 for integers and bool, as torch)
    x, dims = _arg(args[0])[1], _arg(args[1])[1]
    keep = int(bool(_arg(args[2])[1]))
    axes = [] if _arg(args[1])[0] == "none" or not dims else [b.ints(dims)]  # none or []: every dim
    b.node("ReduceSum", [b.as_dtype(x, b.dtype(outs[0]))] + axes, [_v(outs[0])], keepdims=keep)


def _reduce_mean(b, args, outs):  # opset 17: axes is an attribute
    x, dims = _arg(args[0])[1], _arg(args[1])[1]
    keep = int(bool(_arg(args[2])[1]))
    attrs = {"axes": list(dims)} if _arg(args[1])[0] != "none" and dims else {}
    b.node("ReduceMean", [b.as_dtype(x, b.dtype(outs[0]))], [_v(outs[0])], keepdims=keep, **attrs)


def _reduce_all(op_type):
    def emit(b, args, outs):  # sum(self, dtype) / mean(self, dtype): every dim, in the output's dtype
        x = _arg(args[0])[1]
        b.node(op_type, [b.as_dtype(x, b.dtype(outs[0]))], [_v(outs[0])], keepdims=0)
    return emit


def _to_copy(b, args, outs):
    x = _arg(args[0])[1]
    kind, dtype = _arg(args[1])
    if kind == "none":
        b.node("Identity", [_v(x)], [_v(outs[0])])
    else:
        b.node("Cast", [_v(x)], [_v(outs[0])], to=_onnx_type(dtype))


def _cat(b, args, outs):
    _, xs = _arg(args[0])
    b.node("Concat", [_v(x) for x in xs], [_v(outs[0])], axis=int(_arg(args[1])[1]))


def _unsqueeze(b, args, outs):
    b.node("Unsqueeze", [_v(_arg(args[0])[1]), b.ints([_arg(args[1])[1]])], [_v(outs[0])])


def _embedding(b, args, outs):
    w, idx = _arg(args[0])[1], _arg(args[1])[1]
    b.node("Gather", [_v(w), _v(idx)], [_v(outs[0])], axis=0)


def _pow_scalar(b, args, outs):
    x, e = _arg(args[0])[1], _arg(args[1])[1]
    dtype = b.dtype(outs[0])
    b.node("Pow", [b.as_dtype(x, dtype), b.scalar_of(e, dtype)], [_v(outs[0])])


_MAP = {
    "linear": _linear, "addmm": _addmm, "mm": _unary("MatMul"), "matmul": None, "bmm": None,
    "add.Tensor": _binary("Add"), "add.Scalar": _binary("Add"), "sub.Tensor": _binary("Sub"),
    "sub.Scalar": _binary("Sub"), "mul.Tensor": _binary("Mul"), "mul.Scalar": _binary("Mul"),
    "div.Tensor": _binary("Div"), "div.Scalar": _binary("Div"),
    "relu": _unary("Relu"), "sigmoid": _unary("Sigmoid"), "tanh": _unary("Tanh"), "exp": _unary("Exp"),
    "log": _unary("Log"), "sqrt": _unary("Sqrt"), "neg": _unary("Neg"), "abs": _unary("Abs"),
    "erf": _unary("Erf"), "reciprocal": _unary("Reciprocal"), "gelu": _gelu, "silu": _silu,
    "softmax.int": _softmax("Softmax"), "_softmax": _softmax("Softmax"),
    "log_softmax.int": _softmax("LogSoftmax"), "_log_softmax": _softmax("LogSoftmax"),
    "layer_norm": _layer_norm, "reshape": _reshape, "view": _reshape, "_unsafe_view": _reshape,
    "transpose.int": _transpose, "permute": _permute, "t": _t,
    "contiguous": _unary("Identity"), "clone": _unary("Identity"), "alias": _unary("Identity"),
    "detach": _unary("Identity"), "split.Tensor": _split, "sum.dim_IntList": _reduce_sum,
    "mean.dim": _reduce_mean, "sum": _reduce_all("ReduceSum"), "mean": _reduce_all("ReduceMean"), "_to_copy": _to_copy, "cat": _cat, "unsqueeze": _unsqueeze,
    "embedding": _embedding, "pow.Tensor_Scalar": _pow_scalar,
}


def _matmul(b, args, outs):
    b.node("MatMul", [_v(_arg(args[0])[1]), _v(_arg(args[1])[1])], [_v(outs[0])])


_MAP["matmul"] = _MAP["bmm"] = _MAP["mm"] = _matmul


def _value_info(helper, name, info):
    code = _onnx_type(info["dtype"])
    return helper.make_tensor_value_info(name, code, info["shape"])


def export(model, args, f, input_names=None, output_names=None, opset_version=OPSET):
    """Writes `model` (a function, an nn.Module or a tensorc.jit.TracedFunction)
    traced on `args` (a tensor or a tuple of tensors) as an ONNX model to `f`
    (a path or a binary file object). Returns the onnx.ModelProto."""
    if opset_version != OPSET:  # the mappings use opset 17's forms (ReduceMean's axes attribute...)
        raise ValueError(f"onnx.export: opset_version must be {OPSET}, got {opset_version}")
    try:
        import onnx
        import onnx.numpy_helper  # noqa: F401  (a submodule the package does not import)
    except ImportError as e:  # pragma: no cover - Debian's python3-onnx is a dependency of the test run
        raise ImportError("tensorc.onnx.export needs the onnx package (apt install python3-onnx)") from e
    if isinstance(args, Tensor):
        args = (args,)
    traced = model if isinstance(model, _jit.TracedFunction) else _jit.trace(model, tuple(args))
    import json
    graph = json.loads(_C.graph_to_json(traced._capsule))
    values = graph["values"]

    missing = sorted({n["op"] for n in graph["nodes"] if n["op"].split("::", 1)[-1] not in _MAP})
    if missing:
        raise NotImplementedError("onnx.export: no ONNX mapping for " + ", ".join(missing))
    for v in values:
        if v["dtype"] == "bfloat16" or v["dtype"] not in _DTYPES:
            raise NotImplementedError(f"onnx.export: {v['dtype']} values are not exported (cast to float32 first)")

    b = _Builder(onnx, values)
    for c in graph["constants"]:
        info = values[c["value"]]
        data = _np.frombuffer(_base64.b64decode(c["data"]), dtype=_DTYPES[info["dtype"]][1]).reshape(info["shape"])
        b.initializers.append(onnx.numpy_helper.from_array(data.copy(), _v(c["value"])))
    for node in graph["nodes"]:
        name = node["op"].split("::", 1)[-1]
        try:
            _MAP[name](b, node["args"], node["outputs"])
        except (_Unmappable, KeyError) as e:
            raise NotImplementedError(f"onnx.export: {name}: cannot map {e}") from None

    in_names = list(input_names or [f"input{i}" for i in range(len(graph["inputs"]))])
    out_names = list(output_names or [f"output{i}" for i in range(len(graph["outputs"]))])
    if len(in_names) != len(graph["inputs"]) or len(out_names) != len(graph["outputs"]):
        raise ValueError("onnx.export: input_names/output_names must name every input/output of the graph")
    for name, vid in zip(in_names, graph["inputs"]):
        b.nodes.insert(0, onnx.helper.make_node("Identity", [name], [_v(vid)], name=b.fresh("in")))
    for name, vid in zip(out_names, graph["outputs"]):
        b.node("Identity", [_v(vid)], [name])
    onnx_graph = onnx.helper.make_graph(
        b.nodes, "tensorc_graph",
        [_value_info(onnx.helper, n, values[v]) for n, v in zip(in_names, graph["inputs"])],
        [_value_info(onnx.helper, n, values[v]) for n, v in zip(out_names, graph["outputs"])],
        initializer=b.initializers)
    proto = onnx.helper.make_model(onnx_graph, producer_name="tensorc",
                                   opset_imports=[onnx.helper.make_opsetid("", opset_version)])
    onnx.checker.check_model(proto)
    if hasattr(f, "write"):
        f.write(proto.SerializeToString())
    else:
        onnx.save(proto, f)
    return proto
