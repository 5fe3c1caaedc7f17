// SPDX-License-Identifier: BSD-3-Clause
// Reference counts across the binding boundary, read with tc_tensor_use_count.
// A leak shows as a count above the expected one, a double release as a count
// below it (or a crash), so each step asserts the exact count.
use tensorc::autograd::{self, Function};
use tensorc::{ops, Kind, Result, Tensor};

fn fresh() -> Tensor {
    Tensor::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4]).unwrap()
}

#[test]
fn clone_retains_and_drop_releases() {
    let a = fresh();
    assert_eq!(a.use_count(), 1);
    let b = a.clone();
    assert_eq!((a.use_count(), b.use_count()), (2, 2));
    assert_eq!(a.as_raw(), b.as_raw(), "a clone is the same tensor");
    let c = b.clone();
    assert_eq!(a.use_count(), 3);
    drop(b);
    assert_eq!(a.use_count(), 2);
    drop(c);
    assert_eq!(a.use_count(), 1);
}

#[test]
fn moves_do_not_touch_the_count() {
    let a = fresh();
    let raw = a.as_raw();
    let mut v = vec![a];
    assert_eq!(v[0].use_count(), 1);
    let a = v.pop().unwrap();
    assert_eq!(a.as_raw(), raw);
    let keep = a.clone();
    let f = move |t: Tensor| t.use_count();
    assert_eq!(f(a), 2);
    assert_eq!(keep.use_count(), 1, "the moved handle was released once, by the closure");
    // moved to another thread and dropped there
    let other = keep.clone();
    std::thread::spawn(move || {
        assert_eq!(other.use_count(), 2);
        drop(other);
    })
    .join()
    .unwrap();
    assert_eq!(keep.use_count(), 1);
}

#[test]
fn raw_round_trip() {
    let a = fresh();
    let b = a.clone();
    let raw = b.into_raw();
    assert_eq!(a.use_count(), 2, "into_raw keeps the reference");
    let b = unsafe { Tensor::from_raw(raw) }.unwrap();
    assert_eq!(a.use_count(), 2);
    drop(b);
    assert_eq!(a.use_count(), 1);
    assert!(unsafe { Tensor::from_raw(std::ptr::null_mut()) }.is_none());
}

#[test]
fn op_results_are_fresh_and_inputs_untouched() -> Result<()> {
    let a = fresh();
    let b = a.add(&a, None)?;
    assert_eq!((a.use_count(), b.use_count()), (1, 1));
    let c = &a * &b;
    assert_eq!((a.use_count(), b.use_count(), c.use_count()), (1, 1, 1));
    let (v, i) = a.max_dim(0, None)?;
    assert_eq!((v.use_count(), i.use_count()), (1, 1));
    let s = a.i(2)?; // a view: shares the storage, not a reference to a
    assert_eq!((a.use_count(), s.use_count()), (1, 1));
    // a failed op leaves no reference behind
    assert!(a.add(&Tensor::from_slice(&[1.0f64, 2.0], &[2])?, None).is_err());
    assert_eq!(a.use_count(), 1);
    // in place returns the same handle
    let mut m = a.deep_clone()?;
    let raw = m.as_raw();
    let r = m.add_scalar_(1, None)?;
    assert_eq!(r.as_raw(), raw);
    assert_eq!(m.use_count(), 1);
    let mut out = ops::empty(&[0], Kind::Float64, None)?;
    ops::mul_out(&mut out, &a, &a)?;
    assert_eq!((out.use_count(), a.use_count()), (1, 1));
    Ok(())
}

#[test]
fn list_results_release_the_list() -> Result<()> {
    let a = fresh();
    let parts = a.chunk(2, None)?;
    assert_eq!(parts.len(), 2);
    for p in &parts {
        assert_eq!(p.use_count(), 1, "the list handle was released after its tensors were taken");
    }
    let cat = ops::cat(&parts, None)?;
    assert_eq!(cat.use_count(), 1);
    assert_eq!(parts[0].use_count(), 1, "a Tensor[] argument is borrowed");
    let st = ops::stack(&[a.clone(), a.clone()], None)?;
    assert_eq!((st.use_count(), a.use_count()), (1, 1));
    Ok(())
}

