// SPDX-License-Identifier: BSD-3-Clause
//! Devices, streams and events (torch.cuda's runtime calls, for CUDA or an
//! out-of-tree backend).
//!
//! ```rust
//! use tensorc::device::{self, Stream};
//! use tensorc::Device;
//! assert_eq!(device::device_count(Device::Cpu), 1);
//! let s = Stream::current(Device::Cpu)?; // the CPU has only its default stream
//! assert_eq!(s.id(), 0);
//! if !device::is_available(Device::Cuda(-1)) {
//!     assert!(device::unavailable_reason(Device::Cuda(-1)).is_some());
//! }
//! # Ok::<(), tensorc::Error>(())
//! ```
use std::marker::PhantomData;
use std::ptr::{self, NonNull};

use crate::error::{check, Result};
use crate::sys;
use crate::tensor::Tensor;
use crate::types::Device;

/// Whether tensors can be made on `device`'s type.
pub fn is_available(device: Device) -> bool {
    unsafe { sys::tc_device_check(device.to_c().type_) == sys::TC_OK }
}

/// Why tensors cannot be made on `device`'s type (`None` when they can).
pub fn unavailable_reason(device: Device) -> Option<String> {
    check(unsafe { sys::tc_device_check(device.to_c().type_) }).err().map(|e| e.message().to_string())
}

/// The number of devices of `device`'s type: 0 when unavailable, 1 for the CPU.
pub fn device_count(device: Device) -> i32 {
    let mut n = 0;
    match check(unsafe { sys::tc_device_count(&mut n, device.to_c().type_) }) {
        Ok(()) => n,
        Err(_) => 0,
    }
}

/// The calling thread's current device index of `device`'s type.
pub fn current_device(device: Device) -> Result<i32> {
    let mut n = 0;
    check(unsafe { sys::tc_device_current(&mut n, device.to_c().type_) })?;
    Ok(n)
}

/// Makes `device` current for the calling thread.
pub fn set_device(device: Device) -> Result<()> {
    let c = device.to_c();
    check(unsafe { sys::tc_device_set_current(c.type_, c.index) })
}

/// Waits until all work queued on `device` is done.
pub fn synchronize(device: Device) -> Result<()> {
    check(unsafe { sys::tc_device_synchronize(device.to_c()) })
}

/// A stream of a device. A value: streams come from a pool per device and
/// live as long as the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    raw: sys::tc_stream,
}

impl Stream {
    fn from_call(f: impl FnOnce(*mut sys::tc_stream) -> sys::tc_status) -> Result<Stream> {
        let mut raw = sys::tc_stream { device: sys::tc_device_cpu(), id: 0 };
        check(f(&mut raw))?;
        Ok(Stream { raw })
    }

    /// A stream from `device`'s pool; priority 0 normal, below 0 higher.
    pub fn new(device: Device, priority: i32) -> Result<Stream> {
        Stream::from_call(|out| unsafe { sys::tc_stream_create(out, device.to_c(), priority) })
    }

    /// The default stream of `device`.
    pub fn default_for(device: Device) -> Result<Stream> {
        Stream::from_call(|out| unsafe { sys::tc_stream_default(out, device.to_c()) })
    }

    /// The calling thread's current stream for `device`.
    pub fn current(device: Device) -> Result<Stream> {
        Stream::from_call(|out| unsafe { sys::tc_stream_current(out, device.to_c()) })
    }

    /// A stream made outside tensorc (a `cudaStream_t` as an integer).
    ///
    /// # Safety
    /// `handle` must be a live stream of `device`, kept alive while tensorc
    /// may queue work on it.
    pub unsafe fn from_external(device: Device, handle: u64) -> Result<Stream> {
        Stream::from_call(|out| sys::tc_stream_from_external(out, device.to_c(), handle))
    }

    /// Its device (index resolved).
    pub fn device(&self) -> Device {
        Device::from_c(self.raw.device).unwrap_or(Device::Cpu)
    }

    /// The backend's handle; 0 for the default stream.
    pub fn id(&self) -> u64 {
        self.raw.id
    }

    /// The C ABI's `tc_stream`.
    pub fn as_raw(&self) -> sys::tc_stream {
        self.raw
    }

