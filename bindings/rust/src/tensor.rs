// SPDX-License-Identifier: BSD-3-Clause
//! `Tensor`: one strong reference to a tensorc tensor.
use std::convert::TryFrom;
use std::ffi::CStr;
use std::fmt;
use std::os::raw::{c_char, c_void};
use std::ptr::{self, NonNull};

use crate::error::{check, Error, ErrorKind, Result};
use crate::sys;
use crate::types::{Device, Kind, Scalar};

/// A tensor: one strong reference (a `tc_tensor` handle) to tensorc's tensor.
///
/// Ownership follows the C ABI exactly: `Drop` releases the handle's reference
/// (`tc_tensor_release`), `Clone` adds one (`tc_tensor_retain`) and so gives a
/// second handle to the *same* tensor (same storage, same autograd history),
/// like `Arc::clone`. [`Tensor::deep_clone`] copies the data (the schema's
/// `clone` op, recorded by autograd). [`Tensor::use_count`] reads the count.
///
/// Ops are methods (`a.add(&b, None)?`, schema `variants: method`) or free
/// functions in [`crate::ops`]; every fallible call returns
/// [`Result`](crate::Result). The `std::ops` operators (`&a + &b`, `-&a`,
/// `&a * 2.0`, `a += &b`) panic on error instead; see the crate docs.
///
/// # Threads
///
/// `Tensor` is `Send`: its reference count is atomic, and a handle may be
/// moved to and dropped on any thread (tensorc frees the tensor wherever the
/// last reference goes).
///
/// `Tensor` is deliberately not `Sync`. Some `&self` methods write state that
/// tensorc does not lock: in-place ops write the data, and
/// `set_requires_grad` and `detach_` change the tensor's autograd flags. Grad
/// mode and the last error are per thread.
///
/// Sharing a leaf for forward and backward is safe: as in PyTorch, tensorc
/// locks grad accumulation and lazily made autograd state per tensor.
/// Threads holding clones of one leaf that requires grad may each run ops on
/// it and call `backward`; recording the leaf's accumulator, adding into
/// `.grad`, `grad()`, `set_grad` and `retain_grad` take the tensor's lock,
/// and the final `.grad` is the sum of every thread's gradients.
///
/// `!Sync` is not a full guarantee: `Tensor` is `Send` and `Clone` (a counted
/// reference, like `Arc`), so safe code can send a `clone()`, a view or a
/// `grad()` of a tensor to another thread and reach the same tensor, storage
/// or `.grad` from two threads. Writing a tensor's data (an in-place op, an
/// optimizer step) or its flags (`set_requires_grad`, `detach_`) while
/// another thread uses it, or reading `.grad`'s values while a `backward` on
/// another thread adds into them, is a data race in tensorc, i.e. undefined
/// behaviour that the compiler cannot catch here. Do such writes while no
/// other thread uses the tensor (join the workers, or lock around the
/// update step). See docs/rust.md, "Threads".
#[repr(transparent)]
pub struct Tensor {
    raw: NonNull<sys::tc_tensor_s>,
}

unsafe impl Send for Tensor {}

// `&[Tensor]` and `&[Option<Tensor>]` are passed to C as `const tc_tensor*`
// (Tensor?[] entries NULL for None), and C's borrowed arrays are read back as
// `&[Tensor]`: that needs Tensor and Option<Tensor> to be exactly a handle
// (repr(transparent) over NonNull, whose None is NULL).
const _: () = assert!(std::mem::size_of::<Tensor>() == std::mem::size_of::<sys::tc_tensor>());
const _: () = assert!(std::mem::size_of::<Option<Tensor>>() == std::mem::size_of::<sys::tc_tensor>());
const _: () = assert!(std::mem::align_of::<Option<Tensor>>() == std::mem::align_of::<sys::tc_tensor>());

