# SPDX-License-Identifier: BSD-3-Clause
"""Dropout: active in training mode only."""
from .. import functional as F
from .module import Module


class Dropout(Module):
    """Zeroes elements with probability p and scales the others by 1/(1-p) while
    training; the identity after eval()."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not isinstance(p, (int, float)) or isinstance(p, bool) or p < 0 or p > 1:
            raise ValueError("Dropout(): dropout probability has to be between 0 and 1, but got {}".format(p))
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return "p={}, inplace={}".format(self.p, self.inplace)