    /// Waits until all work queued on this stream is done.
    pub fn synchronize(&self) -> Result<()> {
        check(unsafe { sys::tc_stream_synchronize(self.raw) })
    }

    /// Whether all work queued on this stream is done (never waits).
    pub fn query(&self) -> Result<bool> {
        let mut done = false;
        check(unsafe { sys::tc_stream_query(&mut done, self.raw) })?;
        Ok(done)
    }

    /// Work queued here from now on waits until `event` has happened.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        check(unsafe { sys::tc_stream_wait_event(self.raw, event.as_raw()) })
    }

    /// Work queued here from now on waits for the work queued on `other` so far.
    pub fn wait_stream(&self, other: &Stream) -> Result<()> {
        let e = Event::new(false)?;
        e.record(other)?;
        self.wait_event(&e)
    }
}

/// An event: a point in a stream's work to wait for, query or time. It
/// belongs to the device of the first stream it is recorded on. The C ABI
/// locks it, so it may be shared between threads.
pub struct Event {
    raw: NonNull<sys::tc_event_s>,
}

unsafe impl Send for Event {}
unsafe impl Sync for Event {}

impl Event {
    /// A new event; `enable_timing` lets [`Event::elapsed_time`] use it.
    pub fn new(enable_timing: bool) -> Result<Event> {
        let mut e = ptr::null_mut();
        check(unsafe { sys::tc_event_create(&mut e, enable_timing) })?;
        NonNull::new(e).map(|raw| Event { raw }).ok_or_else(Tensor::null_output)
    }

    /// The handle, borrowed.
    pub fn as_raw(&self) -> sys::tc_event {
        self.raw.as_ptr()
    }

    /// Records the event at the current end of `stream`'s work.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        check(unsafe { sys::tc_event_record(self.as_raw(), stream.raw) })
    }

    /// Whether the work before the last record is done (true if never recorded).
    pub fn query(&self) -> Result<bool> {
        let mut done = false;
        check(unsafe { sys::tc_event_query(&mut done, self.as_raw()) })?;
        Ok(done)
    }

    /// Waits until the work before the last record is done.
    pub fn synchronize(&self) -> Result<()> {
        check(unsafe { sys::tc_event_synchronize(self.as_raw()) })
    }

    /// Milliseconds from this event to `end` (both made with timing).
    pub fn elapsed_time(&self, end: &Event) -> Result<f64> {
        let mut ms = 0.0;
        check(unsafe { sys::tc_event_elapsed_time(&mut ms, self.as_raw(), end.as_raw()) })?;
        Ok(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        unsafe { sys::tc_event_release(self.raw.as_ptr()) }
    }
}

/// Makes a stream the calling thread's current stream for its device until
/// dropped, then restores the one before. Tied to its thread (not `Send`).
pub struct StreamGuard {
    previous: Stream,
    _thread_bound: PhantomData<*const ()>,
}

impl StreamGuard {
    pub fn new(stream: &Stream) -> Result<StreamGuard> {
        let previous = Stream::current(stream.device())?;
        check(unsafe { sys::tc_stream_set_current(stream.raw) })?;
        Ok(StreamGuard { previous, _thread_bound: PhantomData })
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        unsafe { sys::tc_stream_set_current(self.previous.raw) };
    }
}

impl Tensor {
    /// Marks this tensor's memory as used by `stream` too: once freed, it is
    /// reused only after the work queued on `stream` so far is done.
    pub fn record_stream(&self, stream: &Stream) -> Result<()> {
        check(unsafe { sys::tc_tensor_record_stream(self.as_raw(), stream.raw) })
    }

    /// A contiguous copy of this CPU tensor in page-locked memory, which CUDA
    /// copies to and from asynchronously (this tensor itself if already
    /// pinned). Errors (`Device`) without a usable CUDA device.
    pub fn pin_memory(&self) -> Result<Tensor> {
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::tc_tensor_pin_memory(&mut out, self.as_raw()) })?;
        Tensor::from_out(out)
    }

    /// Whether this tensor's memory is page-locked (from `pin_memory`).
    pub fn is_pinned(&self) -> bool {
        self.query(sys::tc_tensor_is_pinned)
    }
}
