# SPDX-License-Identifier: BSD-3-Clause
"""The __tensorc_function__ protocol (PyTorch's __torch_function__): the
examples of PyTorch's "Extending torch Python API" note run with their
documented output, the dispatch rules, tensorc.overrides, and a sweep that
calls every overridable function with a tensor-like argument."""
import copy
import functools
import inspect
import logging

import numpy as np
import pytest

import tensorc
from tensorc import overrides
from tensorc.overrides import _schema_arguments

from conftest import assert_same


# ---- the note's ScalarTensor: a tensor-like that is not a Tensor ---------------------

HANDLED_FUNCTIONS = {}


class ScalarTensor(object):
    def __init__(self, N, value):
        self._N = N
        self._value = value

    def __repr__(self):
        return "ScalarTensor(N={}, value={})".format(self._N, self._value)

    def tensor(self):
        return self._value * tensorc.eye(self._N)

    def __tensorc_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(issubclass(t, (tensorc.Tensor, ScalarTensor)) for t in types):
            return NotImplemented
        return HANDLED_FUNCTIONS[func](*args, **kwargs)


def implements(tensorc_function):
    """Register a tensorc function override for ScalarTensor."""
    def decorator(func):
        functools.update_wrapper(func, tensorc_function)
        HANDLED_FUNCTIONS[tensorc_function] = func
        return func
    return decorator


@implements(tensorc.mean)
def mean(input):
    return float(input._value) / input._N


def ensure_tensor(data):
    if isinstance(data, ScalarTensor):
        return data.tensor()
    return tensorc.as_tensor(data)


@implements(tensorc.add)
def add(input, other):
    try:
        if input._N == other._N:
            return ScalarTensor(input._N, input._value + other._value)
        raise ValueError("Shape mismatch!")
    except AttributeError:
        return tensorc.add(ensure_tensor(input), ensure_tensor(other))


class FallbackScalarTensor(ScalarTensor):
    """The note's second version: unhandled functions run on the dense tensor."""

    def __tensorc_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(issubclass(t, (tensorc.Tensor, ScalarTensor)) for t in types):
            args = [a.tensor() if hasattr(a, "tensor") else a for a in args]
            return func(*args, **kwargs)
        return HANDLED_FUNCTIONS[func](*args, **kwargs)


def test_scalar_tensor_repr_and_dense_form():
    d = ScalarTensor(5, 2)
    assert repr(d) == "ScalarTensor(N=5, value=2)"
    assert repr(d.tensor()) == ("tensor([[2., 0., 0., 0., 0.],\n"
                                "        [0., 2., 0., 0., 0.],\n"
                                "        [0., 0., 2., 0., 0.],\n"
                                "        [0., 0., 0., 2., 0.],\n"
                                "        [0., 0., 0., 0., 2.]])")


def test_scalar_tensor_mean_dispatches_to_its_implementation():
    assert tensorc.mean(ScalarTensor(5, 2)) == 0.4


def test_scalar_tensor_add_with_itself_and_with_a_tensor():
    s = ScalarTensor(2, 2)
    assert repr(tensorc.add(s, s)) == "ScalarTensor(N=2, value=4)"
    t = tensorc.tensor([[1, 1], [1, 1]])
    result = tensorc.add(s, t)
    assert repr(result) == "tensor([[3., 1.],\n        [1., 3.]])"
    result = tensorc.add(t, s)  # either operand may be the tensor-like
    assert_same(result, [[3., 1.], [1., 3.]])