#[test]
fn autograd_references_go_away_with_the_graph() -> Result<()> {
    let x = fresh();
    x.set_requires_grad(true)?;
    assert_eq!(x.use_count(), 1);
    let y = x.mul(&x)?;
    let in_graph = x.use_count();
    assert!(in_graph > 1, "the graph holds x");
    let loss = y.sum(None)?;
    assert_eq!(loss.use_count(), 1);
    loss.backward()?;
    drop(loss);
    drop(y);
    assert_eq!(x.use_count(), 1, "no reference left once the graph is gone");
    // grad() hands out a new reference each time; .grad keeps its own
    let g = x.grad().unwrap();
    assert_eq!(g.use_count(), 2);
    let g2 = x.grad().unwrap();
    assert_eq!(g.use_count(), 3);
    drop(g2);
    assert_eq!(g.use_count(), 2);
    x.set_grad(None)?;
    assert_eq!(g.use_count(), 1, "clearing .grad released tensorc's reference");
    // grad() results
    let y = x.mul(&x)?.sum(None)?;
    let gs = autograd::grad(&[y.clone()], &[x.clone()], None, false, false)?;
    assert_eq!(gs[0].use_count(), 1);
    drop(y);
    assert_eq!(x.use_count(), 1);
    // set_grad borrows its argument
    let h = Tensor::from_slice(&[0.0f64; 4], &[4])?;
    x.set_grad(Some(&h))?;
    assert_eq!(h.use_count(), 2);
    x.set_grad(None)?;
    assert_eq!(h.use_count(), 1);
    Ok(())
}

#[test]
fn custom_function_references() -> Result<()> {
    use std::sync::atomic::{AtomicI64, Ordering};
    use std::sync::Arc;
    let in_forward = Arc::new(AtomicI64::new(0));
    let in_backward = Arc::new(AtomicI64::new(0));
    let (f1, b1) = (in_forward.clone(), in_backward.clone());
    let f = Function::new(
        "Counted",
        1,
        move |ctx, inputs| {
            let x = inputs[0].tensor()?;
            f1.store(x.use_count(), Ordering::SeqCst); // borrowed: no extra reference
            ctx.save_for_backward(&[x])?;
            Ok(vec![x.mul_scalar(2)?])
        },
        move |ctx, grads| {
            let saved = ctx.saved_tensors()?;
            b1.store(grads[0].use_count(), Ordering::SeqCst);
            drop(saved);
            Ok(vec![Some(grads[0].mul_scalar(2)?)])
        },
    )?;
    let x = fresh();
    assert_eq!(f.apply1(&[(&x).into()])?.use_count(), 1);
    // x's own handle + the input list tc_function_apply holds while it runs;
    // the binding passes the input to the closure borrowed, adding none.
    assert_eq!(in_forward.load(Ordering::SeqCst), 2, "inputs are borrowed, not retained");
    assert_eq!(x.use_count(), 1, "nothing recorded: the saved input was let go");
    x.set_requires_grad(true)?;
    let y = f.apply1(&[(&x).into()])?;
    assert_eq!(y.use_count(), 1);
    assert!(x.use_count() > 1, "the graph holds the saved input");
    y.sum(None)?.backward()?;
    assert!(in_backward.load(Ordering::SeqCst) >= 1);
    drop(y);
    assert_eq!(x.use_count(), 1, "the graph and the saved input are gone");
    let g = x.grad().unwrap();
    assert_eq!(g.use_count(), 2);
    assert_eq!(g.to_vec::<f64>()?, vec![2.0; 4]);
    Ok(())
}

#[test]
fn many_ops_leave_counts_exact() -> Result<()> {
    // a loop that would show a leak of one reference per op
    let a = fresh();
    let w = fresh();
    w.set_requires_grad(true)?;
    for _ in 0..100 {
        let loss = (&(&a * &w) + 1.0).sum(None)?;
        loss.backward()?;
        w.set_grad(None)?;
    }
    assert_eq!((a.use_count(), w.use_count()), (1, 1));
    Ok(())
}
