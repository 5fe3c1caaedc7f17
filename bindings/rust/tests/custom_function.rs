// SPDX-License-Identifier: BSD-3-Clause
// Custom autograd functions written as Rust closures.
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tensorc::autograd::{self, Function, GradcheckOptions, Value};
use tensorc::{Error, ErrorKind, Result, Tensor};

fn leaf(v: &[f64]) -> Tensor {
    let t = Tensor::from_slice(v, &[v.len() as i64]).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

fn square() -> Function {
    Function::new(
        "Square",
        1,
        |ctx, inputs| {
            let x = inputs[0].tensor()?;
            assert!(!autograd::is_grad_enabled(), "forward runs without recording");
            ctx.save_for_backward(&[x])?;
            Ok(vec![x.mul(x)?])
        },
        |ctx, grads| {
            let saved = ctx.saved_tensors()?;
            Ok(vec![Some(grads[0].mul(&saved[0])?.mul_scalar(2)?)])
        },
    )
    .unwrap()
}

#[test]
fn forward_and_backward_closures() -> Result<()> {
    let f = square();
    let x = leaf(&[1.0, -2.0, 3.0]);
    let y = f.apply1(&[(&x).into()])?;
    assert_eq!(y.to_vec::<f64>()?, vec![1.0, 4.0, 9.0]);
    assert!(y.requires_grad());
    assert_eq!(y.grad_fn_name(), "SquareBackward");
    y.sum(None)?.backward()?;
    assert_eq!(x.grad().unwrap().to_vec::<f64>()?, vec![2.0, -4.0, 6.0]);
    // without an input that requires grad nothing is recorded
    let plain = Tensor::from_slice(&[2.0f64], &[1])?;
    let y = f.apply1(&[Value::Tensor(&plain)])?;
    assert!(!y.requires_grad());
    assert_eq!(y.item::<f64>()?, 4.0);
    Ok(())
}

#[test]
fn higher_order_through_a_custom_backward() -> Result<()> {
    let f = square();
    let x = leaf(&[3.0]);
    let y = f.apply1(&[(&x).into()])?;
    let g = autograd::grad(&[y], &[x.clone()], None, false, true)?;
    assert_eq!(g[0].item::<f64>()?, 6.0);
    let gg = autograd::grad(&[g[0].clone()], &[x], None, false, false)?;
    assert_eq!(gg[0].item::<f64>()?, 2.0);
    Ok(())
}

#[test]
fn gradcheck_of_a_custom_function() -> Result<()> {
    let f = square();
    let x = leaf(&[0.5, -1.5]);
    autograd::gradcheck(|ts: &[Tensor]| f.apply1(&[(&ts[0]).into()])?.sum(None), &[x], GradcheckOptions::default())
}

#[test]
fn non_tensor_inputs_state_and_needs_input_grad() -> Result<()> {
    let seen: Arc<Mutex<Vec<bool>>> = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    // f(x, w, k) = (x * w) * k
    let f = Function::new(
        "ScaledMul",
        1,
        |ctx, inputs| {
            let (x, w, k) = (inputs[0].tensor()?, inputs[1].tensor()?, inputs[2].f64()?);
            assert_eq!(ctx.num_inputs(), 3);
            ctx.save_for_backward(&[x, w])?;
            ctx.save_state(k)?;
            Ok(vec![x.mul(w)?.mul_scalar(k)?])
        },
        move |ctx, grads| {
            let needs: Vec<bool> = (0..3).map(|i| ctx.needs_input_grad(i)).collect::<Result<_>>()?;
            *seen2.lock().unwrap() = needs.clone();
            let k = *ctx.state::<f64>().expect("the state saved by forward");
            assert!(ctx.state::<i32>().is_none(), "state of another type");
            let s = ctx.saved_tensors()?;
            let gx = if needs[0] { Some(grads[0].mul(&s[1])?.mul_scalar(k)?) } else { None };
            let gw = if needs[1] { Some(grads[0].mul(&s[0])?.mul_scalar(k)?) } else { None };
            Ok(vec![gx, gw, None])
        },
    )?;
    let x = leaf(&[1.0, 2.0]);
    let w = Tensor::from_slice(&[10.0f64, 20.0], &[2])?; // no grad
    let y = f.apply1(&[(&x).into(), (&w).into(), Value::Float(0.5)])?;
    assert_eq!(y.to_vec::<f64>()?, vec![5.0, 20.0]);
    y.sum(None)?.backward()?;
    assert_eq!(*seen.lock().unwrap(), vec![true, false, false]);
    assert_eq!(x.grad().unwrap().to_vec::<f64>()?, vec![5.0, 10.0]);
    assert!(w.grad().is_none());
    Ok(())
}

#[test]
fn mark_non_differentiable_outputs() -> Result<()> {
    // (sorted-ish) max and its index; the index gets no gradient
    let f = Function::new(
        "MaxWithIndex",
        2,
        |ctx, inputs| {
            let x = inputs[0].tensor()?;
            let (v, i) = x.max_dim(0, None)?;
            ctx.mark_non_differentiable(&[&i])?;
            ctx.save_for_backward(&[x, &i])?;
            Ok(vec![v, i])
        },
        |ctx, grads| {
            let s = ctx.saved_tensors()?;
            let mut g = tensorc::ops::zeros_like(&s[0], None, None)?;
            let idx = s[1].item::<i64>()?;
            g.i(idx)?.copy_(&grads[0], None)?;
            g = g.mul_scalar(1)?; // a fresh tensor
            Ok(vec![Some(g)])
        },
    )?;
    let x = leaf(&[1.0, 7.0, 3.0]);
    let out = f.apply(&[(&x).into()])?;
    assert_eq!(out.len(), 2);
    assert!(out[0].requires_grad());
    assert!(!out[1].requires_grad());
    assert_eq!(out[1].item::<i64>()?, 1);
    out[0].backward()?;
    assert_eq!(x.grad().unwrap().to_vec::<f64>()?, vec![0.0, 1.0, 0.0]);
    Ok(())
}

#[test]
fn mark_dirty_for_in_place_forward() -> Result<()> {
    let f = Function::new(
        "AddOneInPlace",
        1,
        |ctx, inputs| {
            let mut x = inputs[0].tensor()?.clone(); // another handle to the input
            x.add_scalar_(1, None)?;
            ctx.mark_dirty(&[&x])?;
            Ok(vec![x])
        },
        |_ctx, grads| Ok(vec![Some(grads[0].clone())]),
    )?;
    let leaf_x = leaf(&[1.0, 2.0]);
    let a = leaf_x.mul_scalar(2)?; // a non-leaf may be modified in place
    let v0 = a.version();
    let y = f.apply1(&[(&a).into()])?;
    assert!(a.version() > v0);
    assert_eq!(a.to_vec::<f64>()?, vec![3.0, 5.0]);
    assert_eq!(y.to_vec::<f64>()?, vec![3.0, 5.0]);
    y.sum(None)?.backward()?;
    assert_eq!(leaf_x.grad().unwrap().to_vec::<f64>()?, vec![2.0, 2.0]);
    Ok(())
}

#[test]
fn errors_from_closures_come_back_with_kind_and_message() -> Result<()> {
    let f = Function::new(
        "Picky",
        1,
        |_ctx, inputs| {
            let x = inputs[0].tensor()?;
            if x.numel() > 2 {
                return Err(Error::new(ErrorKind::Type, "Picky wants at most 2 elements"));
            }
            Ok(vec![x.mul_scalar(1)?])
        },
        |_ctx, _grads| Err(Error::new(ErrorKind::NotImplemented, "Picky has no backward yet")),
    )?;
    let e = f.apply1(&[(&leaf(&[1.0, 2.0, 3.0])).into()]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Type);
    assert!(e.message().contains("Picky wants at most 2 elements"), "{}", e.message());
    let y = f.apply1(&[(&leaf(&[1.0])).into()])?;
    let e = y.backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotImplemented);
    assert!(e.message().contains("Picky has no backward yet"), "{}", e.message());
    // an error of a tensorc op inside forward keeps its own kind and message
    let g = Function::new(
        "Bad",
        1,
        |_c, i| Ok(vec![i[0].tensor()?.mm(i[0].tensor()?)?]),
        |_c, g| Ok(vec![Some(g[0].clone())]),
    )?;
    let e = g.apply1(&[(&leaf(&[1.0, 2.0])).into()]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("mm"), "{}", e.message());
    // a non-tensor where a tensor is expected
    let e = g.apply1(&[Value::Int(3)]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Type);
    Ok(())
}

