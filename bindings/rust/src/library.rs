// SPDX-License-Identifier: BSD-3-Clause
//! The dispatcher: operators defined at run time, kernels and fallbacks
//! written as Rust closures, calls by name, calling the next kernel from
//! inside one, and scoped dispatch key sets.
//!
//! ```no_run
//! use tensorc::library::{self, Arg, DispatchKey, IValue};
//! # fn main() -> tensorc::Result<()> {
//! library::def("myops::axpy(Tensor x, Tensor y, float alpha=1.0) -> Tensor")?;
//! library::impl_boxed("myops::axpy", DispatchKey::Cpu, |_call, args| {
//!     let (x, y, alpha) = (args[0].tensor()?, args[1].tensor()?, args[2].f64()?);
//!     Ok(vec![y.add(&x.mul_scalar(alpha)?, None)?.into()])
//! })?;
//! let x = tensorc::Tensor::from_slice(&[1.0f32, 2.0], &[2])?;
//! let out = library::op_call("myops::axpy", &[Arg::from(&x), Arg::from(&x)])?;
//! let y: tensorc::Tensor = out.into_iter().next().unwrap().into_tensor()?;
//! # Ok(()) }
//! ```
//!
//! Kernels reach tensorc as boxed C kernels (`tc_library_impl_boxed`): the
//! closure is boxed into the registration's `user_data` and dropped by its
//! `user_data_free`. A panic inside a closure never unwinds into C: it is
//! caught and comes back from the call as an `ErrorKind::Runtime` error whose
//! message holds the panic's.
use std::ffi::CStr;
use std::fmt;
use std::marker::PhantomData;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use crate::autograd::{drop_from_c, panic_message, slice_or_empty};
use crate::error::{check, Error, ErrorKind, Result};
use crate::sys;
use crate::tensor::{list_into_vec, string_out, Generator, Tensor};
use crate::types::{c_string, Device, Kind, Scalar};

// ---- dispatch keys -------------------------------------------------------------

/// The C ABI's dispatch keys (`tc_dispatch_key`). A call runs the kernel of
/// the highest key in its key set; the two `Composite*` keys are alias keys,
/// for registration only. The codes are append-only: `#[non_exhaustive]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DispatchKey {
    Cpu,
    Cuda,
    PrivateUse1,
    Autograd,
    Tracer,
    Autocast,
    Batched,
    CompositeExplicitAutograd,
    CompositeImplicitAutograd,
}

impl DispatchKey {
    /// The C ABI's code.
    pub fn code(self) -> sys::tc_dispatch_key {
        match self {
            DispatchKey::Cpu => sys::TC_KEY_CPU,
            DispatchKey::Cuda => sys::TC_KEY_CUDA,
            DispatchKey::PrivateUse1 => sys::TC_KEY_PRIVATEUSE1,
            DispatchKey::Autograd => sys::TC_KEY_AUTOGRAD,
            DispatchKey::Tracer => sys::TC_KEY_TRACER,
            DispatchKey::Autocast => sys::TC_KEY_AUTOCAST,
            DispatchKey::Batched => sys::TC_KEY_BATCHED,
            DispatchKey::CompositeExplicitAutograd => sys::TC_KEY_COMPOSITE_EXPLICIT_AUTOGRAD,
            DispatchKey::CompositeImplicitAutograd => sys::TC_KEY_COMPOSITE_IMPLICIT_AUTOGRAD,
        }
    }

    /// The key of a code; `ErrorKind::InvalidArgument` for one this crate does not know.
    pub fn from_code(code: sys::tc_dispatch_key) -> Result<DispatchKey> {
        Ok(match code {
            sys::TC_KEY_CPU => DispatchKey::Cpu,
            sys::TC_KEY_CUDA => DispatchKey::Cuda,
            sys::TC_KEY_PRIVATEUSE1 => DispatchKey::PrivateUse1,
            sys::TC_KEY_AUTOGRAD => DispatchKey::Autograd,
            sys::TC_KEY_TRACER => DispatchKey::Tracer,
            sys::TC_KEY_AUTOCAST => DispatchKey::Autocast,
            sys::TC_KEY_BATCHED => DispatchKey::Batched,
            sys::TC_KEY_COMPOSITE_EXPLICIT_AUTOGRAD => DispatchKey::CompositeExplicitAutograd,
            sys::TC_KEY_COMPOSITE_IMPLICIT_AUTOGRAD => DispatchKey::CompositeImplicitAutograd,
            c => return Err(Error::new(ErrorKind::InvalidArgument, format!("unknown dispatch key code {}", c))),
        })
    }

