// SPDX-License-Identifier: BSD-3-Clause
// Ops through the safe layer against known values.
use std::convert::TryFrom;

use tensorc::{ops, Device, Ellipsis, Generator, Idx, Kind, NewAxis, Result, Scalar, Tensor};

fn t2x3() -> Tensor {
    Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap()
}

#[test]
fn from_slice_round_trips_every_element_type() -> Result<()> {
    let f = Tensor::from_slice(&[1.5f64, -2.0], &[2])?;
    assert_eq!(f.kind(), Kind::Float64);
    assert_eq!(f.to_vec::<f64>()?, vec![1.5, -2.0]);
    let i = Tensor::from_slice(&[1i64, 2, 3, 4], &[2, 2])?;
    assert_eq!((i.kind(), i.size(), i.dim(), i.numel()), (Kind::Int64, vec![2, 2], 2, 4));
    assert_eq!(i.to_vec::<i64>()?, vec![1, 2, 3, 4]);
    assert_eq!(Tensor::from_slice(&[7i32], &[])?.item::<i32>()?, 7);
    assert_eq!(Tensor::from_slice(&[3u8, 250], &[2])?.to_vec::<u8>()?, vec![3, 250]);
    assert_eq!(Tensor::from_slice(&[-3i8], &[1])?.to_vec::<i8>()?, vec![-3]);
    assert_eq!(Tensor::from_slice(&[-300i16], &[1])?.to_vec::<i16>()?, vec![-300]);
    let b = Tensor::from_slice(&[true, false, true], &[3])?;
    assert_eq!(b.kind(), Kind::Bool);
    assert_eq!(b.to_vec::<bool>()?, vec![true, false, true]);
    // an empty tensor
    let e = Tensor::from_slice::<f32>(&[], &[0, 3])?;
    assert_eq!((e.size(), e.numel()), (vec![0, 3], 0));
    assert_eq!(e.to_vec::<f32>()?, Vec::<f32>::new());
    assert_eq!(f.device(), Device::Cpu);
    Ok(())
}

