//! Timers: `call_after` fires (never early), `cancel_timer` prevents it, timers fire in deadline
//! order, and a deterministic runtime's virtual clock jumps to the next deadline at once.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use motet_runtime::{testing, Runtime};

#[test]
fn call_after_fires_once_and_not_early() {
    testing::check(|rt| {
        let handle = rt.handle().clone();
        let fired_at = Arc::new(Mutex::new(Vec::new()));
        let after = Duration::from_millis(20);
        let registered = handle.now();
        let (f, h) = (fired_at.clone(), handle.clone());
        handle.call_after(after, move || f.lock().unwrap().push(h.now()));
        rt.wait_quiescent();
        let fired_at = fired_at.lock().unwrap();
        assert_eq!(fired_at.len(), 1, "the callback must run exactly once");
        assert!(
            fired_at[0] >= registered + after,
            "the timer fired before its deadline"
        );
    });
}

#[test]
fn cancel_timer_prevents_the_callback() {
    testing::check(|rt| {
        let handle = rt.handle();
        let cancelled_ran = Arc::new(AtomicBool::new(false));
        let later_ran = Arc::new(AtomicBool::new(false));
        let (c, l) = (cancelled_ran.clone(), later_ran.clone());
        let key = handle.call_after(Duration::from_millis(10), move || c.store(true, SeqCst));
        // Fires after the cancelled one would have: once it has run, the other would have too.
        let later = handle.call_after(Duration::from_millis(30), move || l.store(true, SeqCst));
        assert!(handle.cancel_timer(key), "a pending timer can be cancelled");
        assert!(!handle.cancel_timer(key), "cancelling twice reports false");
        rt.wait_quiescent();
        assert!(later_ran.load(SeqCst));
        assert!(!cancelled_ran.load(SeqCst), "a cancelled timer fired");
        assert!(
            !handle.cancel_timer(later),
            "a fired timer cannot be cancelled"
        );
    });
}

#[test]
fn a_cancelled_timer_releases_its_callback() {
    testing::check(|rt| {
        let token = Arc::new(());
        let t = token.clone();
        let key = rt
            .handle()
            .call_after(Duration::from_secs(3600), move || drop(t));
        assert_eq!(Arc::strong_count(&token), 2);
        assert!(rt.handle().cancel_timer(key));
        assert_eq!(
            Arc::strong_count(&token),
            1,
            "the cancelled callback was not dropped"
        );
        rt.wait_quiescent();
    });
}

#[test]
fn timers_fire_in_deadline_order() {
    testing::check(|rt| {
        let order = Arc::new(Mutex::new(Vec::new()));
        for ms in [50u64, 10, 40, 20, 30, 0] {
            let o = order.clone();
            rt.handle().call_after(Duration::from_millis(ms), move || {
                o.lock().unwrap().push(ms)
            });
        }
        rt.wait_quiescent();
        assert_eq!(*order.lock().unwrap(), [0, 10, 20, 30, 40, 50]);
    });
}

#[test]
fn timers_set_from_tasks_and_callbacks_fire() {
    testing::check(|rt| {
        let count = Arc::new(AtomicUsize::new(0));
        let (h, c) = (rt.handle().clone(), count.clone());
        common::spawn(rt.handle(), move || {
            let (h2, c2) = (h.clone(), c.clone());
            h.call_after(Duration::from_millis(2), move || {
                c2.fetch_add(1, SeqCst);
                let c3 = c2.clone();
                // A timer set by a timer callback.
                h2.call_after(Duration::from_millis(2), move || {
                    c3.fetch_add(1, SeqCst);
                });
            });
        });
        rt.wait_quiescent();
        assert_eq!(count.load(SeqCst), 2);
    });
}

/// Virtual time: an hour-long timer fires without waiting, the clock reads exactly its deadline, and
/// the clock does not move while there is work to run.
#[test]
fn deterministic_time_jumps_to_the_next_deadline() {
    testing::check_deterministic(|rt| {
        let handle = rt.handle().clone();
        let wall = Instant::now();
        let start = handle.now();
        let seen = Arc::new(Mutex::new(Vec::new()));
        for hours in [2u64, 1] {
            let (s, h) = (seen.clone(), handle.clone());
            handle.call_after(Duration::from_secs(3600 * hours), move || {
                s.lock().unwrap().push(h.now());
            });
        }
        for _ in 0..10 {
            common::spawn(&handle, || {});
        }
        let ran = Arc::new(AtomicBool::new(false));
        let r = ran.clone();
        let h = handle.clone();
        common::spawn(&handle, move || {
            assert_eq!(
                h.now(),
                start,
                "virtual time moved while tasks were runnable"
            );
            r.store(true, SeqCst);
        });
        rt.wait_quiescent();
        assert!(ran.load(SeqCst));
        let hour = Duration::from_secs(3600);
        assert_eq!(*seen.lock().unwrap(), [start + hour, start + 2 * hour]);
        assert_eq!(handle.now(), start + 2 * hour);
        // Two hours of virtual time did not take two hours.
        assert!(wall.elapsed() < hour);
    });
}

#[test]
fn the_physical_clock_advances_on_a_pool() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let a = rt.handle().now();
    std::thread::sleep(Duration::from_millis(2));
    assert!(rt.handle().now() > a);
    assert_eq!(rt.handle().seed(), None);
}

/// The timer thread is woken only for a deadline earlier than the one it sleeps towards: a later
/// timer registered behind an earlier one, and one behind a cancelled earlier one, still fire on
/// time (the thread finds them when it wakes for the earlier deadline), and an earlier one
/// registered while it sleeps towards a distant deadline fires without waiting for that deadline.
#[test]
fn timers_registered_behind_a_sleeping_deadline_fire_on_time() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let handle = rt.handle();
    let (tx, rx) = std::sync::mpsc::channel::<&'static str>();
    let distant = handle.call_after(Duration::from_secs(60), || {});
    // Let the thread go to sleep towards the distant deadline.
    std::thread::sleep(Duration::from_millis(20));
    let t = tx.clone();
    let early = handle.call_after(Duration::from_millis(30), move || t.send("early").unwrap());
    let t = tx.clone();
    handle.call_after(Duration::from_millis(60), move || t.send("later").unwrap());
    let t = tx.clone();
    handle.call_after(Duration::from_millis(90), move || t.send("last").unwrap());
    assert!(handle.cancel_timer(early));
    let guard = Duration::from_secs(20);
    // Well before the distant deadline: a thread still asleep towards it would miss these.
    assert_eq!(rx.recv_timeout(guard), Ok("later"));
    assert_eq!(rx.recv_timeout(guard), Ok("last"));
    assert!(handle.cancel_timer(distant));
    rt.wait_quiescent();
}