    /// The name tensorc's messages and dispatch tables use ("CPU", "Tracer").
    pub fn name(self) -> &'static str {
        match self {
            DispatchKey::Cpu => "CPU",
            DispatchKey::Cuda => "CUDA",
            DispatchKey::PrivateUse1 => "PrivateUse1",
            DispatchKey::Autograd => "Autograd",
            DispatchKey::Tracer => "Tracer",
            DispatchKey::Autocast => "Autocast",
            DispatchKey::Batched => "Batched",
            DispatchKey::CompositeExplicitAutograd => "CompositeExplicitAutograd",
            DispatchKey::CompositeImplicitAutograd => "CompositeImplicitAutograd",
        }
    }
}

impl fmt::Display for DispatchKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

// ---- thread-local key sets --------------------------------------------------------

/// This thread's included and excluded keys (bit k: key code k), which every
/// dispatch on this thread applies; an excluded key wins over an included one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LocalDispatchKeySet {
    pub included: u32,
    pub excluded: u32,
}

impl LocalDispatchKeySet {
    pub fn is_included(&self, key: DispatchKey) -> bool {
        (self.included >> key.code()) & 1 != 0
    }
    pub fn is_excluded(&self, key: DispatchKey) -> bool {
        (self.excluded >> key.code()) & 1 != 0
    }
}

/// This thread's key sets now.
pub fn local_dispatch_key_set() -> LocalDispatchKeySet {
    let mut s = sys::tc_dispatch_tls_state::default();
    // Pushing no key only reads the sets; it cannot fail with a valid pointer.
    unsafe { sys::tc_dispatch_tls_push(&mut s, -1, -1) };
    LocalDispatchKeySet { included: s.included, excluded: s.excluded }
}

fn push_key(include: sys::tc_dispatch_key, exclude: sys::tc_dispatch_key) -> Result<sys::tc_dispatch_tls_state> {
    let mut saved = sys::tc_dispatch_tls_state::default();
    check(unsafe { sys::tc_dispatch_tls_push(&mut saved, include, exclude) })?;
    Ok(saved)
}

/// Until dropped, dispatch on this thread skips `key` (c10's
/// `ExcludeDispatchKeyGuard`): a kernel that has done its part excludes its
/// key before calling more ops. Dropping puts back the sets as they were when
/// the guard was made, so an inner guard never clears what an outer scope
/// excluded. Not `Send` (the sets are per thread); drop guards in reverse
/// order of creation, as scopes do.
#[must_use = "the key is excluded until the guard is dropped"]
pub struct ExcludeDispatchKeyGuard {
    saved: sys::tc_dispatch_tls_state,
    _not_send: PhantomData<*const ()>,
}

impl ExcludeDispatchKeyGuard {
    /// `ErrorKind::InvalidArgument` for an alias key.
    pub fn new(key: DispatchKey) -> Result<ExcludeDispatchKeyGuard> {
        Ok(ExcludeDispatchKeyGuard { saved: push_key(-1, key.code())?, _not_send: PhantomData })
    }
}

impl Drop for ExcludeDispatchKeyGuard {
    fn drop(&mut self) {
        unsafe { sys::tc_dispatch_tls_restore(&self.saved) };
    }
}

/// Until dropped, every dispatch on this thread includes `key` (c10's
/// `IncludeDispatchKeyGuard`): turns on a layer such as `Tracer` for calls
/// whose tensors do not carry it. Same rules as [`ExcludeDispatchKeyGuard`].
#[must_use = "the key is included until the guard is dropped"]
pub struct IncludeDispatchKeyGuard {
    saved: sys::tc_dispatch_tls_state,
    _not_send: PhantomData<*const ()>,
}

impl IncludeDispatchKeyGuard {
    /// `ErrorKind::InvalidArgument` for an alias key.
    pub fn new(key: DispatchKey) -> Result<IncludeDispatchKeyGuard> {
        Ok(IncludeDispatchKeyGuard { saved: push_key(key.code(), -1)?, _not_send: PhantomData })
    }
}

impl Drop for IncludeDispatchKeyGuard {
    fn drop(&mut self) {
        unsafe { sys::tc_dispatch_tls_restore(&self.saved) };
    }
}

// ---- boxed values --------------------------------------------------------------------

