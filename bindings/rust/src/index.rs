// SPDX-License-Identifier: BSD-3-Clause
//! Indexing in the style of `t[1:3, 0, None, ...]`: [`Tensor::i`].
//!
//! ```rust
//! use tensorc::{NewAxis, Ellipsis};
//! let row = t.i(1)?;                    // t[1]
//! let block = t.i((1..3, ..))?;         // t[1:3, :]
//! let col = t.i((.., 0))?;              // t[:, 0]
//! let e = t.i((Ellipsis, NewAxis))?;    // t[..., None]
//! let s = t.i(Idx::Slice { start: Some(0), end: None, step: 2 })?; // t[0::2]
//! ```
//! Every result is a view (`select`, `slice`, `unsqueeze`) sharing `t`'s
//! storage; ranges are `i64` (negative values count from the end).
use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

use crate::error::{Error, ErrorKind, Result};
use crate::tensor::Tensor;

/// One index of [`Tensor::i`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Idx {
    /// Selects one position and removes the dimension (`t[2]`; negative from the end).
    Int(i64),
    /// A slice of a dimension (`t[start:end:step]`); `None` is the whole range.
    Slice { start: Option<i64>, end: Option<i64>, step: i64 },
    /// Inserts a dimension of size 1 (`None` / `np.newaxis`).
    NewAxis,
    /// Stands for as many full slices as needed (`...`).
    Ellipsis,
}

/// `NewAxis` as a value usable in an index tuple: `t.i((.., NewAxis))`.
#[derive(Clone, Copy, Debug)]
pub struct NewAxis;
/// `Ellipsis` as a value usable in an index tuple: `t.i((Ellipsis, 0))`.
#[derive(Clone, Copy, Debug)]
pub struct Ellipsis;

impl From<i64> for Idx {
    fn from(i: i64) -> Idx {
        Idx::Int(i)
    }
}
impl From<NewAxis> for Idx {
    fn from(_: NewAxis) -> Idx {
        Idx::NewAxis
    }
}
impl From<Ellipsis> for Idx {
    fn from(_: Ellipsis) -> Idx {
        Idx::Ellipsis
    }
}
impl From<RangeFull> for Idx {
    fn from(_: RangeFull) -> Idx {
        Idx::Slice { start: None, end: None, step: 1 }
    }
}
impl From<Range<i64>> for Idx {
    fn from(r: Range<i64>) -> Idx {
        Idx::Slice { start: Some(r.start), end: Some(r.end), step: 1 }
    }
}
impl From<RangeFrom<i64>> for Idx {
    fn from(r: RangeFrom<i64>) -> Idx {
        Idx::Slice { start: Some(r.start), end: None, step: 1 }
    }
}
impl From<RangeTo<i64>> for Idx {
    fn from(r: RangeTo<i64>) -> Idx {
        Idx::Slice { start: None, end: Some(r.end), step: 1 }
    }
}
/// The exclusive end of an inclusive one: -1 inclusive (and i64::MAX) is
/// "to the end".
fn inclusive_end(end: i64) -> Option<i64> {
    if end == -1 {
        None
    } else {
        end.checked_add(1)
    }
}
impl From<RangeInclusive<i64>> for Idx {
    fn from(r: RangeInclusive<i64>) -> Idx {
        Idx::Slice { start: Some(*r.start()), end: inclusive_end(*r.end()), step: 1 }
    }
}
impl From<RangeToInclusive<i64>> for Idx {
    fn from(r: RangeToInclusive<i64>) -> Idx {
        Idx::Slice { start: None, end: inclusive_end(r.end), step: 1 }
    }
}

/// What [`Tensor::i`] takes: one index, a tuple of up to six, or a slice /
/// `Vec` of [`Idx`].
pub trait IndexSpec {
    fn to_indices(self) -> Vec<Idx>;
}

macro_rules! single {
    ($($t:ty),*) => {$(
        impl IndexSpec for $t {
            fn to_indices(self) -> Vec<Idx> { vec![Idx::from(self)] }
        }
    )*};
}
single!(
    i64,
    NewAxis,
    Ellipsis,
    RangeFull,
    Range<i64>,
    RangeFrom<i64>,
    RangeTo<i64>,
    RangeInclusive<i64>,
    RangeToInclusive<i64>
);

impl IndexSpec for Idx {
    fn to_indices(self) -> Vec<Idx> {
        vec![self]
    }
}
impl IndexSpec for &[Idx] {
    fn to_indices(self) -> Vec<Idx> {
        self.to_vec()
    }
}
impl<const N: usize> IndexSpec for &[Idx; N] {
    fn to_indices(self) -> Vec<Idx> {
        self.to_vec()
    }
}
impl IndexSpec for Vec<Idx> {
    fn to_indices(self) -> Vec<Idx> {
        self
    }
}

macro_rules! tuple {
    ($($name:ident),+) => {
        impl<$($name: Into<Idx>),+> IndexSpec for ($($name,)+) {
            #[allow(non_snake_case)]
            fn to_indices(self) -> Vec<Idx> {
                let ($($name,)+) = self;
                vec![$($name.into()),+]
            }
        }
    };
}
tuple!(A);
tuple!(A, B);
tuple!(A, B, C);
tuple!(A, B, C, D);
tuple!(A, B, C, D, E);
tuple!(A, B, C, D, E, F);

impl Tensor {
    /// Indexes like Python's `t[...]`: integers select (and drop the
    /// dimension), ranges slice, [`NewAxis`] inserts a dimension, [`Ellipsis`]
    /// fills the dimensions not indexed. The result is a view. Errors name the
    /// op that failed (`select.int`, `slice.Tensor`, ...) or, for more indices
    /// than dimensions, `Tensor::i`.
    pub fn i(&self, index: impl IndexSpec) -> Result<Tensor> {
        self.index_with(&index.to_indices())
    }

    /// [`Tensor::i`] over a slice of [`Idx`].
    pub fn index_with(&self, index: &[Idx]) -> Result<Tensor> {
        let ndim = self.dim() as i64;
        let consuming = index.iter().filter(|i| matches!(i, Idx::Int(_) | Idx::Slice { .. })).count() as i64;
        let ellipses = index.iter().filter(|i| matches!(i, Idx::Ellipsis)).count();
        if ellipses > 1 {
            return Err(Error::new(ErrorKind::InvalidArgument, "Tensor::i: at most one Ellipsis is allowed"));
        }
        if consuming > ndim {
            return Err(Error::new(
                ErrorKind::Index,
                format!("Tensor::i: {} indices for a tensor of {} dimensions", consuming, ndim),
            ));
        }
        let mut t = self.clone();
        let mut dim = 0i64;
        for idx in index {
            match *idx {
                Idx::Int(i) => t = t.select(dim, i)?,
                Idx::Slice { start, end, step } => {
                    t = t.slice(dim, start, end, step)?;
                    dim += 1;
                }
                Idx::NewAxis => {
                    t = t.unsqueeze(dim)?;
                    dim += 1;
                }
                Idx::Ellipsis => dim += ndim - consuming,
            }
        }
        Ok(t)
    }
}
