// SPDX-License-Identifier: BSD-3-Clause
//! Safe Rust bindings to tensorc: tensors with autograd, over tensorc's C ABI
//! (`include/tensorc.h`) and nothing else. No dependencies.
//!
//! ```rust
//! use tensorc::{ops, Kind, Tensor};
//! let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
//! let y = &x * 2.0;                                  // operators panic on error
//! let s = y.sum_dim_intlist(&[1], None, None)?;      // ops return Result
//! assert_eq!(s.to_vec::<f32>()?, vec![12.0, 30.0]);
//! let z = ops::zeros(&[2, 3], Kind::Float64, None)?; // factories are free functions
//! ```
//!
//! - [`Tensor`]: one reference to a tensor (`Clone` = another reference,
//!   [`Tensor::deep_clone`] = a copy, `Drop` = release). `Send`, not `Sync`;
//!   a clone or view sent to another thread is the same tensor: forward and
//!   backward through a shared leaf are safe (grad accumulation is locked),
//!   writing its data or flags while it is used here is not (see [`Tensor`],
//!   "Threads").
//! - Every schema op is generated from `schema/ops.yaml`: a method on `Tensor`
//!   where the schema says `variants: method`, and a free function in [`ops`]
//!   for `variants: function` and factories. Naming: `name.overload` ->
//!   `name_overload`, with the overload left out for an op's first overload
//!   (`add.Tensor` -> `add`, `add.Scalar` -> `add_scalar`, `add_.Scalar` ->
//!   `add_scalar_`); see docs/rust.md. Arguments with a default or `?` take
//!   `None` for the default.
//! - Every fallible call returns [`Result<T>`](Result) with an [`Error`]: the
//!   C status category ([`ErrorKind`]) and tensorc's message, which names the
//!   op and the argument.
//! - `std::ops` operators (`&a + &b`, `&a * 2.0`, `-&a`, `a += &b`) panic on
//!   error; their `Result` twins are the methods `add`, `sub`, `mul`, `div`,
//!   `neg`, `add_scalar`, ..., `add_`, `mul_scalar_`, ...
//! - [`autograd`]: `backward`, `grad()`, [`autograd::NoGradGuard`],
//!   [`autograd::grad`], custom functions from closures
//!   ([`autograd::Function`]), gradcheck.
//! - [`library`]: the dispatcher: ops defined at run time, kernels and
//!   fallbacks from closures, [`library::op_call`] by name, redispatch, and
//!   the scoped [`library::IncludeDispatchKeyGuard`] /
//!   [`library::ExcludeDispatchKeyGuard`].
//! - [`jit`]: traced graphs: record with [`jit::Trace`], load a saved graph,
//!   run it ([`jit::Graph`]).
//! - [`device`]: the device runtime (count, current device, synchronize),
//!   streams, events and [`device::StreamGuard`].
//! - [`sys`]: the raw C ABI.
#![allow(clippy::too_many_arguments, clippy::new_ret_no_self)]

pub mod amp;
pub mod autograd;
pub mod device;
mod error;
mod index;
pub mod jit;
pub mod library;
mod operators;
pub mod sys;
mod tensor;
mod types;

pub use error::{Error, ErrorKind, Result};
pub use index::{Ellipsis, Idx, IndexSpec, NewAxis};
pub use tensor::{get_num_threads, manual_seed, op_dump_table, set_num_threads, version, Element, Generator, Tensor};
pub use types::{Device, Kind, OptIntList, OptScalar, Scalar};

/// The generated op surface (`ops.rs`, from tc_codegen): `impl Tensor` with
/// a method per op with a method variant, and the module [`ops`].
mod generated {
    #![allow(clippy::all, unused_imports, unused_mut)]
    use crate::error::{check, Result};
    use crate::sys;
    use crate::tensor::{Generator, Tensor};
    use crate::types::{c_string, opt_ptr, Device, Kind, OptIntList, OptScalar, Scalar};
    use std::ptr;

    include!(concat!(env!("OUT_DIR"), "/ops.rs"));
}

pub use generated::ops;