/// A borrowed argument of a boxed call, as [`op_call`] and
/// [`DispatchCall::redispatch`] take them and as kernels receive them (in
/// schema order, defaults filled in). `None` also stands for an absent
/// `Tensor?`. More variants may come with the C ABI's value tags.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Arg<'a> {
    None,
    Tensor(&'a Tensor),
    Int(i64),
    Float(f64),
    Bool(bool),
    Scalar(Scalar),
    /// A `Scalar` argument held by a 0-dim tensor (`TC_SCALAR_TENSOR`).
    ScalarTensor(&'a Tensor),
    Str(&'a str),
    IntList(&'a [i64]),
    FloatList(&'a [f64]),
    BoolList(&'a [bool]),
    TensorList(&'a [Tensor]),
    /// A `Tensor?[]`: `None` entries are absent tensors.
    OptTensorList(&'a [Option<Tensor>]),
    Kind(Kind),
    Device(Device),
    Generator(&'a Generator),
}

fn wrong_type(what: &str, got: &dyn fmt::Debug) -> Error {
    Error::new(ErrorKind::Type, format!("expected {}, got {:?}", what, got))
}

impl<'a> Arg<'a> {
    /// The tensor, or `ErrorKind::Type`.
    pub fn tensor(&self) -> Result<&'a Tensor> {
        match *self {
            Arg::Tensor(t) => Ok(t),
            ref v => Err(wrong_type("a tensor", v)),
        }
    }
    /// A `Tensor?`: `None` for an absent tensor.
    pub fn opt_tensor(&self) -> Result<Option<&'a Tensor>> {
        match *self {
            Arg::Tensor(t) => Ok(Some(t)),
            Arg::None => Ok(None),
            ref v => Err(wrong_type("a tensor or None", v)),
        }
    }
    /// The integer (Int, Bool, integral Scalar), or `ErrorKind::Type`.
    pub fn i64(&self) -> Result<i64> {
        match *self {
            Arg::Int(i) => Ok(i),
            Arg::Bool(b) => Ok(b as i64),
            Arg::Scalar(Scalar::Int(i)) => Ok(i),
            Arg::Scalar(Scalar::Bool(b)) => Ok(b as i64),
            ref v => Err(wrong_type("an integer", v)),
        }
    }
    /// The number as f64 (Float, Int, Bool, Scalar), or `ErrorKind::Type`.
    pub fn f64(&self) -> Result<f64> {
        match *self {
            Arg::Float(f) => Ok(f),
            Arg::Int(i) => Ok(i as f64),
            Arg::Bool(b) => Ok(b as i64 as f64),
            Arg::Scalar(s) => Ok(s.to_f64()),
            ref v => Err(wrong_type("a number", v)),
        }
    }
    /// The bool, or `ErrorKind::Type`.
    pub fn bool(&self) -> Result<bool> {
        match *self {
            Arg::Bool(b) => Ok(b),
            ref v => Err(wrong_type("a bool", v)),
        }
    }
    /// The number as a Scalar (Scalar, Int, Float, Bool), or `ErrorKind::Type`.
    pub fn scalar(&self) -> Result<Scalar> {
        match *self {
            Arg::Scalar(s) => Ok(s),
            Arg::Int(i) => Ok(Scalar::Int(i)),
            Arg::Float(f) => Ok(Scalar::Float(f)),
            Arg::Bool(b) => Ok(Scalar::Bool(b)),
            ref v => Err(wrong_type("a Scalar", v)),
        }
    }
    /// The string, or `ErrorKind::Type`.
    pub fn str(&self) -> Result<&'a str> {
        match *self {
            Arg::Str(s) => Ok(s),
            ref v => Err(wrong_type("a string", v)),
        }
    }
    /// The int list, or `ErrorKind::Type`.
    pub fn int_list(&self) -> Result<&'a [i64]> {
        match *self {
            Arg::IntList(l) => Ok(l),
            ref v => Err(wrong_type("an int list", v)),
        }
    }
    /// The float list, or `ErrorKind::Type`.
    pub fn float_list(&self) -> Result<&'a [f64]> {
        match *self {
            Arg::FloatList(l) => Ok(l),
            ref v => Err(wrong_type("a float list", v)),
        }
    }
    /// The tensor list (`Tensor[]` with no absent entry), or `ErrorKind::Type`.
    pub fn tensor_list(&self) -> Result<&'a [Tensor]> {
        match *self {
            Arg::TensorList(l) => Ok(l),
            ref v => Err(wrong_type("a tensor list", v)),
        }
    }
    /// The dtype, or `ErrorKind::Type`.
    pub fn kind(&self) -> Result<Kind> {
        match *self {
            Arg::Kind(k) => Ok(k),
            ref v => Err(wrong_type("a dtype", v)),
        }
    }
    /// The device, or `ErrorKind::Type`.
    pub fn device(&self) -> Result<Device> {
        match *self {
            Arg::Device(d) => Ok(d),
            ref v => Err(wrong_type("a device", v)),
        }
    }

    /// A borrowed C value seen as an `Arg` (tensors are not retained).
    ///
    /// # Safety
    /// `v` is a valid value whose pointers outlive `'a`.
    unsafe fn from_c(v: &'a sys::tc_value, index: usize) -> Result<Arg<'a>> {
        Ok(match v.tag {
            sys::TC_VALUE_NONE => Arg::None,
            sys::TC_VALUE_TENSOR if v.u.tensor.is_null() => Arg::None,
            sys::TC_VALUE_TENSOR => Arg::Tensor(Tensor::borrow_raw(&v.u.tensor)),
            sys::TC_VALUE_INT => Arg::Int(v.u.i),
            sys::TC_VALUE_FLOAT => Arg::Float(v.u.f),
            // the byte: only 0 and 1 are valid Rust bools
            sys::TC_VALUE_BOOL => Arg::Bool(*(&v.u as *const sys::tc_value_u as *const u8) != 0),
            sys::TC_VALUE_SCALAR if v.u.scalar.tag == sys::TC_SCALAR_TENSOR && !v.u.scalar.u.t.is_null() => {
                Arg::ScalarTensor(Tensor::borrow_raw(&v.u.scalar.u.t))
            }
            sys::TC_VALUE_SCALAR => Arg::Scalar(Scalar::from_c(v.u.scalar)),
            sys::TC_VALUE_STRING if v.u.str_.is_null() => Arg::Str(""),
            sys::TC_VALUE_STRING => Arg::Str(CStr::from_ptr(v.u.str_).to_str().map_err(|_| {
                Error::new(ErrorKind::Type, format!("boxed argument {} is a string that is not UTF-8", index))
            })?),
            sys::TC_VALUE_INT_LIST => Arg::IntList(slice_or_empty(v.u.ints.data, v.u.ints.len)),
            sys::TC_VALUE_FLOAT_LIST => Arg::FloatList(slice_or_empty(v.u.floats.data, v.u.floats.len)),
            // tensorc passes kernels its own normalised bools (0 or 1)
            sys::TC_VALUE_BOOL_LIST => Arg::BoolList(slice_or_empty(v.u.bools.data, v.u.bools.len)),
            sys::TC_VALUE_TENSOR_LIST => {
                let raw = slice_or_empty(v.u.tensors.data, v.u.tensors.len);
                // Tensor and Option<Tensor> are exactly a handle (see tensor.rs).
                if raw.iter().any(|h| h.is_null()) {
                    Arg::OptTensorList(std::slice::from_raw_parts(raw.as_ptr() as *const Option<Tensor>, raw.len()))
                } else {
                    Arg::TensorList(std::slice::from_raw_parts(raw.as_ptr() as *const Tensor, raw.len()))
                }
            }
            sys::TC_VALUE_DTYPE => Arg::Kind(Kind::from_code(v.u.dtype)?),
            sys::TC_VALUE_DEVICE => Arg::Device(Device::from_c(v.u.device)?),
            sys::TC_VALUE_GENERATOR if v.u.generator.is_null() => Arg::None,
            sys::TC_VALUE_GENERATOR => Arg::Generator(Generator::borrow_raw(&v.u.generator)),
            t => {
                return Err(Error::new(
                    ErrorKind::Type,
                    format!("boxed argument {} has the value tag {}, which no argument has", index, t),
                ))
            }
        })
    }
}

/// C values borrowing from `Arg`s, with the NUL-terminated copies of their strings.
struct CArgs {
    values: Vec<sys::tc_value>,
    _strings: Vec<std::ffi::CString>,
}

fn to_c_args(args: &[Arg<'_>]) -> Result<CArgs> {
    let mut strings = Vec::new();
    let mut values = Vec::with_capacity(args.len());
    for a in args {
        let mut v = sys::tc_value::none();
        match *a {
            Arg::None => {}
            Arg::Tensor(t) => v = sys::tc_value::tensor(t.as_raw()),
            Arg::Int(i) => v = sys::tc_value::int(i),
            Arg::Float(f) => v = sys::tc_value::float(f),
            Arg::Bool(b) => v = sys::tc_value::bool(b),
            Arg::Scalar(s) => v = sys::tc_value::scalar(s.to_c()),
            Arg::ScalarTensor(t) => {
                v = sys::tc_value::scalar(sys::tc_scalar {
                    tag: sys::TC_SCALAR_TENSOR,
                    u: sys::tc_scalar_u { t: t.as_raw() },
                })
            }
            Arg::Str(s) => {
                let c = c_string(s, "str")?;
                v.tag = sys::TC_VALUE_STRING;
                v.u.str_ = c.as_ptr(); // the CString's heap buffer does not move with it
                strings.push(c);
            }
            Arg::IntList(l) => {
                v.tag = sys::TC_VALUE_INT_LIST;
                v.u.ints = sys::tc_ints { data: l.as_ptr(), len: l.len() };
            }
            Arg::FloatList(l) => {
                v.tag = sys::TC_VALUE_FLOAT_LIST;
                v.u.floats = sys::tc_floats { data: l.as_ptr(), len: l.len() };
            }
            Arg::BoolList(l) => {
                v.tag = sys::TC_VALUE_BOOL_LIST;
                v.u.bools = sys::tc_bools { data: l.as_ptr(), len: l.len() };
            }
            Arg::TensorList(l) => {
                v.tag = sys::TC_VALUE_TENSOR_LIST;
                v.u.tensors = sys::tc_tensors { data: l.as_ptr() as *const sys::tc_tensor, len: l.len() };
            }
            Arg::OptTensorList(l) => {
                v.tag = sys::TC_VALUE_TENSOR_LIST;
                v.u.tensors = sys::tc_tensors { data: l.as_ptr() as *const sys::tc_tensor, len: l.len() };
            }
            Arg::Kind(k) => {
                v.tag = sys::TC_VALUE_DTYPE;
                v.u.dtype = k.code();
            }
            Arg::Device(d) => {
                v.tag = sys::TC_VALUE_DEVICE;
                v.u.device = d.to_c();
            }
            Arg::Generator(g) => {
                v.tag = sys::TC_VALUE_GENERATOR;
                v.u.generator = g.as_raw();
            }
        }
        values.push(v);
    }
    Ok(CArgs { values, _strings: strings })
}

macro_rules! arg_from {
    ($($t:ty => $v:ident),*) => {$(
        impl<'a> From<$t> for Arg<'a> {
            fn from(v: $t) -> Arg<'a> { Arg::$v(v) }
        }
    )*};
}
arg_from!(&'a Tensor => Tensor, i64 => Int, f64 => Float, bool => Bool, Scalar => Scalar, &'a str => Str,
          &'a [i64] => IntList, &'a [f64] => FloatList, &'a [bool] => BoolList, &'a [Tensor] => TensorList,
          &'a [Option<Tensor>] => OptTensorList, Kind => Kind, Device => Device, &'a Generator => Generator);

impl<'a> From<Option<&'a Tensor>> for Arg<'a> {
    fn from(t: Option<&'a Tensor>) -> Arg<'a> {
        t.map_or(Arg::None, Arg::Tensor)
    }
}

impl<'a> From<&'a IValue> for Arg<'a> {
    fn from(v: &'a IValue) -> Arg<'a> {
        v.as_arg()
    }
}

/// An owned result of a boxed call (what [`op_call`] and
/// [`DispatchCall::redispatch`] return, and what kernels return): one per
/// return of the op's schema. An undefined tensor result is `None`.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum IValue {
    None,
    Tensor(Tensor),
    /// A `Tensor[]` result.
    TensorList(Vec<Tensor>),
    Int(i64),
    Float(f64),
    Bool(bool),
    Scalar(Scalar),
    Kind(Kind),
    Device(Device),
}

impl IValue {
    /// The tensor, or `ErrorKind::Type`.
    pub fn tensor(&self) -> Result<&Tensor> {
        match self {
            IValue::Tensor(t) => Ok(t),
            v => Err(wrong_type("a tensor", v)),
        }
    }
    /// The tensor, taken, or `ErrorKind::Type`.
    pub fn into_tensor(self) -> Result<Tensor> {
        match self {
            IValue::Tensor(t) => Ok(t),
            v => Err(wrong_type("a tensor", &v)),
        }
    }
    /// The tensors of a `Tensor[]`, taken, or `ErrorKind::Type`.
    pub fn into_tensor_list(self) -> Result<Vec<Tensor>> {
        match self {
            IValue::TensorList(l) => Ok(l),
            v => Err(wrong_type("a tensor list", &v)),
        }
    }
    /// The integer (Int, Bool, integral Scalar), or `ErrorKind::Type`.
    pub fn to_i64(&self) -> Result<i64> {
        self.as_arg().i64()
    }
    /// The number as f64, or `ErrorKind::Type`.
    pub fn to_f64(&self) -> Result<f64> {
        self.as_arg().f64()
    }
    /// The bool, or `ErrorKind::Type`.
    pub fn to_bool(&self) -> Result<bool> {
        self.as_arg().bool()
    }

    /// Borrowed as an argument of another call.
    pub fn as_arg(&self) -> Arg<'_> {
        match self {
            IValue::None => Arg::None,
            IValue::Tensor(t) => Arg::Tensor(t),
            IValue::TensorList(l) => Arg::TensorList(l),
            IValue::Int(i) => Arg::Int(*i),
            IValue::Float(f) => Arg::Float(*f),
            IValue::Bool(b) => Arg::Bool(*b),
            IValue::Scalar(s) => Arg::Scalar(*s),
            IValue::Kind(k) => Arg::Kind(*k),
            IValue::Device(d) => Arg::Device(*d),
        }
    }

    /// Takes an output value of a C call (its handles become owned).
    ///
    /// # Safety
    /// `v` is a valid output value whose references the caller gives away.
    unsafe fn take_c(v: sys::tc_value, index: usize) -> Result<IValue> {
        Ok(match v.tag {
            sys::TC_VALUE_NONE => IValue::None,
            sys::TC_VALUE_TENSOR => Tensor::from_raw(v.u.tensor).map_or(IValue::None, IValue::Tensor),
            sys::TC_VALUE_LIST_HANDLE => IValue::TensorList(list_into_vec(v.u.list)?),
            sys::TC_VALUE_INT => IValue::Int(v.u.i),
            sys::TC_VALUE_FLOAT => IValue::Float(v.u.f),
            sys::TC_VALUE_BOOL => IValue::Bool(*(&v.u as *const sys::tc_value_u as *const u8) != 0),
            sys::TC_VALUE_SCALAR => IValue::Scalar(Scalar::from_c(v.u.scalar)),
            sys::TC_VALUE_DTYPE => IValue::Kind(Kind::from_code(v.u.dtype)?),
            sys::TC_VALUE_DEVICE => IValue::Device(Device::from_c(v.u.device)?),
            t => {
                return Err(Error::new(
                    ErrorKind::Type,
                    format!("result {} has the value tag {}, which this crate does not read", index, t),
                ))
            }
        })
    }

    /// Gives the value to tensorc as a kernel output (a tensor's reference
    /// goes with it; a list becomes a list handle).
    fn into_c(self) -> Result<sys::tc_value> {
        let mut v = sys::tc_value::none();
        match self {
            IValue::None => {}
            IValue::Tensor(t) => v = sys::tc_value::tensor(t.into_raw()),
            IValue::TensorList(l) => {
                let raw: Vec<sys::tc_tensor> = l.iter().map(Tensor::as_raw).collect();
                let mut list = ptr::null_mut();
                check(unsafe { sys::tc_tensor_list_create(&mut list, raw.as_ptr(), raw.len()) })?;
                v.tag = sys::TC_VALUE_LIST_HANDLE;
                v.u.list = list; // holds its own references; `l` drops ours
            }
            IValue::Int(i) => v = sys::tc_value::int(i),
            IValue::Float(f) => v = sys::tc_value::float(f),
            IValue::Bool(b) => v = sys::tc_value::bool(b),
            IValue::Scalar(s) => v = sys::tc_value::scalar(s.to_c()),
            IValue::Kind(k) => {
                v.tag = sys::TC_VALUE_DTYPE;
                v.u.dtype = k.code();
            }
            IValue::Device(d) => {
                v.tag = sys::TC_VALUE_DEVICE;
                v.u.device = d.to_c();
            }
        }
        Ok(v)
    }
}

macro_rules! ivalue_from {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for IValue {
            fn from(v: $t) -> IValue { IValue::$v(v) }
        }
    )*};
}
ivalue_from!(Tensor => Tensor, Vec<Tensor> => TensorList, i64 => Int, f64 => Float, bool => Bool, Scalar => Scalar,
             Kind => Kind, Device => Device);

