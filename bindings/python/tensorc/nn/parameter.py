# SPDX-License-Identifier: BSD-3-Clause
"""nn.Parameter: a Tensor that a Module registers as one of its parameters."""
from .. import _C
from .._override_protocol import _PLAIN, _disabled_tensorc_function_impl
from .._tensor import Tensor


class Parameter(Tensor):
    """Parameter(data=None, requires_grad=True): shares data's storage; a
    leaf that requires grad unless told otherwise. Ops on it return plain Tensors."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .._creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError("Parameter(): data must be a tensorc.Tensor, not {}".format(type(data).__name__))
        result = _C.tensor_as_subclass(data.detach(), cls)
        result.requires_grad_(requires_grad)
        return result

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happens in __new__

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __reduce_ex__(self, protocol):
        """Pickled as a Parameter (tensorc.save of a whole module keeps them)."""
        return (_rebuild_parameter, (self.detach(), self.requires_grad))

    __tensorc_function__ = classmethod(_disabled_tensorc_function_impl)


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


# Parameters take the op wrappers' fast path: they never override anything.
_PLAIN.add(Parameter)
