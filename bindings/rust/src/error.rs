// SPDX-License-Identifier: BSD-3-Clause
//! Errors: the C ABI's status category and its message.
use std::ffi::{CStr, CString};
use std::fmt;

use crate::sys;

/// The category of an error: the C ABI's `tc_status` codes. The codes are
/// append-only, so the enum is `#[non_exhaustive]`: a match needs a `_` arm,
/// and a later version may name a code that is `Unknown` here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `TC_ERROR_INVALID_ARGUMENT`: a bad value or shape.
    InvalidArgument,
    /// `TC_ERROR_TYPE`: a wrong dtype or argument type.
    Type,
    /// `TC_ERROR_INDEX`: a dim or index out of range.
    Index,
    /// `TC_ERROR_OUT_OF_MEMORY`: allocation failed, or sizes overflow.
    OutOfMemory,
    /// `TC_ERROR_NOT_IMPLEMENTED`: no kernel for this op, key or dtype.
    NotImplemented,
    /// `TC_ERROR_RUNTIME`: a valid request that failed while running (also a
    /// panic in a Rust callback, see [`crate::autograd::Function`]).
    Runtime,
    /// `TC_ERROR_DEVICE`: tensors on wrong or different devices.
    Device,
    /// `TC_ERROR_INTERNAL`: a bug in tensorc.
    Internal,
    /// A code this version of the crate does not know.
    Unknown(i32),
}

impl ErrorKind {
    /// The kind of a non-zero `tc_status`.
    pub fn from_code(code: sys::tc_status) -> ErrorKind {
        match code {
            sys::TC_ERROR_INVALID_ARGUMENT => ErrorKind::InvalidArgument,
            sys::TC_ERROR_TYPE => ErrorKind::Type,
            sys::TC_ERROR_INDEX => ErrorKind::Index,
            sys::TC_ERROR_OUT_OF_MEMORY => ErrorKind::OutOfMemory,
            sys::TC_ERROR_NOT_IMPLEMENTED => ErrorKind::NotImplemented,
            sys::TC_ERROR_RUNTIME => ErrorKind::Runtime,
            sys::TC_ERROR_DEVICE => ErrorKind::Device,
            sys::TC_ERROR_INTERNAL => ErrorKind::Internal,
            c => ErrorKind::Unknown(c),
        }
    }

    /// The `tc_status` code.
    pub fn code(self) -> sys::tc_status {
        match self {
            ErrorKind::InvalidArgument => sys::TC_ERROR_INVALID_ARGUMENT,
            ErrorKind::Type => sys::TC_ERROR_TYPE,
            ErrorKind::Index => sys::TC_ERROR_INDEX,
            ErrorKind::OutOfMemory => sys::TC_ERROR_OUT_OF_MEMORY,
            ErrorKind::NotImplemented => sys::TC_ERROR_NOT_IMPLEMENTED,
            ErrorKind::Runtime => sys::TC_ERROR_RUNTIME,
            ErrorKind::Device => sys::TC_ERROR_DEVICE,
            ErrorKind::Internal => sys::TC_ERROR_INTERNAL,
            ErrorKind::Unknown(c) => c,
        }
    }

    /// The C ABI's name for it ("invalid argument", ...), from `tc_status_name`.
    pub fn name(self) -> &'static str {
        // static storage in the library
        unsafe { CStr::from_ptr(sys::tc_status_name(self.code())) }.to_str().unwrap_or("unknown error")
    }
}

/// A failed call: the status category and the message tensorc gave (which
/// names the op, the argument and what was expected).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

/// `std::result::Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error of `kind` with `message` (for callbacks that fail on purpose).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into() }
    }

    /// The category.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, as `tc_last_error_message()` gave it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `tc_status` code.
    pub fn code(&self) -> sys::tc_status {
        self.kind.code()
    }

    /// The error of a call that just returned `code` on this thread.
    #[cold]
    #[inline(never)]
    pub(crate) fn last(code: sys::tc_status) -> Error {
        let msg = unsafe { CStr::from_ptr(sys::tc_last_error_message()) }.to_string_lossy().into_owned();
        Error { kind: ErrorKind::from_code(code), message: msg }
    }

    /// Records this error as the thread's last error (for callbacks returning
    /// into C); returns its code.
    pub(crate) fn set_last(&self) -> sys::tc_status {
        let msg = CString::new(self.message.replace('\0', "\\0")).unwrap_or_default();
        // An error must not read as success: `ErrorKind::Unknown(0)` (TC_OK)
        // would make tensorc take a failed callback's outputs as its results.
        let code = if self.code() == sys::TC_OK { sys::TC_ERROR_RUNTIME } else { self.code() };
        unsafe { sys::tc_error_set(code, msg.as_ptr()) }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.message)
    }
}

impl std::error::Error for Error {}

/// `Ok(())` for `TC_OK`, else the thread's last error.
#[inline(always)]
pub(crate) fn check(status: sys::tc_status) -> Result<()> {
    if status == sys::TC_OK {
        Ok(())
    } else {
        Err(Error::last(status))
    }
}
