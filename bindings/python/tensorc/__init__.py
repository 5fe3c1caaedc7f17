# SPDX-License-Identifier: BSD-3-Clause
"""tensorc: tensors with autograd over tensorc's C ABI, shaped like PyTorch.

    import tensorc
    x = tensorc.randn(3, 4, requires_grad=True)   # or tensorc.tensor([[1., 2.]])
    y = (x @ x.T).relu().sum()
    y.backward()
"""
from . import _C
from ._errors import (Error, InvalidArgumentError, TensorTypeError, TensorIndexError, OutOfMemoryError,
                      TensorNotImplementedError, TensorRuntimeError, DeviceError, InternalError)
from ._dtype import (dtype, bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
                     short, int, long, half, float, double)
from ._device import device
from ._tensor import Tensor, Size
from . import _ops
from . import _operators  # noqa: F401  (installs methods and operators on Tensor)
from . import _indexing  # noqa: F401  (installs Tensor.__getitem__ / __setitem__)
from . import _creation
from ._ops import FUNCTIONS as _FUNCTIONS

globals().update(_FUNCTIONS)  # every schema op, tensorc._softmax included, as in torch
globals().update(_creation.FACTORIES)  # factories with requires_grad=, and the *_like ones

from ._creation import (tensor, as_tensor, from_numpy, manual_seed, Generator, default_generator,
                        set_num_threads, get_num_threads, is_tensor, numel)
from .autograd.grad_mode import is_grad_enabled, set_grad_enabled, no_grad, enable_grad
from .autograd.grad_mode import no_grad as inference_mode  # tensorc has no separate inference mode
from ._interop import from_dlpack
from ._numeric import isclose, allclose, equal
from ._serialization import save, load
from . import autograd, backends, cuda, nn, optim, overrides
from . import amp, cpu, jit, library  # noqa: F401
from .amp import autocast, is_autocast_enabled, get_autocast_dtype
from . import onnx  # noqa: F401  (imports the onnx package only when exporting)

__version__ = _C.version_string()
