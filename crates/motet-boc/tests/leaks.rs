//! Nothing leaks: every behaviour block, closure, cown, result and deferred value is freed.
//!
//! Closures, cown values and results are `Tracked` values that count themselves; after each
//! scenario (runtime quiescent or shut down, handles dropped) the count is back to zero. The byte
//! count of whole blocks is checked in `leak_bytes.rs`.

mod support;

use motet_boc::{when, when_detached, Cown};
use motet_runtime::{testing, Runtime};
use support::mixed::{mixed, Census};

#[test]
fn tracked_values_are_all_dropped() {
    testing::check(|rt| {
        let census = Census::default();
        mixed(rt, &census);
        assert_eq!(census.live(), 0, "a closure, value or result leaked");
    });
}

#[test]
fn cancelled_behaviours_drop_their_closures() {
    for deterministic in [false, true] {
        let census = Census::default();
        let rt = if deterministic {
            Runtime::builder().deterministic(5).build().unwrap()
        } else {
            Runtime::builder().workers(2).build().unwrap()
        };
        let cowns: Vec<_> = (0..4)
            .map(|_| Cown::new(rt.handle(), census.track()))
            .collect();
        let mut kept = Vec::new();
        for i in 0..5_000 {
            let (t, r) = (census.track(), census.track());
            let p = when((&cowns[i % 4], &cowns[(i + 1) % 4]), move |_| {
                drop(t);
                r
            });
            if i % 2 == 0 {
                kept.push(p);
            }
            let (t, r) = (census.track(), census.track());
            when_detached(&cowns[i % 4], move |_| {
                drop(t);
                r
            })
            .unwrap();
        }
        drop(rt);
        for p in kept {
            let _ = p.wait();
        }
        drop(cowns);
        assert_eq!(census.live(), 0);
    }
}