impl From<Option<Tensor>> for IValue {
    fn from(t: Option<Tensor>) -> IValue {
        t.map_or(IValue::None, IValue::Tensor)
    }
}

// At most this many results from one boxed call (the outs_cap of the C calls).
const MAX_RETURNS: usize = 64;

/// Takes the first `n` outputs of a C call. Every handle is owned (or
/// released) whatever fails.
fn take_outputs(outs: &mut [sys::tc_value], n: usize) -> Result<Vec<IValue>> {
    struct ReleaseRest<'a>(&'a mut [sys::tc_value]);
    impl Drop for ReleaseRest<'_> {
        fn drop(&mut self) {
            unsafe { sys::tc_values_release(self.0.as_mut_ptr(), self.0.len()) }
        }
    }
    let n = n.min(outs.len());
    let rest = ReleaseRest(&mut outs[..n]);
    let mut r = Vec::with_capacity(n);
    for i in 0..n {
        let v = rest.0[i];
        rest.0[i] = sys::tc_value::none(); // ours from here on
        r.push(unsafe { IValue::take_c(v, i) }?);
    }
    Ok(r)
}

// ---- calling ops by name -----------------------------------------------------------------

/// Calls any operator by name ("add.Tensor", "sum", "myops::myadd") with
/// arguments in schema order; trailing ones may be left out for their
/// defaults. Returns one value per return of the schema.
pub fn op_call(op: &str, args: &[Arg<'_>]) -> Result<Vec<IValue>> {
    let name = c_string(op, "op")?;
    let c = to_c_args(args)?;
    let mut outs = vec![sys::tc_value::none(); MAX_RETURNS];
    let mut n = 0usize;
    check(unsafe {
        sys::tc_op_call(outs.as_mut_ptr(), outs.len(), &mut n, name.as_ptr(), c.values.as_ptr(), c.values.len())
    })?;
    take_outputs(&mut outs, n)
}

/// The schema of an op ("myops::myadd(Tensor self, Tensor other) -> Tensor").
pub fn op_schema(op: &str) -> Result<String> {
    let op = c_string(op, "op")?;
    string_out(|buf, cap, needed| unsafe { sys::tc_op_schema(buf, cap, needed, op.as_ptr()) })
}

/// Defines an operator from its schema, e.g.
/// `"myops::myadd(Tensor self, Tensor other) -> Tensor"`. Process-wide and
/// permanent. `ErrorKind::InvalidArgument` for a malformed schema (the
/// message names the rule) or a name already defined.
pub fn def(schema: &str) -> Result<()> {
    let schema = c_string(schema, "schema")?;
    check(unsafe { sys::tc_library_def(schema.as_ptr()) })
}

// ---- a call in progress ---------------------------------------------------------------------

/// The call a kernel runs for: its op, its key, and the way to the next
/// kernel. Only valid during the kernel (not `Send`).
pub struct DispatchCall<'a> {
    ctx: sys::tc_dispatch_ctx,
    raw_args: &'a [sys::tc_value],
}

