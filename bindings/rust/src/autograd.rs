//! Autograd: gradients of tensors, grad mode, `grad()`, custom functions
//! with Rust closures, and gradcheck.
//!
//! ```rust
//! let mut w = Tensor::from_slice(&[1.0f32, 2.0], &[2])?;
//! w.set_requires_grad(true)?;
//! let loss = (&w * &w).sum(None)?;
//! loss.backward()?;
//! assert_eq!(w.grad().unwrap().to_vec::<f32>()?, vec![2.0, 4.0]);
//! {
//!     let _guard = autograd::NoGradGuard::new();   // until the end of the scope
//!     w.sub_(&w.grad().unwrap(), 0.1)?;
//! }
//! ```
use std::any::Any;
use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};

use crate::error::{check, Error, ErrorKind, Result};
use crate::sys;
use crate::tensor::{string_out, Tensor};
use crate::types::{c_string, Device, Kind, Scalar};

// ---- per-tensor autograd state ------------------------------------------------

impl Tensor {
    /// Whether the tensor requires grad (a flagged leaf, or a result of ops on one).
    pub fn requires_grad(&self) -> bool {
        let mut b = false;
        unsafe { sys::tc_tensor_requires_grad(&mut b, self.as_raw()) };
        b
    }

    /// Flags a leaf as requiring grad (or not). `ErrorKind::Type` for a
    /// non-floating tensor, `ErrorKind::InvalidArgument` to turn it off on a non-leaf.
    pub fn set_requires_grad(&self, requires_grad: bool) -> Result<()> {
        check(unsafe { sys::tc_tensor_set_requires_grad(self.as_raw(), requires_grad) })
    }

    /// The accumulated gradient (a new handle to it), or `None` before any
    /// backward reached this leaf (or for a non-leaf without `retain_grad`).
    pub fn grad(&self) -> Option<Tensor> {
        let mut g = ptr::null_mut();
        unsafe {
            sys::tc_tensor_grad(&mut g, self.as_raw());
            Tensor::from_raw(g)
        }
    }

    /// Replaces the gradient (`None` clears it, like `x.grad = None`); the new
    /// one must have this tensor's kind, shape and device.
    pub fn set_grad(&self, grad: Option<&Tensor>) -> Result<()> {
        check(unsafe { sys::tc_tensor_set_grad(self.as_raw(), grad.map_or(ptr::null_mut(), |g| g.as_raw())) })
    }

    /// Whether the tensor is a leaf of the graph (made by the user, not recorded).
    pub fn is_leaf(&self) -> bool {
        let mut b = false;
        unsafe { sys::tc_tensor_is_leaf(&mut b, self.as_raw()) };
        b
    }

    /// Makes backward keep this non-leaf's gradient in its `grad()` too.
    pub fn retain_grad(&self) -> Result<()> {
        check(unsafe { sys::tc_tensor_retain_grad(self.as_raw()) })
    }

    /// The name of the node that made this tensor ("MulBackward0"; "" for a leaf).
    pub fn grad_fn_name(&self) -> String {
        string_out(|b, c, n| unsafe { sys::tc_tensor_grad_fn_name(b, c, n, self.as_raw()) }).unwrap_or_default()
    }

    /// A tensor sharing this one's memory, without history.
    pub fn detach(&self) -> Result<Tensor> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::tc_tensor_detach(&mut out, self.as_raw()) })?;
        Tensor::from_out(out)
    }

    /// Removes the history in place (the tensor becomes a leaf that does not
    /// require grad). `ErrorKind::Runtime` for a view.
    pub fn detach_(&mut self) -> Result<&mut Tensor> {
        check(unsafe { sys::tc_tensor_detach_(self.as_raw()) })?;
        Ok(self)
    }

    /// Backward from a one-element tensor (its gradient is 1), accumulating
    /// into the leaves' `grad()`; frees the graph.
    pub fn backward(&self) -> Result<()> {
        self.backward_with(None, false, false)
    }

    /// Backward with an explicit gradient of this tensor (`None`: ones, for
    /// a one-element tensor), keeping the graph (`retain_graph`) and/or
    /// recording the backward itself (`create_graph`, higher-order gradients).
    pub fn backward_with(&self, grad: Option<&Tensor>, retain_graph: bool, create_graph: bool) -> Result<()> {
        let g = grad.map_or(ptr::null_mut(), |g| g.as_raw());
        check(unsafe { sys::tc_tensor_backward(self.as_raw(), g, retain_graph, create_graph) })
    }
}

