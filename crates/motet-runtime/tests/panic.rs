//! Panic containment: a task whose `run` panics, or a timer callback that panics, does not take its
//! worker (or the timer thread) down: later work still runs.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::{Duration, Instant};

use motet_runtime::{testing, Runtime};

/// Waits for `flag` (driving a deterministic runtime), with a generous deadlock guard instead of
/// hanging if a dead worker never sets it.
fn wait_for(rt: &Runtime, flag: &AtomicBool) {
    rt.handle().drive_until(|| flag.load(SeqCst));
    let deadline = Instant::now() + Duration::from_secs(30);
    while !flag.load(SeqCst) {
        assert!(
            Instant::now() < deadline,
            "a task scheduled after a panic never ran"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn a_panicking_task_does_not_kill_its_worker() {
    testing::check(|rt| {
        for round in 0..3 {
            common::spawn(rt.handle(), move || panic!("task panic {round}"));
            let after = Arc::new(AtomicBool::new(false));
            let a = after.clone();
            common::spawn(rt.handle(), move || a.store(true, SeqCst));
            wait_for(rt, &after);
        }
        rt.wait_quiescent();
    });
}

#[test]
fn many_panics_interleaved_with_work() {
    testing::check(|rt| {
        let ran = Arc::new(AtomicUsize::new(0));
        for i in 0..200 {
            if i % 3 == 0 {
                common::spawn(rt.handle(), || std::panic::panic_any(17u32));
            } else {
                let r = ran.clone();
                common::spawn(rt.handle(), move || {
                    r.fetch_add(1, SeqCst);
                });
            }
        }
        rt.wait_quiescent();
        assert_eq!(ran.load(SeqCst), 200 - 67);
        // Still serving afterwards.
        let after = Arc::new(AtomicBool::new(false));
        let a = after.clone();
        common::spawn(rt.handle(), move || a.store(true, SeqCst));
        wait_for(rt, &after);
    });
}

#[test]
fn a_panicking_task_scheduled_from_a_task_is_contained() {
    testing::check(|rt| {
        let after = Arc::new(AtomicBool::new(false));
        let (h, a) = (rt.handle().clone(), after.clone());
        common::spawn(rt.handle(), move || {
            // Goes to this worker's next-task slot, then panics there.
            common::spawn(&h, || panic!("slot task panic"));
            let h2 = h.clone();
            h.call_after(Duration::from_millis(1), move || {
                common::spawn(&h2, move || a.store(true, SeqCst));
            });
        });
        wait_for(rt, &after);
        rt.wait_quiescent();
    });
}

#[test]
fn a_panicking_timer_callback_does_not_stop_later_timers() {
    testing::check(|rt| {
        let later = Arc::new(AtomicBool::new(false));
        let l = later.clone();
        rt.handle()
            .call_after(Duration::from_millis(1), || panic!("timer panic"));
        rt.handle()
            .call_after(Duration::from_millis(10), move || l.store(true, SeqCst));
        wait_for(rt, &later);
        rt.wait_quiescent();
        assert!(rt.handle().is_quiescent());
    });
}