impl<'a> DispatchCall<'a> {
    /// The qualified name ("add.Tensor", "myops::myadd").
    pub fn op_name(&self) -> &'a str {
        let mut name: *const c_char = ptr::null();
        unsafe { sys::tc_dispatch_ctx_info(&mut name, ptr::null_mut(), self.ctx) };
        if name.is_null() {
            return "";
        }
        // owned by tensorc for as long as the operator exists (the process)
        unsafe { CStr::from_ptr(name) }.to_str().unwrap_or("")
    }

    /// The key this kernel runs for (a fallback learns which layer it is).
    pub fn key(&self) -> Result<DispatchKey> {
        let mut key = -1;
        check(unsafe { sys::tc_dispatch_ctx_info(ptr::null_mut(), &mut key, self.ctx) })?;
        DispatchKey::from_code(key)
    }

    /// Calls the kernel below this one's key with `args` (schema order).
    pub fn redispatch(&self, args: &[Arg<'_>]) -> Result<Vec<IValue>> {
        let c = to_c_args(args)?;
        self.run(&c.values)
    }

    /// Calls the kernel below this one's key with the arguments as received.
    pub fn redispatch_same(&self) -> Result<Vec<IValue>> {
        self.run(self.raw_args)
    }

    /// The C ABI's view of the call.
    pub fn as_raw(&self) -> sys::tc_dispatch_ctx {
        self.ctx
    }

    fn run(&self, args: &[sys::tc_value]) -> Result<Vec<IValue>> {
        let mut outs = vec![sys::tc_value::none(); MAX_RETURNS];
        let mut n = 0usize;
        check(unsafe {
            sys::tc_dispatch_redispatch(outs.as_mut_ptr(), outs.len(), &mut n, self.ctx, args.as_ptr(), args.len())
        })?;
        take_outputs(&mut outs, n)
    }
}