// ---- grad mode ----------------------------------------------------------------

/// Whether ops record gradients on this thread.
pub fn is_grad_enabled() -> bool {
    let mut b = false;
    unsafe { sys::tc_grad_mode_is_enabled(&mut b) };
    b
}

/// Turns recording on or off on this thread (prefer the guards).
pub fn set_grad_enabled(enabled: bool) {
    unsafe { sys::tc_grad_mode_set_enabled(enabled) };
}

/// Sets this thread's grad mode until dropped, then restores the previous one
/// (`tc_grad_mode_push` / `tc_grad_mode_pop`). Not `Send`: grad mode is per
/// thread, so the guard must be dropped on the thread that made it. Guards
/// restore in the order they are dropped; keep them scoped (LIFO).
#[must_use = "the grad mode is restored when the guard is dropped"]
pub struct GradModeGuard {
    _not_send: PhantomData<*const ()>,
}

impl GradModeGuard {
    /// Sets grad mode to `enabled` until the guard is dropped.
    pub fn new(enabled: bool) -> GradModeGuard {
        // push never fails (it only saves a bool on this thread's stack)
        unsafe { sys::tc_grad_mode_push(enabled) };
        GradModeGuard { _not_send: PhantomData }
    }
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        unsafe { sys::tc_grad_mode_pop() };
    }
}

/// `torch.no_grad()`: no recording on this thread while it lives.
pub struct NoGradGuard(GradModeGuard);

impl NoGradGuard {
    #[allow(clippy::new_without_default)]
    pub fn new() -> NoGradGuard {
        NoGradGuard(GradModeGuard::new(false))
    }
}

/// `torch.enable_grad()`: recording on this thread while it lives.
pub struct EnableGradGuard(GradModeGuard);

impl EnableGradGuard {
    #[allow(clippy::new_without_default)]
    pub fn new() -> EnableGradGuard {
        EnableGradGuard(GradModeGuard::new(true))
    }
}

/// Runs `f` without recording gradients (a [`NoGradGuard`] around it).
pub fn no_grad<T>(f: impl FnOnce() -> T) -> T {
    let _g = NoGradGuard::new();
    f()
}

// ---- backward / grad for several tensors --------------------------------------

fn raw_list(ts: &[Tensor]) -> *const sys::tc_tensor {
    ts.as_ptr() as *const sys::tc_tensor
}

/// Backward from several roots at once; `grad_tensors` gives each root's
/// gradient (`None`: ones for all, which must then be one-element tensors).
pub fn backward(
    tensors: &[Tensor],
    grad_tensors: Option<&[Option<Tensor>]>,
    retain_graph: bool,
    create_graph: bool,
) -> Result<()> {
    if let Some(g) = grad_tensors {
        if g.len() != tensors.len() {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("autograd::backward: {} grad_tensors for {} tensors", g.len(), tensors.len()),
            ));
        }
    }
    let g = grad_tensors.map_or(ptr::null(), |g| g.as_ptr() as *const sys::tc_tensor);
    check(unsafe { sys::tc_autograd_backward(raw_list(tensors), tensors.len(), g, retain_graph, create_graph) })
}

