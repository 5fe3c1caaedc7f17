// SPDX-License-Identifier: BSD-3-Clause
// Autograd through the safe layer: backward, grad(), grad mode, gradcheck.
use tensorc::autograd::{self, EnableGradGuard, GradcheckOptions, NoGradGuard};
use tensorc::{ops, ErrorKind, Kind, Result, Tensor};

fn leaf(v: &[f64]) -> Tensor {
    let t = Tensor::from_slice(v, &[v.len() as i64]).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

#[test]
fn backward_accumulates_into_leaves() -> Result<()> {
    let w = leaf(&[1.0, 2.0, 3.0]);
    assert!(w.requires_grad() && w.is_leaf() && w.grad().is_none());
    let y = w.mul(&w)?;
    assert_eq!(y.grad_fn_name(), "MulBackward0");
    assert!(!y.is_leaf());
    y.sum(None)?.backward()?;
    assert_eq!(w.grad().unwrap().to_vec::<f64>()?, vec![2.0, 4.0, 6.0]);
    // a second graph accumulates
    (&w * 3.0).sum(None)?.backward()?;
    assert_eq!(w.grad().unwrap().to_vec::<f64>()?, vec![5.0, 7.0, 9.0]);
    w.set_grad(None)?;
    assert!(w.grad().is_none());
    Ok(())
}

#[test]
fn backward_with_a_gradient_and_retain_graph() -> Result<()> {
    let x = leaf(&[1.0, -2.0]);
    let y = x.mul_scalar(3)?;
    let g = Tensor::from_slice(&[1.0f64, 10.0], &[2])?;
    y.backward_with(Some(&g), true, false)?;
    assert_eq!(x.grad().unwrap().to_vec::<f64>()?, vec![3.0, 30.0]);
    y.backward_with(Some(&g), false, false)?; // the graph was kept
    assert_eq!(x.grad().unwrap().to_vec::<f64>()?, vec![6.0, 60.0]);
    // without retain_graph the saved tensors are gone
    let z = x.mul(&x)?.sum(None)?;
    z.backward()?;
    let e = z.backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    Ok(())
}

#[test]
fn backward_of_a_tensor_that_does_not_require_grad_is_an_error() {
    let t = Tensor::from_slice(&[1.0f32], &[1]).unwrap();
    let e = t.backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
}

#[test]
fn in_place_change_of_a_saved_tensor_is_caught() -> Result<()> {
    let x = leaf(&[1.0, 2.0]);
    let mut z = Tensor::from_slice(&[3.0f64, 4.0], &[2])?;
    let y = x.mul(&z)?.sum(None)?; // saves z for x's gradient
    z.add_scalar_(1, None)?;
    let e = y.backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    assert!(
        e.message().contains("in place") || e.message().contains("inplace") || e.message().contains("version"),
        "{}",
        e.message()
    );
    Ok(())
}

#[test]
fn no_grad_and_enable_grad_guards_nest() -> Result<()> {
    let x = leaf(&[1.0]);
    assert!(autograd::is_grad_enabled());
    {
        let _g = NoGradGuard::new();
        assert!(!autograd::is_grad_enabled());
        assert!(!x.mul_scalar(2)?.requires_grad());
        {
            let _e = EnableGradGuard::new();
            assert!(x.mul_scalar(2)?.requires_grad());
        }
        assert!(!autograd::is_grad_enabled());
    }
    assert!(autograd::is_grad_enabled());
    assert!(x.mul_scalar(2)?.requires_grad());
    let r = autograd::no_grad(|| x.mul_scalar(2))?;
    assert!(!r.requires_grad());
    // grad mode is per thread
    let _g = NoGradGuard::new();
    let other = std::thread::spawn(autograd::is_grad_enabled).join().unwrap();
    assert!(other);
    Ok(())
}

#[test]
fn sgd_step_in_place_under_no_grad() -> Result<()> {
    let mut w = leaf(&[1.0, 2.0]);
    w.mul(&w)?.sum(None)?.backward()?;
    let g = w.grad().unwrap();
    {
        let _g = NoGradGuard::new();
        w.sub_(&g, 0.25)?;
    }
    assert_eq!(w.to_vec::<f64>()?, vec![0.5, 1.0]);
    assert!(w.is_leaf() && w.requires_grad());
    Ok(())
}

#[test]
fn grad_function_and_higher_order() -> Result<()> {
    let x = leaf(&[1.0, 2.0]);
    let y = x.pow_tensor_scalar(3)?.sum(None)?;
    let g = autograd::grad(&[y], &[x.clone()], None, false, true)?;
    assert_eq!(g[0].to_vec::<f64>()?, vec![3.0, 12.0]); // 3x^2
    assert!(g[0].requires_grad());
    let gg = autograd::grad(&[g[0].sum(None)?], &[x.clone()], None, false, false)?;
    assert_eq!(gg[0].to_vec::<f64>()?, vec![6.0, 12.0]); // 6x
    assert!(x.grad().is_none(), "grad() does not touch .grad");
    // an unused input
    let u = leaf(&[5.0]);
    let y = x.sum(None)?;
    let e = autograd::grad(&[y.clone()], &[u.clone()], None, true, false).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    let r = autograd::grad_allow_unused(&[y], &[x.clone(), u], None, false, false)?;
    assert!(r[1].is_none());
    assert_eq!(r[0].as_ref().unwrap().to_vec::<f64>()?, vec![1.0, 1.0]);
    Ok(())
}

#[test]
fn several_roots_and_retain_grad() -> Result<()> {
    let x = leaf(&[1.0, 2.0]);
    let h = x.mul_scalar(2)?;
    h.retain_grad()?;
    let a = h.sum(None)?;
    let b = h.mul(&h)?.sum(None)?;
    autograd::backward(&[a, b], None, false, false)?;
    // d/dh (sum h + sum h^2) = 1 + 2h; dx = 2 * that
    assert_eq!(h.grad().unwrap().to_vec::<f64>()?, vec![5.0, 9.0]);
    assert_eq!(x.grad().unwrap().to_vec::<f64>()?, vec![10.0, 18.0]);
    Ok(())
}

#[test]
fn detach_cuts_history() -> Result<()> {
    let x = leaf(&[1.0]);
    let y = x.mul_scalar(2)?;
    let d = y.detach()?;
    assert!(!d.requires_grad() && d.is_leaf());
    let mut y2 = x.mul_scalar(2)?;
    y2.detach_()?;
    assert!(!y2.requires_grad());
    Ok(())
}

#[test]
fn gradcheck_of_rust_closures() -> Result<()> {
    let x = Tensor::from_slice(&[0.3f64, -0.7, 1.1], &[3])?;
    x.set_requires_grad(true)?;
    let w = Tensor::from_slice(&[0.5f64, 2.0, -1.0], &[3])?;
    w.set_requires_grad(true)?;
    let f = |ts: &[Tensor]| -> Result<Tensor> { ts[0].tanh()?.mul(&ts[1])?.sum(None) };
    autograd::gradcheck(f, &[x.clone(), w.clone()], GradcheckOptions::default())?;
    autograd::gradgradcheck(f, &[x.clone(), w.clone()], GradcheckOptions::default())?;
    // an error inside the closure comes back as its error
    let e =
        autograd::gradcheck(|ts: &[Tensor]| ts[0].mm(&ts[0]), &[x.clone()], GradcheckOptions::default()).unwrap_err();
    assert!(e.message().contains("mm"), "{}", e.message());
    // a panic inside the closure is caught
    let e = autograd::gradcheck(
        |_: &[Tensor]| -> Result<Tensor> { panic!("boom in gradcheck") },
        &[x],
        GradcheckOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    assert!(e.message().contains("boom in gradcheck"), "{}", e.message());
    Ok(())
}

#[test]
fn training_ops_have_gradients() -> Result<()> {
    let logits = Tensor::from_slice(&[1.0f64, 2.0, 0.5, -1.0, 0.0, 3.0], &[2, 3])?;
    logits.set_requires_grad(true)?;
    let target = Tensor::from_slice(&[1i64, 2], &[2])?;
    let loss = ops::cross_entropy_loss(&logits, &target, None, None, None, None)?;
    loss.backward()?;
    let g = logits.grad().unwrap();
    // softmax - onehot, averaged over the batch: each row sums to 0
    let rows = g.sum_dim_intlist(&[1], None, None)?.to_vec::<f64>()?;
    assert!(rows.iter().all(|r| r.abs() < 1e-12), "{:?}", rows);
    assert_eq!(g.kind(), Kind::Float64);
    Ok(())
}

#[test]
fn independent_graphs_on_several_threads() {
    let handles: Vec<_> = (0..4)
        .map(|k| {
            std::thread::spawn(move || -> Result<Vec<f64>> {
                let w = leaf(&[k as f64, 1.0]);
                for _ in 0..50 {
                    let loss = w.mul(&w)?.sum(None)?;
                    loss.backward()?;
                }
                let _g = NoGradGuard::new(); // per thread
                assert!(!autograd::is_grad_enabled());
                w.grad().unwrap().to_vec::<f64>()
            })
        })
        .collect();
    assert!(autograd::is_grad_enabled(), "the other threads' guards do not reach this one");
    for (k, h) in handles.into_iter().enumerate() {
        assert_eq!(h.join().unwrap().unwrap(), vec![100.0 * k as f64, 100.0]);
    }
}
