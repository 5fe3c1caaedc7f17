# SPDX-License-Identifier: BSD-3-Clause
"""optim.Optimizer: parameter groups, per-parameter state and their
state_dict, as torch.optim.Optimizer. Subclasses write step()."""
import copy as _copy
import itertools as _itertools
import warnings as _warnings
from collections import defaultdict as _defaultdict

from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad


class _RequiredParameter:
    """The default of an option every group must give (SGD's lr)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(value):
    return value.type() if isinstance(value, Tensor) else type(value).__name__


class Optimizer:
    """Base class: Optimizer(params, defaults), params an iterable of tensors or of
    dicts {"params": [...], option: value} (one parameter group each)."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params))
        self.state = _defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Adds a group of parameters with its own options (the defaults fill the rest)."""
        if not isinstance(param_group, dict):
            raise TypeError("add_param_group(): param group must be a dict, got " + type(param_group).__name__)
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = dict(param_group, params=params)
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError("parameter group didn't specify a value of required optimization parameter " + name)
            group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            _warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                           "cause an error", stacklevel=3)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in existing for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Drops (or zeroes, with set_to_none=False) the .grad of every parameter."""
        for group in self.param_groups:
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                else:
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns closure()'s loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._update_group(group)
        return loss

    def _update_group(self, group):
        """Updates the parameters of one group (each optimizer's own rule)."""
        raise NotImplementedError("{}.step() is not implemented".format(type(self).__name__))

    # ---- state_dict ---------------------------------------------------------------
    def state_dict(self):
        """{"state": {index: state}, "param_groups": [options + "params": [index]]}:
        parameters by their position across the groups, so it loads into a new
        optimizer over a new model. The state tensors are the live ones, not copies."""
        index_of = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for param in group["params"]:
                index_of.setdefault(id(param), len(index_of))
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index_of[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restores options and state saved by state_dict() (copied: the saved
        dict is left alone); tensors take each parameter's dtype and device."""
        state_dict = _copy.deepcopy(state_dict)
        groups = self.param_groups
        saved_groups = state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups ({} here, {} saved)"
                             .format(len(groups), len(saved_groups)))
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        param_of = dict(zip(_itertools.chain.from_iterable(g["params"] for g in saved_groups),
                            _itertools.chain.from_iterable(g["params"] for g in groups)))
        state = _defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                param = param_of[key]
                state[param] = _cast_state(param, value)
            else:
                state[key] = value
        new_groups = [dict(saved, params=group["params"]) for group, saved in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": new_groups})

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\nParameter Group {}\n".format(i)
            for key in sorted(group):
                if key != "params":
                    text += "    {}: {}\n".format(key, group[key])
        return text + ")"


def _cast_state(param, value, key=None):
    """State tensors follow the parameter's device, and its dtype when floating
    (the step count stays as saved)."""
    if isinstance(value, Tensor):
        if key != "step":
            if param.is_floating_point() and value.is_floating_point():
                value = value.to(dtype=param.dtype)
            value = value.to(device=param.device)
        return value
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    return value