/// `torch.autograd.grad`: the gradients of the sum of `outputs` (weighted by
/// `grad_outputs`, `None`: ones) with respect to each of `inputs`, without
/// touching any `.grad`. An input the outputs do not depend on is
/// `ErrorKind::Runtime` (see [`grad_allow_unused`]).
pub fn grad(
    outputs: &[Tensor],
    inputs: &[Tensor],
    grad_outputs: Option<&[Tensor]>,
    retain_graph: bool,
    create_graph: bool,
) -> Result<Vec<Tensor>> {
    let v = grad_impl(outputs, inputs, grad_outputs, retain_graph, create_graph, false)?;
    v.into_iter().map(|g| g.ok_or_else(|| Error::new(ErrorKind::Internal, "autograd::grad: a NULL gradient"))).collect()
}

/// [`grad`] where an input the outputs do not depend on gets `None`.
pub fn grad_allow_unused(
    outputs: &[Tensor],
    inputs: &[Tensor],
    grad_outputs: Option<&[Tensor]>,
    retain_graph: bool,
    create_graph: bool,
) -> Result<Vec<Option<Tensor>>> {
    grad_impl(outputs, inputs, grad_outputs, retain_graph, create_graph, true)
}

fn grad_impl(
    outputs: &[Tensor],
    inputs: &[Tensor],
    grad_outputs: Option<&[Tensor]>,
    retain_graph: bool,
    create_graph: bool,
    allow_unused: bool,
) -> Result<Vec<Option<Tensor>>> {
    if let Some(g) = grad_outputs {
        if g.len() != outputs.len() {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("autograd::grad: {} grad_outputs for {} outputs", g.len(), outputs.len()),
            ));
        }
    }
    let mut out: Vec<sys::tc_tensor> = vec![ptr::null_mut(); inputs.len()];
    check(unsafe {
        sys::tc_autograd_grad(
            out.as_mut_ptr(),
            raw_list(outputs),
            outputs.len(),
            raw_list(inputs),
            inputs.len(),
            grad_outputs.map_or(ptr::null(), raw_list),
            retain_graph,
            create_graph,
            allow_unused,
        )
    })?;
    Ok(out.into_iter().map(|h| unsafe { Tensor::from_raw(h) }).collect())
}

// ---- panics in callbacks ------------------------------------------------------

/// The message of a caught panic.
fn panic_message(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    }
}

/// Runs a Rust callback called from C: its error, or a panic (caught here, so
/// it never unwinds into C), becomes the thread's last error and its status.
fn run_callback(who: &str, f: impl FnOnce() -> Result<()>) -> sys::tc_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => sys::TC_OK,
        Ok(Err(e)) => e.set_last(),
        Err(p) => {
            let e = Error::new(ErrorKind::Runtime, format!("{} panicked: {}", who, panic_message(&*p)));
            // dropping the payload could panic too; keep it from unwinding
            let _ = catch_unwind(AssertUnwindSafe(move || drop(p)));
            e.set_last()
        }
    }
}

// ---- custom functions ---------------------------------------------------------

/// An input of a custom function: tensors are differentiable, everything else
/// is passed through to `forward` as is.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    Tensor(&'a Tensor),
    Int(i64),
    Float(f64),
    Bool(bool),
    Scalar(Scalar),
    Kind(Kind),
    Device(Device),
    IntList(&'a [i64]),
    FloatList(&'a [f64]),
    None,
}

impl<'a> From<&'a Tensor> for Value<'a> {
    fn from(t: &'a Tensor) -> Value<'a> {
        Value::Tensor(t)
    }
}
impl From<i64> for Value<'_> {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}
impl From<f64> for Value<'_> {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}
impl From<bool> for Value<'_> {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}
impl From<Scalar> for Value<'_> {
    fn from(v: Scalar) -> Self {
        Value::Scalar(v)
    }
}
impl From<Kind> for Value<'_> {
    fn from(v: Kind) -> Self {
        Value::Kind(v)
    }
}
impl<'a> From<&'a [i64]> for Value<'a> {
    fn from(v: &'a [i64]) -> Self {
        Value::IntList(v)
    }
}

fn wrong_input(what: &str, got: &Value<'_>) -> Error {
    Error::new(ErrorKind::Type, format!("custom function input: expected {}, got {:?}", what, got))
}

