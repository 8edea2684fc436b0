//! Programs are compiled once per device and source, and every actor on a device shares its
//! device state. A test binary of its own, so that no other test compiles programs meanwhile.

use motet_compute::{devices, Arg, Device, DeviceSelector, Kernel, WorkSize};

const TWO: &str = "
__kernel void one(__global int* x) { x[get_global_id(0)] = 1; }
__kernel void two(__global int* x) { x[get_global_id(0)] = 2; }";

#[test]
fn a_source_is_compiled_once_per_device_and_the_device_is_shared() {
    let rt = motet_runtime::Runtime::builder()
        .workers(1)
        .build()
        .unwrap();
    let listed = devices().expect("an OpenCL platform");
    assert!(!listed.is_empty());
    let device = Device::select(&DeviceSelector::Default).unwrap();
    assert!(Device::select(&DeviceSelector::Index(device.info().index))
        .unwrap()
        .same_as(&device));
    let before = device.programs_built();
    let spawn = |name: &str| {
        Kernel::new(TWO, name)
            .arg(Arg::output::<i32>(|_| 4))
            .work_size(WorkSize::new([4]))
            .on(&device)
            .spawn::<(), Vec<i32>>(rt.handle())
            .unwrap()
    };
    let (a, b, c) = (spawn("one"), spawn("two"), spawn("one"));
    assert_eq!(device.programs_built(), before + 1);
    let other = Kernel::new(format!("{TWO}\n// another source"), "one")
        .arg(Arg::output::<i32>(|_| 4))
        .work_size(WorkSize::new([4]))
        .on(&device)
        .spawn::<(), Vec<i32>>(rt.handle())
        .unwrap();
    assert_eq!(device.programs_built(), before + 2);
    drop((a, b, c, other));
}
