//! Compute actors' errors: the build log of a kernel that does not compile, specs that do not
//! fit the Rust types or the kernel, requests that do not fit the specs, devices not found.

use std::time::Duration;

use motet_compute::{Arg, ComputeError, DeviceSelector, Kernel, Request, WorkSize};
use motet_runtime::Runtime;

const LONG: Duration = Duration::from_secs(120);

const COPY: &str = "
__kernel void copy(__global const float* x, __global float* y, uint n) {
    size_t i = get_global_id(0);
    if (i < n) y[i] = x[i];
}";

fn runtime() -> Runtime {
    Runtime::builder().workers(1).build().unwrap()
}

fn copy_kernel(source: &str, name: &str) -> Kernel {
    Kernel::new(source, name)
        .arg(Arg::input::<f32>().expect_len(|s| s.scalar_usize(2)))
        .arg(Arg::output::<f32>(|s| s.scalar_usize(2)))
        .arg(Arg::scalar::<u32>())
        .work(|s| WorkSize::new([s.scalar_usize(2)]))
}

#[test]
fn a_kernel_that_does_not_compile_reports_its_build_log() {
    let rt = runtime();
    let broken = COPY.replace("y[i] = x[i];", "y[i] = undeclared_thing;");
    let err = copy_kernel(&broken, "copy")
        .spawn::<(Vec<f32>, u32), Vec<f32>>(rt.handle())
        .unwrap_err();
    match &err {
        ComputeError::Build { log, .. } => {
            assert!(log.contains("undeclared_thing"), "build log: {log}")
        }
        other => panic!("expected a build error, got {other}"),
    }
    assert!(err.to_string().contains("build log"));
}

#[test]
fn a_missing_kernel_name_is_an_error() {
    let rt = runtime();
    let err = copy_kernel(COPY, "nope")
        .spawn::<(Vec<f32>, u32), Vec<f32>>(rt.handle())
        .unwrap_err();
    assert!(
        matches!(&err, ComputeError::NoSuchKernel { name, available } if name == "nope" && available.contains("copy")),
        "{err}"
    );
}

#[test]
fn rust_types_that_do_not_fit_the_specs_are_refused_at_spawn() {
    let rt = runtime();
    // Element type.
    let err = copy_kernel(COPY, "copy")
        .spawn::<(Vec<i32>, u32), Vec<f32>>(rt.handle())
        .unwrap_err();
    assert!(matches!(err, ComputeError::Spec(_)), "{err}");
    // A buffer where the spec has a scalar.
    let err = copy_kernel(COPY, "copy")
        .spawn::<(Vec<f32>, Vec<u32>), Vec<f32>>(rt.handle())
        .unwrap_err();
    assert!(matches!(err, ComputeError::Spec(_)), "{err}");
    // Too few inputs, too many outputs.
    let err = copy_kernel(COPY, "copy")
        .spawn::<Vec<f32>, Vec<f32>>(rt.handle())
        .unwrap_err();
    assert!(matches!(err, ComputeError::Spec(_)), "{err}");
    let err = copy_kernel(COPY, "copy")
        .spawn::<(Vec<f32>, u32), (Vec<f32>, Vec<f32>)>(rt.handle())
        .unwrap_err();
    assert!(matches!(err, ComputeError::Spec(_)), "{err}");
    // No work dimensions.
    let err = Kernel::new(COPY, "copy")
        .arg(Arg::input::<f32>())
        .arg(Arg::output::<f32>(|s| s.len(0)))
        .arg(Arg::scalar::<u32>())
        .spawn::<(Vec<f32>, u32), Vec<f32>>(rt.handle())
        .unwrap_err();
    assert!(matches!(err, ComputeError::Spec(_)), "{err}");
}