def test_handlers_get_only_the_arguments_the_caller_passed():
    s = ScalarTensor(2, 2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        tensorc.add(s, s, alpha=2)


def test_unhandled_function_raises_type_error_naming_the_type():
    s = ScalarTensor(2, 2)
    with pytest.raises(TypeError) as info:
        tensorc.mul(s, 3)
    assert str(info.value) == ("no implementation found for 'tensorc.mul' on types that implement "
                               "__tensorc_function__: [ScalarTensor]")


def test_fallback_version_runs_unhandled_functions_on_tensors():
    s = FallbackScalarTensor(2, 2)
    result = tensorc.mul(s, s)
    assert type(result) is tensorc.Tensor
    assert repr(result) == "tensor([[4., 0.],\n        [0., 4.]])"


# ---- Tensor subclasses ------------------------------------------------------------------

class SubTensor(tensorc.Tensor):
    pass


class SubTensor2(SubTensor):
    pass


class OtherSubTensor(tensorc.Tensor):
    pass


def make(cls, values):
    return tensorc.tensor(values).as_subclass(cls)


def test_subclass_results_are_the_subclass():
    assert type(tensorc.add(make(SubTensor, [0]), make(SubTensor, [1]))).__name__ == "SubTensor"
    assert type(tensorc.add(make(SubTensor, [0]), tensorc.tensor([1]))).__name__ == "SubTensor"
    s = make(SubTensor, [[1., 2.], [3., 4.]])
    for result in (s + 1, s * s, s.sum(), s.t(), s[0], s.float(), s.detach(), abs(s), -s):
        assert type(result) is SubTensor
    values, indices = s.max(1)
    assert type(values) is SubTensor and type(indices) is SubTensor
    assert all(type(part) is SubTensor for part in s.unbind(0))
    assert_same(s * s, [[1., 4.], [9., 16.]])


def test_lowest_subclass_wins_and_unrelated_subclasses_raise():
    assert type(tensorc.add(make(SubTensor2, [0]), make(SubTensor, [1]))).__name__ == "SubTensor2"
    assert type(tensorc.add(make(SubTensor2, [0]), tensorc.tensor([1]))).__name__ == "SubTensor2"
    with pytest.raises(TypeError) as info:
        tensorc.add(make(SubTensor, [0]), make(OtherSubTensor, [1]))
    assert str(info.value) == ("no implementation found for 'tensorc.add' on types that implement "
                               "__tensorc_function__: [SubTensor, OtherSubTensor]")
    with pytest.raises(TypeError, match=r"'tensorc\.Tensor\.__add__' .*: \[SubTensor, OtherSubTensor\]$"):
        make(SubTensor, [0]) + make(OtherSubTensor, [1])
    with pytest.raises(TypeError, match=r"'tensorc\.Tensor\.__iadd__' .*: \[SubTensor, OtherSubTensor\]$"):
        s = make(SubTensor, [0])
        s += make(OtherSubTensor, [1])


def test_hand_written_members_of_a_subclass_dispatch():
    s = make(SubTensor, [[1., 2.], [3., 4.]])
    assert s.shape == (2, 2) and s.size() == (2, 2) and s.size(1) == 2 and s.dim() == 2
    assert s.dtype is tensorc.float32 and s.device == tensorc.device("cpu")
    assert s.tolist() == [[1., 2.], [3., 4.]]
    assert repr(s) == "tensor([[1., 2.],\n        [3., 4.]])"
    assert type(s.to(tensorc.float64)) is SubTensor and s.to(tensorc.float64).dtype is tensorc.float64
    assert type(copy.deepcopy(s)) is SubTensor
    assert float(make(SubTensor, [2.5])) == 2.5 and len(s) == 2


class RecordingSubTensor(tensorc.Tensor):
    """Remembers the func of every call, then runs it as Tensor does."""
    calls = []

    @classmethod
    def __tensorc_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(func)
        return super().__tensorc_function__(func, types, args, kwargs)


def test_properties_dispatch_their_get_and_set():
    s = make(RecordingSubTensor, [1., 2.])
    RecordingSubTensor.calls.clear()
    assert s.shape == (2,)
    s.requires_grad = True
    assert s.requires_grad
    calls = RecordingSubTensor.calls
    assert calls[0] == tensorc.Tensor.shape.__get__
    assert calls[1] == tensorc.Tensor.requires_grad.__set__
    assert calls[2] == tensorc.Tensor.requires_grad.__get__
    assert overrides.resolve_name(calls[0]) == "tensorc.Tensor.shape.__get__"


def test_grad_is_not_wrapped_in_the_subclass():
    s = make(SubTensor, [1., 2.])
    s.requires_grad_(True)
    (s * 3).sum().backward()
    assert type(s.grad) is tensorc.Tensor
    assert_same(s.grad, [3., 3.])


class LoggingTensor(tensorc.Tensor):
    @classmethod
    def __tensorc_function__(cls, func, types, args=(), kwargs=None):
        # NOTE: Logging calls Tensor.__repr__, so we can't log __repr__ without infinite recursion
        if func is not tensorc.Tensor.__repr__:
            logging.info(f"func: {func.__name__}, args: {args!r}, kwargs: {kwargs!r}")
        if kwargs is None:
            kwargs = {}
        return super().__tensorc_function__(func, types, args, kwargs)


def test_logging_tensor_logs_every_function_and_method(caplog):
    caplog.set_level(logging.INFO)
    t = make(LoggingTensor, [1., 2.])
    result = tensorc.add(t, 1)
    result = result.mul(2)
    shape = result.shape
    messages = [r.getMessage() for r in caplog.records]
    assert messages == ["func: add, args: (tensor([1., 2.]), 1), kwargs: {}",
                        "func: mul, args: (tensor([2., 3.]), 2), kwargs: {}",
                        "func: __get__, args: (tensor([4., 6.]),), kwargs: {}"]
    assert type(result) is LoggingTensor and shape == (2,)
    assert_same(result, [4., 6.])


class MetadataTensor(object):
    def __init__(self, data, metadata=None, **kwargs):
        self._t = tensorc.as_tensor(data, **kwargs)
        self._metadata = metadata

    def __repr__(self):
        return "Metadata:\n{}\n\ndata:\n{}".format(self._metadata, self._t)

    def __tensorc_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        args = [a._t if hasattr(a, "_t") else a for a in args]
        ret = func(*args, **kwargs)
        return MetadataTensor(ret, metadata=self._metadata)


def test_metadata_tensor_propagates_metadata():
    metadata = {"owner": "Ministry of Silly Walks"}
    m = MetadataTensor([[1, 2], [3, 4]], metadata=metadata)
    t = tensorc.tensor([[1, 2], [1, 2]])
    assert repr(tensorc.add(t, m)) == ("Metadata:\n{'owner': 'Ministry of Silly Walks'}\n\n"
                                       "data:\ntensor([[2, 4],\n        [4, 6]])")
    assert repr(tensorc.mul(t, m)) == ("Metadata:\n{'owner': 'Ministry of Silly Walks'}\n\n"
                                       "data:\ntensor([[1, 4],\n        [3, 8]])")


# ---- the order of dispatch ---------------------------------------------------------------

class Declining:
    """Asks to be recorded, then declines."""
    order = []

    def __tensorc_function__(self, func, types, args=(), kwargs=None):
        Declining.order.append((type(self).__name__, types))
        return NotImplemented


class DecliningChild(Declining):
    pass


class OtherDeclining:  # unrelated to Declining
    def __tensorc_function__(self, func, types, args=(), kwargs=None):
        Declining.order.append((type(self).__name__, types))
        return NotImplemented


class Accepting:
    def __tensorc_function__(self, func, types, args=(), kwargs=None):
        return ("accepted", func, types, args, kwargs)


def dispatch_order(*args):
    Declining.order.clear()
    with pytest.raises(TypeError) as info:
        tensorc.add(*args)
    return [name for name, _ in Declining.order], Declining.order[0][1], str(info.value)


def test_subclasses_are_asked_before_their_superclasses():
    names, types, message = dispatch_order(Declining(), DecliningChild())
    assert names == ["DecliningChild", "Declining"]
    assert types == (DecliningChild, Declining)
    assert message.endswith("__tensorc_function__: [DecliningChild, Declining]")


def test_unrelated_types_are_asked_left_to_right():
    assert dispatch_order(Declining(), OtherDeclining())[0] == ["Declining", "OtherDeclining"]
    assert dispatch_order(OtherDeclining(), Declining())[0] == ["OtherDeclining", "Declining"]


def test_each_type_is_asked_once():
    a, b = Declining(), Declining()
    names, types, _ = dispatch_order(a, b)
    assert names == ["Declining"] and types == (Declining,)


def test_notimplemented_falls_through_to_the_next_type():
    Declining.order.clear()
    result = tensorc.add(Declining(), Accepting(), alpha=2)
    assert Declining.order[0][0] == "Declining"
    _, func, types, args, kwargs = result
    assert func is tensorc.add and types == (Declining, Accepting) and kwargs == {"alpha": 2}
    x = tensorc.tensor([1.])
    assert tensorc.where(x > 0, Accepting(), x)[0] == "accepted"


def test_handlers_see_the_call_as_written():
    a = Accepting()

    def seen(result):
        return result[3], result[4]
    assert seen(tensorc.sum(a)) == ((a,), {})
    assert seen(tensorc.sum(a, 0)) == ((a, 0), {})
    assert seen(tensorc.sum(a, keepdim=True)) == ((a,), {"keepdim": True})
    assert seen(tensorc.sum(a, dtype=tensorc.float64)) == ((a,), {"dtype": tensorc.float64})
    assert seen(tensorc.add(a, 2, alpha=3)) == ((a, 2), {"alpha": 3})
    assert seen(tensorc.var(a, 0, unbiased=False)) == ((a, 0), {"unbiased": False})  # a *args resolver
    assert seen(tensorc.cat([a], dim=1)) == (([a], 1), {})


def test_elements_of_tensor_lists_dispatch():
    x = tensorc.tensor([1.])
    result = tensorc.cat([x, Accepting()], 0)
    assert result[1] is tensorc.cat and result[3][0][0] is x


def test_operators_with_a_tensor_like_on_either_side():
    x = tensorc.tensor([1.])
    for result in (x + Accepting(), Accepting() + x, x * Accepting(), x @ Accepting(), x - Accepting(),
                   x / Accepting(), x == Accepting(), x ** Accepting(), x % Accepting()):
        assert result[0] == "accepted"
        assert overrides.is_tensor_method_or_property(result[1]) or result[1] in (tensorc.rsub, tensorc.matmul)


def test_disabling_overrides_runs_the_real_functions():
    s = make(RecordingSubTensor, [1., 2.])
    RecordingSubTensor.calls.clear()
    with overrides.DisableTensorcFunction():
        result = s + s
        assert s.shape == (2,)
    assert RecordingSubTensor.calls == []
    assert_same(result, [2., 4.])


class OptedOut(tensorc.Tensor):
    __tensorc_function__ = classmethod(overrides.disabled_tensorc_function_impl)


def test_types_that_opt_out_take_no_part():
    o = make(OptedOut, [1., 2.])
    assert type(o + o) is tensorc.Tensor and type(o.sum()) is tensorc.Tensor
    assert not overrides.has_tensorc_function([o])
    Declining.order.clear()
    with pytest.raises(TypeError, match=r"__tensorc_function__: \[Declining\]$"):
        tensorc.add(o, Declining())


# ---- tensorc.overrides -----------------------------------------------------------------

def test_has_and_handle_tensorc_function():
    x = tensorc.tensor([1.])
    assert not overrides.has_tensorc_function([x, 1, None])
    assert overrides.has_tensorc_function([x, Accepting()])
    assert overrides.has_tensorc_function_unary(make(SubTensor, [1.]))
    assert not overrides.has_tensorc_function_variadic(x, x)

    def func(a, b=1):
        if overrides.has_tensorc_function((a,)):
            return overrides.handle_tensorc_function(func, (a,), a, b=b)
        return a + b
    assert_same(func(x), [2.])
    a = Accepting()
    assert func(a, b=3)[1:] == (func, (Accepting,), (a,), {"b": 3})
    with pytest.raises(TypeError, match="no implementation found for '.*func' .*: \\[Declining\\]"):
        func(Declining())


def test_wrap_tensorc_function():
    @overrides.wrap_tensorc_function(lambda a, b=None: (a, b))
    def twice(a, b=None):
        return a * 2
    assert_same(twice(tensorc.tensor([3.])), [6.])
    result = twice(tensorc.tensor([3.]), Accepting())
    assert result[1] is twice and result[2] == (Accepting,)


def test_is_tensor_like_and_is_tensor_method_or_property():
    assert overrides.is_tensor_like(tensorc.tensor([1.]))
    assert overrides.is_tensor_like(make(SubTensor, [1.]))
    assert overrides.is_tensor_like(ScalarTensor(2, 1))
    assert not overrides.is_tensor_like(6) and not overrides.is_tensor_like(None)
    assert not overrides.is_tensor_like(np.zeros(2))
    assert overrides.is_tensor_method_or_property(tensorc.Tensor.add)
    assert overrides.is_tensor_method_or_property(tensorc.Tensor.size)
    assert overrides.is_tensor_method_or_property(tensorc.Tensor.shape.__get__)
    assert not overrides.is_tensor_method_or_property(tensorc.add)


def test_ignored_functions_are_not_overridable():
    ignored = overrides.get_ignored_functions()
    assert tensorc.Tensor.as_subclass in ignored and tensorc.zeros in ignored and tensorc.tensor in ignored
    assert tensorc.add not in ignored and tensorc.Tensor.add not in ignored
    overridable = overrides.get_overridable_functions()
    assert set(overridable) == {tensorc, tensorc.Tensor}
    listed = [f for funcs in overridable.values() for f in funcs]
    assert not ignored.intersection(listed)
    names = {f.__name__ for f in overridable[tensorc]}
    assert {"add", "mean", "cat", "where", "numel", "relu_"} <= names
    assert {"zeros", "tensor", "manual_seed", "is_tensor"}.isdisjoint(names)


def test_every_public_callable_is_overridable_or_ignored():
    ignored = overrides.get_ignored_functions()
    overridable = set(overrides.get_overridable_functions()[tensorc])
    for name in dir(tensorc):
        obj = getattr(tensorc, name)
        if name.startswith("_") or inspect.ismodule(obj) or not callable(obj) or isinstance(obj, type):
            continue
        assert obj in overridable or obj in ignored, name


def test_testing_overrides_have_the_real_signatures():
    testing = overrides.get_testing_overrides()
    listed = [f for funcs in overrides.get_overridable_functions().values() for f in funcs]
    assert set(testing) == set(listed) and len(listed) > 300
    assert str(inspect.signature(testing[tensorc.add])) == "(input, other, *, alpha=1, out=None)"
    assert str(inspect.signature(testing[tensorc.Tensor.size])) == "(self, dim=None)"
    assert str(inspect.signature(testing[tensorc.Tensor.shape.__get__])) == "(self)"
    # *args resolvers: their first overload's schema
    assert str(inspect.signature(testing[tensorc.var])) == "(input, unbiased=True)"
    assert str(inspect.signature(testing[tensorc.Tensor.to])) == \
        "(self, device, dtype, non_blocking=False, copy=False)"
    for func, dummy in testing.items():
        assert dummy(*dummy_arguments(dummy)) == -1
        if getattr(func, "__name__", None) == "__get__":
            continue
        real = inspect.signature(func)
        if not any(p.kind is p.VAR_POSITIONAL for p in real.parameters.values()):
            assert inspect.signature(dummy) == real, overrides.resolve_name(func)


def dummy_arguments(dummy):
    return [None for p in inspect.signature(dummy).parameters.values()
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


# ---- every overridable function dispatches --------------------------------------------

HANDLED = object()


class TensorLike:
    """A tensor-like unrelated to Tensor: every call comes back here."""
    seen = []

    @classmethod
    def __tensorc_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append((func, types))
        return HANDLED


class TensorLikeSub(tensorc.Tensor):
    """The same for Tensor members: self must be a Tensor."""
    seen = TensorLike.seen

    @classmethod
    def __tensorc_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append((func, types))
        return HANDLED


TENSOR_LIKE_TYPES = {"Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "Scalar", "Scalar?"}


def placeholder(schema_type):
    """A plain value of a schema type, for the arguments that are not the tensor-like."""
    t = (schema_type or "Tensor").rstrip("?")
    if t in ("Tensor", "Scalar"):
        return tensorc.ones(1) if t == "Tensor" else 1.0
    if t.endswith("[]") and t.startswith("Tensor"):
        return [tensorc.ones(1)]
    if t.startswith("int["):
        return [1]
    return {"int": 0, "float": 1.0, "bool": False, "str": "mean", "ScalarType": tensorc.float32,
            "Device": "cpu", "Generator": None, "bool[3]": [True, True, True]}.get(t, tensorc.ones(1))


def call_with_tensor_like(func, dummy):
    """Calls func with a tensor-like in its first tensor-like position and
    plain values for its other required arguments."""
    name = overrides.resolve_name(func).split(".")
    is_member = name[1] == "Tensor"
    short = name[2] if is_member else name[1]
    schemas = (tensorc._ops.METHOD_SCHEMAS if is_member else tensorc._ops.SCHEMAS).get(short)
    types = {}
    if schemas:
        for type_, arg, _, _ in _schema_arguments(schemas[0]):
            types[arg if arg != "self" or is_member else "input"] = type_
    params = list(inspect.signature(dummy).parameters.values())
    first = 0
    if types and not is_member:
        first = next((i for i, p in enumerate(params) if types.get(p.name) in TENSOR_LIKE_TYPES), 0)
    args, kwargs = [], {}
    for i, p in enumerate(params):
        if i == first:
            value = TensorLikeSub if is_member else TensorLike
            list_type = (types.get(p.name) or "").startswith("Tensor") and "[]" in types.get(p.name, "")
            value = make(value, [1.]) if is_member else ([value(), value()] if list_type else value())
        elif p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        else:
            value = placeholder(types.get(p.name))
        if p.kind is p.KEYWORD_ONLY:
            kwargs[p.name] = value
        else:
            args.append(value)
    if not is_member:
        return func(*args, **kwargs)
    self, rest = args[0], args[1:]
    if name[-1] == "__get__":
        return getattr(self, short)
    return getattr(self, short)(*rest, **kwargs)


def overridable_cases():
    return sorted(((overrides.resolve_name(f), f, d) for f, d in overrides.get_testing_overrides().items()),
                  key=lambda case: case[0])


@pytest.mark.parametrize("name,func,dummy", overridable_cases(), ids=[c[0] for c in overridable_cases()])
def test_every_overridable_function_dispatches(name, func, dummy):
    TensorLike.seen.clear()
    result = call_with_tensor_like(func, dummy)
    # __setitem__ returns None whatever the handler gives, as Python's protocol has it
    assert result is (None if name.endswith("__setitem__") else HANDLED), name
    assert len(TensorLike.seen) == 1, name
    handed, types = TensorLike.seen[0]
    assert handed == func, "{} reached the handler as {}".format(name, overrides.resolve_name(handed) or handed)
    assert types in ((TensorLike,), (TensorLikeSub,))
