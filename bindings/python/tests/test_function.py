# SPDX-License-Identifier: BSD-3-Clause
"""Custom autograd functions (tensorc.autograd.Function) as PyTorch's
"Extending PyTorch" describes them, and gradcheck / gradgradcheck."""
import gc
import threading
import weakref

import numpy as np
import pytest
import torch

import tensorc
from tensorc import autograd
from tensorc.autograd import Function, gradcheck, gradgradcheck, GradcheckError
from tensorc.autograd.function import FunctionCtx, once_differentiable


def leaf(values):
    return tensorc.tensor(values, dtype=tensorc.float64, requires_grad=True)


def array(t):
    return np.array(t.tolist())


def use_count(t):
    return tensorc._C.tensor_use_count(t)


# ---- the documentation's examples, as written (torch -> tensorc) --------------------------------

def make_linear_function(lib):
    """The doc's LinearFunction, for either library (tensorc or torch)."""

    # Inherit from Function
    class LinearFunction(lib.autograd.Function):

        # Note that both forward and backward are @staticmethods
        @staticmethod
        # bias is an optional argument
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        # This function has only a single output, so it gets only one gradient
        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None

            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)

            return grad_input, grad_weight, grad_bias

    return LinearFunction


def make_mul_constant(lib):
    class MulConstant(lib.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            # ctx is a context object that can be used to stash information
            # for backward computation
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            # We return as many input gradients as there were arguments.
            # Gradients of non-Tensor arguments to forward must be None.
            return grad_output * ctx.constant, None

    return MulConstant


LinearFunction = make_linear_function(tensorc)
MulConstant = make_mul_constant(tensorc)


def test_linear_function_passes_gradcheck_as_in_the_doc():
    linear = LinearFunction.apply
    input = (tensorc.randn(20, 20, dtype=tensorc.double, requires_grad=True),
             tensorc.randn(30, 20, dtype=tensorc.double, requires_grad=True))
    test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
    assert test is True


def test_linear_function_with_bias_matches_torch():
    rng = np.random.default_rng(1)
    values = [rng.standard_normal(s) for s in ((4, 3), (5, 3), (5,))]
    xs = [leaf(v.tolist()) for v in values]
    ts = [torch.tensor(v, requires_grad=True) for v in values]
    y = LinearFunction.apply(*xs)
    ty = make_linear_function(torch).apply(*ts)
    np.testing.assert_allclose(array(y.detach()), ty.detach().numpy(), rtol=1e-12)
    assert y.grad_fn.name() == "LinearFunctionBackward"
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(array(x.grad), t.grad.numpy(), rtol=1e-12)
    assert gradcheck(LinearFunction.apply, xs)
    assert gradgradcheck(LinearFunction.apply, xs)  # backward is written with ops: differentiable


def test_linear_function_skips_gradients_not_needed():
    x, w = leaf([[1.0, 2.0]]), tensorc.tensor([[3.0, 4.0]], dtype=tensorc.float64)
    LinearFunction.apply(x, w).sum().backward()
    np.testing.assert_allclose(array(x.grad), [[3.0, 4.0]])
    assert w.grad is None


def test_mul_constant_as_in_the_doc():
    x = leaf([1.0, -2.0, 3.0])
    y = MulConstant.apply(x, 5.5)
    np.testing.assert_allclose(array(y.detach()), [5.5, -11.0, 16.5])
    y.sum().backward()
    np.testing.assert_allclose(array(x.grad), [5.5, 5.5, 5.5])
    assert gradcheck(MulConstant.apply, (leaf([0.1, 0.2]), 3.0))
    assert gradgradcheck(MulConstant.apply, (leaf([0.1, 0.2]), 3.0))


def test_set_materialize_grads_example_runs():
    class SimpleFunc(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x.clone(), x.clone()

        @staticmethod
        @once_differentiable
        def backward(ctx, g1, g2):  # g1 and g2 are None-able
            x, = ctx.saved_tensors
            grad_input = tensorc.zeros_like(x)
            if g1 is not None:
                grad_input += g1
            if g2 is not None:
                grad_input += g2
            return grad_input

    x = leaf([1.0, 2.0])
    a, b = SimpleFunc.apply(x)
    (a * 3).sum().backward()  # b gets no gradient: backward sees zeros for it
    np.testing.assert_allclose(array(x.grad), [3.0, 3.0])


# ---- ctx features, one by one --------------------------------------------------------------------

def test_ctx_is_a_function_ctx_named_after_the_function():
    seen = []

    class Ident(Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(ctx)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx)
            return g

    Ident.apply(leaf([1.0])).sum().backward()
    assert seen[0] is seen[1]
    assert isinstance(seen[0], FunctionCtx) and type(seen[0]).__name__ == "IdentBackward"
    assert autograd.function.FunctionCtx is FunctionCtx


def test_save_for_backward_keeps_tensors_and_none():
    got = {}

    class F(Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, None, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            got["saved"] = ctx.saved_tensors
            x, _, y = got["saved"]
            return g * y, g * x

    x, y = leaf([2.0]), leaf([3.0])
    F.apply(x, y).sum().backward()
    assert got["saved"][1] is None
    assert got["saved"][0].tolist() == [2.0] and got["saved"][2].tolist() == [3.0]
    assert x.grad.tolist() == [3.0] and y.grad.tolist() == [2.0]


def test_save_for_backward_rejects_non_tensors():
    class F(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="argument 1 is of type int"):
        F.apply(leaf([1.0]))


def test_saved_tensor_modified_in_place_is_an_error():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    base = leaf([1.0, 2.0])
    x = base * 1
    y = Square.apply(x)
    x.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation|modified in place|in-place|inplace"):
        y.sum().backward()


def test_needs_input_grad_in_forward_and_backward():
    seen = []

    class F(Function):
        @staticmethod
        def forward(ctx, a, b, k, c):
            seen.append(ctx.needs_input_grad)
            return a * b * k + c

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.needs_input_grad)
            return g, g, None, g

    a, b, c = leaf([1.0]), tensorc.tensor([2.0], dtype=tensorc.float64), leaf([3.0])
    F.apply(a, b, 2, c).sum().backward()
    assert seen == [(True, False, False, True), (True, False, False, True)]
    assert b.grad is None


def test_arbitrary_attributes_and_non_tensor_arguments():
    class Affine(Function):
        @staticmethod
        def forward(ctx, x, scale, options):
            ctx.scale = scale
            ctx.options = options
            return x * scale + options["shift"]

        @staticmethod
        def backward(ctx, g):
            assert ctx.options == {"shift": 1.5}
            return g * ctx.scale, None, None

    x = leaf([1.0, 2.0])
    y = Affine.apply(x, 3.0, {"shift": 1.5})
    np.testing.assert_allclose(array(y.detach()), [4.5, 7.5])
    y.sum().backward()
    np.testing.assert_allclose(array(x.grad), [3.0, 3.0])


def test_mark_dirty_returns_the_input_itself_with_new_history():
    class AddOneInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    a = leaf([1.0, 2.0])
    x = a * 2
    y = AddOneInPlace.apply(x)
    assert y is x
    assert y.grad_fn.name() == "AddOneInPlaceBackward"
    np.testing.assert_allclose(array(y.detach()), [3.0, 5.0])
    (y * y).sum().backward()
    np.testing.assert_allclose(array(a.grad), 2 * 2 * np.array([3.0, 5.0]))


def test_mark_dirty_on_a_leaf_that_requires_grad_is_an_error():
    class AddOneInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="leaf"):
        AddOneInPlace.apply(leaf([1.0]))


def test_mark_non_differentiable():
    received = []

    class ValueAndMask(Function):
        @staticmethod
        def forward(ctx, x):
            mask = (x > 0).to(x.dtype)
            ctx.mark_non_differentiable(mask)
            ctx.save_for_backward(mask)
            return x * mask, mask

        @staticmethod
        def backward(ctx, g, g_mask):
            received.append(g_mask)
            mask, = ctx.saved_tensors
            return g * mask

    x = leaf([-1.0, 2.0, 3.0])
    y, mask = ValueAndMask.apply(x)
    assert y.requires_grad and not mask.requires_grad
    (y * 2).sum().backward()
    np.testing.assert_allclose(array(x.grad), [0.0, 2.0, 2.0])
    np.testing.assert_allclose(array(received[0]), [0.0, 0.0, 0.0])  # materialized zeros


def test_several_outputs_and_an_unused_one():
    class Both(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g2, g3):
            return g2 * 2 + g3 * 3

    x = leaf([1.0, 1.0])
    a, b = Both.apply(x)
    assert a.grad_fn.name() == b.grad_fn.name() == "BothBackward"
    b.sum().backward()
    np.testing.assert_allclose(array(x.grad), [3.0, 3.0])
    assert gradcheck(Both.apply, (leaf([0.5, -0.5]),))


def test_forward_returning_a_one_tuple_gives_a_tuple():
    class One(Function):
        @staticmethod
        def forward(ctx, x):
            return (x * 2,)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    out = One.apply(leaf([1.0]))
    assert isinstance(out, tuple) and len(out) == 1 and out[0].requires_grad


def test_non_tensor_outputs_pass_through_and_get_none_gradients():
    grads = []

    class WithInfo(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 7, "note", None

        @staticmethod
        def backward(ctx, g, g_int, g_str, g_none):
            grads.append((g_int, g_str, g_none))
            return g * 2

    y, n, s, nothing = WithInfo.apply(leaf([1.0]))
    assert (n, s, nothing) == (7, "note", None)
    y.sum().backward()
    assert grads == [(None, None, None)]


def test_returning_none_gradients_for_inputs():
    class FirstOnly(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g, None

    x, y = leaf([2.0]), leaf([3.0])
    FirstOnly.apply(x, y).sum().backward()
    assert x.grad.tolist() == [1.0] and y.grad is None


def test_an_input_returned_as_is_gets_a_fresh_alias():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = leaf([1.0, 2.0])
    y = Identity.apply(x)
    assert y is not x and y.grad_fn.name() == "IdentityBackward" and x.is_leaf
    assert y.data_ptr() == x.data_ptr()
    y.sum().backward()
    np.testing.assert_allclose(array(x.grad), [5.0, 5.0])


def test_setup_context_style():
    class Cube(Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = leaf([1.0, 2.0])
    Cube.apply(x).sum().backward()
    np.testing.assert_allclose(array(x.grad), [3.0, 12.0])


# ---- wrong backward results --------------------------------------------------------------------------

def make_returning(result):
    class Returns(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return result(g)

    return Returns


def test_trailing_none_gradients_are_ignored():
    x = leaf([1.0])
    make_returning(lambda g: (g * 2, None, None, None)).apply(x, 2.0).sum().backward()
    assert x.grad.tolist() == [2.0]


@pytest.mark.parametrize("result, error, match", [
    (lambda g: g, RuntimeError, r"incorrect number of gradients \(expected 2, got 1\)"),
    (lambda g: (g, None, g), RuntimeError, r"incorrect number of gradients \(expected 2, got 3\)"),
    (lambda g: (g, g), RuntimeError, "different than None at position 2"),
    (lambda g: ("grad", None), TypeError, "returned a str as gradient 0"),
    (lambda g: (tensorc.ones(3, dtype=tensorc.float64), None), RuntimeError, "invalid gradient at index 0"),
])
def test_wrong_backward_results_are_reported(result, error, match):
    with pytest.raises(error, match=match):
        make_returning(result).apply(leaf([1.0, 2.0]), 2.0).sum().backward()


def test_a_broadcast_gradient_is_summed_to_the_input_shape():
    x = leaf([[1.0, 2.0]])
    make_returning(lambda g: (tensorc.ones(3, 1, 2, dtype=tensorc.float64), None)).apply(x, 2.0).sum().backward()
    np.testing.assert_allclose(array(x.grad), [[3.0, 3.0]])


# ---- exceptions from forward and backward ------------------------------------------------------------------

class CustomError(Exception):
    def __init__(self, message, payload):
        super().__init__(message)
        self.payload = payload


def make_raising(where, exc):
    class Raising(Function):
        @staticmethod
        def forward(ctx, x):
            if where == "forward":
                raise exc
            return x * 2

        @staticmethod
        def backward(ctx, g):
            if where == "backward":
                raise exc
            return g * 2

    return Raising


@pytest.mark.parametrize("exc", [ValueError("bad value in forward"), KeyError("missing"),
                                 CustomError("custom forward failure", payload=42)])
def test_an_exception_in_forward_propagates_as_itself(exc):
    with pytest.raises(type(exc)) as info:
        make_raising("forward", exc).apply(leaf([1.0]))
    assert info.value is exc


@pytest.mark.parametrize("exc", [ZeroDivisionError("bad division in backward"), IndexError("index 7"),
                                 CustomError("custom backward failure", payload=[1, 2])])
def test_an_exception_in_backward_propagates_out_of_backward(exc):
    y = make_raising("backward", exc).apply(leaf([1.0]))
    with pytest.raises(type(exc)) as info:
        y.sum().backward()
    assert info.value is exc and str(info.value) == str(exc)


def test_an_exception_in_backward_propagates_out_of_autograd_grad():
    x = leaf([1.0])
    with pytest.raises(CustomError, match="from grad") as info:
        autograd.grad(make_raising("backward", CustomError("from grad", payload="p")).apply(x).sum(), x)
    assert info.value.payload == "p"


def test_errors_after_a_callback_exception_are_the_library_s_own():
    y = make_raising("backward", KeyError("once")).apply(leaf([1.0]))
    with pytest.raises(KeyError):
        y.sum().backward()
    # The stashed exception was consumed: a later failure is tensorc's own.
    with pytest.raises(tensorc.Error, match="does not require grad"):
        tensorc.tensor([1.0]).sum().backward()
    x = leaf([2.0])
    MulConstant.apply(x, 3.0).sum().backward()
    assert x.grad.tolist() == [3.0]


def test_a_tensorc_error_inside_forward_keeps_its_class():
    class Mismatch(Function):
        @staticmethod
        def forward(ctx, x):
            return x.mm(x)  # 1-D: a tensorc error

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(tensorc.Error):
        Mismatch.apply(leaf([1.0, 2.0]))


# ---- lifetimes and reference counts --------------------------------------------------------------------------

class Save(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.self_ref = weakref.ref(ctx)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 2


def capture_ctx():
    holder = []

    class Grab(Function):
        @staticmethod
        def forward(ctx, x):
            holder.append(weakref.ref(ctx))
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    return Grab, holder


def test_saved_tensors_are_released_with_the_graph():
    a = leaf([1.0, 2.0, 3.0])
    before = use_count(a)
    y = Save.apply(a)
    assert use_count(a) > before  # saved (and referenced by the graph)
    y.sum().backward()  # frees the saved tensors
    del y
    gc.collect()
    assert use_count(a) == before


def test_saved_tensors_are_released_when_the_output_dies_without_backward():
    a = leaf([1.0, 2.0, 3.0])
    before = use_count(a)
    for _ in range(20):
        y = Save.apply(a)
        del y
    gc.collect()
    assert use_count(a) == before


def test_the_ctx_lives_as_long_as_the_graph():
    grab, holder = capture_ctx()
    x = leaf([1.0])
    y = grab.apply(x)
    gc.collect()
    assert holder[0]() is not None  # the graph node keeps it
    y.sum().backward(retain_graph=True)
    assert holder[0]() is not None
    del y
    gc.collect()
    assert holder[0]() is None


def test_no_leak_of_outputs_and_inputs_over_many_calls():
    a = leaf([1.0, 2.0])
    before = use_count(a)
    for _ in range(50):
        y, = autograd.grad(Save.apply(a).sum(), a)
        assert y.tolist() == [2.0, 2.0]
    gc.collect()
    assert use_count(a) == before


def test_ctx_cannot_be_used_after_its_callbacks():
    grab, holder = capture_ctx()
    y = grab.apply(leaf([1.0]))
    ctx = holder[0]()
    with pytest.raises(RuntimeError, match="only be used while"):
        ctx.save_for_backward(leaf([1.0]))
    with pytest.raises(RuntimeError, match="only be used while"):
        ctx.saved_tensors
    del y


# ---- grad mode, nesting, higher order, threads --------------------------------------------------------------

def test_a_custom_function_inside_no_grad():
    calls = []

    class Tracked(Function):
        @staticmethod
        def forward(ctx, x):
            calls.append(ctx.needs_input_grad)
            ctx.save_for_backward(x)
            ctx.marker = weakref.ref(ctx)
            calls.append(ctx.marker)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise AssertionError("no graph was recorded")

    x = leaf([1.0, 2.0])
    before = use_count(x)
    with tensorc.no_grad():
        y = Tracked.apply(x)
    assert not y.requires_grad and y.grad_fn is None
    assert calls[0] == (False,)
    gc.collect()
    assert calls[1]() is None and use_count(x) == before  # nothing kept


def test_forward_runs_with_grad_mode_off():
    modes = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            modes.append(tensorc.is_grad_enabled())
            y = x * 2
            modes.append(y.requires_grad)
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    Probe.apply(leaf([1.0]))
    assert modes == [False, False] and tensorc.is_grad_enabled()


def test_a_forward_may_apply_another_function():
    class Outer(Function):
        @staticmethod
        def forward(ctx, x):
            return MulConstant.apply(x, 2.0) + 1  # not recorded: grad mode is off here

        @staticmethod
        def backward(ctx, g):
            return g * 10

    x = leaf([1.0])
    y = Outer.apply(x)
    assert y.tolist() == [3.0] and y.grad_fn.name() == "OuterBackward"
    y.sum().backward()
    assert x.grad.tolist() == [10.0]


def test_second_derivative_through_a_custom_backward():
    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x * x * g

    x = leaf([1.0, -2.0])
    (g,) = autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (gg,) = autograd.grad(g.sum(), x)
    np.testing.assert_allclose(array(gg), [6.0, -12.0])
    assert gradgradcheck(Cube.apply, (leaf([0.3, -0.4]),))


def test_once_differentiable_refuses_second_derivatives():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = leaf([3.0])
    (g,) = autograd.grad(Square.apply(x).sum(), x)
    assert g.tolist() == [6.0] and not g.requires_grad
    (g,) = autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()


def test_custom_functions_on_several_threads():
    errors = []

    def work(seed):
        try:
            for i in range(30):
                x = leaf([float(seed), float(i)])
                (g,) = autograd.grad(LinearFunction.apply(x.reshape(1, 2), x.reshape(1, 2)).sum(), x)
                np.testing.assert_allclose(array(g), [2.0 * seed, 2.0 * i])
        except BaseException as e:  # noqa: B902 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_apply_rules():
    with pytest.raises(TypeError, match="keyword"):
        MulConstant.apply(leaf([1.0]), constant=2.0)
    with pytest.raises(RuntimeError, match="apply"):
        MulConstant()

    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    y = NoBackward.apply(leaf([1.0]))
    with pytest.raises(NotImplementedError, match="backward"):
        y.sum().backward()


# ---- gradcheck ------------------------------------------------------------------------------------------------

def test_gradcheck_plain_ops_and_several_outputs():
    x, y = leaf([[0.3, -0.2], [0.5, 0.9]]), leaf([[1.5, 0.4], [-0.7, 0.2]])
    assert gradcheck(lambda a, b: (a @ b).tanh(), (x, y))
    assert gradcheck(lambda a, b: (a * b, (a + b).exp()), (x, y))
    assert gradgradcheck(lambda a, b: (a * b).sin(), (x, y))


def test_gradcheck_passes_non_tensor_inputs_and_skips_inputs_without_grad():
    k = tensorc.tensor([2.0, 3.0], dtype=tensorc.float64)
    assert gradcheck(lambda a, c, scale: (a * c) * scale, (leaf([1.0, 2.0]), k, 0.5))


def make_wrong_square():
    class WrongSquare(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g * (1 + (x > 1.0).to(x.dtype))  # wrong where x > 1

    return WrongSquare


def test_gradcheck_names_output_input_and_element():
    x = leaf([[0.1, 0.2], [1.5, 0.3]])
    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda k, a: (k, make_wrong_square().apply(a)), (7, x))
    message = str(info.value)
    assert "output 1 with respect to input 1" in message
    assert "input element (1, 0)" in message and "output element (1, 0)" in message
    assert isinstance(info.value, RuntimeError)
    assert gradcheck(make_wrong_square().apply, (x,), raise_exception=False) is False


def test_gradcheck_checks_non_differentiable_outputs_are_constant():
    class Leaky(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.mark_non_differentiable(y)
            return y

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(GradcheckError, match="expected to be zero"):
        gradcheck(Leaky.apply, (leaf([1.0]),))


def test_gradcheck_needs_an_input_that_requires_grad():
    with pytest.raises(ValueError, match="at least one input"):
        gradcheck(lambda a: a * 2, (tensorc.tensor([1.0], dtype=tensorc.float64),))


def test_gradcheck_warns_about_single_precision():
    x = tensorc.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="double precision"):
        gradcheck(lambda a: a * 2, (x,), eps=1e-3, atol=1e-2, rtol=1e-2)


def test_gradgradcheck_catches_a_wrong_second_derivative():
    class BadDouble(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            # Right values, wrong derivative: 3x^2 computed as 3 * x * detached x.
            return 3 * x * x.detach() * g

    x = leaf([0.5, -1.5])
    assert gradcheck(BadDouble.apply, (x,))
    with pytest.raises(GradcheckError):
        gradgradcheck(BadDouble.apply, (x,))