// ---- kernels ------------------------------------------------------------------------------

unsafe extern "C" fn kernel_trampoline<F>(
    ctx: sys::tc_dispatch_ctx,
    args: *const sys::tc_value,
    nargs: usize,
    outs: *mut sys::tc_value,
    outs_cap: usize,
    n_outs: *mut usize,
    user_data: *mut c_void,
) -> sys::tc_status
where
    F: Fn(&DispatchCall<'_>, &[Arg<'_>]) -> Result<Vec<IValue>> + Send + Sync + 'static,
{
    let mut written = 0usize;
    let result = catch_unwind(AssertUnwindSafe(|| -> Result<()> {
        let f = &*(user_data as *const F);
        let raw = slice_or_empty(args, nargs);
        let converted = raw.iter().enumerate().map(|(i, v)| Arg::from_c(v, i)).collect::<Result<Vec<_>>>()?;
        let call = DispatchCall { ctx, raw_args: raw };
        let results = f(&call, &converted)?;
        for r in results {
            if written >= outs_cap {
                return Err(Error::new(
                    ErrorKind::Runtime,
                    format!("the Rust kernel returned more than the {} values the op can take", outs_cap),
                ));
            }
            *outs.add(written) = r.into_c()?;
            written += 1; // counted at once: on a later failure tensorc releases it
        }
        Ok(())
    }));
    if !n_outs.is_null() {
        *n_outs = written;
    }
    match result {
        Ok(Ok(())) => sys::TC_OK,
        Ok(Err(e)) => e.set_last(),
        Err(payload) => {
            let mut key = -1;
            sys::tc_dispatch_ctx_info(ptr::null_mut(), &mut key, ctx);
            let key = DispatchKey::from_code(key).map(DispatchKey::name).unwrap_or("?");
            let e = Error::new(
                ErrorKind::Runtime,
                format!("the Rust kernel for {} panicked: {}", key, panic_message(&*payload)),
            );
            // dropping the payload could panic too; keep it from unwinding
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            e.set_last()
        }
    }
}