impl Tensor {
    /// Takes ownership of a handle (one reference). `None` for NULL.
    ///
    /// # Safety
    /// `raw` is NULL or a valid handle whose reference the caller gives away.
    pub unsafe fn from_raw(raw: sys::tc_tensor) -> Option<Tensor> {
        NonNull::new(raw).map(|raw| Tensor { raw })
    }

    /// The handle, borrowed (the reference stays with `self`).
    #[inline(always)]
    pub fn as_raw(&self) -> sys::tc_tensor {
        self.raw.as_ptr()
    }

    /// Gives the handle's reference to the caller (no release).
    pub fn into_raw(self) -> sys::tc_tensor {
        let raw = self.raw.as_ptr();
        std::mem::forget(self);
        raw
    }

    /// Wraps the output handle of a successful C call.
    #[inline(always)]
    pub(crate) fn from_out(raw: sys::tc_tensor) -> Result<Tensor> {
        match NonNull::new(raw) {
            Some(raw) => Ok(Tensor { raw }),
            None => Err(Self::null_output()),
        }
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn null_output() -> Error {
        Error::new(ErrorKind::Internal, "a tensorc call succeeded without writing its output tensor")
    }

    /// A borrowed handle seen as a `&Tensor` (no reference taken).
    ///
    /// # Safety
    /// `*raw` is a valid, non-NULL handle that outlives the borrow.
    pub(crate) unsafe fn borrow_raw(raw: &sys::tc_tensor) -> &Tensor {
        debug_assert!(!raw.is_null());
        &*(raw as *const sys::tc_tensor as *const Tensor)
    }

    // ---- creation ---------------------------------------------------------

    /// A new contiguous CPU tensor holding a copy of `data` (row-major), of
    /// shape `shape`. `ErrorKind::InvalidArgument` when the shape's element
    /// count is not `data.len()`.
    pub fn from_slice<T: Element>(data: &[T], shape: &[i64]) -> Result<Tensor> {
        let numel = shape.iter().try_fold(1i64, |acc, &d| if d < 0 { None } else { acc.checked_mul(d) });
        if numel != Some(data.len() as i64) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("Tensor::from_slice: shape {:?} does not hold {} elements", shape, data.len()),
            ));
        }
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::tc_tensor_from_data(
                &mut out,
                data.as_ptr() as *const c_void,
                T::KIND.code(),
                shape.as_ptr(),
                shape.len(),
            )
        })?;
        Tensor::from_out(out)
    }

    /// A one-dimensional tensor holding a copy of `data`.
    pub fn from_vec<T: Element>(data: &[T]) -> Result<Tensor> {
        Tensor::from_slice(data, &[data.len() as i64])
    }

    /// A zero-dim CPU tensor holding `value`, of `kind` (None: bool, int64 or
    /// float32 after the value's type).
    pub fn from_scalar(value: impl Into<Scalar>, kind: impl Into<Option<Kind>>) -> Result<Tensor> {
        let kind: Option<i32> = kind.into().map(Kind::code);
        let mut out = ptr::null_mut();
        check(unsafe { sys::tc_tensor_from_scalar(&mut out, value.into().to_c(), crate::types::opt_ptr(&kind)) })?;
        Tensor::from_out(out)
    }

    // ---- accessors (none can fail on a valid handle) ---------------------

    #[inline]
    pub(crate) fn query<T: Default>(&self, f: unsafe extern "C" fn(*mut T, sys::tc_tensor) -> sys::tc_status) -> T {
        let mut v = T::default();
        let st = unsafe { f(&mut v, self.as_raw()) };
        debug_assert_eq!(st, sys::TC_OK);
        v
    }

    /// The number of dimensions.
    pub fn dim(&self) -> usize {
        self.query(sys::tc_tensor_dim) as usize
    }

    /// The sizes (shape).
    pub fn size(&self) -> Vec<i64> {
        self.dims_query(sys::tc_tensor_sizes)
    }

    /// The strides, in elements.
    pub fn strides(&self) -> Vec<i64> {
        self.dims_query(sys::tc_tensor_strides)
    }

    fn dims_query(
        &self,
        f: unsafe extern "C" fn(*mut i64, usize, *mut usize, sys::tc_tensor) -> sys::tc_status,
    ) -> Vec<i64> {
        let mut buf = [0i64; 8];
        let mut n = 0usize;
        unsafe { f(buf.as_mut_ptr(), buf.len(), &mut n, self.as_raw()) };
        if n <= buf.len() {
            return buf[..n].to_vec();
        }
        let mut v = vec![0i64; n];
        unsafe { f(v.as_mut_ptr(), n, &mut n, self.as_raw()) };
        v
    }

    /// The size of dimension `dim` (negative counts from the end);
    /// `ErrorKind::Index` when out of range.
    pub fn size_dim(&self, dim: i64) -> Result<i64> {
        let mut v = 0i64;
        check(unsafe { sys::tc_tensor_size(&mut v, self.as_raw(), dim) })?;
        Ok(v)
    }

    /// The number of elements.
    pub fn numel(&self) -> i64 {
        self.query(sys::tc_tensor_numel)
    }

    /// The element type.
    pub fn kind(&self) -> Kind {
        Kind::from_code(self.query(sys::tc_tensor_dtype)).unwrap_or(Kind::Float32)
    }

    /// The device the memory lives on.
    pub fn device(&self) -> Device {
        let mut d = sys::tc_device_cpu();
        unsafe { sys::tc_tensor_device(&mut d, self.as_raw()) };
        Device::from_c(d).unwrap_or(Device::Cpu)
    }

    /// The offset of element 0 in its storage, in elements.
    pub fn storage_offset(&self) -> i64 {
        self.query(sys::tc_tensor_storage_offset)
    }

    /// Whether the tensor is contiguous in row-major order.
    pub fn is_contiguous(&self) -> bool {
        self.query(sys::tc_tensor_is_contiguous)
    }

    /// The address of element 0 (NULL without storage bytes), borrowed.
    pub fn data_ptr(&self) -> *mut c_void {
        let mut p = ptr::null_mut();
        unsafe { sys::tc_tensor_data_ptr(&mut p, self.as_raw()) };
        p
    }

    /// The version counter (bumped by every in-place write, shared with views).
    pub fn version(&self) -> u32 {
        self.query(sys::tc_tensor_version)
    }

    /// The number of strong references to this tensor: handles (each `Tensor`
    /// value, clones included) plus those tensorc holds itself (views' bases,
    /// autograd graphs, lists). For tests of ownership; racy when other
    /// threads hold handles to the same tensor.
    pub fn use_count(&self) -> i64 {
        self.query(sys::tc_tensor_use_count)
    }

    // ---- data out ---------------------------------------------------------

    /// The elements in row-major order, converted to `T` (a tensor of another
    /// kind or on another device is converted first, like `to(kind, Cpu)`).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if self.kind() != T::KIND || self.device() != Device::Cpu {
            let t = crate::ops::_to_copy(self, T::KIND, Device::Cpu, None)?;
            return t.to_vec();
        }
        let n = self.numel() as usize;
        if T::KIND == Kind::Bool {
            // A bool tensor's bytes are not always 0 or 1 (`ops::empty` leaves
            // them uninitialised), and any other byte in a Rust `bool` is UB:
            // read bytes and compare with 0.
            return Ok(bool_bytes(self, n)?.into_iter().map(|b| T::from_scalar(Scalar::Bool(b != 0))).collect());
        }
        let mut v: Vec<T> = Vec::with_capacity(n);
        // SAFETY: T is one of the sealed Element types, whose size is the
        // element size of T::KIND (the C call checks dst_nbytes against it) and
        // for which every bit pattern is a valid value (bool is handled above).
        check(unsafe {
            sys::tc_tensor_copy_to_buffer(v.as_mut_ptr() as *mut c_void, n * std::mem::size_of::<T>(), self.as_raw())
        })?;
        unsafe { v.set_len(n) };
        Ok(v)
    }

    /// Copies the elements (row-major) into `dst`, whose length must be
    /// `numel()`; the tensor's kind must be `T`'s.
    pub fn copy_to_slice<T: Element>(&self, dst: &mut [T]) -> Result<()> {
        if self.kind() != T::KIND {
            return Err(Error::new(
                ErrorKind::Type,
                format!("Tensor::copy_to_slice: the tensor is {}, the slice {}", self.kind(), T::KIND),
            ));
        }
        if T::KIND == Kind::Bool {
            // see to_vec: never write a byte other than 0 or 1 into a bool
            let bytes = bool_bytes(self, dst.len())?;
            for (d, b) in dst.iter_mut().zip(bytes) {
                *d = T::from_scalar(Scalar::Bool(b != 0));
            }
            return Ok(());
        }
        // SAFETY: as in to_vec; the C call checks the byte count.
        check(unsafe {
            sys::tc_tensor_copy_to_buffer(dst.as_mut_ptr() as *mut c_void, std::mem::size_of_val(dst), self.as_raw())
        })
    }

    /// The value of a one-element tensor (any shape), converted to `T`;
    /// `ErrorKind::InvalidArgument` unless `numel() == 1`.
    pub fn item<T: Element>(&self) -> Result<T> {
        let mut s = sys::tc_scalar::default();
        check(unsafe { sys::tc_tensor_item(&mut s, self.as_raw()) })?;
        Ok(T::from_scalar(Scalar::from_c(s)))
    }

    /// The value of a one-element tensor as a [`Scalar`].
    pub fn item_scalar(&self) -> Result<Scalar> {
        let mut s = sys::tc_scalar::default();
        check(unsafe { sys::tc_tensor_item(&mut s, self.as_raw()) })?;
        Ok(Scalar::from_c(s))
    }

    /// A copy of the data: the schema's `clone` op (recorded by autograd, so
    /// gradients flow back to `self`). `Clone::clone` only adds a reference.
    pub fn deep_clone(&self) -> Result<Tensor> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::tc_clone(&mut out, self.as_raw()) })?;
        Tensor::from_out(out)
    }

    /// This tensor converted to `kind` (the same tensor when it already is).
    pub fn to_kind(&self, kind: Kind) -> Result<Tensor> {
        self.to_dtype(kind, None, None)
    }

    /// This tensor on `device` (the same tensor when it already is).
    pub fn to_device(&self, device: Device) -> Result<Tensor> {
        self.to(device, self.kind(), None, None)
    }

    /// Formats the tensor as PyTorch prints it.
    fn format(&self) -> Result<String> {
        string_out(|buf, cap, needed| unsafe { sys::tc_tensor_to_string(buf, cap, needed, self.as_raw()) })
    }
}