#[test]
fn wrong_output_counts_are_errors() -> Result<()> {
    let f = Function::new(
        "TooMany",
        1,
        |_c, i| {
            let x = i[0].tensor()?;
            Ok(vec![x.mul_scalar(1)?, x.mul_scalar(2)?])
        },
        |_c, g| Ok(vec![Some(g[0].clone())]),
    )?;
    let e = f.apply1(&[(&leaf(&[1.0])).into()]).unwrap_err();
    assert!(e.message().contains("returned 2 tensors, expected 1"), "{}", e.message());
    let g = Function::new("FewGrads", 1, |_c, i| Ok(vec![i[0].tensor()?.mul_scalar(1)?]), |_c, _g| Ok(vec![]))?;
    let y = g.apply1(&[(&leaf(&[1.0])).into()])?;
    let e = y.backward().unwrap_err();
    assert!(e.message().contains("returned 0 gradients, expected 1"), "{}", e.message());
    Ok(())
}

#[test]
fn a_panic_in_forward_is_caught_and_becomes_an_error() {
    let f = Function::new(
        "Boom",
        1,
        |_c, _i| -> Result<Vec<Tensor>> { panic!("kaboom {}", 42) },
        |_c, g| Ok(vec![Some(g[0].clone())]),
    )
    .unwrap();
    let x = leaf(&[1.0]);
    let e = f.apply1(&[(&x).into()]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    assert!(e.message().ends_with("Boom forward panicked: kaboom 42"), "{}", e.message());
    // everything still works afterwards, on this thread
    assert_eq!(square().apply1(&[(&x).into()]).unwrap().item::<f64>().unwrap(), 1.0);
    assert!(autograd::is_grad_enabled(), "the grad mode forward ran under was restored");
    assert_eq!(x.use_count(), 1);
}

#[test]
fn a_panic_in_backward_is_caught_and_becomes_an_error() -> Result<()> {
    let f = Function::new(
        "BoomBack",
        1,
        |_c, i| Ok(vec![i[0].tensor()?.mul_scalar(2)?]),
        |_c, _g| -> Result<Vec<Option<Tensor>>> { panic!("backward went {}", "wrong") },
    )?;
    let x = leaf(&[1.0, 2.0]);
    let y = f.apply1(&[(&x).into()])?;
    let e = y.sum(None)?.backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    assert!(e.message().contains("BoomBack backward panicked: backward went wrong"), "{}", e.message());
    assert!(x.grad().is_none());
    Ok(())
}

#[test]
fn closures_live_while_a_graph_uses_them_and_are_dropped_once() -> Result<()> {
    struct Probe(Arc<AtomicUsize>);
    impl Drop for Probe {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let ran_backward = Arc::new(AtomicBool::new(false));
    let (p1, p2, rb) = (Probe(drops.clone()), Probe(drops.clone()), ran_backward.clone());
    let f = Function::new(
        "Probed",
        1,
        move |_c, i| {
            let _keep = &p1;
            Ok(vec![i[0].tensor()?.mul_scalar(3)?])
        },
        move |_c, g| {
            let _keep = &p2;
            rb.store(true, Ordering::SeqCst);
            Ok(vec![Some(g[0].mul_scalar(3)?)])
        },
    )?;
    let x = leaf(&[1.0]);
    let y = f.apply1(&[(&x).into()])?;
    drop(f); // the graph still holds the definition and its closures
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    y.backward()?;
    assert!(ran_backward.load(Ordering::SeqCst));
    assert_eq!(x.grad().unwrap().item::<f64>()?, 3.0);
    drop(y); // the last user of the definition
    assert_eq!(drops.load(Ordering::SeqCst), 2, "both closures dropped exactly once");
    Ok(())
}
