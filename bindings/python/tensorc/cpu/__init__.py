# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.cpu: CPU-specific spellings PyTorch programs use (tensorc.cpu.amp)."""
from . import amp  # noqa: F401