#[test]
fn to_vec_converts_kinds_and_try_from_works() -> Result<()> {
    let t = t2x3();
    assert_eq!(t.to_vec::<i64>()?, vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(t.to_vec::<f64>()?, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let v = Vec::<f32>::try_from(&t)?;
    assert_eq!(v, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let s = t.sum(None)?;
    assert_eq!(f64::try_from(&s)?, 21.0);
    assert_eq!(i64::try_from(&s)?, 21);
    assert_eq!(s.item_scalar()?, Scalar::Float(21.0));
    let from_vec = Tensor::try_from(vec![1i64, 2, 3])?;
    assert_eq!(from_vec.size(), vec![3]);
    let from_slice = Tensor::try_from(&[1.0f64, 2.0][..])?;
    assert_eq!(from_slice.kind(), Kind::Float64);
    let mut buf = [0f32; 6];
    t.copy_to_slice(&mut buf)?;
    assert_eq!(buf, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    Ok(())
}

#[test]
fn scalar_tensors() -> Result<()> {
    let s = Tensor::from_scalar(2.5, None)?;
    assert_eq!((s.dim(), s.kind()), (0, Kind::Float32));
    let s = Tensor::from_scalar(3i64, Kind::Float64)?;
    assert_eq!((s.kind(), s.item::<f64>()?), (Kind::Float64, 3.0));
    assert_eq!(Tensor::from_scalar(true, None)?.kind(), Kind::Bool);
    Ok(())
}

#[test]
fn binary_ops_broadcast_and_take_defaults() -> Result<()> {
    let a = t2x3();
    let b = Tensor::from_slice(&[10.0f32, 20.0, 30.0], &[3])?;
    assert_eq!(a.add(&b, None)?.to_vec::<f32>()?, vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    // alpha: a + 2 * b
    assert_eq!(a.add(&b, 2)?.to_vec::<f32>()?, vec![21.0, 42.0, 63.0, 24.0, 45.0, 66.0]);
    assert_eq!(a.sub(&b, 0.5)?.to_vec::<f32>()?, vec![-4.0, -8.0, -12.0, -1.0, -5.0, -9.0]);
    assert_eq!(a.mul(&b)?.to_vec::<f32>()?, vec![10.0, 40.0, 90.0, 40.0, 100.0, 180.0]);
    assert_eq!(b.div(&a)?.to_vec::<f32>()?, vec![10.0, 10.0, 10.0, 2.5, 4.0, 5.0]);
    assert_eq!(a.add_scalar(1, None)?.to_vec::<f32>()?, vec![2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    assert_eq!(a.pow_tensor_scalar(2)?.to_vec::<f32>()?, vec![1.0, 4.0, 9.0, 16.0, 25.0, 36.0]);
    assert_eq!(ops::pow_scalar(2, &a)?.to_vec::<f32>()?, vec![2.0, 4.0, 8.0, 16.0, 32.0, 64.0]);
    assert_eq!(a.gt_scalar(3)?.to_vec::<bool>()?, vec![false, false, false, true, true, true]);
    assert_eq!(a.maximum(&b.sub_scalar(25, None)?)?.to_vec::<f32>()?, vec![1.0, 2.0, 5.0, 4.0, 5.0, 6.0]);
    // str arguments, required and defaulted
    assert_eq!(
        a.div_tensor_mode(&Tensor::from_scalar(4.0, None)?, "floor")?.to_vec::<f32>()?,
        vec![0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    );
    let g0 = ops::gelu(&a, None)?.to_vec::<f32>()?;
    let g1 = ops::gelu(&a, "tanh")?.to_vec::<f32>()?;
    assert!((g0[0] - 0.8413).abs() < 1e-3 && (g1[0] - 0.8412).abs() < 1e-3);
    Ok(())
}

#[test]
fn operators_on_references_and_numbers() -> Result<()> {
    let a = t2x3();
    let b = Tensor::from_slice(&[1.0f32, 1.0, 1.0], &[3])?;
    assert_eq!((&a + &b).to_vec::<f32>()?, vec![2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    assert_eq!((&a - b.clone()).to_vec::<f32>()?, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!((&a * &a).to_vec::<f32>()?, vec![1.0, 4.0, 9.0, 16.0, 25.0, 36.0]);
    assert_eq!((&a / 2.0).to_vec::<f32>()?, vec![0.5, 1.0, 1.5, 2.0, 2.5, 3.0]);
    assert_eq!((10.0 - &a).to_vec::<f32>()?, vec![9.0, 8.0, 7.0, 6.0, 5.0, 4.0]);
    assert_eq!((2i64 * &a).to_vec::<f32>()?, vec![2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
    assert_eq!((3.0 + &a).to_vec::<f32>()?, vec![4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    assert_eq!((6.0 / &a).to_vec::<f32>()?, vec![6.0, 3.0, 2.0, 1.5, 1.2, 1.0]);
    assert_eq!((-&a).to_vec::<f32>()?, vec![-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]);
    // a number over a tensor keeps the number's double precision, and the
    // kinds follow PyTorch's `s / t` (an integer tensor gives float32)
    let x = Tensor::from_slice(&[3.0f64, 7.0], &[2])?;
    let q = (0.1 / &x).to_vec::<f64>()?;
    assert!((q[0] - 0.1 / 3.0).abs() < 1e-16 && (q[1] - 0.1 / 7.0).abs() < 1e-16, "{:?}", q);
    let n = Tensor::from_slice(&[2i64, 4], &[2])?;
    let q = 1 / &n;
    assert_eq!((q.kind(), q.to_vec::<f32>()?), (Kind::Float32, vec![0.5, 0.25]));
    // chained: the left operand is a reference
    assert_eq!((&(&a + &b) * 2).to_vec::<f32>()?, vec![4.0, 6.0, 8.0, 10.0, 12.0, 14.0]);
    let mut c = a.deep_clone()?;
    c += &b;
    c *= 2.0;
    c -= 1;
    c /= Tensor::from_scalar(2.0, None)?;
    assert_eq!(c.to_vec::<f32>()?, vec![1.5, 2.5, 3.5, 4.5, 5.5, 6.5]);
    // in place through the method twins
    let mut d = a.deep_clone()?;
    d.mul_scalar_(3)?.add_(&b, None)?;
    assert_eq!(d.to_vec::<f32>()?, vec![4.0, 7.0, 10.0, 13.0, 16.0, 19.0]);
    assert_eq!(a.to_vec::<f32>()?, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "deep_clone copied the data");
    Ok(())
}

#[test]
fn reductions_tuples_and_lists() -> Result<()> {
    let a = t2x3();
    assert_eq!(a.sum(None)?.item::<f32>()?, 21.0);
    assert_eq!(a.sum(Kind::Float64)?.kind(), Kind::Float64);
    assert_eq!(a.sum_dim_intlist(&[1], None, None)?.to_vec::<f32>()?, vec![6.0, 15.0]);
    assert_eq!(a.sum_dim_intlist(&[0], true, None)?.size(), vec![1, 3]);
    assert_eq!(a.mean_dim(&[0], None, None)?.to_vec::<f32>()?, vec![2.5, 3.5, 4.5]);
    assert_eq!(a.amax(None, None)?.item::<f32>()?, 6.0);
    assert_eq!(a.amax(&[1], None)?.to_vec::<f32>()?, vec![3.0, 6.0]);
    let (values, indices) = a.max_dim(1, None)?;
    assert_eq!(values.to_vec::<f32>()?, vec![3.0, 6.0]);
    assert_eq!(indices.to_vec::<i64>()?, vec![2, 2]);
    assert_eq!(a.argmax(0, None)?.to_vec::<i64>()?, vec![1, 1, 1]);
    assert!((a.var(None)?.item::<f64>()? - 3.5).abs() < 1e-6);
    let parts = a.chunk(3, 1)?;
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[2].to_vec::<f32>()?, vec![3.0, 6.0]);
    let rows = a.unbind(None)?;
    assert_eq!(rows[1].to_vec::<f32>()?, vec![4.0, 5.0, 6.0]);
    let sp = a.split_with_sizes(&[1, 2], 1)?;
    assert_eq!((sp[0].size(), sp[1].size()), (vec![2, 1], vec![2, 2]));
    let cat = ops::cat(&rows, None)?;
    assert_eq!(cat.to_vec::<f32>()?, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let st = ops::stack(&rows, 1)?;
    assert_eq!(st.size(), vec![3, 2]);
    Ok(())
}

#[test]
fn matmul_views_and_shapes() -> Result<()> {
    let a = t2x3();
    let p = a.matmul(&a.t()?)?;
    assert_eq!(p.to_vec::<f32>()?, vec![14.0, 32.0, 32.0, 77.0]);
    let bias = Tensor::from_slice(&[1.0f32, -1.0], &[2])?;
    let y = ops::addmm(&bias, &a, &a.t()?, None, 2)?; // bias + 2 * a @ a^T
    assert_eq!(y.to_vec::<f32>()?, vec![29.0, 63.0, 65.0, 153.0]);
    let r = a.reshape(&[3, 2])?;
    assert_eq!(r.size(), vec![3, 2]);
    let v = a.view(&[6])?;
    assert_eq!(v.strides(), vec![1]);
    let tr = a.transpose(0, 1)?;
    assert_eq!((tr.size(), tr.strides(), tr.is_contiguous()), (vec![3, 2], vec![1, 3], false));
    assert!(tr.contiguous()?.is_contiguous());
    assert_eq!(tr.to_vec::<f32>()?, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0], "to_vec reads any strides in row-major order");
    assert_eq!(a.unsqueeze(0)?.size(), vec![1, 2, 3]);
    assert_eq!(a.flatten(None, None)?.size(), vec![6]);
    assert_eq!(a.permute(&[1, 0])?.size(), vec![3, 2]);
    assert_eq!(a.narrow(1, 1, 2)?.to_vec::<f32>()?, vec![2.0, 3.0, 5.0, 6.0]);
    assert_eq!(a.expand(&[4, 2, 3], None)?.size(), vec![4, 2, 3]);
    let w = ops::where_self(&a.gt_scalar(2)?, &a, &a.neg()?)?;
    assert_eq!(w.to_vec::<f32>()?, vec![-1.0, -2.0, 3.0, 4.0, 5.0, 6.0]);
    let c = a.clamp(2, 5)?;
    assert_eq!(c.to_vec::<f32>()?, vec![2.0, 2.0, 3.0, 4.0, 5.0, 5.0]);
    let c = a.clamp(None, 2.5)?;
    assert_eq!(c.to_vec::<f32>()?, vec![1.0, 2.0, 2.5, 2.5, 2.5, 2.5]);
    // optional tensor arguments
    let lo = Tensor::from_slice(&[2.0f32, 0.0, 0.0], &[3])?;
    assert_eq!(a.clamp_tensor(&lo, None)?.to_vec::<f32>()?, vec![2.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    Ok(())
}

#[test]
fn indexing() -> Result<()> {
    let a = ops::arange(24, Kind::Float32, None)?.reshape(&[2, 3, 4])?;
    assert_eq!(a.i(1)?.size(), vec![3, 4]);
    assert_eq!(a.i((1, 2, 3))?.item::<f32>()?, 23.0);
    assert_eq!(a.i((0, .., 1))?.to_vec::<f32>()?, vec![1.0, 5.0, 9.0]);
    assert_eq!(a.i((.., 1..3, -1))?.to_vec::<f32>()?, vec![7.0, 11.0, 19.0, 23.0]);
    assert_eq!(a.i((Ellipsis, 0))?.size(), vec![2, 3]);
    assert_eq!(a.i((0, Ellipsis, NewAxis))?.size(), vec![3, 4, 1]);
    assert_eq!(a.i((NewAxis, 1))?.size(), vec![1, 3, 4]);
    assert_eq!(a.i((1, 2, 1..))?.to_vec::<f32>()?, vec![21.0, 22.0, 23.0]);
    assert_eq!(a.i((1, 2, ..=1))?.to_vec::<f32>()?, vec![20.0, 21.0]);
    let stepped = a.i(&[Idx::Int(0), Idx::Int(0), Idx::Slice { start: None, end: None, step: 2 }])?;
    assert_eq!(stepped.to_vec::<f32>()?, vec![0.0, 2.0]);
    // a view: writing through it changes the base
    let mut row = a.i((0, 0))?;
    row.fill_(-1)?;
    assert_eq!(a.i((0, 0, 3))?.item::<f32>()?, -1.0);
    Ok(())
}

#[test]
fn factories_and_generators() -> Result<()> {
    assert_eq!(ops::zeros(&[2, 2], Kind::Int64, None)?.to_vec::<i64>()?, vec![0; 4]);
    assert_eq!(ops::ones(&[3], None, Device::Cpu)?.kind(), Kind::Float32);
    assert_eq!(ops::full(&[2], 7, Kind::Int32, None)?.to_vec::<i32>()?, vec![7, 7]);
    assert_eq!(ops::arange_start_step(1, 10, 3, None, None)?.to_vec::<i64>()?, vec![1, 4, 7]);
    assert_eq!(ops::eye(2, None, None)?.to_vec::<f32>()?, vec![1.0, 0.0, 0.0, 1.0]);
    assert_eq!(ops::linspace(0, 1, 5, Kind::Float64, None)?.to_vec::<f64>()?, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    let g = Generator::new(42)?;
    let x = ops::randn(&[4], &g, Kind::Float64, None)?.to_vec::<f64>()?;
    g.set_seed(42)?;
    let y = ops::randn(&[4], &g, Kind::Float64, None)?.to_vec::<f64>()?;
    assert_eq!(x, y, "one seed, one stream");
    assert_eq!(g.seed(), 42);
    let r = ops::rand(&[1000], None, None, None)?;
    let (lo, hi) = (r.amin(None, None)?.item::<f32>()?, r.amax(None, None)?.item::<f32>()?);
    assert!(lo >= 0.0 && hi < 1.0);
    let p = ops::randperm(5, &g, None, None)?;
    let mut v = p.to_vec::<i64>()?;
    v.sort();
    assert_eq!(v, vec![0, 1, 2, 3, 4]);
    Ok(())
}

#[test]
fn out_variants_write_into_out() -> Result<()> {
    let a = t2x3();
    let mut out = ops::empty(&[0], None, None)?;
    ops::add_out(&mut out, &a, &a, None)?;
    assert_eq!(out.to_vec::<f32>()?, vec![2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
    assert_eq!(out.size(), vec![2, 3]);
    let mut s = ops::empty(&[0], None, None)?;
    ops::sum_intlist_out(&mut s, &a, &[0], None, None)?;
    assert_eq!(s.to_vec::<f32>()?, vec![5.0, 7.0, 9.0]);
    Ok(())
}

#[test]
fn kinds_devices_and_display() -> Result<()> {
    let a = t2x3();
    assert_eq!(a.to_kind(Kind::Int64)?.kind(), Kind::Int64);
    assert_eq!(a.to_device(Device::Cpu)?.device(), Device::Cpu);
    assert_eq!(a.to_dtype(Kind::Float64, None, None)?.to_vec::<f64>()?[5], 6.0);
    assert_eq!(format!("{}", a), "tensor([[1., 2., 3.],\n        [4., 5., 6.]])");
    assert!(format!("{:?}", a).starts_with("Tensor[[2, 3], float32, Cpu] tensor("));
    assert_eq!(Kind::Float64.name(), "float64");
    assert_eq!(Kind::Int16.elt_size_in_bytes(), 2);
    for code in 0..12 {
        assert_eq!(Kind::from_code(code)?.code(), code);
    }
    assert!(Kind::from_code(99).is_err());
    // a big tensor formats through the retry path
    let big = ops::arange(5000, None, None)?;
    assert!(format!("{}", big).contains("4999"));
    assert!(!tensorc::version().is_empty());
    assert!(tensorc::op_dump_table("addmm")?.contains("CPU"));
    Ok(())
}

#[test]
fn masked_outputs_come_back_as_none() -> Result<()> {
    // native_layer_norm_backward leaves the outputs output_mask turns off undefined
    let x = ops::randn(&[2, 4], None, Kind::Float64, None)?;
    let (y, mean, rstd) = ops::native_layer_norm(&x, &[4], None, None, 1e-5)?;
    let go = ops::ones_like(&y, None, None)?;
    let (gi, gw, gb) = ops::native_layer_norm_backward(&go, &x, &[4], &mean, &rstd, None, None, &[true, false, false])?;
    assert_eq!(gi.expect("the input gradient was asked for").size(), vec![2, 4]);
    assert!(gw.is_none() && gb.is_none());
    Ok(())
}

#[test]
fn optional_tensor_lists_pass_none_as_null() -> Result<()> {
    // Tensor?[] is &[Option<Tensor>], handed to C as a const tc_tensor* with
    // NULL for None: t[:, idx] is index(&[None, Some(idx)]).
    let a = ops::arange(12, Kind::Float32, None)?.reshape(&[3, 4])?;
    let idx = Tensor::from_slice(&[3i64, 0], &[2])?;
    let cols = a.index(&[None, Some(idx.clone())])?;
    assert_eq!(cols.size(), vec![3, 2]);
    assert_eq!(cols.to_vec::<f32>()?, vec![3.0, 0.0, 7.0, 4.0, 11.0, 8.0]);
    let rows = a.index(&[Some(Tensor::from_slice(&[2i64], &[1])?)])?;
    assert_eq!(rows.to_vec::<f32>()?, vec![8.0, 9.0, 10.0, 11.0]);
    let mut b = ops::zeros(&[3, 4], Kind::Float32, None)?;
    let v = Tensor::from_scalar(1.0, None)?;
    b.index_put_(&[None, Some(idx.clone())], &v, None)?;
    assert_eq!(b.sum(None)?.item::<f32>()?, 6.0);
    assert_eq!(idx.use_count(), 1, "the list's tensors are borrowed");
    Ok(())
}
