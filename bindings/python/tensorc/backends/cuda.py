# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.backends.cuda: switches of the CUDA backend (settings: no device needed)."""
from .. import _C


class _Matmul:
    """``matmul.allow_tf32``: float32 matrix products on CUDA may use TF32 tensor cores
    (faster; inputs rounded to 10 mantissa bits). Off by default, as in PyTorch."""

    @property
    def allow_tf32(self):
        return _C.cuda_matmul_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, allow):
        _C.cuda_matmul_set_allow_tf32(bool(allow))


matmul = _Matmul()

__all__ = ["matmul"]
