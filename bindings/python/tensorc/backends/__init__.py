# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.backends: process-wide backend switches, under torch.backends' names."""
from . import cuda

__all__ = ["cuda"]
