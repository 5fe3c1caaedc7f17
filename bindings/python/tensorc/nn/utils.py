# SPDX-License-Identifier: BSD-3-Clause
"""nn.utils: gradient clipping, as torch.nn.utils has it."""
import math as _math

from .. import _ops
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients in place so that their joint norm is at most max_norm;
    returns the norm before clipping (a 0-dim tensor)."""
    grads = _grads(parameters)
    if not grads:
        return _ops.zeros(())
    norm_type = float(norm_type)
    with no_grad():
        if norm_type == _math.inf:
            norms = [g.abs().max() for g in grads]
            total = norms[0] if len(norms) == 1 else _ops.stack(norms).max()
        else:
            total = _ops.stack([g.abs().pow(norm_type).sum() for g in grads]).sum().pow(1.0 / norm_type)
        value = total.item()
        if error_if_nonfinite and not _math.isfinite(value):
            raise RuntimeError("The total norm of order {} for gradients from `parameters` is non-finite, so it "
                               "cannot be clipped.".format(norm_type))
        coef = float(max_norm) / (value + 1e-6)
        if coef < 1.0:
            for g in grads:
                g.mul_(coef)
    return total


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient element to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)
