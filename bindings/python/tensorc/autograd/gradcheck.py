# SPDX-License-Identifier: BSD-3-Clause
"""gradcheck / gradgradcheck: autograd's gradients against finite differences.

Written with tensorc ops like torch.autograd.gradcheck's slow mode: the
numerical Jacobian perturbs one input element at a time by +-eps (central
differences, every output at once); the analytical one asks autograd.grad for
one output element at a time. Inputs that require grad should be float64."""
import warnings as _warnings

from .. import _dtype as _dt
from .._tensor import Tensor as _Tensor


class GradcheckError(RuntimeError):
    """Raised by gradcheck / gradgradcheck when gradients disagree."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _is_tensor(x):
    return isinstance(x, _Tensor)


def _unravel(index, shape):
    """The multi-index of flat (row-major) `index` in `shape`, as a tuple."""
    out = []
    for size in reversed(shape):
        out.append(index % size if size else 0)
        index = index // size if size else 0
    return tuple(reversed(out))


def _one_hot(index, like, value=1.0):
    """A tensor shaped and typed like `like`, zero but for `value` at flat `index`."""
    from .. import arange
    n = like.numel()
    hot = (arange(n, device=like.device) == index).to(like.dtype) * value
    return hot.reshape(tuple(like.shape))


def _differentiable_outputs(outputs):
    return [(j, o) for j, o in enumerate(outputs) if _is_tensor(o) and o.requires_grad]


def _numerical_jacobians(func, inputs, diff, eps):
    """{(output j, input k): (numel_k, numel_j) float64 tensor} for floating tensor outputs."""
    from .. import stack
    rows = {}
    for k, x in diff:
        base = x.detach()
        for i in range(x.numel()):
            delta = _one_hot(i, base, eps)
            evaluated = []
            for step in (delta, -delta):
                args = list(inputs)
                args[k] = (base + step).requires_grad_(x.requires_grad)
                evaluated.append(_as_tuple(func(*args)))
            plus, minus = evaluated
            for j, o in enumerate(plus):
                if not _is_tensor(o) or not o.dtype.is_floating_point:
                    continue
                d = (o.detach().to(_dt.float64) - minus[j].detach().to(_dt.float64)) / (2 * eps)
                rows.setdefault((j, k), []).append(d.reshape(-1))
    return {j_k: stack(r) for j_k, r in rows.items()}  # an input without elements adds no entry


def _analytical_jacobians(output, diff):
    """[(numel_k, numel_out) float64 tensor per diff input] from autograd.grad, one output element at a time."""
    from .. import stack, zeros
    from . import grad
    xs = [x for _, x in diff]
    columns = [[] for _ in xs]
    for m in range(output.numel()):
        grads = grad([output], xs, [_one_hot(m, output)], retain_graph=True, allow_unused=True)
        for c, (g, x) in enumerate(zip(grads, xs)):
            if g is None:
                g = zeros(x.numel(), dtype=_dt.float64)
            columns[c].append(g.detach().to(_dt.float64).reshape(-1))
    return [stack(cols).t() if cols else zeros(x.numel(), 0, dtype=_dt.float64) for cols, x in zip(columns, xs)]


def _first_mismatch(analytical, numerical, atol, rtol):
    """(input element, output element) of the first disagreement, or None."""
    ok = (analytical - numerical).abs() <= atol + rtol * numerical.abs()  # NaN anywhere is not ok
    if bool(ok.all()):
        return None
    flat = ok.reshape(-1).tolist()
    first = flat.index(False)
    n_out = numerical.shape[1]
    return first // n_out, first % n_out


def _fail(message):
    raise GradcheckError(message)


def _check(func, inputs, eps, atol, rtol):
    diff = [(k, x) for k, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for k, x in diff:
        if x.dtype is not _dt.float64:
            _warnings.warn("Input #{} requires gradient and is not a double precision floating point. "
                           "This check will likely fail if all the inputs are not of double precision "
                           "floating point.".format(k))
    outputs = _as_tuple(func(*inputs))
    numerical = _numerical_jacobians(func, inputs, diff, eps)
    differentiable = _differentiable_outputs(outputs)
    if not differentiable:
        # Nothing to differentiate: then every output must be constant in the inputs.
        for (j, k), n in numerical.items():
            if n.numel() and not bool((n == 0).all()):
                _fail("Numerical gradient for function expected to be zero (output {} does not require grad, "
                      "but changes with input {})".format(j, k))
        return
    for j, o in differentiable:
        analytical = _analytical_jacobians(o, diff)
        for (k, x), a in zip(diff, analytical):
            n = numerical.get((j, k))
            if n is None or n.numel() == 0:
                continue
            where = _first_mismatch(a, n, atol, rtol)
            if where is None:
                continue
            i, m = where
            _fail("Jacobian mismatch for output {j} with respect to input {k},\n"
                  "at input element {ie} (flat {i}) and output element {oe} (flat {m}):\n"
                  "numerical: {nv!r}\nanalytical: {av!r}\n"
                  "(atol={atol}, rtol={rtol}, eps={eps})".format(
                      j=j, k=k, ie=_unravel(i, tuple(x.shape)), i=i, oe=_unravel(m, tuple(o.shape)), m=m,
                      nv=n.tolist()[i][m], av=a.tolist()[i][m],
                      atol=atol, rtol=rtol, eps=eps))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False):
    """True when func's gradients with respect to its inputs that require grad
    match central finite differences (|analytical - numerical| <= atol +
    rtol * |numerical| everywhere); otherwise raises GradcheckError naming the
    output, the input and the element, or returns False when raise_exception
    is False. func may return one tensor or a tuple; non-tensor inputs are
    passed through. The extra keywords are PyTorch's; forward-mode AD does not
    exist in tensorc."""
    if check_forward_ad or check_batched_forward_grad:
        raise NotImplementedError("gradcheck: tensorc has no forward-mode AD (check_forward_ad)")
    inputs = _as_tuple(inputs)
    if not check_backward_ad:
        return True
    try:
        _check(func, inputs, eps, atol, rtol)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False):
    """gradcheck of the gradients themselves: checks the second derivatives of
    func through backward run with create_graph=True. grad_outputs (one per
    output that requires grad) default to random float64 tensors (a fixed
    seed, so a failure reproduces)."""
    from .. import Generator, randn
    from . import grad
    if check_fwd_over_rev:
        raise NotImplementedError("gradgradcheck: tensorc has no forward-mode AD (check_fwd_over_rev)")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _as_tuple(func(*inputs))
        generator = Generator().manual_seed(0)
        grad_outputs = tuple(randn(*o.shape, generator=generator, dtype=o.dtype, requires_grad=True)
                             for _, o in _differentiable_outputs(outputs))
    grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(inputs)

    def first_derivatives(*args):
        ins, gos = args[:n_inputs], args[n_inputs:]
        outs = [o for _, o in _differentiable_outputs(_as_tuple(func(*ins)))]
        wrt = [x for x in ins if _is_tensor(x) and x.requires_grad]
        grads = grad(outs, wrt, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