/// The bytes of a CPU bool tensor of `n` elements, row-major (a free
/// function: the generated ops own the method namespace of `Tensor`).
fn bool_bytes(t: &Tensor, n: usize) -> Result<Vec<u8>> {
    let mut v = vec![0u8; n];
    check(unsafe { sys::tc_tensor_copy_to_buffer(v.as_mut_ptr() as *mut c_void, n, t.as_raw()) })?;
    Ok(v)
}

/// Calls a snprintf-style C function, growing the buffer once if needed.
pub(crate) fn string_out(f: impl Fn(*mut c_char, usize, *mut usize) -> sys::tc_status) -> Result<String> {
    let mut buf = vec![0u8; 1024];
    let mut needed = 0usize;
    check(f(buf.as_mut_ptr() as *mut c_char, buf.len(), &mut needed))?;
    if needed > buf.len() {
        buf = vec![0u8; needed];
        check(f(buf.as_mut_ptr() as *mut c_char, buf.len(), &mut needed))?;
    }
    let s = unsafe { CStr::from_ptr(buf.as_ptr() as *const c_char) };
    Ok(s.to_string_lossy().into_owned())
}

/// Turns a list handle (owned) into tensors, releasing the list.
pub(crate) fn list_into_vec(list: sys::tc_tensor_list) -> Result<Vec<Tensor>> {
    struct Guard(sys::tc_tensor_list);
    impl Drop for Guard {
        fn drop(&mut self) {
            unsafe { sys::tc_tensor_list_release(self.0) }
        }
    }
    if list.is_null() {
        return Err(Tensor::null_output());
    }
    let g = Guard(list);
    let mut n = 0usize;
    check(unsafe { sys::tc_tensor_list_size(&mut n, g.0) })?;
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        let mut t = ptr::null_mut();
        check(unsafe { sys::tc_tensor_list_get(&mut t, g.0, i) })?;
        v.push(Tensor::from_out(t)?);
    }
    Ok(v)
}