// tensorc's user_data_free for a registered closure: runs once, when the
// registration is replaced (never for a registration that failed).
unsafe extern "C" fn destroy_closure<F>(p: *mut c_void) {
    drop_from_c(Box::from_raw(p as *mut F));
}

/// Hands a closure to tensorc through `reg` (the C registration call); it is
/// tensorc's once that succeeds.
fn register<F>(
    f: F,
    reg: impl FnOnce(sys::tc_boxed_kernel, *mut c_void, sys::tc_destroy_fn) -> sys::tc_status,
) -> Result<()>
where
    F: Fn(&DispatchCall<'_>, &[Arg<'_>]) -> Result<Vec<IValue>> + Send + Sync + 'static,
{
    let p = Box::into_raw(Box::new(f)) as *mut c_void;
    let st = reg(Some(kernel_trampoline::<F>), p, Some(destroy_closure::<F>));
    if st != sys::TC_OK {
        let e = Error::last(st); // before the closure's Drop runs the caller's code
        unsafe { drop(Box::from_raw(p as *mut F)) };
        return Err(e);
    }
    Ok(())
}

/// Registers a kernel for operator `op` (qualified: "myops::myadd", or a
/// built-in such as "add.Tensor") and `key` (a runtime or alias key).
///
/// The closure gets the call and its arguments (schema order, defaults
/// filled in) and returns one [`IValue`] per return of the schema. An `Err`
/// comes back from the call with its kind and message; a panic is caught and
/// comes back as `ErrorKind::Runtime` ("the Rust kernel for CPU panicked:
/// ..."). The closure lives as long as the registration, which is for the
/// process (a newer kernel for the same op and key takes precedence but does
/// not drop it); it may run on any thread, several at once, hence `Send +
/// Sync + 'static`.
pub fn impl_boxed<F>(op: &str, key: DispatchKey, f: F) -> Result<()>
where
    F: Fn(&DispatchCall<'_>, &[Arg<'_>]) -> Result<Vec<IValue>> + Send + Sync + 'static,
{
    let op = c_string(op, "op")?;
    register(f, |kernel, data, free| unsafe { sys::tc_library_impl_boxed(op.as_ptr(), key.code(), kernel, data, free) })
}

/// Registers a fallback for a runtime key: it runs for every op that has no
/// kernel of its own for `key`, and usually ends with
/// [`DispatchCall::redispatch_same`]. A newer fallback (or [`fallthrough`])
/// replaces it, and the replaced closure is dropped then.
pub fn fallback<F>(key: DispatchKey, f: F) -> Result<()>
where
    F: Fn(&DispatchCall<'_>, &[Arg<'_>]) -> Result<Vec<IValue>> + Send + Sync + 'static,
{
    register(f, |kernel, data, free| unsafe { sys::tc_library_fallback(key.code(), kernel, data, free) })
}

/// Makes `key` a fallthrough for every op without a kernel of its own for it
/// (the key is skipped: Tracer's and Autocast's default), replacing its fallback.
pub fn fallthrough(key: DispatchKey) -> Result<()> {
    check(unsafe { sys::tc_library_fallback(key.code(), None, ptr::null_mut(), None) })
}