impl<'a> Value<'a> {
    /// The tensor, or `ErrorKind::Type`.
    pub fn tensor(&self) -> Result<&'a Tensor> {
        match *self {
            Value::Tensor(t) => Ok(t),
            ref v => Err(wrong_input("a tensor", v)),
        }
    }
    /// The number as f64 (Int, Float, Bool, Scalar), or `ErrorKind::Type`.
    pub fn f64(&self) -> Result<f64> {
        match *self {
            Value::Float(f) => Ok(f),
            Value::Int(i) => Ok(i as f64),
            Value::Bool(b) => Ok(b as i64 as f64),
            Value::Scalar(s) => Ok(s.to_f64()),
            ref v => Err(wrong_input("a number", v)),
        }
    }
    /// The integer (Int, Bool, Scalar), or `ErrorKind::Type`.
    pub fn i64(&self) -> Result<i64> {
        match *self {
            Value::Int(i) => Ok(i),
            Value::Bool(b) => Ok(b as i64),
            Value::Scalar(s) => Ok(s.to_i64()),
            ref v => Err(wrong_input("an integer", v)),
        }
    }

    fn to_c(self) -> sys::tc_value {
        let mut v = sys::tc_value::none();
        match self {
            Value::Tensor(t) => {
                v.tag = sys::TC_VALUE_TENSOR;
                v.u.tensor = t.as_raw();
            }
            Value::Int(i) => {
                v.tag = sys::TC_VALUE_INT;
                v.u.i = i;
            }
            Value::Float(f) => {
                v.tag = sys::TC_VALUE_FLOAT;
                v.u.f = f;
            }
            Value::Bool(b) => {
                v.tag = sys::TC_VALUE_BOOL;
                v.u.b = b;
            }
            Value::Scalar(s) => {
                v.tag = sys::TC_VALUE_SCALAR;
                v.u.scalar = s.to_c();
            }
            Value::Kind(k) => {
                v.tag = sys::TC_VALUE_DTYPE;
                v.u.dtype = k.code();
            }
            Value::Device(d) => {
                v.tag = sys::TC_VALUE_DEVICE;
                v.u.device = d.to_c();
            }
            Value::IntList(l) => {
                v.tag = sys::TC_VALUE_INT_LIST;
                v.u.ints = sys::tc_ints { data: l.as_ptr(), len: l.len() };
            }
            Value::FloatList(l) => {
                v.tag = sys::TC_VALUE_FLOAT_LIST;
                v.u.floats = sys::tc_floats { data: l.as_ptr(), len: l.len() };
            }
            Value::None => {}
        }
        v
    }

    /// A borrowed C value seen as a `Value` (tensors are not retained).
    ///
    /// # Safety
    /// `v` is a valid value that outlives `'a`.
    unsafe fn from_c(v: &'a sys::tc_value) -> Value<'a> {
        match v.tag {
            sys::TC_VALUE_TENSOR if !v.u.tensor.is_null() => Value::Tensor(Tensor::borrow_raw(&v.u.tensor)),
            sys::TC_VALUE_INT => Value::Int(v.u.i),
            sys::TC_VALUE_FLOAT => Value::Float(v.u.f),
            // the byte: only 0 and 1 are valid Rust bools
            sys::TC_VALUE_BOOL => Value::Bool(*(&v.u as *const sys::tc_value_u as *const u8) != 0),
            sys::TC_VALUE_SCALAR => Value::Scalar(Scalar::from_c(v.u.scalar)),
            sys::TC_VALUE_DTYPE => Kind::from_code(v.u.dtype).map(Value::Kind).unwrap_or(Value::None),
            sys::TC_VALUE_DEVICE => Device::from_c(v.u.device).map(Value::Device).unwrap_or(Value::None),
            sys::TC_VALUE_INT_LIST => Value::IntList(slice_or_empty(v.u.ints.data, v.u.ints.len)),
            sys::TC_VALUE_FLOAT_LIST => Value::FloatList(slice_or_empty(v.u.floats.data, v.u.floats.len)),
            _ => Value::None,
        }
    }
}

