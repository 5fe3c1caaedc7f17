// SPDX-License-Identifier: BSD-3-Clause
//! The cost of the safe layer: a 1-element float32 add through `&a + &b` and
//! `a.add(&b, None)` against the raw C call `tc_add_Tensor` + release, in one
//! process, interleaved (A/B/C, rotating the order each trial), several trials;
//! prints a markdown table of medians, spread (min..max over trials), the
//! ratio of medians to the raw call and the median of the per-trial ratios
//! (each trial's variants ran back to back, so that ratio resists a noisy
//! machine best).
//!
//!   cargo run --release --offline --example bench_add [-- --trials N --iters M]
use std::ptr;
use std::time::Instant;

use tensorc::{sys, Tensor};

/// Keeps the optimiser from removing a value (std::hint::black_box is newer
/// than the crate's minimum Rust).
#[inline(always)]
fn keep<T>(v: T) -> T {
    unsafe {
        let r = ptr::read_volatile(&v);
        std::mem::forget(v);
        r
    }
}

fn raw(a: &Tensor, b: &Tensor, iters: usize) -> f64 {
    let (ra, rb) = (a.as_raw(), b.as_raw());
    let t0 = Instant::now();
    for _ in 0..iters {
        let mut out: sys::tc_tensor = ptr::null_mut();
        let st = unsafe { sys::tc_add_Tensor(&mut out, keep(ra), keep(rb), ptr::null()) };
        if st != sys::TC_OK {
            panic!("tc_add_Tensor failed");
        }
        unsafe { sys::tc_tensor_release(keep(out)) };
    }
    t0.elapsed().as_nanos() as f64 / iters as f64
}

fn operator(a: &Tensor, b: &Tensor, iters: usize) -> f64 {
    let t0 = Instant::now();
    for _ in 0..iters {
        drop(keep(keep(a) + keep(b)));
    }
    t0.elapsed().as_nanos() as f64 / iters as f64
}

fn method(a: &Tensor, b: &Tensor, iters: usize) -> f64 {
    let t0 = Instant::now();
    for _ in 0..iters {
        drop(keep(keep(a).add(keep(b), None).unwrap()));
    }
    t0.elapsed().as_nanos() as f64 / iters as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() -> tensorc::Result<()> {
    let mut trials = 15usize;
    let mut iters = 200_000usize;
    let args: Vec<String> = std::env::args().collect();
    for w in args.windows(2) {
        match w[0].as_str() {
            "--trials" => trials = w[1].parse().expect("--trials N"),
            "--iters" => iters = w[1].parse().expect("--iters M"),
            _ => {}
        }
    }
    let a = Tensor::from_slice(&[1.5f32], &[1])?;
    let b = Tensor::from_slice(&[2.25f32], &[1])?;
    type Bench = fn(&Tensor, &Tensor, usize) -> f64;
    let variants: [(&str, Bench); 3] = [
        ("raw C ABI: `tc_add_Tensor` + `tc_tensor_release`", raw),
        ("Rust: `&a + &b` (drop)", operator),
        ("Rust: `a.add(&b, None)?` (drop)", method),
    ];
    // warm-up
    for (_, f) in variants.iter() {
        f(&a, &b, iters / 4);
    }
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    for t in 0..trials {
        for k in 0..variants.len() {
            let i = (t + k) % variants.len(); // rotate who goes first
            samples[i].push((variants[i].1)(&a, &b, iters));
        }
    }
    let mut meds = Vec::new();
    println!("1-element float32 add, {} trials x {} calls, interleaved; ns per call", trials, iters);
    println!();
    println!("| variant | median ns | min..max ns | ratio of medians | median per-trial ratio |");
    println!("|---|---:|---:|---:|---:|");
    for (i, (name, _)) in variants.iter().enumerate() {
        let mut ratios: Vec<f64> = samples[i].iter().zip(samples[0].iter()).map(|(x, r)| x / r).collect();
        let (lo, hi) = samples[i].iter().fold((f64::MAX, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
        let m = median(&mut samples[i].clone());
        meds.push(m);
        println!("| {} | {:.1} | {:.1}..{:.1} | {:.3} | {:.3} |", name, m, lo, hi, m / meds[0], median(&mut ratios));
    }
    Ok(())
}
