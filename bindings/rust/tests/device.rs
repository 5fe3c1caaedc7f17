// SPDX-License-Identifier: BSD-3-Clause
//! The device module: the CPU's answers and CUDA's errors everywhere; the
//! CUDA stream test where a device is (it says so and returns elsewhere).
use tensorc::device::{self, Event, Stream, StreamGuard};
use tensorc::{ops, Device, ErrorKind, Kind};

#[test]
fn the_cpu_has_one_device_and_only_its_default_stream() {
    assert!(device::is_available(Device::Cpu));
    assert_eq!(device::device_count(Device::Cpu), 1);
    assert_eq!(device::current_device(Device::Cpu).unwrap(), 0);
    device::synchronize(Device::Cpu).unwrap();
    let s = Stream::current(Device::Cpu).unwrap();
    assert_eq!(s, Stream::default_for(Device::Cpu).unwrap());
    assert_eq!((s.id(), s.device()), (0, Device::Cpu));
    assert!(s.query().unwrap());
    drop(StreamGuard::new(&s).unwrap());
    assert_eq!(Stream::new(Device::Cpu, 0).unwrap_err().kind(), ErrorKind::NotImplemented);
    let e = Event::new(true).unwrap();
    assert!(e.query().unwrap());
    assert_eq!(e.record(&s).unwrap_err().kind(), ErrorKind::NotImplemented);
    let err = e.elapsed_time(&Event::new(true).unwrap()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.message().contains("never recorded"), "{}", err.message());
    let t = ops::ones(&[3], Kind::Float32, None).unwrap();
    t.record_stream(&s).unwrap();
}

#[test]
fn cuda_streams_order_work_or_say_why_not() {
    let cuda = Device::Cuda(0);
    if !device::is_available(cuda) {
        assert!(device::unavailable_reason(cuda).is_some());
        assert_eq!(device::device_count(cuda), 0);
        assert_eq!(Stream::new(cuda, 0).unwrap_err().kind(), ErrorKind::Device);
        assert_eq!(device::synchronize(cuda).unwrap_err().kind(), ErrorKind::Device);
        let t = ops::ones(&[3], Kind::Float32, None).unwrap();
        assert!(!t.is_pinned());
        assert_eq!(t.pin_memory().unwrap_err().kind(), ErrorKind::Device);
        eprintln!("no usable CUDA device: only the unavailable path was checked");
        return;
    }
    let side = Stream::new(cuda, 0).unwrap();
    let main = Stream::current(cuda).unwrap();
    assert_ne!(side, main);
    let x = ops::ones(&[1 << 20], Kind::Float32, Some(cuda)).unwrap();
    side.wait_stream(&main).unwrap();
    let (start, end) = (Event::new(true).unwrap(), Event::new(true).unwrap());
    let y = {
        let _g = StreamGuard::new(&side).unwrap();
        assert_eq!(Stream::current(cuda).unwrap(), side);
        start.record(&side).unwrap();
        let y = &x * 3.0;
        end.record(&side).unwrap();
        y
    };
    x.record_stream(&side).unwrap();
    let pinned = ops::ones(&[4], Kind::Float32, None).unwrap().pin_memory().unwrap();
    assert!(pinned.is_pinned());
    assert_eq!(Stream::current(cuda).unwrap(), main);
    main.wait_stream(&side).unwrap();
    end.synchronize().unwrap();
    assert!(start.elapsed_time(&end).unwrap() >= 0.0);
    assert_eq!(y.to_device(Device::Cpu).unwrap().to_vec::<f32>().unwrap()[0], 3.0);
}
