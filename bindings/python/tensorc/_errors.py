# SPDX-License-Identifier: BSD-3-Clause
"""Exceptions: one class per C ABI status, each a tensorc.Error and the
built-in exception a Python user would catch for it."""
from . import _C


class Error(Exception):
    """Base of every error tensorc raises; the message is the C ABI's."""


class InvalidArgumentError(Error, ValueError):
    """A bad value or shape (TC_ERROR_INVALID_ARGUMENT)."""


class TypeError_(Error, TypeError):
    """A wrong dtype or argument type (TC_ERROR_TYPE)."""


class IndexError_(Error, IndexError):
    """A dim or index out of range (TC_ERROR_INDEX)."""


class OutOfMemoryError(Error, MemoryError):
    """Allocation failed, or sizes overflow (TC_ERROR_OUT_OF_MEMORY)."""


class NotImplementedError_(Error, NotImplementedError):
    """No kernel for this op, device or dtype (TC_ERROR_NOT_IMPLEMENTED)."""


class RuntimeError_(Error, RuntimeError):
    """A valid request that failed while running (TC_ERROR_RUNTIME)."""


class DeviceError(Error, RuntimeError):
    """Tensors on the wrong or different devices (TC_ERROR_DEVICE)."""


class InternalError(Error, RuntimeError):
    """A bug in tensorc (TC_ERROR_INTERNAL): please report it."""


# Public names without the trailing underscore that avoids shadowing builtins here.
TensorTypeError = TypeError_
TensorIndexError = IndexError_
TensorNotImplementedError = NotImplementedError_
TensorRuntimeError = RuntimeError_
for _cls, _name in ((TypeError_, "TypeError"), (IndexError_, "IndexError"),
                    (NotImplementedError_, "NotImplementedError"), (RuntimeError_, "RuntimeError")):
    _cls.__name__ = _cls.__qualname__ = "Tensor" + _name

# Indexed by status code (TC_OK has no class).
_C.set_error_classes((None, InvalidArgumentError, TypeError_, IndexError_, OutOfMemoryError,
                      NotImplementedError_, RuntimeError_, DeviceError, InternalError))
