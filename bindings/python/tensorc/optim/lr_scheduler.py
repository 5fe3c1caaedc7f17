# SPDX-License-Identifier: BSD-3-Clause
"""optim.lr_scheduler: learning-rate schedules over an Optimizer's parameter
groups, as torch.optim.lr_scheduler (torch 1.13's formulas, so the values
match torch's to the last bit for the same calls).

    sched = lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    for epoch in range(n):
        train(...); opt.step()
        sched.step()

Each epoch-based scheduler updates the rates recursively from the current
group["lr"] (get_lr(), "chainable": other schedulers or the user may change
the rate too); step(epoch) with an explicit epoch uses the closed form of
the schedule instead, from base_lrs, as torch does (deprecated there too).
"""
import math as _math
import types as _types
import warnings as _warnings
import weakref as _weakref
from bisect import bisect_right as _bisect_right
from collections import Counter as _Counter

from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "CosineAnnealingLR", "ReduceLROnPlateau"]

_EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from "
    "None, the closed form is used instead of the new chainable form, where available.")

_GET_LR_OUTSIDE_STEP_WARNING = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."


def _check_optimizer(owner, optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError("{}(): optimizer must be a tensorc.optim.Optimizer, got {}"
                        .format(owner, type(optimizer).__name__))


def _count_optimizer_steps(optimizer):
    """Replaces optimizer.step with a wrapper that counts calls in
    optimizer._step_count, so the scheduler can warn when it is stepped first
    (the order changed in PyTorch 1.1 and silently skips the first rate).
    The wrapper holds the optimizer weakly: an instance attribute holding it
    strongly would make a reference cycle."""
    step = optimizer.step
    if getattr(step, "_with_counter", False):
        return
    unbound = getattr(step, "__func__", None)
    if unbound is None:
        return  # not a method (already replaced by the user): step() warns about it
    optimizer_ref = _weakref.ref(optimizer)

    def counted_step(*args, **kwargs):
        instance = optimizer_ref()
        instance._step_count += 1
        return unbound(instance, *args, **kwargs)

    counted_step._with_counter = True
    counted_step.__doc__ = unbound.__doc__
    optimizer.step = counted_step


def _lambdas_per_group(owner, optimizer, lr_lambda):
    """One factor function per parameter group: the same one for all, or a list."""
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError("{}(): lr_lambda: expected {} lr_lambdas (one per parameter group), but got {}"
                         .format(owner, len(optimizer.param_groups), len(lr_lambda)))
    return list(lr_lambda)


class LRScheduler:
    """Base class. Subclasses write get_lr() (the next rates, from the current
    ones and self.last_epoch) and may write _get_closed_form_lr() (the rates at
    self.last_epoch from base_lrs).

    last_epoch=-1 starts a new schedule: each group's current lr is saved as
    its "initial_lr" (kept if already there) and becomes the base rate. Any
    other last_epoch resumes one, and needs "initial_lr" in every group."""

    def __init__(self, optimizer, last_epoch=-1, verbose=False):
        _check_optimizer(type(self).__name__, optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError("{}(): param 'initial_lr' is not specified in param_groups[{}] when resuming "
                                   "an optimizer (last_epoch={})".format(type(self).__name__, i, last_epoch))
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _count_optimizer_steps(optimizer)
        self.verbose = verbose
        self._initial_step()

    def _initial_step(self):
        """Resets the step counters and takes the first step, to epoch last_epoch + 1."""
        self.optimizer._step_count = 0
        self._step_count = 0
        self.step()

    def state_dict(self):
        """Every attribute but the optimizer (save the optimizer's own state_dict too)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restores the attributes saved by state_dict()."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The rates the last step() set, one per parameter group."""
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError("{}.get_lr() is not implemented".format(type(self).__name__))

    def print_lr(self, is_verbose, group, lr, epoch=None):
        """Prints the new rate of one group when verbose."""
        if not is_verbose:
            return
        if epoch is None:
            print("Adjusting learning rate of group {} to {:.4e}.".format(group, lr))
        else:
            epoch_str = ("%.2f" if isinstance(epoch, float) else "%.5d") % epoch
            print("Epoch {}: adjusting learning rate of group {} to {:.4e}.".format(epoch_str, group, lr))

    def step(self, epoch=None):
        """Advances the schedule one epoch (or to `epoch`, deprecated) and sets
        every group's lr."""
        if self._step_count == 1:
            if not getattr(self.optimizer.step, "_with_counter", False):
                _warnings.warn("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                               "initialization. Please, make sure to call `optimizer.step()` before "
                               "`lr_scheduler.step()`.", UserWarning)
            elif self.optimizer._step_count < 1:
                _warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                               "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
                               "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result "
                               "in PyTorch skipping the first value of the learning rate schedule.", UserWarning)
        self._step_count += 1
        # get_lr() warns when called from outside step(): its result depends on
        # last_epoch having just been advanced.
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                _warnings.warn(_EPOCH_DEPRECATION_WARNING, UserWarning)
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for i, (group, lr) in enumerate(zip(self.optimizer.param_groups, values)):
            group["lr"] = lr
            self.print_lr(self.verbose, i, lr, epoch)
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _warn_if_outside_step(self):
        if not getattr(self, "_get_lr_called_within_step", False):
            _warnings.warn(_GET_LR_OUTSIDE_STEP_WARNING, UserWarning)

    def _current_lrs(self):
        return [group["lr"] for group in self.optimizer.param_groups]

    def _scaled_lrs(self, factor):
        return [group["lr"] * factor for group in self.optimizer.param_groups]


# torch 1.13's name for the base class (LRScheduler is torch 2's).
_LRScheduler = LRScheduler


class _LambdaStateMixin:
    """state_dict for schedulers holding user functions: plain functions and
    lambdas cannot be saved, so only callable objects' attributes are (None
    stands for a function, which load_state_dict leaves as constructed)."""

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, _types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        # Leaves the caller's dict as it was (it may be loaded again).
        state = {key: value for key, value in state_dict.items() if key != "lr_lambdas"}
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, state_dict["lr_lambdas"]):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaStateMixin, LRScheduler):
    """lr = base_lr * lr_lambda(epoch); lr_lambda one function or one per group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        _check_optimizer("LambdaLR", optimizer)
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas_per_group("LambdaLR", optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaStateMixin, LRScheduler):
    """lr *= lr_lambda(epoch) at every step after the first."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        _check_optimizer("MultiplicativeLR", optimizer)
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas_per_group("MultiplicativeLR", optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch > 0:
            return [group["lr"] * fn(self.last_epoch)
                    for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]
        return self._current_lrs()


class StepLR(LRScheduler):
    """lr *= gamma every step_size epochs: base_lr * gamma ** (epoch // step_size)."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return self._scaled_lrs(self.gamma)

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr *= gamma at each milestone epoch (gamma ** k where a milestone is listed k times)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        self.milestones = _Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch not in self.milestones:
            return self._current_lrs()
        return self._scaled_lrs(self.gamma ** self.milestones[self.last_epoch])

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** _bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr = base_lr * factor for the first total_iters epochs, then base_lr."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1, verbose=False):
        if factor > 1.0 or factor < 0:
            raise ValueError("ConstantLR(): factor: constant multiplicative factor expected to be between 0 and 1, "
                             "got {}".format(factor))
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return self._scaled_lrs(self.factor)
        if self.last_epoch != self.total_iters:
            return self._current_lrs()
        return self._scaled_lrs(1.0 / self.factor)

    def _get_closed_form_lr(self):
        reached = self.last_epoch >= self.total_iters
        return [base_lr * (self.factor + reached * (1 - self.factor)) for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """The factor on base_lr goes linearly from start_factor to end_factor over
    total_iters epochs, then stays."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1,
                 verbose=False):
        if start_factor > 1.0 or start_factor < 0:
            raise ValueError("LinearLR(): start_factor: starting multiplicative factor expected to be between "
                             "0 and 1, got {}".format(start_factor))
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("LinearLR(): end_factor: ending multiplicative factor expected to be between "
                             "0 and 1, got {}".format(end_factor))
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return self._scaled_lrs(self.start_factor)
        if self.last_epoch > self.total_iters:
            return self._current_lrs()
        # The ratio of this epoch's factor to the previous one's.
        slope = self.end_factor - self.start_factor
        previous = self.total_iters * self.start_factor + (self.last_epoch - 1) * slope
        return self._scaled_lrs(1.0 + slope / previous)

    def _get_closed_form_lr(self):
        done = min(self.total_iters, self.last_epoch)
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor) * done / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr *= gamma every epoch: base_lr * gamma ** epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return self._current_lrs()
        return self._scaled_lrs(self.gamma)

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2
    (SGDR's annealing, without restarts: past T_max the cosine climbs back).
    Computed recursively, as the ratio of consecutive cosine terms applied to
    the current lr, so changes made to lr from outside carry on."""

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        epoch, t_max, eta_min = self.last_epoch, self.T_max, self.eta_min
        if epoch == 0:
            return self._current_lrs()
        if self._step_count == 1 and epoch > 0:
            # Resumed at a later epoch: no previous rate to go on from.
            return [eta_min + (base_lr - eta_min) * (1 + _math.cos(epoch * _math.pi / t_max)) / 2
                    for base_lr in self.base_lrs]
        if (epoch - 1 - t_max) % (2 * t_max) == 0:
            # Just past a minimum, where the ratio below would divide by ~0.
            return [group["lr"] + (base_lr - eta_min) * (1 - _math.cos(_math.pi / t_max)) / 2
                    for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups)]
        ratio = (1 + _math.cos(_math.pi * epoch / t_max)) / (1 + _math.cos(_math.pi * (epoch - 1) / t_max))
        return [ratio * (group["lr"] - eta_min) + eta_min for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min) * (1 + _math.cos(_math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


class ReduceLROnPlateau:
    """Multiplies every group's lr by `factor` (not below min_lr) once the
    metric given to step(metric) has not improved for more than `patience`
    epochs; then waits `cooldown` epochs before counting again.

    mode "min" (the metric should fall) or "max"; an improvement beats the best
    value by `threshold`, relative (threshold_mode "rel") or absolute ("abs").
    A reduction smaller than eps is skipped."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8, verbose=False):
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau(): factor should be < 1.0, got {}".format(factor))
        _check_optimizer("ReduceLROnPlateau", optimizer)
        self.factor = factor
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError("ReduceLROnPlateau(): min_lr: expected {} min_lrs (one per parameter group), "
                                 "got {}".format(len(optimizer.param_groups), len(min_lr)))
            self.min_lrs = list(min_lr)
        else:
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = [group["lr"] for group in optimizer.param_groups]
        self._set_mode(mode, threshold, threshold_mode)
        self._reset()

    def _set_mode(self, mode, threshold, threshold_mode):
        if mode not in ("min", "max"):
            raise ValueError("ReduceLROnPlateau(): mode must be 'min' or 'max', got {!r}".format(mode))
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("ReduceLROnPlateau(): threshold_mode must be 'rel' or 'abs', got {!r}"
                             .format(threshold_mode))
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        # The value any first metric improves on.
        self.mode_worse = _math.inf if mode == "min" else -_math.inf

    def _reset(self):
        """Forgets the best value and the bad-epoch and cooldown counters."""
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def is_better(self, a, best):
        """Whether metric value a improves on best by more than the threshold."""
        if self.mode == "min":
            if self.threshold_mode == "rel":
                return a < best * (1.0 - self.threshold)
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def step(self, metrics, epoch=None):
        """Takes this epoch's metric (a number or a one-element tensor)."""
        try:
            current = float(metrics)
        except (TypeError, ValueError) as exc:
            raise TypeError("ReduceLROnPlateau.step(): metrics must be a number or a one-element tensor, got {}"
                            .format(type(metrics).__name__)) from exc
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            _warnings.warn(_EPOCH_DEPRECATION_WARNING, UserWarning)
        self.last_epoch = epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs during the cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _reduce_lr(self, epoch):
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr
                if self.verbose:
                    epoch_str = ("%.2f" if isinstance(epoch, float) else "%.5d") % epoch
                    print("Epoch {}: reducing learning rate of group {} to {:.4e}.".format(epoch_str, i, new_lr))

    def get_last_lr(self):
        """The groups' rates after the last step() (the initial ones before any)."""
        return self._last_lr

    def state_dict(self):
        """Every attribute but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_mode(self.mode, self.threshold, self.threshold_mode)
