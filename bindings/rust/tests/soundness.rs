// SPDX-License-Identifier: BSD-3-Clause
// What the safe layer must hold even when C hands it odd data or a user's code
// misbehaves inside a callback: no invalid Rust value, no panic unwinding
// into C, no closure dropped twice or never, and the last error kept intact.
use std::ffi::CStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tensorc::autograd::Function;
use tensorc::{ops, sys, Error, ErrorKind, Kind, Result, Scalar, Tensor};

/// The byte behind a bool: a Rust bool must be 0 or 1.
fn byte(b: &bool) -> u8 {
    unsafe { *(b as *const bool as *const u8) }
}

/// A bool tensor whose bytes were never written: `empty` reuses the block of a
/// float tensor freed just before, whose bytes are 0x00 and 0x40 (2.0f32).
fn uninitialised_bools(n: i64) -> Tensor {
    drop(ops::full(&[n / 4], 2.0, Kind::Float32, None).unwrap());
    ops::empty(&[n], Kind::Bool, None).unwrap()
}

#[test]
fn bool_reads_never_make_invalid_bools() -> Result<()> {
    for _ in 0..10 {
        let b = uninitialised_bools(4096);
        let v = b.to_vec::<bool>()?;
        assert!(v.iter().all(|x| byte(x) <= 1), "to_vec::<bool> gave a byte other than 0 or 1");
        let mut buf = vec![false; 4096];
        b.copy_to_slice(&mut buf)?;
        assert!(buf.iter().all(|x| byte(x) <= 1), "copy_to_slice::<bool> wrote a byte other than 0 or 1");
        // the two agree (a byte other than 0 reads as true)
        assert_eq!(v, buf);
        // (item() and strided copies are not tried here: tensorc itself loads
        // these bytes as C++ bools there, which UBSan rejects in the ASan build)
    }
    // item() reads the scalar tensorc hands back by its byte too
    let mut s = sys::tc_scalar_bool(false);
    s.u.i = 0xbe;
    match Scalar::from_c(s) {
        Scalar::Bool(x) => assert!(x && byte(&x) == 1),
        other => panic!("{:?}", other),
    }
    // and valid data still round-trips, through a strided view too
    let t = Tensor::from_slice(&[true, false, true, true], &[2, 2])?;
    assert_eq!(t.t()?.to_vec::<bool>()?, vec![true, true, false, true]);
    assert!(t.i((1, 1))?.item::<bool>()?);
    let mut buf = [true; 2];
    t.i((.., 1))?.copy_to_slice(&mut buf)?;
    assert_eq!(buf, [false, true]);
    Ok(())
}

struct PanicOnDrop(Arc<AtomicUsize>);
impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
        panic!("a Drop that panics");
    }
}

fn identity_with(capture: PanicOnDrop) -> Function {
    Function::new(
        "Identityish",
        1,
        move |_c, i| {
            let _keep = &capture;
            Ok(vec![i[0].tensor()?.mul_scalar(1)?])
        },
        |_c, g| Ok(vec![Some(g[0].clone())]),
    )
    .unwrap()
}

#[test]
fn a_panicking_drop_of_a_closure_does_not_unwind_into_c() -> Result<()> {
    // The closures are dropped by tensorc (payload_destroy) when the last graph
    // using them goes: a panic there must be caught, or the process aborts.
    let drops = Arc::new(AtomicUsize::new(0));
    let f = identity_with(PanicOnDrop(drops.clone()));
    let x = Tensor::from_slice(&[1.0f64, 2.0], &[2])?;
    x.set_requires_grad(true)?;
    let y = f.apply1(&[(&x).into()])?;
    drop(f); // the graph of y still holds the closures
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    drop(y); // tc_tensor_release frees the graph, which calls payload_destroy
    assert_eq!(drops.load(Ordering::SeqCst), 1, "dropped exactly once, from C");
    // without a graph the handle is the last user
    let f = identity_with(PanicOnDrop(drops.clone()));
    drop(f);
    assert_eq!(drops.load(Ordering::SeqCst), 2);
    assert_eq!(x.use_count(), 1);
    Ok(())
}

