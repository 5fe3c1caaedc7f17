// SPDX-License-Identifier: BSD-3-Clause
// The dispatcher from Rust: ops defined at run time with closure kernels,
// calls by name, errors and panics in kernels, fallbacks that redispatch,
// scoped include/exclude guards, and when registered closures are dropped.
//
// Registrations are process-wide and these tests run on parallel threads of
// one process: each test uses its own op namespace and takes LOCK, since a
// fallback for a key is shared by every op and registering one while another
// thread dispatches is not allowed.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tensorc::library::{
    self, local_dispatch_key_set, Arg, DispatchCall, DispatchKey, ExcludeDispatchKeyGuard, IValue,
    IncludeDispatchKeyGuard,
};
use tensorc::{sys, ErrorKind, Result, Tensor};

static LOCK: Mutex<()> = Mutex::new(());

fn lock() -> MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn vec1(v: &[f32]) -> Tensor {
    Tensor::from_slice(v, &[v.len() as i64]).unwrap()
}

fn values(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

fn one_tensor(out: Vec<IValue>) -> Tensor {
    assert_eq!(out.len(), 1, "{:?}", out);
    out.into_iter().next().unwrap().into_tensor().unwrap()
}

/// Puts Tracer's default fallthrough back when a test ends, even by a panic.
struct TracerFallthroughAtEnd;
impl Drop for TracerFallthroughAtEnd {
    fn drop(&mut self) {
        library::fallthrough(DispatchKey::Tracer).unwrap();
    }
}

#[test]
fn kernel_defined_in_rust_is_called_by_name() {
    let _l = lock();
    library::def("rslib_axpy::axpy(Tensor x, Tensor y, float alpha=2.0, *, int repeat=1) -> Tensor").unwrap();
    library::impl_boxed("rslib_axpy::axpy", DispatchKey::Cpu, |call, args| {
        assert_eq!(call.op_name(), "rslib_axpy::axpy");
        assert_eq!(call.key()?, DispatchKey::Cpu);
        assert_eq!(args.len(), 4); // the defaults were filled in
        let (x, mut r) = (args[0].tensor()?, args[1].tensor()?.clone());
        for _ in 0..args[3].i64()? {
            r = r.add(&x.mul_scalar(args[2].f64()?)?, None)?;
        }
        Ok(vec![r.into()])
    })
    .unwrap();
    assert_eq!(
        library::op_schema("rslib_axpy::axpy").unwrap(),
        "rslib_axpy::axpy(Tensor x, Tensor y, float alpha=2.0, *, int repeat=1) -> Tensor"
    );
    assert!(tensorc::op_dump_table("rslib_axpy::axpy").unwrap().contains("CPU: kernel registered for CPU"));

    let (x, y) = (vec1(&[1.0, 2.0, 3.0]), vec1(&[10.0, 20.0, 30.0]));
    let out = library::op_call("rslib_axpy::axpy", &[Arg::from(&x), Arg::from(&y)]).unwrap();
    assert_eq!(values(&one_tensor(out)), vec![12.0, 24.0, 36.0]);
    let out = library::op_call("rslib_axpy::axpy", &[(&x).into(), (&y).into(), 0.5.into(), 3i64.into()]).unwrap();
    assert_eq!(values(&one_tensor(out)), vec![11.5, 23.0, 34.5]);

    // Straight through the C ABI, as a C caller would.
    let mut args = [sys::tc_value::none(); 2];
    args[0].tag = sys::TC_VALUE_TENSOR;
    args[0].u.tensor = x.as_raw();
    args[1].tag = sys::TC_VALUE_TENSOR;
    args[1].u.tensor = y.as_raw();
    let mut outs = [sys::tc_value::none(); 2];
    let mut n = 0usize;
    let name = std::ffi::CString::new("rslib_axpy::axpy").unwrap();
    let st = unsafe { sys::tc_op_call(outs.as_mut_ptr(), 2, &mut n, name.as_ptr(), args.as_ptr(), 2) };
    assert_eq!(st, sys::TC_OK);
    assert_eq!(n, 1);
    assert_eq!(outs[0].tag, sys::TC_VALUE_TENSOR);
    let t = unsafe { Tensor::from_raw(outs[0].u.tensor) }.unwrap();
    assert_eq!(values(&t), vec![12.0, 24.0, 36.0]);

    // A wrong argument is the kernel's Err, with its kind, and the op's name.
    let e = library::op_call("rslib_axpy::axpy", &[(&x).into(), (&y).into(), Arg::Str("two")]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Type, "{}", e);
    assert!(e.message().contains("rslib_axpy::axpy"), "{}", e);
}

#[test]
fn several_returns_lists_and_numbers() {
    let _l = lock();
    library::def("rslib_multi::split(Tensor self, int[] sizes) -> (Tensor, Tensor[], int, bool)").unwrap();
    library::impl_boxed("rslib_multi::split", DispatchKey::CompositeExplicitAutograd, |_call, args| {
        let x = args[0].tensor()?;
        let sizes = args[1].int_list()?;
        let parts = sizes.iter().map(|&k| x.mul_scalar(k)).collect::<Result<Vec<_>>>()?;
        Ok(vec![x.neg()?.into(), parts.into(), (sizes.len() as i64).into(), false.into()])
    })
    .unwrap();
    let x = vec1(&[1.0, 2.0]);
    let sizes = [3i64, 5, 7];
    let out = library::op_call("rslib_multi::split", &[(&x).into(), Arg::IntList(&sizes)]).unwrap();
    assert_eq!(out.len(), 4);
    let mut it = out.into_iter();
    assert_eq!(values(&it.next().unwrap().into_tensor().unwrap()), vec![-1.0, -2.0]);
    let parts = it.next().unwrap().into_tensor_list().unwrap();
    assert_eq!(parts.len(), 3);
    assert_eq!(values(&parts[2]), vec![7.0, 14.0]);
    assert_eq!(it.next().unwrap().to_i64().unwrap(), 3);
    assert!(!it.next().unwrap().to_bool().unwrap());
    // Results feed the next call as arguments.
    let out = library::op_call("add.Tensor", &[(&parts[0]).into(), (&parts[1]).into()]).unwrap();
    assert_eq!(values(&one_tensor(out)), vec![8.0, 16.0]);
}

#[test]
fn definition_errors() {
    let _l = lock();
    library::def("rslib_defs::f(Tensor self) -> Tensor").unwrap();
    let e = library::def("rslib_defs::f(Tensor self) -> Tensor").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("already defined"), "{}", e);
    let e = library::def("rslib_defs::g(Tensor self, Blob b) -> Tensor").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    let e = library::impl_boxed("rslib_defs::nope", DispatchKey::Cpu, |_c, _a| Ok(vec![])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotImplemented, "{}", e);
    let e = library::op_call("rslib_defs::f", &[Arg::from(&vec1(&[1.0]))]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotImplemented, "{}", e); // defined, no kernel
    assert!(e.message().contains("rslib_defs::f"), "{}", e);
}

