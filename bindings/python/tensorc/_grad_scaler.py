# SPDX-License-Identifier: BSD-3-Clause
"""GradScaler: loss scaling for float16 training, as torch.amp.GradScaler.

Multiply the loss by a scale so that small float16 gradients do not flush to
zero; before the optimizer step, divide the gradients by it again and skip the
step when any of them is inf or NaN; then grow the scale after
``growth_interval`` clean steps or shrink it after an overflow. The scale,
the found-inf flags and the growth tracker are 1-element tensors on the
gradients' device, updated by the ops ``_amp_foreach_non_finite_check_and_unscale_``
and ``_amp_update_scale_``; the only value read back to the host is whether to
skip the step."""
import warnings as _warnings
from collections import defaultdict as _defaultdict

from ._tensor import Tensor
from ._dtype import float16 as _float16, float32 as _float32, int32 as _int32

_READY, _UNSCALED, _STEPPED = 0, 1, 2


def _ops():
    import tensorc
    return tensorc


def _fresh_state():
    return {"stage": _READY, "found_inf_per_device": {}}


class GradScaler:
    """``GradScaler(device="cuda", init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)``."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        if device not in ("cpu", "cuda"):
            raise ValueError(f"GradScaler: device expected 'cpu' or 'cuda', got {device!r}")
        if enabled and device == "cuda":
            from . import cuda
            if not cuda.is_available():
                _warnings.warn("GradScaler is enabled, but CUDA is not available. Disabling.")
                enabled = False
        self._device, self._enabled = device, bool(enabled)
        if self._enabled:
            if growth_factor <= 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
            if not isinstance(growth_interval, int) or growth_interval <= 0:
                raise ValueError(f"growth_interval expected a positive int, got {growth_interval!r}")
            self._init_scale, self._growth_factor = float(init_scale), float(growth_factor)
            self._backoff_factor, self._growth_interval = float(backoff_factor), growth_interval
            self._init_growth_tracker = 0
            self._scale = None  # made lazily on the device of the first scaled output
            self._growth_tracker = None
            self._per_optimizer_states = _defaultdict(_fresh_state)

    def is_enabled(self):
        return self._enabled

    def _lazy_init(self, device):
        tc = _ops()
        self._scale = tc.full((1,), self._init_scale, dtype=_float32, device=device)
        self._growth_tracker = tc.full((1,), self._init_growth_tracker, dtype=_int32, device=device)

    def scale(self, outputs):
        """outputs times the scale: a tensor, or a list/tuple (nested) of tensors."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale.to(outputs.device)
        if isinstance(outputs, (list, tuple)):
            scaled = [self.scale(o) for o in outputs]
            return type(outputs)(scaled) if isinstance(outputs, tuple) else scaled
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _unscale_grads(self, optimizer, inv_scale, allow_fp16):
        """{device name: found-inf flag on that device}, one fused call per device."""
        tc = _ops()
        per_device = _defaultdict(list)
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if not allow_fp16 and param.grad.dtype == _float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                per_device[str(param.grad.device)].append(param.grad)
        found = {}
        for device, grads in per_device.items():
            found[device] = tc.zeros(1, dtype=_float32, device=device)
            tc._amp_foreach_non_finite_check_and_unscale_(grads, found[device], inv_scale.to(device))
        return found

    def unscale_(self, optimizer):
        """Divides optimizer's gradients by the scale, in place (at most once between updates)."""
        if not self._enabled:
            return
        self._check_scale("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        state["found_inf_per_device"] = self._unscale_grads(optimizer, inv_scale, False)
        state["stage"] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(*args, **kwargs) unless a gradient held an inf or NaN; returns its result or None."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise RuntimeError("No inf checks were recorded for this optimizer.")
        retval = None
        if sum(float(v.item()) for v in state["found_inf_per_device"].values()) == 0:
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return retval

    def update(self, new_scale=None):
        """Grows or shrinks the scale from this iteration's inf checks, or sets it to new_scale."""
        if not self._enabled:
            return
        self._check_scale("update")
        tc = _ops()
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            elif isinstance(new_scale, Tensor) and new_scale.numel() == 1 and new_scale.dtype == _float32 \
                    and not new_scale.requires_grad:
                self._scale.copy_(new_scale)
            else:
                raise ValueError("new_scale should be a float or a 1-element tensorc.float32 tensor with "
                                 "requires_grad=False.")
        else:
            found_infs = [f.to(self._scale.device) for state in self._per_optimizer_states.values()
                          for f in state["found_inf_per_device"].values()]
            if not found_infs:
                raise RuntimeError("No inf checks were recorded prior to update.")
            found_inf = found_infs[0]
            for f in found_infs[1:]:
                found_inf = found_inf + f
            tc._amp_update_scale_(self._scale, self._growth_tracker, found_inf, self._growth_factor,
                                  self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = _defaultdict(_fresh_state)

    def _check_scale(self, fn):
        if self._scale is None:
            raise RuntimeError(f"Attempted {fn} but _scale is None. This may indicate your script did not use "
                               "scaler.scale(loss or outputs) earlier in the iteration.")

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = int(new_interval)

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def state_dict(self):
        """{"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"}; {} when disabled."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(self._init_growth_tracker)
