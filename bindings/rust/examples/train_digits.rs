// SPDX-License-Identifier: BSD-3-Clause
//! Trains a 2-layer MLP (64 -> 64 -> 10) on the handwritten digits with SGD +
//! momentum through the safe Rust layer: autograd for the gradients, in-place
//! updates under no_grad. A port of examples/train_digits.c (same data split,
//! shuffle and initialisation), printing the loss per epoch and the held-out
//! accuracy.
//!
//!   cargo run --release --offline --example train_digits -- [digits.csv.gz] [--epochs N] [--seed S] [--min-accuracy A]
//!
//! Exit codes as the C demo: 0 trained (and reached --min-accuracy); 1 a
//! tensorc error; 2 bad arguments or data; 3 accuracy below --min-accuracy.
//!
//! The data is gzip-compressed. The crate has no dependencies, so this links
//! zlib (the library the C demo uses; zlib1g-dev is among the build's
//! packages) and declares the three functions it needs, rather than running
//! `gzip -dc` in a subprocess: no external program at run time, and a corrupt
//! file is an error from the same process.
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::process::exit;

use tensorc::autograd::NoGradGuard;
use tensorc::{ops, Kind, Tensor};

#[link(name = "z")]
extern "C" {
    fn gzopen(path: *const c_char, mode: *const c_char) -> *mut c_void;
    fn gzread(file: *mut c_void, buf: *mut c_void, len: c_uint) -> c_int;
    fn gzclose(file: *mut c_void) -> c_int;
}

const N_PIXELS: usize = 64;
const N_CLASSES: i64 = 10;
const N_HIDDEN: i64 = 64;

struct Dataset {
    pixels: Vec<f32>, // rows x 64, scaled to [0, 1]
    labels: Vec<i64>,
}

fn gunzip(path: &str) -> Result<Vec<u8>, String> {
    let cpath = CString::new(path).map_err(|_| format!("bad path '{}'", path))?;
    let f = unsafe { gzopen(cpath.as_ptr(), b"rb\0".as_ptr() as *const c_char) };
    if f.is_null() {
        return Err(format!("cannot open '{}'", path));
    }
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = unsafe { gzread(f, buf.as_mut_ptr() as *mut c_void, buf.len() as c_uint) };
        if n < 0 {
            unsafe { gzclose(f) };
            return Err(format!("'{}' is corrupt (gzread failed)", path));
        }
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n as usize]);
    }
    unsafe { gzclose(f) };
    Ok(out)
}

/// Reads "p0,...,p63,label" lines.
fn load_digits(path: &str) -> Result<Dataset, String> {
    let bytes = gunzip(path)?;
    let text = String::from_utf8(bytes).map_err(|_| format!("'{}' is not text", path))?;
    let mut d = Dataset { pixels: Vec::new(), labels: Vec::new() };
    for (lineno, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        let bad = |k: usize| {
            format!(
                "'{}' line {} is not a digits row (expected 64 pixels in 0..16 and a label in 0..9, comma-separated; field {} is wrong)",
                path,
                lineno + 1,
                k + 1
            )
        };
        if fields.len() != N_PIXELS + 1 {
            return Err(bad(fields.len().min(N_PIXELS + 1)));
        }
        for (k, f) in fields.iter().enumerate() {
            let v: i64 = f.parse().map_err(|_| bad(k))?;
            let hi = if k < N_PIXELS { 16 } else { N_CLASSES - 1 };
            if !(0..=hi).contains(&v) {
                return Err(bad(k));
            }
            if k < N_PIXELS {
                d.pixels.push(v as f32 / 16.0);
            } else {
                d.labels.push(v);
            }
        }
    }
    if d.labels.len() < 20 {
        return Err(format!("'{}' holds {} rows; expected the 1797 digits", path, d.labels.len()));
    }
    Ok(d)
}

/// Deterministic shuffle (xorshift), as in the C demo.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn shuffle(&mut self, a: &mut [usize]) {
        for i in (1..a.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            a.swap(i, j);
        }
    }
}

fn batch(d: &Dataset, idx: &[usize]) -> tensorc::Result<(Tensor, Tensor)> {
    let mut xs = Vec::with_capacity(idx.len() * N_PIXELS);
    let mut ys = Vec::with_capacity(idx.len());
    for &i in idx {
        xs.extend_from_slice(&d.pixels[i * N_PIXELS..(i + 1) * N_PIXELS]);
        ys.push(d.labels[i]);
    }
    let n = idx.len() as i64;
    Ok((Tensor::from_slice(&xs, &[n, N_PIXELS as i64])?, Tensor::from_slice(&ys, &[n])?))
}

