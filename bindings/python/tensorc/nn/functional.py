# SPDX-License-Identifier: BSD-3-Clause
"""nn.functional: the stateless form of the layers and losses, as
torch.nn.functional. Most are one schema op; the rest are composed from ops,
so autograd and the override protocol come from those ops."""
import warnings as _warnings

from .. import _ops
from .. import _dtype as _dt
from .._tensor import Tensor as _Tensor

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_code(reduction, function):
    code = _REDUCTIONS.get(reduction)
    if code is None:
        raise ValueError("{}(): {!r} is not a valid value for reduction (expected 'none', 'mean' or 'sum')"
                         .format(function, reduction))
    return code


def _legacy_reduction(size_average, reduce, reduction):
    """The reduction the deprecated size_average/reduce arguments ask for, or reduction."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "mean" if (size_average and reduce) else "sum" if reduce else "none"


def _reduce(loss, reduction, function):
    code = _reduction_code(reduction, function)
    return loss if code == 0 else loss.mean() if code == 1 else loss.sum()


def _check_p(p, function):
    if p < 0.0 or p > 1.0:
        raise ValueError("{}(): dropout probability has to be between 0 and 1, but got {}".format(function, p))


# ---- linear and activations -----------------------------------------------------

def linear(input, weight, bias=None):
    """input @ weight.T + bias."""
    return _ops.linear(input, weight, bias)


def relu(input, inplace=False):
    return _ops.relu_(input) if inplace else _ops.relu(input)


def relu_(input):
    return _ops.relu_(input)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("hardtanh(): min_val cannot be greater than max_val")
    return input.clamp_(min_val, max_val) if inplace else _ops.clamp(input, min_val, max_val)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    result = _ops.where(input > 0, input, input * negative_slope)
    return input.copy_(result) if inplace else result


def elu(input, alpha=1.0, inplace=False):
    result = _ops.where(input > 0, input, _ops.expm1(input) * alpha)
    return input.copy_(result) if inplace else result


def gelu(input, approximate="none"):
    return _ops.gelu(input, approximate=approximate)


def silu(input, inplace=False):
    result = input * _ops.sigmoid(input)
    return input.copy_(result) if inplace else result


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta, linear where beta x > threshold (for stability)."""
    scaled = input * beta
    return _ops.where(scaled > threshold, input, _ops.log1p(_ops.exp(scaled)) / beta)


def logsigmoid(input):
    return -softplus(-input)


def softsign(input):
    return input / (_ops.abs(input) + 1)


def sigmoid(input):
    return _ops.sigmoid(input)


def tanh(input):
    return _ops.tanh(input)


def _softmax_dim(ndim, function):
    _warnings.warn("Implicit dimension choice for {} has been deprecated. Change the call to include "
                   "dim=X as an argument.".format(function), stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.ndim, "softmax")
    return _ops.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.ndim, "log_softmax")
    return _ops.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.ndim, "softmin")
    return _ops.softmax(-input, dim, dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability p and scales the rest by 1/(1-p), when training."""
    _check_p(p, "dropout")
    result = _ops.dropout(input, p, training)
    return input.copy_(result) if inplace else result


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _ops.layer_norm(input, normalized_shape, weight, bias, eps)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    if max_norm is not None:
        raise NotImplementedError("embedding(): max_norm is not supported")
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx < 0:
        if padding_idx < -weight.shape[0]:
            raise ValueError("embedding(): padding_idx must be within num_embeddings")
        padding_idx += weight.shape[0]
    elif padding_idx >= weight.shape[0]:
        raise ValueError("embedding(): padding_idx must be within num_embeddings")
    return _ops.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor, num_classes=-1):
    """int64 one-hot rows: out[..., c] = (tensor[...] == c)."""
    if num_classes < 0:
        num_classes = int(tensor.max().item()) + 1
    classes = _ops.arange(num_classes, dtype=_dt.int64, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).long()


def pad(input, pad, mode="constant", value=None):
    if mode != "constant":
        raise NotImplementedError("pad(): only mode='constant' is supported, got {!r}".format(mode))
    return _ops.constant_pad_nd(input, pad, 0 if value is None else value)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """input / max(||input||_p along dim, eps)."""
    norm = (_ops.abs(input) ** p).sum(dim, keepdim=True) ** (1.0 / p)
    return input / norm.clamp_min(eps)


# ---- losses -------------------------------------------------------------------------

def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """log_softmax over dim 1 (the class dim) then nll_loss; target holds class
    indices, or class probabilities with input's shape."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    code = _reduction_code(reduction, "cross_entropy")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError("cross_entropy(): label_smoothing must be between 0.0 and 1.0, got {}"
                         .format(label_smoothing))
    if isinstance(target, _Tensor) and target.is_floating_point():
        return _cross_entropy_probabilities(input, target, weight, code, label_smoothing)
    return _ops.cross_entropy_loss(input, target, weight, code, ignore_index, label_smoothing)


def _cross_entropy_probabilities(input, target, weight, code, label_smoothing):
    if input.shape != target.shape:
        raise ValueError("cross_entropy(): probability targets must have input's shape {}, got {}"
                         .format(tuple(input.shape), tuple(target.shape)))
    class_dim = 1 if input.ndim > 1 else 0
    classes = input.shape[class_dim]
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    log_p = _ops.log_softmax(input, class_dim)
    if weight is not None:
        shape = [1] * input.ndim
        shape[class_dim] = classes
        log_p = log_p * weight.reshape(shape)
    loss = -(log_p * target).sum(class_dim)
    # mean divides by the number of samples (input.numel() / classes), with or without weight.
    return loss if code == 0 else loss.sum() if code == 2 else loss.mean()


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """-input[n, target[n]] (times weight[target[n]]), reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _ops.nll_loss(input, target, weight, _reduction_code(reduction, "nll_loss"), ignore_index)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """(input - target)^2, reduced."""
    if isinstance(target, _Tensor) and target.shape != input.shape:
        _warnings.warn("Using a target size ({}) that is different to the input size ({}). This will likely lead "
                       "to incorrect results due to broadcasting.".format(target.shape, input.shape), stacklevel=2)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _ops.mse_loss(input, target, _reduction_code(reduction, "mse_loss"))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """|input - target|, reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _reduce(_ops.abs(input - target), reduction, "l1_loss")


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise ValueError("smooth_l1_loss(): beta must be non-negative, got {}".format(beta))
    diff = _ops.abs(input - target)
    if beta == 0:
        return _reduce(diff, reduction, "smooth_l1_loss")
    loss = _ops.where(diff < beta, diff * diff * (0.5 / beta), diff - 0.5 * beta)
    return _reduce(loss, reduction, "smooth_l1_loss")


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError("binary_cross_entropy_with_logits(): target size ({}) must be the same as input size ({})"
                         .format(target.shape, input.shape))
    return _ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                 _reduction_code(reduction, "binary_cross_entropy_with_logits"))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(t log x + (1 - t) log(1 - x)), each log clamped at -100 as torch does."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError("binary_cross_entropy(): target size ({}) must be the same as input size ({})"
                         .format(target.shape, input.shape))
    loss = -(target * _ops.log(input).clamp_min(-100.0) + (1 - target) * _ops.log(1 - input).clamp_min(-100.0))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "binary_cross_entropy")