#[test]
fn specs_that_do_not_fit_the_kernel_are_refused_at_spawn() {
    let rt = runtime();
    // One parameter short.
    let err = Kernel::new(COPY, "copy")
        .arg(Arg::input::<f32>())
        .arg(Arg::output::<f32>(|s| s.len(0)))
        .work(|s| WorkSize::new([s.len(0)]))
        .spawn::<Vec<f32>, Vec<f32>>(rt.handle())
        .unwrap_err();
    assert!(
        matches!(&err, ComputeError::Spec(m) if m.contains("3 parameters")),
        "{err}"
    );
    // `int` where the kernel has `float*` (checked where the device reports argument info).
    let err = Kernel::new(COPY, "copy")
        .arg(Arg::input::<i32>())
        .arg(Arg::output::<f32>(|s| s.len(0)))
        .arg(Arg::scalar::<u32>())
        .work(|s| WorkSize::new([s.len(0)]))
        .spawn::<(Vec<i32>, u32), Vec<f32>>(rt.handle())
        .unwrap_err();
    assert!(
        matches!(&err, ComputeError::Spec(m) if m.contains("float")),
        "{err}"
    );
}

#[test]
fn a_request_whose_buffers_do_not_fit_gets_an_error_reply_and_the_actor_carries_on() {
    let rt = runtime();
    let copy = copy_kernel(COPY, "copy")
        .spawn::<(Vec<f32>, u32), Vec<f32>>(rt.handle())
        .unwrap();
    let ask = |x: Vec<f32>, n: u32| copy.ask(|r| Request::new((x, n), r), LONG).wait().unwrap();
    let err = ask(vec![1.0; 3], 4).unwrap_err();
    assert!(
        matches!(&err, ComputeError::BadRequest(m) if m.contains("3 elements given, 4 expected")),
        "{err}"
    );
    let err = ask(Vec::new(), 0).unwrap_err();
    assert!(matches!(err, ComputeError::BadRequest(_)), "{err}");
    assert_eq!(ask(vec![1.0, 2.0], 2).unwrap(), vec![1.0, 2.0]);
}

#[test]
fn a_device_that_is_not_there_is_an_error_at_spawn() {
    let rt = runtime();
    let err = copy_kernel(COPY, "copy")
        .device(DeviceSelector::NameContains("no such device".into()))
        .spawn::<(Vec<f32>, u32), Vec<f32>>(rt.handle())
        .unwrap_err();
    assert!(matches!(err, ComputeError::NoDevice(_)), "{err}");
    let err = copy_kernel(COPY, "copy")
        .device(DeviceSelector::Index(1_000))
        .spawn::<(Vec<f32>, u32), Vec<f32>>(rt.handle())
        .unwrap_err();
    assert!(matches!(err, ComputeError::NoDevice(_)), "{err}");
}

const SCRATCH: &str = "
__kernel void k(__global const uint* x, __global uint* y, __local uint* scratch, uint m) {
    size_t i = get_global_id(0);
    scratch[get_local_id(0) % m] = x[i];
    y[i] = x[i] + m;
}";

#[test]
fn a_request_refused_after_its_writes_were_enqueued_is_answered_in_its_turn() {
    // Argument 0's write is enqueued before argument 2 (local memory of `m` elements) is
    // refused for m = 0: the error reply waits for the write, and the next request still runs.
    let rt = runtime();
    let k = Kernel::new(SCRATCH, "k")
        .arg(Arg::input::<u32>())
        .arg(Arg::output::<u32>(|s| s.len(0)))
        .arg(Arg::local::<u32>(|s| s.scalar_usize(3)))
        .arg(Arg::scalar::<u32>())
        .work(|s| WorkSize::new([s.len(0)]))
        .spawn::<(Vec<u32>, u32), Vec<u32>>(rt.handle())
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    for (i, m) in [(0, 0u32), (1, 4), (2, 0), (3, 1)] {
        let tx = tx.clone();
        k.tell(Request::then((vec![7u32; 64], m), move |r| {
            let _ = tx.send((i, r));
        }))
        .unwrap();
    }
    for want in 0..4 {
        let (i, r) = rx.recv_timeout(LONG).expect("every request is answered");
        assert_eq!(i, want, "replies in request order");
        match want {
            0 | 2 => assert!(
                matches!(&r, Err(ComputeError::BadRequest(m)) if m.contains("local memory")),
                "{r:?}"
            ),
            1 => assert_eq!(r.unwrap(), vec![11; 64]),
            _ => assert_eq!(r.unwrap(), vec![8; 64]),
        }
    }
}
