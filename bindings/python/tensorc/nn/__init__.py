# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.nn: modules, parameters, initialisers and functional ops, as torch.nn.

    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    loss = nn.CrossEntropyLoss()(model(x), y)
"""
from .parameter import Parameter
from .modules import (Module, Identity, Linear, ReLU, ReLU6, SiLU, LeakyReLU, ELU, Hardtanh, GELU, Sigmoid, Tanh,
                      Softplus, Softmax, LogSoftmax, Softmin, Sequential, ModuleList, ModuleDict, Dropout, Flatten,
                      MSELoss, L1Loss, SmoothL1Loss, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss, LayerNorm,
                      Embedding)
from . import functional, init, utils

__all__ = ["Parameter", "functional", "init", "utils", "Module", "Identity", "Linear", "ReLU", "ReLU6", "SiLU", "LeakyReLU",
           "ELU", "Hardtanh", "GELU", "Sigmoid", "Tanh", "Softplus", "Softmax", "LogSoftmax", "Softmin", "Sequential",
           "ModuleList", "ModuleDict", "Dropout", "Flatten", "MSELoss", "L1Loss", "SmoothL1Loss", "CrossEntropyLoss",
           "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "LayerNorm", "Embedding"]