impl Drop for Tensor {
    #[inline]
    fn drop(&mut self) {
        unsafe { sys::tc_tensor_release(self.raw.as_ptr()) }
    }
}

impl Clone for Tensor {
    /// Another handle to the same tensor (`tc_tensor_retain`): no data is
    /// copied. See [`Tensor::deep_clone`] for a copy.
    #[inline]
    fn clone(&self) -> Tensor {
        unsafe { sys::tc_tensor_retain(self.raw.as_ptr()) };
        Tensor { raw: self.raw }
    }
}

impl AsRef<Tensor> for Tensor {
    fn as_ref(&self) -> &Tensor {
        self
    }
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.format() {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<tensor: {}>", e),
        }
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor[{:?}, {}, {:?}] ", self.size(), self.kind(), self.device())?;
        fmt::Display::fmt(self, f)
    }
}

mod sealed {
    /// Keeps [`Element`](super::Element) closed: `from_slice` and `to_vec`
    /// copy `size_of::<T>()` bytes per element of `T::KIND` through C, which is
    /// sound only for the types below.
    pub trait Sealed {}
}

/// An element type with a [`Kind`]: what `from_slice`, `to_vec` and `item`
/// take. Implemented for bool, u8, i8, i16, i32, i64, f32 and f64, and sealed
/// (no other type can implement it): the data is copied as raw bytes, so the
/// Rust type's layout must be exactly the kind's.
pub trait Element: Copy + Default + 'static + sealed::Sealed {
    /// The kind of a tensor of these elements.
    const KIND: Kind;
    /// The value of a scalar read back by `item` (numeric casts as `as`).
    fn from_scalar(s: Scalar) -> Self;
}

