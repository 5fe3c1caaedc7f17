// SPDX-License-Identifier: BSD-3-Clause
//! `std::ops` for tensors: `+ - * /` between tensors (owned or borrowed) and
//! with numbers on either side, unary `-`, and `+= -= *= /=` in place.
//!
//! The left operand is a reference (`&a + &b`, `&(&a + &b) * 2.0`, `-&a`),
//! or a number: an impl for an owned left operand would shadow the
//! `Result`-returning method of the same name in method-call syntax
//! (`a.add(&b, None)` on an owned `a` would resolve to `Add::add`).
//! The right operand may be owned or borrowed.
//!
//! These panic when tensorc reports an error (e.g. shapes that do not
//! broadcast), with the error's message, as integer overflow or slice indexing
//! do. The methods with the same names return [`Result`](crate::Result)
//! instead: `a.add(&b, None)`, `a.sub(&b, None)`, `a.mul(&b)`, `a.div(&b)`,
//! `a.neg()`, `a.add_scalar(2.0, None)`, ..., and in place `a.add_(&b, None)`,
//! `a.mul_scalar_(2.0)`, ...
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::error::{Error, Result};
use crate::tensor::Tensor;

#[cold]
#[inline(never)]
#[track_caller]
fn op_failed(op: &str, e: Error) -> ! {
    panic!("tensorc: `{}` failed: {}", op, e)
}

#[inline(always)]
#[track_caller]
fn ok<T>(op: &str, r: Result<T>) -> T {
    match r {
        Ok(t) => t,
        Err(e) => op_failed(op, e),
    }
}

// Tensor op Tensor, for every owned/borrowed combination.
macro_rules! binary {
    ($trait:ident, $method:ident, $sym:expr, |$a:ident, $b:ident| $call:expr) => {
        impl $trait<&Tensor> for &Tensor {
            type Output = Tensor;
            #[inline]
            #[track_caller]
            fn $method(self, rhs: &Tensor) -> Tensor {
                let ($a, $b) = (self, rhs);
                ok($sym, $call)
            }
        }
        impl $trait<Tensor> for &Tensor {
            type Output = Tensor;
            #[inline]
            #[track_caller]
            fn $method(self, rhs: Tensor) -> Tensor {
                <&Tensor as $trait<&Tensor>>::$method(self, &rhs)
            }
        }
    };
}

binary!(Add, add, "+", |a, b| a.add(b, None));
binary!(Sub, sub, "-", |a, b| a.sub(b, None));
binary!(Mul, mul, "*", |a, b| a.mul(b));
binary!(Div, div, "/", |a, b| a.div(b));

// Tensor op number and number op Tensor.
macro_rules! with_scalar {
    ($($t:ty),*) => {$(
        impl Add<$t> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn add(self, rhs: $t) -> Tensor { ok("+", self.add_scalar(rhs, None)) }
        }
        impl Add<&Tensor> for $t {
            type Output = Tensor;
            #[track_caller]
            fn add(self, rhs: &Tensor) -> Tensor { ok("+", rhs.add_scalar(self, None)) }
        }
        impl Add<Tensor> for $t {
            type Output = Tensor;
            #[track_caller]
            fn add(self, rhs: Tensor) -> Tensor { self + &rhs }
        }
        impl Sub<$t> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn sub(self, rhs: $t) -> Tensor { ok("-", self.sub_scalar(rhs, None)) }
        }
        impl Sub<&Tensor> for $t {
            type Output = Tensor;
            /// `s - t` is `rsub(t, s)`.
            #[track_caller]
            fn sub(self, rhs: &Tensor) -> Tensor { ok("-", crate::ops::rsub_scalar(rhs, self, None)) }
        }
        impl Sub<Tensor> for $t {
            type Output = Tensor;
            #[track_caller]
            fn sub(self, rhs: Tensor) -> Tensor { self - &rhs }
        }
        impl Mul<$t> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn mul(self, rhs: $t) -> Tensor { ok("*", self.mul_scalar(rhs)) }
        }
        impl Mul<&Tensor> for $t {
            type Output = Tensor;
            #[track_caller]
            fn mul(self, rhs: &Tensor) -> Tensor { ok("*", rhs.mul_scalar(self)) }
        }
        impl Mul<Tensor> for $t {
            type Output = Tensor;
            #[track_caller]
            fn mul(self, rhs: Tensor) -> Tensor { self * &rhs }
        }
        impl Div<$t> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn div(self, rhs: $t) -> Tensor { ok("/", self.div_scalar(rhs)) }
        }
        impl Div<&Tensor> for $t {
            type Output = Tensor;
            /// `s / t` is `t.reciprocal() * s`, as PyTorch's `__rtruediv__`
            /// (a float `s` keeps its double precision: a zero-dim float32
            /// tensor holding it would round it first).
            #[track_caller]
            fn div(self, rhs: &Tensor) -> Tensor {
                ok("/", rhs.reciprocal().and_then(|r| r.mul_scalar(self)))
            }
        }
        impl Div<Tensor> for $t {
            type Output = Tensor;
            #[track_caller]
            fn div(self, rhs: Tensor) -> Tensor { self / &rhs }
        }
        impl AddAssign<$t> for Tensor {
            #[track_caller]
            fn add_assign(&mut self, rhs: $t) { ok("+=", self.add_scalar_(rhs, None).map(|_| ())) }
        }
        impl SubAssign<$t> for Tensor {
            #[track_caller]
            fn sub_assign(&mut self, rhs: $t) { ok("-=", self.sub_scalar_(rhs, None).map(|_| ())) }
        }
        impl MulAssign<$t> for Tensor {
            #[track_caller]
            fn mul_assign(&mut self, rhs: $t) { ok("*=", self.mul_scalar_(rhs).map(|_| ())) }
        }
        impl DivAssign<$t> for Tensor {
            #[track_caller]
            fn div_assign(&mut self, rhs: $t) { ok("/=", self.div_scalar_(rhs).map(|_| ())) }
        }
    )*};
}
// Only f64 and i64, so that literals infer (`&a * 2.0`, `&a + 1`); cast other numbers.
with_scalar!(f64, i64);

macro_rules! assign {
    ($trait:ident, $method:ident, $sym:expr, |$a:ident, $b:ident| $call:expr) => {
        impl $trait<&Tensor> for Tensor {
            /// In place (`self` must have the result's shape and a kind the
            /// result casts to); panics on error.
            #[track_caller]
            fn $method(&mut self, rhs: &Tensor) {
                let ($a, $b) = (self, rhs);
                ok($sym, $call.map(|_| ()))
            }
        }
        impl $trait<Tensor> for Tensor {
            #[track_caller]
            fn $method(&mut self, rhs: Tensor) {
                <Tensor as $trait<&Tensor>>::$method(self, &rhs)
            }
        }
    };
}
assign!(AddAssign, add_assign, "+=", |a, b| a.add_(b, None));
assign!(SubAssign, sub_assign, "-=", |a, b| a.sub_(b, None));
assign!(MulAssign, mul_assign, "*=", |a, b| a.mul_(b));
assign!(DivAssign, div_assign, "/=", |a, b| a.div_(b));

impl Neg for &Tensor {
    type Output = Tensor;
    #[track_caller]
    fn neg(self) -> Tensor {
        ok("-", Tensor::neg(self))
    }
}
