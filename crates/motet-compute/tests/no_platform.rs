//! With no OpenCL platform installed (the ICD loader pointed at an empty vendor folder), listing
//! devices and spawning fail with `NoDevice` instead of panicking. A test binary of its own: the
//! loader reads its configuration once per process.

use motet_compute::{devices, Arg, ComputeError, Kernel, WorkSize};

#[test]
fn no_platform_is_an_error_at_spawn() {
    let empty = std::env::temp_dir().join(format!("motet-no-icd-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    // Set before the first OpenCL call of this process (this binary's only test).
    std::env::set_var("OCL_ICD_VENDORS", &empty);
    std::env::set_var("OPENCL_VENDOR_PATH", &empty);
    assert!(matches!(devices(), Err(ComputeError::NoDevice(_))));
    let rt = motet_runtime::Runtime::builder()
        .workers(1)
        .build()
        .unwrap();
    let err = Kernel::new("__kernel void k(__global float* x) {}", "k")
        .arg(Arg::output::<f32>(|_| 1))
        .work_size(WorkSize::new([1]))
        .spawn::<(), Vec<f32>>(rt.handle());
    let _ = std::fs::remove_dir(&empty);
    assert!(matches!(err, Err(ComputeError::NoDevice(_))), "{err:?}");
}
