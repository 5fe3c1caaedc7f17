"""no_grad / enable_grad / set_grad_enabled: context managers and decorators."""
import functools as _functools

from .. import _C


def is_grad_enabled():
    return _C.grad_mode_is_enabled()


class _GradMode:
    enabled = None

    def __enter__(self):
        _C.grad_mode_push(self.enabled)
        return self

    def __exit__(self, *exc):
        _C.grad_mode_pop()
        return False

    def __call__(self, fn):
        @_functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


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

        @_functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper
