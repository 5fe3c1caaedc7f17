// SPDX-License-Identifier: BSD-3-Clause
//! Element types (`Kind`), devices and scalars, and the argument traits the
//! generated ops take.
use std::fmt;

use crate::error::{Error, ErrorKind, Result};
use crate::sys;

/// The element type of a tensor (tensorc's dtype; the codes are fixed, and
/// new ones may be added: `#[non_exhaustive]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    Bool,
    UInt8,
    Int8,
    Int16,
    Int32,
    Int64,
    Float16,
    BFloat16,
    Float32,
    Float64,
    /// Reserved: no tensor has it yet.
    Complex64,
    /// Reserved: no tensor has it yet.
    Complex128,
}

impl Kind {
    /// The C ABI's dtype code.
    pub fn code(self) -> sys::tc_dtype {
        match self {
            Kind::Bool => sys::TC_BOOL,
            Kind::UInt8 => sys::TC_UINT8,
            Kind::Int8 => sys::TC_INT8,
            Kind::Int16 => sys::TC_INT16,
            Kind::Int32 => sys::TC_INT32,
            Kind::Int64 => sys::TC_INT64,
            Kind::Float16 => sys::TC_FLOAT16,
            Kind::BFloat16 => sys::TC_BFLOAT16,
            Kind::Float32 => sys::TC_FLOAT32,
            Kind::Float64 => sys::TC_FLOAT64,
            Kind::Complex64 => sys::TC_COMPLEX64,
            Kind::Complex128 => sys::TC_COMPLEX128,
        }
    }

    /// The kind of a dtype code; `ErrorKind::Type` for a code the C ABI does not define.
    pub fn from_code(code: sys::tc_dtype) -> Result<Kind> {
        Ok(match code {
            sys::TC_BOOL => Kind::Bool,
            sys::TC_UINT8 => Kind::UInt8,
            sys::TC_INT8 => Kind::Int8,
            sys::TC_INT16 => Kind::Int16,
            sys::TC_INT32 => Kind::Int32,
            sys::TC_INT64 => Kind::Int64,
            sys::TC_FLOAT16 => Kind::Float16,
            sys::TC_BFLOAT16 => Kind::BFloat16,
            sys::TC_FLOAT32 => Kind::Float32,
            sys::TC_FLOAT64 => Kind::Float64,
            sys::TC_COMPLEX64 => Kind::Complex64,
            sys::TC_COMPLEX128 => Kind::Complex128,
            c => return Err(Error::new(ErrorKind::Type, format!("unknown dtype code {}", c))),
        })
    }

    /// The size of one element in bytes.
    pub fn elt_size_in_bytes(self) -> usize {
        let mut n = 0usize;
        unsafe { sys::tc_dtype_size(&mut n, self.code()) };
        n
    }