/// logits = relu(x @ w1 + b1) @ w2 + b2
fn forward(x: &Tensor, p: &[Tensor]) -> tensorc::Result<Tensor> {
    let h = ops::addmm(&p[1], x, &p[0], None, None)?.relu()?;
    ops::addmm(&p[3], &h, &p[2], None, None)
}

struct Args {
    path: String,
    epochs: usize,
    seed: u64,
    min_accuracy: Option<f64>,
}

fn parse_args() -> Args {
    let usage = || -> ! {
        eprintln!("usage: train_digits [digits.csv.gz] [--epochs N] [--seed S] [--min-accuracy A]");
        exit(2)
    };
    let mut a = Args {
        path: concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data/digits.csv.gz").to_string(),
        epochs: 30,
        seed: 0,
        min_accuracy: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--epochs" => a.epochs = it.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| usage()),
            "--seed" => a.seed = it.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| usage()),
            "--min-accuracy" => {
                a.min_accuracy = Some(it.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| usage()))
            }
            s if s.starts_with('-') => usage(),
            s => a.path = s.to_string(),
        }
    }
    if a.epochs < 1 {
        eprintln!("train_digits: --epochs must be at least 1");
        exit(2);
    }
    a
}

fn train(args: &Args, d: &Dataset) -> tensorc::Result<f64> {
    let rows = d.labels.len();
    let mut rng = Rng(88172645463325252u64.wrapping_add(args.seed.wrapping_mul(0x9E3779B97F4A7C15)));
    let mut order: Vec<usize> = (0..rows).collect();
    rng.shuffle(&mut order);
    let n_test = rows / 5; // hold out 20 %
    let n_train = rows - n_test;
    println!("digits: {} images from {}; training on {}, holding out {}", rows, args.path, n_train, n_test);

    // w ~ N(0, 1/fan_in), b = 0; momentum buffers zero
    tensorc::manual_seed(args.seed)?;
    let shapes: [&[i64]; 4] = [&[N_PIXELS as i64, N_HIDDEN], &[N_HIDDEN], &[N_HIDDEN, N_CLASSES], &[N_CLASSES]];
    let scales = [0.125, 0.0, 0.125, 0.0];
    let mut params = Vec::new();
    let mut velocity = Vec::new();
    for (shape, scale) in shapes.iter().zip(scales.iter()) {
        let p = ops::randn(shape, None, Kind::Float32, None)?.mul_scalar(*scale)?;
        p.set_requires_grad(true)?;
        velocity.push(ops::zeros_like(&p, None, None)?);
        params.push(p);
    }

    let (lr, momentum, batch_size) = (0.1, 0.9, 32);
    for epoch in 1..=args.epochs {
        rng.shuffle(&mut order[..n_train]); // the held-out tail stays put
        let (mut total, mut batches) = (0.0, 0);
        for chunk in order[..n_train].chunks(batch_size) {
            let (x, y) = batch(d, chunk)?;
            let loss = ops::cross_entropy_loss(&forward(&x, &params)?, &y, None, None, None, None)?;
            loss.backward()?;
            total += loss.item::<f64>()?;
            batches += 1;
            // v = momentum * v + g; p -= lr * v, in place and unrecorded
            let _no_grad = NoGradGuard::new();
            for (p, v) in params.iter_mut().zip(velocity.iter_mut()) {
                let g = p.grad().expect("every parameter gets a gradient");
                v.mul_scalar_(momentum)?.add_(&g, None)?;
                p.add_(v, -lr)?;
                p.set_grad(None)?;
            }
        }
        println!("epoch {:2}  loss {:.4}", epoch, total / batches as f64);
    }

    let _no_grad = NoGradGuard::new();
    let (x, _) = batch(d, &order[n_train..])?;
    let predicted = forward(&x, &params)?.argmax(1, None)?.to_vec::<i64>()?;
    let correct = order[n_train..].iter().zip(predicted.iter()).filter(|(&i, &p)| d.labels[i] == p).count();
    let accuracy = correct as f64 / n_test as f64;
    println!("held-out accuracy: {:.4} ({} of {})", accuracy, correct, n_test);
    Ok(accuracy)
}

fn main() {
    let args = parse_args();
    let d = load_digits(&args.path).unwrap_or_else(|e| {
        eprintln!("train_digits: {}", e);
        exit(2)
    });
    let accuracy = train(&args, &d).unwrap_or_else(|e| {
        eprintln!("train_digits: {}", e);
        exit(1)
    });
    if let Some(min) = args.min_accuracy {
        if accuracy < min {
            eprintln!("train_digits: accuracy {:.4} is below --min-accuracy {:.4}", accuracy, min);
            exit(3);
        }
    }
}
