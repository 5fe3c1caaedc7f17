// SPDX-License-Identifier: BSD-3-Clause
//! Custom functions: a forward and a backward written as Rust closures,
//! run by tensorc's engine through tc_function_create / tc_function_apply.
use std::any::Any;
use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};

use super::{run_callback, slice_or_empty};
use crate::error::{check, Error, ErrorKind, Result};
use crate::sys;
use crate::tensor::Tensor;
use crate::types::{c_string, Device, Kind, Scalar};

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
            Value::Tensor(t) => v = sys::tc_value::tensor(t.as_raw()),
            Value::Int(i) => v = sys::tc_value::int(i),
            Value::Float(f) => v = sys::tc_value::float(f),
            Value::Bool(b) => v = sys::tc_value::bool(b),
            Value::Scalar(s) => v = sys::tc_value::scalar(s.to_c()),
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
                format!(
                    "{}: backward returned {} gradients, expected {} (one per input, None for none)",
                    who,
                    gi.len(),
                    n_inputs
                ),
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
pub(crate) fn drop_from_c<T>(value: T) {
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
        check(unsafe {
            sys::tc_function_apply(outs.as_mut_ptr(), outs.len(), self.raw.as_ptr(), vals.as_ptr(), vals.len())
        })?;
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