macro_rules! element {
    ($($t:ty => $k:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const KIND: Kind = Kind::$k;
            fn from_scalar(s: Scalar) -> $t {
                match s {
                    Scalar::Bool(b) => b as i64 as $t,
                    Scalar::Int(i) => i as $t,
                    Scalar::Float(f) => f as $t,
                }
            }
        }
    )*};
}
element!(u8 => UInt8, i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, f32 => Float32, f64 => Float64);

impl sealed::Sealed for bool {}
impl Element for bool {
    const KIND: Kind = Kind::Bool;
    fn from_scalar(s: Scalar) -> bool {
        match s {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::Float(f) => f != 0.0,
        }
    }
}

impl<T: Element> TryFrom<&Tensor> for Vec<T> {
    type Error = Error;
    /// `t.to_vec::<T>()`.
    fn try_from(t: &Tensor) -> Result<Vec<T>> {
        t.to_vec()
    }
}

impl<T: Element> TryFrom<Tensor> for Vec<T> {
    type Error = Error;
    fn try_from(t: Tensor) -> Result<Vec<T>> {
        t.to_vec()
    }
}

macro_rules! try_from_item {
    ($($t:ty),*) => {$(
        impl TryFrom<&Tensor> for $t {
            type Error = Error;
            /// The value of a one-element tensor (`t.item()`).
            fn try_from(t: &Tensor) -> Result<$t> {
                t.item()
            }
        }
        impl TryFrom<Tensor> for $t {
            type Error = Error;
            fn try_from(t: Tensor) -> Result<$t> {
                t.item()
            }
        }
    )*};
}
try_from_item!(f64, f32, i64, i32, bool);

