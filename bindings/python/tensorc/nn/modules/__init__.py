# SPDX-License-Identifier: BSD-3-Clause
"""The layers of tensorc.nn."""
from .module import Module
from .linear import Identity, Linear
from .activation import (ReLU, ReLU6, SiLU, LeakyReLU, ELU, Hardtanh, GELU, Sigmoid, Tanh, Softplus, Softmax,
                         LogSoftmax, Softmin)
from .container import Sequential, ModuleList, ModuleDict
from .dropout import Dropout
from .flatten import Flatten
from .loss import (MSELoss, L1Loss, SmoothL1Loss, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss)
from .normalization import LayerNorm
from .sparse import Embedding

__all__ = ["Module", "Identity", "Linear", "ReLU", "ReLU6", "SiLU", "LeakyReLU", "ELU", "Hardtanh", "GELU", "Sigmoid",
           "Tanh", "Softplus", "Softmax", "LogSoftmax", "Softmin", "Sequential", "ModuleList", "ModuleDict", "Dropout",
           "Flatten", "MSELoss", "L1Loss", "SmoothL1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
           "BCEWithLogitsLoss", "LayerNorm", "Embedding"]