unsafe fn slice_or_empty<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if p.is_null() || n == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p, n)
    }
}

/// The context of one call of a custom function, passed to its forward and
/// backward (`ctx` in PyTorch). Valid only during the callback.
pub struct FunctionCtx<'a> {
    raw: sys::tc_function_ctx,
    n_inputs: usize,
    _callback: PhantomData<&'a mut ()>,
}

fn raw_refs<T: AsRef<Tensor>>(ts: &[T]) -> Vec<sys::tc_tensor> {
    ts.iter().map(|t| t.as_ref().as_raw()).collect()
}

impl FunctionCtx<'_> {
    /// Forward only: tensors to keep for backward (replaces earlier calls).
    /// Takes `&[&Tensor]` or `&[Tensor]`.
    pub fn save_for_backward<T: AsRef<Tensor>>(&mut self, tensors: &[T]) -> Result<()> {
        let raw = raw_refs(tensors);
        check(unsafe { sys::tc_function_ctx_save_for_backward(self.raw, raw.as_ptr(), raw.len()) })
    }

    /// Backward only: the tensors saved by forward (new handles).
    /// `ErrorKind::Runtime` when one was modified in place since.
    pub fn saved_tensors(&mut self) -> Result<Vec<Tensor>> {
        let mut n = 0usize;
        check(unsafe { sys::tc_function_ctx_saved_tensors(ptr::null_mut(), 0, &mut n, self.raw) })?;
        let mut raw: Vec<sys::tc_tensor> = vec![ptr::null_mut(); n];
        check(unsafe { sys::tc_function_ctx_saved_tensors(raw.as_mut_ptr(), n, &mut n, self.raw) })?;
        let v: Vec<Option<Tensor>> = raw.into_iter().map(|h| unsafe { Tensor::from_raw(h) }).collect();
        v.into_iter()
            .map(|t| t.ok_or_else(|| Error::new(ErrorKind::Internal, "saved_tensors: a NULL saved tensor")))
            .collect()
    }

    /// Forward only: these inputs were modified in place by forward.
    pub fn mark_dirty<T: AsRef<Tensor>>(&mut self, tensors: &[T]) -> Result<()> {
        let raw = raw_refs(tensors);
        check(unsafe { sys::tc_function_ctx_mark_dirty(self.raw, raw.as_ptr(), raw.len()) })
    }

    /// Forward only: these outputs get no gradient.
    pub fn mark_non_differentiable<T: AsRef<Tensor>>(&mut self, tensors: &[T]) -> Result<()> {
        let raw = raw_refs(tensors);
        check(unsafe { sys::tc_function_ctx_mark_non_differentiable(self.raw, raw.as_ptr(), raw.len()) })
    }

    /// Whether input `index` needs a gradient (false for non-tensor inputs).
    pub fn needs_input_grad(&self, index: usize) -> Result<bool> {
        let mut b = false;
        check(unsafe { sys::tc_function_ctx_needs_input_grad(&mut b, self.raw, index) })?;
        Ok(b)
    }

    /// The number of inputs of this call.
    pub fn num_inputs(&self) -> usize {
        self.n_inputs
    }

    /// Forward: keeps a value of any type for backward (replaces an earlier one).
    pub fn save_state<T: Any + Send>(&mut self, state: T) -> Result<()> {
        unsafe extern "C" fn destroy(p: *mut c_void) {
            drop_from_c(Box::from_raw(p as *mut Box<dyn Any + Send>));
        }
        let b: Box<Box<dyn Any + Send>> = Box::new(Box::new(state));
        let p = Box::into_raw(b) as *mut c_void;
        let st = unsafe { sys::tc_function_ctx_set_state(self.raw, p, Some(destroy)) };
        // read the error before the state's Drop runs any code of the caller
        let r = check(st);
        if st != sys::TC_OK {
            unsafe { destroy(p) };
        }
        r
    }

    /// Backward: the value forward kept with `save_state`, if it has type `T`.
    pub fn state<T: Any + Send>(&self) -> Option<&T> {
        let mut p = ptr::null_mut();
        unsafe { sys::tc_function_ctx_state(&mut p, self.raw) };
        if p.is_null() {
            return None;
        }
        let b = unsafe { &*(p as *const Box<dyn Any + Send>) };
        b.downcast_ref::<T>()
    }
}

