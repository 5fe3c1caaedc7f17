# SPDX-License-Identifier: BSD-3-Clause
"""no_grad / enable_grad / set_grad_enabled: context managers and decorators."""
import functools as _functools
import inspect as _inspect

from .. import _C


def is_grad_enabled():
    return _C.grad_mode_is_enabled()


def _decorate(fn, make_mode):
    """fn running under a fresh grad mode from make_mode(); for a generator
    function, every resumption runs under it (the caller's mode in between),
    as PyTorch's decorators do."""
    if _inspect.isgeneratorfunction(fn):
        @_functools.wraps(fn)
        def generator(*args, **kwargs):
            gen = fn(*args, **kwargs)
            try:
                with make_mode():
                    value = next(gen)
                while True:
                    try:
                        sent = yield value
                    except GeneratorExit:
                        with make_mode():
                            gen.close()
                        raise
                    except BaseException as exc:  # thrown in by the caller: pass it on
                        with make_mode():
                            value = gen.throw(exc)
                    else:
                        with make_mode():
                            value = gen.send(sent)
            except StopIteration as stop:
                return stop.value
        return generator

    @_functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with make_mode():
            return fn(*args, **kwargs)
    return wrapper


class _GradMode:
    enabled = None

    def __enter__(self):
        _C.grad_mode_push(self.enabled)
        return self

    def __exit__(self, *exc):
        _C.grad_mode_pop()
        return False

    def __call__(self, fn):
        return _decorate(fn, self.__class__)


class no_grad(_GradMode):
    """Ops inside record no graph: `with tensorc.no_grad():` or `@tensorc.no_grad()`."""
    enabled = False


class enable_grad(_GradMode):
    """Turns recording back on inside a no_grad region."""
    enabled = True


class set_grad_enabled(_GradMode):
    """set_grad_enabled(mode): as a function call it sets the mode; as a context manager it restores it."""

    def __init__(self, mode):
        self.enabled = bool(mode)
        self._previous = _C.grad_mode_is_enabled()
        _C.grad_mode_set_enabled(self.enabled)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C.grad_mode_set_enabled(self._previous)
        return False

    def __call__(self, fn):
        mode = self.enabled
        _C.grad_mode_set_enabled(self._previous)

        return _decorate(fn, lambda: set_grad_enabled(mode))