#[test]
fn rejected_registration_drops_the_closure() {
    let _l = lock();
    let held = Arc::new(());
    let h = held.clone();
    let e = library::fallback(DispatchKey::CompositeImplicitAutograd, move |_c, _a| {
        let _keep = &h;
        Ok(vec![])
    })
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{}", e);
    assert_eq!(Arc::strong_count(&held), 1);
}

#[test]
fn panic_and_error_in_kernel_become_error_statuses() {
    let _l = lock();
    library::def("rslib_panic::boom(Tensor self) -> Tensor").unwrap();
    library::def("rslib_panic::fails(Tensor self) -> Tensor").unwrap();
    library::impl_boxed("rslib_panic::boom", DispatchKey::Cpu, |_c, _a| -> Result<Vec<IValue>> {
        panic!("kernel exploded {}", 42)
    })
    .unwrap();
    library::impl_boxed("rslib_panic::fails", DispatchKey::Cpu, |_c, _a| {
        Err(tensorc::Error::new(ErrorKind::Index, "index 7 is past the end"))
    })
    .unwrap();
    let x = vec1(&[1.0]);

    let e = library::op_call("rslib_panic::boom", &[(&x).into()]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    assert!(e.message().contains("kernel exploded 42"), "{}", e);
    assert!(e.message().contains("panicked"), "{}", e);
    assert!(e.message().contains("rslib_panic::boom"), "{}", e);

    // Through the raw C ABI: a status and the message.
    let mut arg = sys::tc_value::none();
    arg.tag = sys::TC_VALUE_TENSOR;
    arg.u.tensor = x.as_raw();
    let mut outs = [sys::tc_value::none(); 1];
    let mut n = 7usize;
    let name = std::ffi::CString::new("rslib_panic::boom").unwrap();
    let st = unsafe { sys::tc_op_call(outs.as_mut_ptr(), 1, &mut n, name.as_ptr(), &arg, 1) };
    assert_eq!(st, sys::TC_ERROR_RUNTIME);
    let msg = unsafe { std::ffi::CStr::from_ptr(sys::tc_last_error_message()) }.to_string_lossy().into_owned();
    assert!(msg.contains("kernel exploded 42"), "{}", msg);
    assert_eq!(n, 0);

    let e = library::op_call("rslib_panic::fails", &[(&x).into()]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Index);
    assert!(e.message().contains("index 7 is past the end"), "{}", e);

    // The process (and this thread) carries on.
    assert_eq!(values(&(&x + &x)), vec![2.0]);
}

#[test]
fn wrong_number_of_results_is_an_error() {
    let _l = lock();
    library::def("rslib_results::two(Tensor self) -> (Tensor, Tensor)").unwrap();
    library::impl_boxed("rslib_results::two", DispatchKey::Cpu, |_c, args| {
        let x = args[0].tensor()?.clone();
        Ok(vec![x.clone().into(); 70]) // more than any op can take
    })
    .unwrap();
    let e = library::op_call("rslib_results::two", &[Arg::from(&vec1(&[1.0]))]).unwrap_err();
    assert!(e.message().contains("more than"), "{}", e);
}

#[test]
fn fallback_counts_and_redispatches_under_include_guard() {
    let _l = lock();
    let _restore = TracerFallthroughAtEnd;
    let seen = Arc::new(AtomicUsize::new(0));
    let last_op = Arc::new(Mutex::new(String::new()));
    let (s, l) = (seen.clone(), last_op.clone());
    library::fallback(DispatchKey::Tracer, move |call, args| {
        assert_eq!(call.key()?, DispatchKey::Tracer);
        s.fetch_add(1, Ordering::SeqCst);
        *l.lock().unwrap() = call.op_name().to_string();
        call.redispatch(args)
    })
    .unwrap();
    let (a, b) = (vec1(&[1.0, 2.0]), vec1(&[10.0, 20.0]));
    let plain = a.add(&b, None).unwrap();
    assert_eq!(seen.load(Ordering::SeqCst), 0); // no tensor carries Tracer: the layer is off
    let (traced_sum, traced_product);
    {
        // Only the calls under test dispatch in this scope (reading values does too).
        let _on = IncludeDispatchKeyGuard::new(DispatchKey::Tracer).unwrap();
        traced_sum = a.add(&b, None).unwrap();
        assert_eq!(seen.load(Ordering::SeqCst), 1);
        assert_eq!(*last_op.lock().unwrap(), "add.Tensor");
        traced_product = one_tensor(library::op_call("mul.Tensor", &[(&a).into(), (&b).into()]).unwrap());
        assert_eq!(seen.load(Ordering::SeqCst), 2);
        assert_eq!(*last_op.lock().unwrap(), "mul.Tensor");
        assert!(local_dispatch_key_set().is_included(DispatchKey::Tracer));
    }
    assert!(!local_dispatch_key_set().is_included(DispatchKey::Tracer));
    let after = a.add(&b, None).unwrap();
    assert_eq!(seen.load(Ordering::SeqCst), 2); // the guard is gone: the fallback no longer runs
    assert_eq!(values(&plain), vec![11.0, 22.0]);
    assert_eq!(values(&traced_sum), vec![11.0, 22.0]);
    assert_eq!(values(&traced_product), vec![10.0, 40.0]);
    assert_eq!(values(&after), vec![11.0, 22.0]);
}

#[test]
fn op_kernel_on_a_layer_key_redispatches_with_new_arguments() {
    let _l = lock();
    let _restore = TracerFallthroughAtEnd;
    let fallback_runs = Arc::new(AtomicUsize::new(0));
    let f = fallback_runs.clone();
    library::fallback(DispatchKey::Tracer, move |call: &DispatchCall<'_>, _args: &[Arg<'_>]| {
        f.fetch_add(1, Ordering::SeqCst);
        call.redispatch_same() // the arguments as received, unconverted
    })
    .unwrap();
    library::def("rslib_layer::scaled(Tensor self, float k) -> Tensor").unwrap();
    library::impl_boxed("rslib_layer::scaled", DispatchKey::Cpu, |_c, args| {
        Ok(vec![args[0].tensor()?.mul_scalar(args[1].f64()?)?.into()])
    })
    .unwrap();
    library::impl_boxed("rslib_layer::scaled", DispatchKey::Tracer, |call, args| {
        assert_eq!(call.key()?, DispatchKey::Tracer);
        // The layer's work is done: the ops it calls skip it.
        let _done = ExcludeDispatchKeyGuard::new(DispatchKey::Tracer)?;
        let k = args[1].f64()? * 10.0;
        let below = call.redispatch(&[args[0], Arg::Float(k)])?;
        Ok(vec![below[0].tensor()?.add_scalar(1.0, None)?.into()])
    })
    .unwrap();
    let x = vec1(&[1.0, 2.0]);
    let plain = one_tensor(library::op_call("rslib_layer::scaled", &[(&x).into(), 3.0.into()]).unwrap());
    let (traced, diff);
    {
        let _on = IncludeDispatchKeyGuard::new(DispatchKey::Tracer).unwrap();
        traced = one_tensor(library::op_call("rslib_layer::scaled", &[(&x).into(), 3.0.into()]).unwrap());
        assert_eq!(fallback_runs.load(Ordering::SeqCst), 0); // the op's own Tracer kernel ran
        diff = x.sub(&x, None).unwrap();
        assert_eq!(fallback_runs.load(Ordering::SeqCst), 1); // other ops: the fallback
    }
    assert_eq!(values(&plain), vec![3.0, 6.0]);
    assert_eq!(values(&traced), vec![31.0, 61.0]);
    assert_eq!(values(&diff), vec![0.0, 0.0]);
}