type ForwardFn = dyn Fn(&mut FunctionCtx<'_>, &[Value<'_>]) -> Result<Vec<Tensor>> + Send + Sync;
type BackwardFn = dyn Fn(&mut FunctionCtx<'_>, &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync;

struct Payload {
    name: String,
    forward: Box<ForwardFn>,
    backward: Box<BackwardFn>,
}

unsafe extern "C" fn forward_trampoline(
    outputs: *mut sys::tc_tensor,
    n_outputs: usize,
    ctx: sys::tc_function_ctx,
    inputs: *const sys::tc_value,
    n_inputs: usize,
    payload: *mut c_void,
) -> sys::tc_status {
    let p = &*(payload as *const Payload);
    let who = format!("{} forward", p.name);
    run_callback(&who, || {
        let raw_inputs = slice_or_empty(inputs, n_inputs);
        let values: Vec<Value<'_>> = raw_inputs.iter().map(|v| Value::from_c(v)).collect();
        let mut c = FunctionCtx { raw: ctx, n_inputs, _callback: PhantomData };
        let outs = (p.forward)(&mut c, &values)?;
        if outs.len() != n_outputs {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("{}: forward returned {} tensors, expected {}", who, outs.len(), n_outputs),
            ));
        }
        for (i, t) in outs.into_iter().enumerate() {
            *outputs.add(i) = t.into_raw();
        }
        Ok(())
    })
}

unsafe extern "C" fn backward_trampoline(
    grad_inputs: *mut sys::tc_tensor,
    n_inputs: usize,
    ctx: sys::tc_function_ctx,
    grad_outputs: *const sys::tc_tensor,
    n_outputs: usize,
    payload: *mut c_void,
) -> sys::tc_status {
    let p = &*(payload as *const Payload);
    let who = format!("{} backward", p.name);
    run_callback(&who, || {
        let raw = slice_or_empty(grad_outputs, n_outputs);
        if raw.iter().any(|h| h.is_null()) {
            return Err(Error::new(ErrorKind::Internal, format!("{}: an undefined output gradient", who)));
        }
        // Tensor is a transparent non-NULL handle: the borrowed array is a &[Tensor].
        let grads: &[Tensor] = std::slice::from_raw_parts(raw.as_ptr() as *const Tensor, raw.len());
        let mut c = FunctionCtx { raw: ctx, n_inputs, _callback: PhantomData };
        let gi = (p.backward)(&mut c, grads)?;
        if gi.len() != n_inputs {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("{}: backward returned {} gradients, expected {} (one per input, None for none)", who, gi.len(), n_inputs),
            ));
        }
        for (i, g) in gi.into_iter().enumerate() {
            *grad_inputs.add(i) = g.map_or(ptr::null_mut(), Tensor::into_raw);
        }
        Ok(())
    })
}

unsafe extern "C" fn payload_destroy(payload: *mut c_void) {
    drop_from_c(Box::from_raw(payload as *mut Payload));
}

/// Drops a value for C (a payload or a state destructor, run from whatever
/// tensorc call freed the last graph using it): a panic in a `Drop` of the
/// user's is caught and dropped (it must not unwind into C, and there is no
/// status to report it with), and the thread's last error is kept as it was,
/// since that `Drop` may call tensorc and fail while a failing call of the
/// caller's is on its way back.
fn drop_from_c<T>(value: T) {
    let code = unsafe { sys::tc_last_error_code() };
    let saved = (code != sys::TC_OK).then(|| unsafe { CStr::from_ptr(sys::tc_last_error_message()) }.to_owned());
    if let Err(p) = catch_unwind(AssertUnwindSafe(move || drop(value))) {
        let _ = catch_unwind(AssertUnwindSafe(move || drop(p)));
    }
    match saved {
        Some(msg) => unsafe { sys::tc_error_set(code, msg.as_ptr()) },
        None => unsafe { sys::tc_error_set(sys::TC_OK, ptr::null()) },
    };
}

