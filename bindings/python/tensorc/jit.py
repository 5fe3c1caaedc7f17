# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.jit: trace a function or module into a graph of ops, replay it on
new inputs, print it, save and load it, as torch.jit.trace does.

``traced = tensorc.jit.trace(model, (x,))`` runs ``model(x)`` once with the
dispatcher's Tracer key on and records every op it calls (once each: a
composite op such as linear is one node). The tensors it reads from outside
(the model's parameters, constants) are captured. ``traced(x2)`` replays the
ops on a new input of the same dtype, shape and device; ``traced.graph``
prints them; ``traced.save(path)`` / ``tensorc.jit.load(path)`` write and
read the graph file (JSON; parameters included), which C (tc_graph_load,
tc_graph_run), C++ and Rust load and run too.

A trace follows the example inputs: Python control flow and values read
back (``item()``, ``if x.sum() > 0``) are fixed in it. Tracing warns about
them with a TracerWarning, as PyTorch does."""
import warnings as _warnings

from . import _C
from ._tensor import Tensor


class TracerWarning(Warning):
    """The trace may only be right for its example inputs."""


class Graph:
    """The traced ops; str() is TorchScript-like IR."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __str__(self):
        return _C.graph_text(self._capsule)

    __repr__ = __str__

    def nodes(self):
        """How many ops the graph runs."""
        return _C.graph_info(self._capsule)[2]


class TracedFunction:
    """A traced graph as a callable: ``f(*inputs)``."""

    def __init__(self, capsule, single_output, name="traced"):
        self._capsule = capsule
        self._single = single_output
        self.__name__ = name

    def __call__(self, *inputs):
        outputs = _C.graph_run(self._capsule, list(inputs))
        return outputs[0] if self._single else outputs

    @property
    def graph(self):
        return Graph(self._capsule)

    @property
    def code(self):
        return _C.graph_text(self._capsule)

    @property
    def warnings(self):
        """Why the trace may depend on its example inputs (also issued as TracerWarnings)."""
        return list(_C.graph_info(self._capsule)[3])

    def save(self, path):
        """Writes the graph file (JSON, version 1) to path."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(_C.graph_to_json(self._capsule))

    def __repr__(self):
        n_in, n_out, n_nodes, _ = _C.graph_info(self._capsule)
        return f"<tensorc.jit.TracedFunction {self.__name__}: {n_in} input(s), {n_nodes} op(s), {n_out} output(s)>"


def _flatten_outputs(out):
    if isinstance(out, Tensor):
        return [out], True
    if isinstance(out, (tuple, list)) and out and all(isinstance(t, Tensor) for t in out):
        return list(out), False
    raise TypeError("jit.trace: the traced function must return a tensor or a tuple/list of tensors, got "
                    + type(out).__name__)


def trace(func, example_inputs, check_trace=False, strict=True):
    """Traces ``func(*example_inputs)`` (a function or an nn.Module) into a TracedFunction.

    example_inputs: a tensor or a tuple of tensors. check_trace=True calls func
    again and replays the graph on the example inputs, and checks they agree
    (a function that depends on more than its inputs fails it)."""
    if isinstance(example_inputs, Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    for i, t in enumerate(example_inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"jit.trace: example_inputs[{i}] must be a tensor, got {type(t).__name__}")
    _C.trace_begin()
    try:
        for t in example_inputs:
            _C.trace_input(t)
        out = func(*example_inputs)
        flat, single = _flatten_outputs(out)
    except BaseException:
        _C.trace_abort()
        raise
    capsule = _C.trace_end(flat)
    name = getattr(func, "__name__", type(func).__name__)
    traced = TracedFunction(capsule, single, name)
    for message in traced.warnings:
        _warnings.warn(message, TracerWarning, stacklevel=2)
    if check_trace:
        replayed = traced(*example_inputs)
        replayed = [replayed] if single else list(replayed)
        again, _ = _flatten_outputs(func(*example_inputs))
        from ._numeric import allclose
        for i, (a, b) in enumerate(zip(again, replayed)):
            if not allclose(a.detach(), b.detach(), rtol=1e-5, atol=1e-6, equal_nan=True):
                raise RuntimeError(f"jit.trace: check_trace: output {i} of the replayed graph differs from the "
                                   "function's when called again (it depends on more than its inputs)")
    return traced


def save(traced, path):
    """traced.save(path)."""
    traced.save(path)


def load(path):
    """The TracedFunction saved at path (a one-output graph returns a tensor, else a tuple)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        capsule = _C.graph_from_json(text)
    except Exception as e:  # name the file, keep the error's class
        raise type(e)(f"{path}: {e}") from None
    return TracedFunction(capsule, _C.graph_info(capsule)[1] == 1, name=path)
