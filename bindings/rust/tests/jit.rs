// SPDX-License-Identifier: BSD-3-Clause
// Traced graphs from Rust: record, run on new inputs, save and load, errors.
use tensorc::jit::{Graph, Trace};
use tensorc::{ErrorKind, Result, Tensor};

fn layer(x: &Tensor) -> Result<Tensor> {
    x.mul_scalar(2.0)?.relu()
}

#[test]
fn trace_run_save_and_load() -> Result<()> {
    let x = Tensor::from_slice(&[-1.0f32, 0.5, 2.0], &[3])?;
    let trace = Trace::begin()?;
    trace.input(&x)?;
    let y = layer(&x)?;
    let g = trace.end(&[y])?;
    assert_eq!((g.num_inputs()?, g.num_outputs()?, g.num_nodes()?), (1, 1, 2));
    assert!(g.text()?.contains("aten::relu("), "{}", g.text()?);
    assert!(g.warnings()?.is_empty());

    let x2 = Tensor::from_slice(&[3.0f32, -4.0, 0.25], &[3])?;
    let out = g.run(&[x2.clone()])?;
    assert_eq!(out[0].to_vec::<f32>()?, vec![6.0, 0.0, 0.5]);

    let path = std::env::temp_dir().join(format!("tensorc_rust_jit_{}.json", std::process::id()));
    let path = path.to_str().unwrap();
    g.save(path)?;
    let loaded = Graph::load(path)?;
    std::fs::remove_file(path).ok();
    assert_eq!(loaded.text()?, g.text()?);
    assert_eq!(loaded.run(&[x2])?[0].to_vec::<f32>()?, vec![6.0, 0.0, 0.5]);
    assert_eq!(Graph::from_json(&g.to_json()?)?.text()?, g.text()?);
    Ok(())
}

#[test]
fn errors_name_the_input_and_the_line() -> Result<()> {
    let x = Tensor::from_slice(&[1.0f32, 2.0], &[2])?;
    let trace = Trace::begin()?;
    trace.input(&x)?;
    let g = trace.end(&[x.exp()?])?;
    let wrong = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
    let e = g.run(&[wrong]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("input 0 expected float32[2]"), "{}", e.message());
    let e = Graph::from_json("{\n\n  nope").err().unwrap();
    assert!(e.message().contains("line 3"), "{}", e.message());
    Ok(())
}

#[test]
fn a_dropped_trace_stops_tracing() -> Result<()> {
    {
        let _trace = Trace::begin()?;
        assert_eq!(Trace::begin().err().unwrap().kind(), ErrorKind::InvalidArgument);
        // no nesting
    }
    let x = Tensor::from_slice(&[1.0f32], &[1])?;
    let again = Trace::begin()?;
    again.input(&x)?;
    assert_eq!(again.end(&[x.neg()?])?.num_nodes()?, 1);
    Ok(())
}