#[test]
fn panic_below_a_fallback_comes_back_through_redispatch() {
    let _l = lock();
    let _restore = TracerFallthroughAtEnd;
    library::def("rslib_nested::fails(Tensor self) -> Tensor").unwrap();
    library::impl_boxed("rslib_nested::fails", DispatchKey::Cpu, |_c, _a| -> Result<Vec<IValue>> {
        panic!("deep failure")
    })
    .unwrap();
    let saw = Arc::new(Mutex::new(None));
    let s = saw.clone();
    library::fallback(DispatchKey::Tracer, move |call, _args| {
        let r = call.redispatch_same();
        *s.lock().unwrap() = r.as_ref().err().map(|e| e.kind());
        r
    })
    .unwrap();
    let x = vec1(&[1.0]);
    let _on = IncludeDispatchKeyGuard::new(DispatchKey::Tracer).unwrap();
    let e = library::op_call("rslib_nested::fails", &[(&x).into()]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    assert!(e.message().contains("deep failure"), "{}", e);
    assert_eq!(*saw.lock().unwrap(), Some(ErrorKind::Runtime));
}

#[test]
fn nested_exclude_guards_keep_the_outer_exclusion() {
    let _l = lock();
    let _restore = TracerFallthroughAtEnd;
    let seen = Arc::new(AtomicUsize::new(0));
    let s = seen.clone();
    library::fallback(DispatchKey::Tracer, move |call, _args| {
        s.fetch_add(1, Ordering::SeqCst);
        call.redispatch_same()
    })
    .unwrap();
    let a = vec1(&[1.0]);
    let count = || seen.load(Ordering::SeqCst);
    let _on = IncludeDispatchKeyGuard::new(DispatchKey::Tracer).unwrap();
    a.add(&a, None).unwrap();
    assert_eq!(count(), 1);
    {
        let _outer = ExcludeDispatchKeyGuard::new(DispatchKey::Tracer).unwrap();
        {
            let _inner = ExcludeDispatchKeyGuard::new(DispatchKey::Tracer).unwrap();
            a.add(&a, None).unwrap();
            assert_eq!(count(), 1);
        }
        // A blunt tc_dispatch_tls_exclude(Tracer, false) here would have
        // re-enabled the layer; the inner guard restored the outer state.
        assert!(local_dispatch_key_set().is_excluded(DispatchKey::Tracer));
        a.add(&a, None).unwrap();
        assert_eq!(count(), 1);
    }
    assert!(!local_dispatch_key_set().is_excluded(DispatchKey::Tracer));
    a.add(&a, None).unwrap();
    assert_eq!(count(), 2);
}

#[test]
fn guards_are_per_thread_and_refuse_alias_keys() {
    let _l = lock();
    {
        let _g = ExcludeDispatchKeyGuard::new(DispatchKey::Autocast).unwrap();
        assert!(local_dispatch_key_set().is_excluded(DispatchKey::Autocast));
        let elsewhere = std::thread::spawn(|| local_dispatch_key_set().is_excluded(DispatchKey::Autocast));
        assert!(!elsewhere.join().unwrap());
    }
    assert!(!local_dispatch_key_set().is_excluded(DispatchKey::Autocast));
    let before = local_dispatch_key_set();
    let e = IncludeDispatchKeyGuard::new(DispatchKey::CompositeExplicitAutograd).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("'include'"), "{}", e);
    let e = ExcludeDispatchKeyGuard::new(DispatchKey::CompositeImplicitAutograd).err().unwrap();
    assert!(e.message().contains("'exclude'"), "{}", e);
    assert_eq!(local_dispatch_key_set(), before);
    assert_eq!(DispatchKey::from_code(DispatchKey::Tracer.code()).unwrap(), DispatchKey::Tracer);
    assert_eq!(DispatchKey::Tracer.to_string(), "Tracer");
}