    /// The name PyTorch prints ("float32", "int64", ...).
    pub fn name(self) -> &'static str {
        unsafe { std::ffi::CStr::from_ptr(sys::tc_dtype_name(self.code())) }.to_str().unwrap_or("invalid")
    }

    /// Whether this is a floating-point kind (the kinds that can require grad).
    pub fn is_floating_point(self) -> bool {
        matches!(self, Kind::Float16 | Kind::BFloat16 | Kind::Float32 | Kind::Float64)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a tensor's memory lives. Device type codes equal DLPack's (more
/// may be added: `#[non_exhaustive]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Device {
    Cpu,
    /// A CUDA device; -1 is the current one.
    Cuda(i32),
    /// The out-of-tree backend's device; -1 is the current one.
    PrivateUse1(i32),
}

impl Device {
    /// The C ABI's `tc_device`.
    pub fn to_c(self) -> sys::tc_device {
        match self {
            Device::Cpu => sys::tc_device { type_: sys::TC_DEVICE_CPU, index: -1 },
            Device::Cuda(i) => sys::tc_device { type_: sys::TC_DEVICE_CUDA, index: i },
            Device::PrivateUse1(i) => sys::tc_device { type_: sys::TC_DEVICE_PRIVATEUSE1, index: i },
        }
    }

    /// The device of a `tc_device`; `ErrorKind::Device` for an unknown type.
    pub fn from_c(d: sys::tc_device) -> Result<Device> {
        match d.type_ {
            sys::TC_DEVICE_CPU => Ok(Device::Cpu),
            sys::TC_DEVICE_CUDA => Ok(Device::Cuda(d.index)),
            sys::TC_DEVICE_PRIVATEUSE1 => Ok(Device::PrivateUse1(d.index)),
            t => Err(Error::new(ErrorKind::Device, format!("unknown device type {}", t))),
        }
    }
}

/// A number passed to an op by value: `Scalar` arguments take anything that
/// converts into one (`2.0`, `3i64`, `true`, ...).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    /// The C ABI's `tc_scalar`.
    #[inline]
    pub fn to_c(self) -> sys::tc_scalar {
        match self {
            Scalar::Bool(b) => sys::tc_scalar_bool(b),
            Scalar::Int(i) => sys::tc_scalar_int(i),
            Scalar::Float(f) => sys::tc_scalar_float(f),
        }
    }

    /// The scalar of a `tc_scalar` (an unknown tag reads as an int).
    pub fn from_c(s: sys::tc_scalar) -> Scalar {
        unsafe {
            match s.tag {
                // The byte, not `u.b`: a bool read from tensor memory that was
                // never written (`ops::empty`) may be neither 0 nor 1.
                sys::TC_SCALAR_BOOL => Scalar::Bool(*(&s.u as *const sys::tc_scalar_u as *const u8) != 0),
                sys::TC_SCALAR_FLOAT => Scalar::Float(s.u.f),
                _ => Scalar::Int(s.u.i),
            }
        }
    }

    /// The value as an f64 (true = 1).
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as i64 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    /// The value as an i64 (floats truncate toward zero).
    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
        }
    }
}

macro_rules! scalar_from {
    ($($t:ty => $v:ident as $c:ty),*) => {$(
        impl From<$t> for Scalar {
            #[inline]
            fn from(v: $t) -> Scalar { Scalar::$v(v as $c) }
        }
    )*};
}
scalar_from!(f64 => Float as f64, f32 => Float as f64, i64 => Int as i64, i32 => Int as i64, i16 => Int as i64,
             i8 => Int as i64, u8 => Int as i64, u16 => Int as i64, u32 => Int as i64, bool => Bool as bool);

/// An optional `Scalar` argument: a number, a [`Scalar`], or `None` for the
/// schema's default (`t.add(&u, None)`, `t.add(&u, 2.0)`).
pub trait OptScalar {
    fn into_opt_scalar(self) -> Option<Scalar>;
}
impl<T: Into<Scalar>> OptScalar for T {
    #[inline]
    fn into_opt_scalar(self) -> Option<Scalar> {
        Some(self.into())
    }
}
impl OptScalar for Option<Scalar> {
    #[inline]
    fn into_opt_scalar(self) -> Option<Scalar> {
        self
    }
}

/// An optional `int[]` argument: a slice, an array, a `Vec`, or `None` for
/// the schema's default (`t.sum_dim_intlist(&[1], None, None)`).
pub trait OptIntList<'a> {
    fn into_opt_list(self) -> Option<&'a [i64]>;
}
impl<'a> OptIntList<'a> for &'a [i64] {
    fn into_opt_list(self) -> Option<&'a [i64]> {
        Some(self)
    }
}
impl<'a, const N: usize> OptIntList<'a> for &'a [i64; N] {
    fn into_opt_list(self) -> Option<&'a [i64]> {
        Some(&self[..])
    }
}
impl<'a> OptIntList<'a> for &'a Vec<i64> {
    fn into_opt_list(self) -> Option<&'a [i64]> {
        Some(&self[..])
    }
}
impl<'a> OptIntList<'a> for Option<&'a [i64]> {
    fn into_opt_list(self) -> Option<&'a [i64]> {
        self
    }
}

/// A pointer to an optional value for the C ABI (NULL = none / default).
#[inline(always)]
pub(crate) fn opt_ptr<T>(v: &Option<T>) -> *const T {
    match v {
        Some(x) => x as *const T,
        None => std::ptr::null(),
    }
}

/// A NUL-terminated copy of a string argument.
pub(crate) fn c_string(s: &str, arg: &str) -> Result<std::ffi::CString> {
    std::ffi::CString::new(s)
        .map_err(|_| Error::new(ErrorKind::InvalidArgument, format!("argument '{}' holds a NUL byte: {:?}", arg, s)))
}