/// A custom autograd function (PyTorch's `autograd.Function`) with a Rust
/// forward and backward:
///
/// ```rust
/// let square = Function::new("Square", 1,
///     |ctx, inputs| {                       // grad mode is off here
///         let x = inputs[0].tensor()?;
///         ctx.save_for_backward(&[x])?;
///         Ok(vec![x.mul(x)?])
///     },
///     |ctx, grads| {                         // one gradient per output
///         let x = &ctx.saved_tensors()?[0];
///         Ok(vec![Some(grads[0].mul(x)?.mul_scalar(2.0)?)])  // one per input
///     })?;
/// let y = square.apply1(&[(&x).into()])?;
/// ```
///
/// An `Err` returned by a closure comes back from `apply` (forward) or from
/// `backward` (backward) with its kind and message (an
/// [`ErrorKind::Unknown`] code as `ErrorKind::Runtime`). A panic in a closure is
/// caught before it reaches C and comes back the same way as an
/// `ErrorKind::Runtime` error whose message ends with
/// `"<name> forward panicked: <panic message>"` (or `backward`). The closures must be `Send + Sync`:
/// a recorded graph keeps them and may run or free them on another thread.
pub struct Function {
    raw: NonNull<sys::tc_function_s>,
    n_outputs: usize,
    name: String,
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Function").field("name", &self.name).field("n_outputs", &self.n_outputs).finish()
    }
}

unsafe impl Send for Function {}

