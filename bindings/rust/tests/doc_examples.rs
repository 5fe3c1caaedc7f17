// SPDX-License-Identifier: BSD-3-Clause
// The examples of docs/rust.md and of the crate docs, as written there.
use tensorc::autograd::{Function, NoGradGuard, Value};
use tensorc::{ops, Kind, Result, Tensor};

#[test]
fn guide_first_example() -> Result<()> {
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    let w = ops::randn(&[3, 2], None, Kind::Float32, None)?;
    w.set_requires_grad(true)?;
    let loss = x.matmul(&w)?.relu()?.sum(None)?;
    loss.backward()?;
    let mut w = w;
    let before = w.to_vec::<f32>()?;
    {
        let _no_grad = NoGradGuard::new();
        w.sub_(&w.grad().unwrap(), 0.1)?; // w -= 0.1 * grad, in place
    }
    let g = w.grad().unwrap().to_vec::<f32>()?;
    let after = w.to_vec::<f32>()?;
    for i in 0..6 {
        assert!((after[i] - (before[i] - 0.1 * g[i])).abs() < 1e-6);
    }
    assert_eq!(format!("{}", &x * 2.0), "tensor([[ 2.,  4.,  6.],\n        [ 8., 10., 12.]])");
    Ok(())
}

#[test]
fn crate_docs_example() -> Result<()> {
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    let y = &x * 2.0;
    let s = y.sum_dim_intlist(&[1], None, None)?;
    assert_eq!(s.to_vec::<f32>()?, vec![12.0, 30.0]);
    let z = ops::zeros(&[2, 3], Kind::Float64, None)?;
    assert_eq!(z.kind(), Kind::Float64);
    // autograd module docs
    let w = Tensor::from_slice(&[1.0f32, 2.0], &[2])?;
    w.set_requires_grad(true)?;
    let loss = (&w * &w).sum(None)?;
    loss.backward()?;
    assert_eq!(w.grad().unwrap().to_vec::<f32>()?, vec![2.0, 4.0]);
    let mut w = w;
    {
        let _guard = NoGradGuard::new();
        w.sub_(&w.grad().unwrap(), 0.1)?;
    }
    assert_eq!(w.to_vec::<f32>()?, vec![0.8, 1.6]);
    Ok(())
}

#[test]
fn guide_custom_function_example() -> Result<()> {
    let x = Tensor::from_slice(&[3.0f64], &[1])?;
    x.set_requires_grad(true)?;
    let square = Function::new(
        "Square",
        1,
        |ctx, inputs| {
            let x = inputs[0].tensor()?;
            ctx.save_for_backward(&[x])?;
            Ok(vec![x.mul(x)?])
        },
        |ctx, grads| {
            let x = &ctx.saved_tensors()?[0];
            Ok(vec![Some(grads[0].mul(x)?.mul_scalar(2)?)])
        },
    )?;
    let y = square.apply1(&[Value::from(&x)])?;
    assert_eq!(y.grad_fn_name(), "SquareBackward");
    y.backward()?;
    assert_eq!(x.grad().unwrap().item::<f64>()?, 6.0);
    Ok(())
}