/// Counts live instances: the registration's closure holds one.
struct Tracked(Arc<AtomicUsize>);
impl Tracked {
    fn new(live: &Arc<AtomicUsize>) -> Tracked {
        live.fetch_add(1, Ordering::SeqCst);
        Tracked(live.clone())
    }
}
impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[test]
fn replaced_fallback_drops_its_closure() {
    let _l = lock();
    let _restore = TracerFallthroughAtEnd;
    let live = Arc::new(AtomicUsize::new(0));
    let calls = Arc::new(AtomicUsize::new(0));
    let tracked = Tracked::new(&live);
    let c = calls.clone();
    library::fallback(DispatchKey::Tracer, move |call, _args| {
        let _keep = &tracked;
        c.fetch_add(1, Ordering::SeqCst);
        call.redispatch_same()
    })
    .unwrap();
    assert_eq!(live.load(Ordering::SeqCst), 1);
    assert_eq!(Arc::strong_count(&calls), 2);
    {
        let _on = IncludeDispatchKeyGuard::new(DispatchKey::Tracer).unwrap();
        let a = vec1(&[1.0]);
        a.add(&a, None).unwrap();
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    // A new fallback replaces it: tensorc runs user_data_free, which drops the closure.
    library::fallthrough(DispatchKey::Tracer).unwrap();
    assert_eq!(live.load(Ordering::SeqCst), 0);
    assert_eq!(Arc::strong_count(&calls), 1);
}

#[test]
fn kernels_run_on_many_threads() {
    let _l = lock();
    library::def("rslib_threads::inc(Tensor self) -> Tensor").unwrap();
    library::impl_boxed("rslib_threads::inc", DispatchKey::Cpu, |_c, args| {
        Ok(vec![args[0].tensor()?.add_scalar(1.0, None)?.into()])
    })
    .unwrap();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                (0..50)
                    .filter(|_| {
                        let x = vec1(&[i as f32]);
                        let y = one_tensor(library::op_call("rslib_threads::inc", &[(&x).into()]).unwrap());
                        values(&y) == vec![i as f32 + 1.0]
                    })
                    .count()
            })
        })
        .collect();
    let ok: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(ok, 200);
}

// `<T as NotSend<_>>::check` resolves only when T is not Send.
trait NotSend<A> {
    fn check() {}
}
impl<T: ?Sized> NotSend<()> for T {}
impl<T: ?Sized + Send> NotSend<u8> for T {}

#[test]
fn guards_and_calls_stay_on_their_thread() {
    <IncludeDispatchKeyGuard as NotSend<_>>::check();
    <ExcludeDispatchKeyGuard as NotSend<_>>::check();
    <DispatchCall<'static> as NotSend<_>>::check();
}