#[test]
fn a_panicking_drop_of_a_saved_state_does_not_unwind_into_c() -> Result<()> {
    let drops = Arc::new(AtomicUsize::new(0));
    let d = drops.clone();
    let f = Function::new(
        "Stateful",
        1,
        move |ctx, i| {
            ctx.save_state(PanicOnDrop(d.clone()))?;
            Ok(vec![i[0].tensor()?.mul_scalar(2)?])
        },
        |ctx, g| {
            assert!(ctx.state::<PanicOnDrop>().is_some());
            Ok(vec![Some(g[0].mul_scalar(2)?)])
        },
    )?;
    // nothing recorded: the state is destroyed at once, by tensorc
    let plain = Tensor::from_slice(&[1.0f64], &[1])?;
    f.apply1(&[(&plain).into()])?;
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    // recorded: destroyed with the graph
    let x = Tensor::from_slice(&[1.0f64], &[1])?;
    x.set_requires_grad(true)?;
    let y = f.apply1(&[(&x).into()])?;
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    y.backward()?; // frees the graph (no retain_graph)
    drop(y);
    assert_eq!(drops.load(Ordering::SeqCst), 2);
    assert_eq!(x.grad().unwrap().item::<f64>()?, 2.0);
    Ok(())
}

fn last_error() -> (i32, String) {
    unsafe { (sys::tc_last_error_code(), CStr::from_ptr(sys::tc_last_error_message()).to_string_lossy().into_owned()) }
}

#[test]
fn code_run_by_a_destroy_keeps_the_last_error() -> Result<()> {
    // A closure's Drop that makes a failing tensorc call, run from inside
    // tensorc, must not replace the error a caller is about to read.
    struct FailsOnDrop;
    impl Drop for FailsOnDrop {
        fn drop(&mut self) {
            let t = Tensor::from_slice(&[1.0f32], &[1]).unwrap();
            assert!(t.size_dim(5).is_err()); // sets this thread's last error
        }
    }
    let capture = FailsOnDrop;
    let f = Function::new(
        "FailsOnDrop",
        1,
        move |_c, i| {
            let _keep = &capture;
            Ok(vec![i[0].tensor()?.mul_scalar(1)?])
        },
        |_c, g| Ok(vec![Some(g[0].clone())]),
    )?;
    unsafe { sys::tc_error_set(sys::TC_ERROR_TYPE, b"the caller's error\0".as_ptr() as *const _) };
    drop(f); // payload_destroy runs FailsOnDrop::drop
    assert_eq!(last_error(), (sys::TC_ERROR_TYPE, "the caller's error".to_string()));
    // and no error stays cleared
    unsafe { sys::tc_error_clear() };
    let f = Function::new(
        "Again",
        1,
        |_c, i| Ok(vec![i[0].tensor()?.mul_scalar(1)?]),
        |_c, g| Ok(vec![Some(g[0].clone())]),
    )?;
    let x = Tensor::from_slice(&[1.0f64], &[1])?;
    x.set_requires_grad(true)?;
    let y = f.apply1(&[(&x).into()])?;
    drop(f);
    drop(y);
    assert_eq!(last_error().0, sys::TC_OK);
    Ok(())
}

