# SPDX-License-Identifier: BSD-3-Clause
"""tensorc.cuda: the CUDA devices, as torch.cuda names them.

The CUDA backend is a library tensorc loads on first use; when it cannot be
used (a CPU-only build, no driver, no GPU) ``is_available()`` is False and
``unavailable_reason()`` says why.
"""
from . import _C

_CUDA = 2  # TC_DEVICE_CUDA


def _index(device):
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    text = str(device)
    if text == "cuda":
        return -1
    if text.startswith("cuda:"):
        return int(text[5:])
    raise ValueError(f"expected a CUDA device, got {device!r}")


def is_available():
    """True when a CUDA device can hold a tensor (a CUDA build on a machine with a GPU and its driver)."""
    return _C.device_unavailable_reason(_CUDA) is None


def unavailable_reason():
    """Why CUDA cannot be used here (None when it can): the backend's own words."""
    return _C.device_unavailable_reason(_CUDA)


def device_count():
    """The number of CUDA devices (0 when CUDA is unavailable)."""
    return _C.device_count(_CUDA)


def current_device():
    """The calling thread's current CUDA device index."""
    return _C.device_current(_CUDA)


def set_device(device):
    """Makes `device` (an index, "cuda:N") current for the calling thread."""
    _C.device_set_current(_CUDA, _index(device))


def synchronize(device=None):
    """Waits until all work queued on `device` (default: the current one) is done."""
    _C.device_synchronize(_CUDA, _index(device))


# Memory statistics of the caching allocator (tc_memory_stat codes), torch.cuda's names.
_STATS = {"allocated_bytes.all.current": 0, "allocated_bytes.all.peak": 1, "reserved_bytes.all.current": 2,
          "reserved_bytes.all.peak": 3, "num_device_alloc": 4, "num_device_free": 5, "num_alloc_retries": 6,
          "num_ooms": 7}


def memory_allocated(device=None):
    """Bytes held by tensors on `device` now."""
    return _C.device_memory_stat(_CUDA, _index(device), 0)


def max_memory_allocated(device=None):
    """The most bytes held by tensors at once since the last reset_peak_memory_stats."""
    return _C.device_memory_stat(_CUDA, _index(device), 1)


def memory_reserved(device=None):
    """Bytes the caching allocator holds from the device (allocated plus cached)."""
    return _C.device_memory_stat(_CUDA, _index(device), 2)


def max_memory_reserved(device=None):
    return _C.device_memory_stat(_CUDA, _index(device), 3)


def memory_stats(device=None):
    """The allocator's statistics as a dict, with torch.cuda.memory_stats' key names."""
    return {name: _C.device_memory_stat(_CUDA, _index(device), code) for name, code in _STATS.items()}


def reset_peak_memory_stats(device=None):
    _C.device_reset_peak_memory_stats(_CUDA, _index(device))


def empty_cache():
    """Returns cached memory no tensor uses to the device (every device)."""
    _C.device_empty_cache(_CUDA)


# ---- streams and events (torch.cuda.Stream / Event) ------------------------------


def _stream_of(c_stream):
    s = Stream.__new__(Stream)
    s._c = c_stream
    return s


class Stream:
    """A CUDA stream from tensorc's pool (``priority`` 0 normal, below 0 higher).

    Streams live as long as the process; work queued on one is not ordered
    with the default stream's: order it with ``wait_stream`` or events.
    """

    def __init__(self, device=None, priority=0):
        self._c = _C.stream_create(_CUDA, _index(device), int(priority))

    @property
    def device(self):
        from ._device import device as _device_cls
        return _device_cls("cuda", self._c[1])

    @property
    def cuda_stream(self):
        """The cudaStream_t as an int (0: the legacy default stream)."""
        return self._c[2]

    def query(self):
        """True when all work queued on this stream is done."""
        return _C.stream_query(*self._c)

    def synchronize(self):
        """Waits until all work queued on this stream is done."""
        _C.stream_synchronize(*self._c)

    def wait_event(self, event):
        """Work queued here from now on waits until `event` has happened."""
        _C.stream_wait_event(*self._c, event._cap)

    def wait_stream(self, stream):
        """Work queued here from now on waits for the work queued on `stream` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Records `event` (a new one when None) on this stream and returns it."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and self._c == other._c

    def __hash__(self):
        return hash(self._c)

    def __repr__(self):
        return f"<tensorc.cuda.Stream device=cuda:{self._c[1]} cuda_stream={self._c[2]:#x}>"


class ExternalStream(Stream):
    """A stream made outside tensorc (a cudaStream_t as an int); the caller keeps it alive."""

    def __init__(self, stream_ptr, device=None):
        self._c = _C.stream_from_external(_CUDA, _index(device), int(stream_ptr))


class Event:
    """A CUDA event: a point in a stream's work to wait for, query or time."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if interprocess:
            raise NotImplementedError("tensorc.cuda.Event: interprocess events are not supported")
        self._cap = _C.event_create(bool(enable_timing))

    def record(self, stream=None):
        """Records the event at the current end of `stream`'s work (default: the current stream)."""
        stream = current_stream() if stream is None else stream
        _C.event_record(self._cap, *stream._c)

    def wait(self, stream=None):
        """Work queued on `stream` (default: the current one) from now on waits for this event."""
        (current_stream() if stream is None else stream).wait_event(self)

    def query(self):
        """True when the work before the last record is done (True if never recorded)."""
        return _C.event_query(self._cap)

    def synchronize(self):
        """Waits until the work before the last record is done."""
        _C.event_synchronize(self._cap)

    def elapsed_time(self, end_event):
        """Milliseconds from this event to `end_event` (both made with enable_timing=True)."""
        return _C.event_elapsed_time(self._cap, end_event._cap)


def current_stream(device=None):
    """The calling thread's current stream for `device` (default: the current device)."""
    return _stream_of(_C.stream_current(_CUDA, _index(device)))


def default_stream(device=None):
    """The legacy default stream of `device`."""
    return _stream_of(_C.stream_default(_CUDA, _index(device)))


def set_stream(stream):
    """Makes `stream` the calling thread's current stream for its device."""
    if stream is not None:
        _C.stream_set_current(*stream._c)


class StreamContext:
    """``with tensorc.cuda.stream(s):`` runs the block's work on `s` (None: no change)."""

    def __init__(self, stream):
        self.stream = stream
        self._saved = []

    def __enter__(self):
        if self.stream is not None:
            self._saved.append(current_stream(self.stream.device.index))
            set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            set_stream(self._saved.pop())
        return False


def stream(stream):
    return StreamContext(stream)


class _Amp:
    """torch.cuda.amp's spelling: ``tensorc.cuda.amp.autocast(enabled=True, dtype=float16, cache_enabled=True)``
    and ``tensorc.cuda.amp.GradScaler(init_scale=2.**16, ...)``."""

    class autocast:
        def __new__(cls, enabled=True, dtype=None, cache_enabled=True):
            from .amp import autocast as _autocast
            return _autocast("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    class GradScaler:
        def __new__(cls, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                    enabled=True):
            from .amp import GradScaler as _GradScaler
            return _GradScaler("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


amp = _Amp()