impl Function {
    /// Defines a function named `name` (its graph nodes are `"<name>Backward"`)
    /// with `n_outputs` tensor outputs. `forward` gets the inputs and returns
    /// exactly `n_outputs` tensors; `backward` gets one gradient per output
    /// and returns one entry per input (`None`: no gradient).
    pub fn new<F, B>(name: &str, n_outputs: usize, forward: F, backward: B) -> Result<Function>
    where
        F: Fn(&mut FunctionCtx<'_>, &[Value<'_>]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
        B: Fn(&mut FunctionCtx<'_>, &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
    {
        let cname: CString = c_string(name, "name")?;
        let payload = Box::into_raw(Box::new(Payload {
            name: name.to_string(),
            forward: Box::new(forward),
            backward: Box::new(backward),
        }));
        let mut raw = ptr::null_mut();
        let st = unsafe {
            sys::tc_function_create(
                &mut raw,
                cname.as_ptr(),
                Some(forward_trampoline),
                Some(backward_trampoline),
                payload as *mut c_void,
                Some(payload_destroy),
            )
        };
        if st != sys::TC_OK {
            let e = Error::last(st); // before the closures' Drop runs the caller's code
            // on error tensorc does not call payload_destroy
            unsafe { drop(Box::from_raw(payload)) };
            return Err(e);
        }
        let raw = NonNull::new(raw).ok_or_else(|| Error::new(ErrorKind::Internal, "tc_function_create gave NULL"))?;
        Ok(Function { raw, n_outputs, name: name.to_string() })
    }

    /// Runs the function on `inputs` (tensors are differentiable); returns its
    /// `n_outputs` outputs, recorded for backward when an input requires grad.
    pub fn apply(&self, inputs: &[Value<'_>]) -> Result<Vec<Tensor>> {
        let vals: Vec<sys::tc_value> = inputs.iter().map(|v| v.to_c()).collect();
        let mut outs: Vec<sys::tc_tensor> = vec![ptr::null_mut(); self.n_outputs];
        check(unsafe { sys::tc_function_apply(outs.as_mut_ptr(), outs.len(), self.raw.as_ptr(), vals.as_ptr(), vals.len()) })?;
        // own every handle before looking for a NULL one, so that none leaks
        let owned: Vec<Option<Tensor>> = outs.into_iter().map(|h| unsafe { Tensor::from_raw(h) }).collect();
        owned
            .into_iter()
            .map(|t| t.ok_or_else(|| Error::new(ErrorKind::Internal, "tc_function_apply succeeded with a NULL output")))
            .collect()
    }

    /// [`Function::apply`] for a function with one output.
    pub fn apply1(&self, inputs: &[Value<'_>]) -> Result<Tensor> {
        let mut v = self.apply(inputs)?;
        if v.len() != 1 {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("Function::apply1 on a function with {} outputs", v.len()),
            ));
        }
        Ok(v.pop().unwrap())
    }
}

impl Drop for Function {
    fn drop(&mut self) {
        unsafe { sys::tc_function_release(self.raw.as_ptr()) }
    }
}

// ---- gradcheck ----------------------------------------------------------------

/// Tolerances of [`gradcheck`] (`Default`: eps 1e-6, atol 1e-5, rtol 1e-3).
#[derive(Clone, Copy, Debug)]
pub struct GradcheckOptions {
    pub eps: f64,
    pub atol: f64,
    pub rtol: f64,
}

impl Default for GradcheckOptions {
    fn default() -> Self {
        GradcheckOptions { eps: 1e-6, atol: 1e-5, rtol: 1e-3 }
    }
}

type CheckFn<'f> = dyn FnMut(&[Tensor]) -> Result<Tensor> + 'f;

unsafe extern "C" fn gradcheck_trampoline(
    out: *mut sys::tc_tensor,
    inputs: *const sys::tc_tensor,
    n: usize,
    user: *mut c_void,
) -> sys::tc_status {
    let f = &mut *(user as *mut &mut CheckFn<'_>);
    run_callback("gradcheck function", || {
        let raw = slice_or_empty(inputs, n);
        if raw.iter().any(|h| h.is_null()) {
            return Err(Error::new(ErrorKind::Internal, "gradcheck function: a NULL input"));
        }
        // Tensor is a transparent non-NULL handle: the borrowed array is a &[Tensor].
        let ts: &[Tensor] = std::slice::from_raw_parts(raw.as_ptr() as *const Tensor, raw.len());
        *out = f(ts)?.into_raw();
        Ok(())
    })
}

fn gradcheck_impl(
    second: bool,
    mut f: impl FnMut(&[Tensor]) -> Result<Tensor>,
    inputs: &[Tensor],
    opts: GradcheckOptions,
) -> Result<()> {
    let mut dynf: &mut CheckFn<'_> = &mut f;
    let o = sys::tc_gradcheck_options {
        size: std::mem::size_of::<sys::tc_gradcheck_options>(),
        eps: opts.eps,
        atol: opts.atol,
        rtol: opts.rtol,
    };
    let mut ok = false;
    let user = &mut dynf as *mut &mut CheckFn<'_> as *mut c_void;
    let run = if second { sys::tc_gradgradcheck } else { sys::tc_gradcheck };
    check(unsafe { run(&mut ok, Some(gradcheck_trampoline), user, raw_list(inputs), inputs.len(), &o) })?;
    if ok {
        Ok(())
    } else {
        Err(Error::new(ErrorKind::Runtime, "gradcheck failed"))
    }
}

/// Compares the gradients backward computes for `f` with central finite
/// differences, for every input that requires grad (float64 CPU tensors).
/// `Ok(())` when they agree; otherwise `ErrorKind::Runtime` naming the output,
/// input and element of the first mismatch.
pub fn gradcheck(f: impl FnMut(&[Tensor]) -> Result<Tensor>, inputs: &[Tensor], opts: GradcheckOptions) -> Result<()> {
    gradcheck_impl(false, f, inputs, opts)
}

/// [`gradcheck`] of second derivatives.
pub fn gradgradcheck(
    f: impl FnMut(&[Tensor]) -> Result<Tensor>,
    inputs: &[Tensor],
    opts: GradcheckOptions,
) -> Result<()> {
    gradcheck_impl(true, f, inputs, opts)
}