#[test]
fn closures_of_a_function_that_was_not_made_are_dropped_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    struct Probe(Arc<AtomicUsize>);
    impl Drop for Probe {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let (p1, p2) = (Probe(drops.clone()), Probe(drops.clone()));
    let e = Function::new(
        "bad\0name",
        1,
        move |_c, _i| {
            let _k = &p1;
            Ok(vec![])
        },
        move |_c, _g| {
            let _k = &p2;
            Ok(vec![])
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(drops.load(Ordering::SeqCst), 2);
}

#[test]
fn an_error_of_code_zero_from_a_callback_is_still_an_error() -> Result<()> {
    // ErrorKind::Unknown(0) is TC_OK's code: returned as is, tensorc would
    // take the callback as successful (and a backward as "no gradient").
    let f = Function::new(
        "ZeroCode",
        1,
        |_c, i| Ok(vec![i[0].tensor()?.mul_scalar(1)?]),
        |_c, _g| Err(Error::new(ErrorKind::Unknown(0), "backward failed with code 0")),
    )?;
    let x = Tensor::from_slice(&[1.0f64], &[1])?;
    x.set_requires_grad(true)?;
    let e = f.apply1(&[(&x).into()])?.backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    assert!(e.message().contains("backward failed with code 0"), "{}", e.message());
    assert!(x.grad().is_none());
    let g = Function::new(
        "ZeroCodeForward",
        1,
        |_c, _i| Err(Error::new(ErrorKind::Unknown(0), "forward failed with code 0")),
        |_c, g| Ok(vec![Some(g[0].clone())]),
    )?;
    let e = g.apply1(&[(&x).into()]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    assert!(e.message().contains("forward failed with code 0"), "{}", e.message());
    Ok(())
}

#[test]
fn unknown_status_codes() {
    let k = ErrorKind::from_code(42);
    assert_eq!(k, ErrorKind::Unknown(42));
    assert_eq!(k.code(), 42);
    assert_eq!(k.name(), "unknown error");
    assert_eq!(Error::new(k, "from a newer tensorc").to_string(), "unknown error: from a newer tensorc");
    for code in 1..=8 {
        let k = ErrorKind::from_code(code);
        assert!(!matches!(k, ErrorKind::Unknown(_)), "{} is a known status", code);
        assert_eq!(k.code(), code);
    }
}

#[test]
fn inclusive_ranges_at_the_ends_of_i64() -> Result<()> {
    let a = ops::arange(5, Kind::Int64, None)?;
    assert_eq!(a.i(2..=i64::MAX)?.to_vec::<i64>()?, vec![2, 3, 4]);
    assert_eq!(a.i(..=i64::MAX)?.to_vec::<i64>()?, vec![0, 1, 2, 3, 4]);
    assert_eq!(a.i(1..=-1)?.to_vec::<i64>()?, vec![1, 2, 3, 4]);
    assert_eq!(a.i(..=-2)?.to_vec::<i64>()?, vec![0, 1, 2, 3]);
    Ok(())
}

#[test]
fn tensors_captured_by_closures_are_released_once_when_c_drops_them() -> Result<()> {
    // The closures own a tensor with a graph of its own; tensorc drops them
    // (and so releases it) from inside the release of another graph.
    let w = Tensor::from_slice(&[1.0f64, 2.0], &[2])?;
    w.set_requires_grad(true)?;
    let h = w.mul_scalar(2)?; // holds w through its graph
    let h2 = h.clone();
    assert_eq!(w.use_count(), 2);
    // closures must be Sync and Tensor is not: a capture goes in a Mutex
    let (h, h2) = (Mutex::new(h), Mutex::new(h2));
    let f = Function::new(
        "Captures",
        1,
        move |_c, i| Ok(vec![i[0].tensor()?.mul(&h.lock().unwrap())?]),
        move |_c, g| Ok(vec![Some(g[0].mul(&h2.lock().unwrap())?)]),
    )?;
    let x = Tensor::from_slice(&[3.0f64, 4.0], &[2])?;
    x.set_requires_grad(true)?;
    let y = f.apply1(&[(&x).into()])?;
    drop(f);
    y.sum(None)?.backward()?;
    assert_eq!(x.grad().unwrap().to_vec::<f64>()?, vec![2.0, 4.0]);
    assert_eq!(w.use_count(), 2, "the closures still hold h, and h holds w");
    drop(y); // the last graph using the closures: h and h2 go, then h's graph
    assert_eq!(w.use_count(), 1);
    assert_eq!(x.use_count(), 1);
    Ok(())
}
