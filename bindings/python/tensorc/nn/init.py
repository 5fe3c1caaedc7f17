# SPDX-License-Identifier: BSD-3-Clause
"""nn.init: in-place initialisers for parameters, as torch.nn.init. Each runs
under no_grad (initialising is not part of any graph) and returns the tensor."""
import math as _math

from ..autograd.grad_mode import no_grad as _no_grad


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (relu: sqrt(2), tanh: 5/3, ...)."""
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                        "conv_transpose3d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return _math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError("calculate_gain(): negative_slope {} is not a valid number".format(param))
        return _math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError("calculate_gain(): unsupported nonlinearity {}".format(nonlinearity))


def _calculate_fan_in_and_fan_out(tensor):
    shape = tensor.shape
    if len(shape) < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = 1
    for s in shape[2:]:
        receptive_field *= s
    return shape[1] * receptive_field, shape[0] * receptive_field


calculate_fan_in_and_fan_out = _calculate_fan_in_and_fan_out


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError("Mode {} not supported, please use one of fan_in, fan_out".format(mode))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills tensor with values drawn from U(a, b)."""
    with _no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills tensor with values drawn from N(mean, std^2)."""
    with _no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor, val):
    with _no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with _no_grad():
        return tensor.zero_()


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * _math.sqrt(2.0 / float(fan_in + fan_out))
    bound = _math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * _math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al., 2015)."""
    if 0 in tensor.shape:
        return tensor  # torch warns and does nothing for empty tensors
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / _math.sqrt(fan)
    bound = _math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / _math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def eye_(tensor):
    """The identity matrix, for a 2-D tensor."""
    if tensor.ndim != 2:
        raise ValueError("eye_(): only tensors with 2 dimensions are supported, got {}".format(tensor.ndim))
    from .. import _ops
    with _no_grad():
        return tensor.copy_(_ops.eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype, device=tensor.device))