impl<T: Element> TryFrom<&[T]> for Tensor {
    type Error = Error;
    /// A one-dimensional tensor holding a copy of the slice.
    fn try_from(v: &[T]) -> Result<Tensor> {
        Tensor::from_vec(v)
    }
}

impl<T: Element> TryFrom<Vec<T>> for Tensor {
    type Error = Error;
    fn try_from(v: Vec<T>) -> Result<Tensor> {
        Tensor::from_vec(&v)
    }
}

/// A random-number generator (a Philox stream): `ops::randn(&[2], &gen, ...)`.
/// Thread-safe in tensorc, so `Send` and `Sync`.
#[repr(transparent)] // a borrowed handle can be seen as a &Generator
pub struct Generator {
    raw: NonNull<sys::tc_generator_s>,
}

impl fmt::Debug for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Generator").field("seed", &self.seed()).finish()
    }
}

unsafe impl Send for Generator {}
unsafe impl Sync for Generator {}

impl Generator {
    /// A new generator seeded with `seed`.
    pub fn new(seed: u64) -> Result<Generator> {
        let mut g = ptr::null_mut();
        check(unsafe { sys::tc_generator_create(&mut g, seed) })?;
        NonNull::new(g).map(|raw| Generator { raw }).ok_or_else(Tensor::null_output)
    }

    /// The handle, borrowed.
    pub fn as_raw(&self) -> sys::tc_generator {
        self.raw.as_ptr()
    }

    /// A borrowed handle seen as a `&Generator` (no reference taken).
    ///
    /// # Safety
    /// `*raw` is a valid, non-NULL handle that outlives the borrow.
    pub(crate) unsafe fn borrow_raw(raw: &sys::tc_generator) -> &Generator {
        debug_assert!(!raw.is_null());
        &*(raw as *const sys::tc_generator as *const Generator)
    }

    /// Reseeds and restarts the stream.
    pub fn set_seed(&self, seed: u64) -> Result<()> {
        check(unsafe { sys::tc_generator_set_seed(self.as_raw(), seed) })
    }

    /// The seed it was created or last reseeded with.
    pub fn seed(&self) -> u64 {
        let mut s = 0u64;
        unsafe { sys::tc_generator_seed(&mut s, self.as_raw()) };
        s
    }
}

impl Drop for Generator {
    fn drop(&mut self) {
        unsafe { sys::tc_generator_release(self.raw.as_ptr()) }
    }
}

/// Reseeds the process-wide default generator.
pub fn manual_seed(seed: u64) -> Result<()> {
    check(unsafe { sys::tc_manual_seed(seed) })
}

/// Sets the number of threads kernels use in the whole process (n >= 1).
pub fn set_num_threads(n: i32) -> Result<()> {
    check(unsafe { sys::tc_set_num_threads(n) })
}

/// The number of threads kernels use.
pub fn get_num_threads() -> i32 {
    let mut n = 0;
    unsafe { sys::tc_get_num_threads(&mut n) };
    n
}

/// The library's version, "MAJOR.MINOR.PATCH".
pub fn version() -> &'static str {
    unsafe { CStr::from_ptr(sys::tc_version_string()) }.to_str().unwrap_or("?")
}

/// The dispatch table of an op ("addmm", "add.Tensor"), one line per key.
pub fn op_dump_table(op: &str) -> Result<String> {
    let op = crate::types::c_string(op, "op")?;
    string_out(|buf, cap, needed| unsafe { sys::tc_op_dump_table(buf, cap, needed, op.as_ptr()) })
}
