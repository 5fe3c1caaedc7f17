// SPDX-License-Identifier: BSD-3-Clause
// Errors come back as Error { kind, message } naming the op; operators panic.
use std::error::Error as _;

use tensorc::{ops, ErrorKind, Kind, Result, Tensor};

fn t(shape: &[i64]) -> Tensor {
    let n: i64 = shape.iter().product();
    ops::arange(n, Kind::Float32, None).unwrap().reshape(shape).unwrap()
}

#[test]
fn shapes_that_do_not_broadcast() {
    let e = t(&[2, 3]).add(&t(&[2]), None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().starts_with("add"), "{}", e.message());
    assert!(e.message().contains("[2, 3]") && e.message().contains("[2]"), "{}", e.message());
    assert_eq!(e.to_string(), format!("invalid argument: {}", e.message()));
    assert_eq!(e.code(), 1);
    assert!(e.source().is_none());
}

#[test]
fn matmul_shapes() {
    let e = t(&[2, 3]).mm(&t(&[2, 3])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("mm") && e.message().contains("mat2"), "{}", e.message());
}

#[test]
fn dims_out_of_range() {
    let e = t(&[2, 3]).select(5, 0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Index);
    assert!(e.message().contains("select") && e.message().contains("'dim'"), "{}", e.message());
    let e = t(&[2, 3]).size_dim(2).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Index);
    let e = t(&[2, 3]).i((0, 0, 0)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Index);
    assert!(e.message().contains("Tensor::i"), "{}", e.message());
    let e = t(&[2, 3]).i((0, 7)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Index);
    assert!(e.message().contains("select"), "{}", e.message());
}

#[test]
fn wrong_types_and_values() {
    let ints = Tensor::from_slice(&[1i64, 2], &[2]).unwrap();
    let e = ints.set_requires_grad(true).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Type);
    let e = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[2, 2]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("from_slice"), "{}", e.message());
    let e = t(&[2, 3]).item::<f32>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    let e = t(&[4]).view(&[3]).unwrap_err();
    assert!(e.message().contains("view"), "{}", e.message());
    let e = ops::gelu(&t(&[2]), "bogus").unwrap_err();
    assert!(e.message().contains("gelu"), "{}", e.message());
    // a NUL inside a string argument is caught before the C call
    let e = ops::gelu(&t(&[2]), "ta\0nh").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("approximate"), "{}", e.message());
    let e = tensorc::op_dump_table("no_such_op").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotImplemented);
    assert!(tensorc::set_num_threads(0).is_err());
}

#[test]
fn errors_are_per_call_and_do_not_stick() -> Result<()> {
    let a = t(&[2, 3]);
    assert!(a.add(&t(&[4]), None).is_err());
    // the next call succeeds and is unaffected by the last error
    assert_eq!(a.add(&a, None)?.sum(None)?.item::<f32>()?, 30.0);
    Ok(())
}

#[test]
fn errors_on_other_threads_are_their_own() {
    let h = std::thread::spawn(|| t(&[2]).mm(&t(&[2])).unwrap_err());
    let e = t(&[2, 3]).add(&t(&[2]), None).unwrap_err();
    let e2 = h.join().unwrap();
    assert!(e.message().starts_with("add"));
    assert!(e2.message().contains("mm"), "{}", e2.message());
}

#[test]
#[should_panic(expected = "tensorc: `+` failed: invalid argument: add")]
fn operators_panic_with_the_message() {
    let _ = &t(&[2, 3]) + &t(&[2]);
}

#[test]
#[should_panic(expected = "tensorc: `*=` failed")]
fn compound_assignment_panics_too() {
    let mut a = t(&[2, 3]);
    a *= t(&[5]);
}
