# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.optim: optimizers over Parameters, as torch.optim.

    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    opt.zero_grad(); loss.backward(); opt.step()
"""
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam, AdamW
from . import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]
