// SPDX-License-Identifier: BSD-3-Clause
//! Autocast (mixed precision): `torch.autocast`'s scopes, over
//! `tc_autocast_push` / `tc_autocast_pop`.
//!
//! ```no_run
//! use tensorc::{amp::AutocastGuard, ops, Device, Kind};
//! let a = ops::ones(&[2, 3], None, None).unwrap();
//! let b = ops::ones(&[3, 4], None, None).unwrap();
//! let _amp = AutocastGuard::new(Device::Cpu, None).unwrap(); // bfloat16 on the CPU
//! assert_eq!(a.mm(&b).unwrap().kind(), Kind::BFloat16);
//! ```
use std::marker::PhantomData;

use crate::error::{check, Error, ErrorKind, Result};
use crate::sys;
use crate::types::{Device, Kind};

fn device_type(device: Device) -> Result<i32> {
    match device {
        Device::Cpu => Ok(sys::TC_DEVICE_CPU),
        Device::Cuda(_) => Ok(sys::TC_DEVICE_CUDA),
        _ => Err(Error::new(ErrorKind::InvalidArgument, "autocast: expected a CPU or CUDA device".to_string())),
    }
}

/// An autocast region on this thread until dropped: ops with an autocast
/// policy for `device`'s type run as the policy says (mm, matmul, linear in
/// `dtype`, bfloat16 on the CPU and float16 on CUDA by default; losses in
/// float32...). Not `Send` (the region is per thread); drop guards in
/// reverse order of creation.
#[must_use = "the region ends when the guard is dropped"]
pub struct AutocastGuard {
    device_type: i32,
    _not_send: PhantomData<*const ()>,
}

impl AutocastGuard {
    /// An enabled region with the weight-cast cache on.
    pub fn new(device: Device, dtype: Option<Kind>) -> Result<AutocastGuard> {
        AutocastGuard::with_options(device, dtype, true, true)
    }

    /// A region; `enabled = false` turns autocast off inside an enabled one.
    pub fn with_options(
        device: Device,
        dtype: Option<Kind>,
        enabled: bool,
        cache_enabled: bool,
    ) -> Result<AutocastGuard> {
        let device_type = device_type(device)?;
        let default = if device_type == sys::TC_DEVICE_CUDA { Kind::Float16 } else { Kind::BFloat16 };
        let state =
            sys::tc_autocast_state { device_type, dtype: dtype.unwrap_or(default).code(), enabled, cache_enabled };
        check(unsafe { sys::tc_autocast_push(&state) })?;
        Ok(AutocastGuard { device_type, _not_send: PhantomData })
    }

    /// Whether this thread is in an enabled region for `device`'s type.
    pub fn is_enabled(device: Device) -> Result<bool> {
        let mut state = sys::tc_autocast_state { device_type: 0, dtype: 0, enabled: false, cache_enabled: false };
        check(unsafe { sys::tc_autocast_get(&mut state, device_type(device)?) })?;
        Ok(state.enabled)
    }
}

impl Drop for AutocastGuard {
    fn drop(&mut self) {
        unsafe { sys::tc_autocast_pop(self.device_type) };
    }
}
