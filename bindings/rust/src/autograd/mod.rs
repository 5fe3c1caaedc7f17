// SPDX-License-Identifier: BSD-3-Clause
//! Autograd: gradients of tensors, grad mode, `grad()`, custom functions
//! with Rust closures (function.rs), and gradcheck.
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
use std::marker::PhantomData;
use std::os::raw::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use crate::error::{check, Error, ErrorKind, Result};
use crate::sys;
use crate::tensor::{string_out, Tensor};

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
pub(crate) fn panic_message(p: &(dyn Any + Send)) -> String {
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

/// A C array of n elements as a slice (empty for NULL or n == 0).
pub(crate) unsafe fn slice_or_empty<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if p.is_null() || n == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p, n)
    }
}

// ---- custom functions: function.rs -------------------------------------------

mod function;
pub(crate) use function::drop_from_c;
pub use function::{Function, FunctionCtx, Value};

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
