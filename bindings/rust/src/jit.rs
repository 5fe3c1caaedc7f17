// SPDX-License-Identifier: BSD-3-Clause
//! Traced graphs: record with a [`Trace`], or load a graph saved by any
//! binding (Python's `tensorc.jit.save`, `tc_graph_save`), and run it, over
//! `tc_trace_*` / `tc_graph_*`.
//!
//! ```no_run
//! use tensorc::{jit::Graph, ops};
//! let g = Graph::load("mlp.json").unwrap();
//! let x = ops::ones(&[5, 4], None, None).unwrap();
//! let y = g.run(&[x]).unwrap();
//! ```
use std::ffi::CStr;
use std::marker::PhantomData;
use std::os::raw::c_char;
use std::ptr;

use crate::error::{check, Result};
use crate::sys;
use crate::tensor::{string_out, Tensor};
use crate::types::c_string;

/// An immutable traced graph. `Send` and `Sync`: several threads may run it
/// at once (the C ABI's promise); dropping frees it.
pub struct Graph {
    raw: sys::tc_graph,
}

unsafe impl Send for Graph {}
unsafe impl Sync for Graph {}

impl Drop for Graph {
    fn drop(&mut self) {
        unsafe { sys::tc_graph_release(self.raw) }
    }
}

#[derive(Default)]
struct Info {
    inputs: usize,
    outputs: usize,
    nodes: usize,
    warnings: usize,
}

impl Graph {
    /// The graph saved at `path`; a malformed file is `ErrorKind::InvalidArgument`
    /// naming the line or the field.
    pub fn load(path: &str) -> Result<Graph> {
        let path = c_string(path, "path")?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::tc_graph_load(&mut raw, path.as_ptr()) })?;
        Ok(Graph { raw })
    }

    /// The graph in JSON text (the file format).
    pub fn from_json(text: &str) -> Result<Graph> {
        let mut raw = ptr::null_mut();
        check(unsafe { sys::tc_graph_from_json(&mut raw, text.as_ptr() as *const c_char, text.len()) })?;
        Ok(Graph { raw })
    }

    /// The outputs for new inputs of the traced dtypes, shapes and devices.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let n_out = self.info()?.outputs;
        let mut outs: Vec<sys::tc_tensor> = vec![ptr::null_mut(); n_out];
        let mut n = 0usize;
        // &[Tensor] is an array of handles (Tensor is repr(transparent)).
        check(unsafe {
            sys::tc_graph_run(
                outs.as_mut_ptr(),
                outs.len(),
                &mut n,
                self.raw,
                inputs.as_ptr() as *const sys::tc_tensor,
                inputs.len(),
            )
        })?;
        outs.truncate(n);
        outs.into_iter().map(Tensor::from_out).collect()
    }

    /// TorchScript-like text.
    pub fn text(&self) -> Result<String> {
        string_out(|buf, cap, needed| unsafe { sys::tc_graph_text(buf, cap, needed, self.raw) })
    }

    /// The JSON file format.
    pub fn to_json(&self) -> Result<String> {
        string_out(|buf, cap, needed| unsafe { sys::tc_graph_to_json(buf, cap, needed, self.raw) })
    }

    pub fn save(&self, path: &str) -> Result<()> {
        let path = c_string(path, "path")?;
        check(unsafe { sys::tc_graph_save(self.raw, path.as_ptr()) })
    }

    pub fn num_inputs(&self) -> Result<usize> {
        Ok(self.info()?.inputs)
    }
    pub fn num_outputs(&self) -> Result<usize> {
        Ok(self.info()?.outputs)
    }
    /// How many ops the graph runs.
    pub fn num_nodes(&self) -> Result<usize> {
        Ok(self.info()?.nodes)
    }

    /// Where the trace depends on its example inputs.
    pub fn warnings(&self) -> Result<Vec<String>> {
        (0..self.info()?.warnings)
            .map(|i| {
                let mut m: *const c_char = ptr::null();
                check(unsafe { sys::tc_graph_warning(&mut m, self.raw, i) })?;
                Ok(unsafe { CStr::from_ptr(m) }.to_string_lossy().into_owned())
            })
            .collect()
    }

    fn info(&self) -> Result<Info> {
        let mut i = Info::default();
        check(unsafe { sys::tc_graph_info(&mut i.inputs, &mut i.outputs, &mut i.nodes, &mut i.warnings, self.raw) })?;
        Ok(i)
    }
}

/// Records the ops this thread calls from [`Trace::begin`] until
/// [`Trace::end`]; the tensors given to [`Trace::input`] are the graph's
/// inputs (make them before the trace: a tensor a traced op made is a value
/// of the trace already). Dropped without `end`, it stops tracing. Not
/// `Send` (tracing is per thread); tracing does not nest.
#[must_use = "tracing stops when the Trace is dropped"]
pub struct Trace {
    ended: bool,
    _not_send: PhantomData<*const ()>,
}

impl Trace {
    pub fn begin() -> Result<Trace> {
        check(unsafe { sys::tc_trace_begin() })?;
        Ok(Trace { ended: false, _not_send: PhantomData })
    }

    pub fn input(&self, t: &Tensor) -> Result<()> {
        check(unsafe { sys::tc_trace_input(t.as_raw()) })
    }

    /// Stops tracing (also when it fails) and returns the graph of `outputs`.
    pub fn end(mut self, outputs: &[Tensor]) -> Result<Graph> {
        self.ended = true;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::tc_trace_end(&mut raw, outputs.as_ptr() as *const sys::tc_tensor, outputs.len()) })?;
        Ok(Graph { raw })
    }
}

impl Drop for Trace {
    fn drop(&mut self) {
        if !self.ended {
            unsafe { sys::tc_trace_abort() };
        }
    }
}
