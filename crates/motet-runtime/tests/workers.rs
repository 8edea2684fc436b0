//! Worker count and identity: zero workers is an error, the default is the available parallelism,
//! and tasks run on the pool's named worker threads.

mod common;

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use motet_runtime::Runtime;

#[test]
fn zero_workers_is_an_error() {
    let err = Runtime::builder()
        .workers(0)
        .build()
        .expect_err("a pool of zero workers was built");
    assert!(err.to_string().contains("at least one worker"), "{err}");
}

#[test]
fn too_many_workers_is_an_error() {
    let err = Runtime::builder()
        .workers(70_000)
        .build()
        .expect_err("70,000 workers were accepted");
    assert!(err.to_string().contains("70000"), "{err}");
}

#[test]
fn the_default_is_the_available_parallelism() {
    let expected = std::thread::available_parallelism()
        .map(NonZeroUsize::get)
        .unwrap_or(1);
    assert_eq!(Runtime::new().unwrap().handle().workers(), expected);
    assert_eq!(
        Runtime::builder().build().unwrap().handle().workers(),
        expected
    );
}

#[test]
fn the_requested_count_is_used() {
    for n in [1, 2, 3, 5] {
        let rt = Runtime::builder().workers(n).build().unwrap();
        assert_eq!(rt.handle().workers(), n);
        rt.wait_quiescent();
    }
    // A chain bound of 0 is clamped, not a pool that never runs its slot.
    let rt = Runtime::builder()
        .workers(1)
        .chain_bound(0)
        .build()
        .unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    common::spawn_steps(rt.handle(), 1, 3, &log);
    rt.wait_quiescent();
    assert_eq!(*log.lock().unwrap(), [1, 1, 1]);
}

#[test]
fn a_deterministic_runtime_has_one_worker_and_no_threads() {
    let rt = Runtime::builder().deterministic(9).build().unwrap();
    assert_eq!(rt.handle().workers(), 1);
    assert_eq!(rt.handle().seed(), Some(9));
    let seen = Arc::new(Mutex::new(None));
    let (s, h) = (seen.clone(), rt.handle().clone());
    common::spawn(rt.handle(), move || {
        *s.lock().unwrap() = Some((std::thread::current().id(), h.on_worker()));
    });
    rt.wait_quiescent();
    // The task ran on the thread that drove the runtime.
    assert_eq!(
        *seen.lock().unwrap(),
        Some((std::thread::current().id(), false))
    );
}

#[test]
fn tasks_run_on_named_worker_threads() {
    let rt = Runtime::builder().workers(2).name("probe").build().unwrap();
    assert!(!rt.handle().on_worker());
    let seen = Arc::new(Mutex::new(Vec::new()));
    for _ in 0..20 {
        let (s, h) = (seen.clone(), rt.handle().clone());
        common::spawn(rt.handle(), move || {
            let name = std::thread::current().name().map(str::to_owned);
            s.lock().unwrap().push((name, h.on_worker()));
        });
    }
    rt.wait_quiescent();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 20);
    for (name, on_worker) in seen.iter() {
        assert!(*on_worker);
        let name = name.as_deref().unwrap_or("");
        assert!(
            name == "probe-worker-0" || name == "probe-worker-1",
            "task ran on {name:?}"
        );
    }
    let other = Runtime::builder().workers(1).build().unwrap();
    assert!(rt.handle().same_runtime(&rt.handle().clone()));
    assert!(!rt.handle().same_runtime(other.handle()));
}

/// A task scheduled as shared from a worker runs beside its scheduler: here the scheduling task
/// waits for it, which works only if another worker takes it (a task in the next-task slot would
/// wait for the scheduler's turn to end). The wait is bounded so that a regression fails instead of
/// hanging.
#[test]
fn a_shared_task_runs_on_another_worker_while_its_scheduler_works() {
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use std::time::{Duration, Instant};
    let rt = Runtime::builder().workers(2).build().unwrap();
    let h = rt.handle().clone();
    let outcome = Arc::new(Mutex::new(None));
    let seen = outcome.clone();
    common::spawn(rt.handle(), move || {
        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        common::spawn_shared(&h, move || flag.store(true, SeqCst));
        let start = Instant::now();
        while !ran.load(SeqCst) && start.elapsed() < Duration::from_secs(60) {
            std::thread::yield_now();
        }
        *seen.lock().unwrap() = Some(ran.load(SeqCst));
    });
    rt.wait_quiescent();
    assert_eq!(*outcome.lock().unwrap(), Some(true));
}
