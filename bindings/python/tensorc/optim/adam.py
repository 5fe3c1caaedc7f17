# SPDX-License-Identifier: BSD-3-Clause
"""optim.Adam and AdamW, with torch's update rule (Kingma & Ba, 2014;
Loshchilov & Hutter, 2019 for AdamW's decoupled weight decay)."""
import math as _math

from .. import _dtype as _dt
from .. import _ops
from .optimizer import Optimizer


class Adam(Optimizer):
    """For each parameter p with gradient g, at step t:
        g = -g if maximize;  g += weight_decay * p   (Adam's L2 penalty)
        m = beta1 m + (1 - beta1) g;   v = beta2 v + (1 - beta2) g^2
        v_max = max(v_max, v) if amsgrad
        p -= lr / (1 - beta1^t) * m / (sqrt(v or v_max) / sqrt(1 - beta2^t) + eps)
    """

    _decoupled_weight_decay = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        for name, value in (("capturable", capturable), ("differentiable", differentiable), ("fused", fused)):
            if value:
                raise NotImplementedError("{}(): {}=True is not supported".format(type(self).__name__, name))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, value in (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                               ("differentiable", False), ("fused", False)):
                group.setdefault(key, value)

    def _update_group(self, group):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, amsgrad, maximize = group["weight_decay"], group["amsgrad"], group["maximize"]
        for param in group["params"]:
            grad = param.grad
            if grad is None:
                continue
            state = self.state[param]
            if not state:
                # The step count is a 0-d float32 tensor, as in torch 1.13's state.
                state["step"] = _ops.scalar_tensor(0.0, dtype=_dt.float32)
                state["exp_avg"] = _ops.zeros_like(param)
                state["exp_avg_sq"] = _ops.zeros_like(param)
                if amsgrad:
                    state["max_exp_avg_sq"] = _ops.zeros_like(param)
            if maximize:
                grad = -grad
            step_t = state["step"]
            step_t.add_(1)
            if weight_decay != 0:
                if self._decoupled_weight_decay:
                    param.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(param, alpha=weight_decay)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
            exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
            step = step_t.item()
            bias_correction1 = 1 - beta1 ** step
            bias_correction2_sqrt = _math.sqrt(1 - beta2 ** step)
            if amsgrad:
                max_sq = state["max_exp_avg_sq"]
                max_sq.copy_(_ops.maximum(max_sq, exp_avg_sq))
                second = max_sq
            else:
                second = exp_avg_sq
            denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
            param.add_(exp_avg / denom, alpha=-(lr / bias_correction1))


class AdamW(Adam):
    """Adam with decoupled weight decay: p *= 1 - lr * weight_decay before the Adam step."""

    _decoupled_weight_decay = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused)
