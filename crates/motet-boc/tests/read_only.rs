//! Read-only acquisition: readers of a cown run together; a writer waits for the readers spawned
//! before it, and readers spawned after it wait for it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::{Duration, Instant};

use motet_boc::{read_all, when, Cown};
use motet_runtime::{testing, Runtime};

/// A deadlock guard for waits that must end (never a timing assertion).
const GUARD: Duration = Duration::from_secs(60);

/// Two readers of one cown, on two workers, are observed running at the same time: each waits
/// until it sees the other inside.
#[test]
fn readers_overlap_on_two_workers() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let c = Cown::new(rt.handle(), 7u32);
    for _ in 0..20 {
        let inside = Arc::new(AtomicUsize::new(0));
        let promises: Vec<_> = (0..2)
            .map(|_| {
                let inside = inside.clone();
                when(c.read(), move |v: &u32| {
                    inside.fetch_add(1, SeqCst);
                    let start = Instant::now();
                    while inside.load(SeqCst) < 2 && start.elapsed() < GUARD {
                        std::hint::spin_loop();
                    }
                    let met = inside.load(SeqCst) >= 2;
                    (*v, met)
                })
            })
            .collect();
        for p in promises {
            assert_eq!(
                p.wait(),
                Ok((7, true)),
                "the two readers never ran together"
            );
        }
    }
}

/// Readers of a dynamic set overlap too.
#[test]
fn dynamic_set_readers_overlap_on_two_workers() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let cowns: Vec<_> = (0..4).map(|i| Cown::new(rt.handle(), i)).collect();
    let inside = Arc::new(AtomicUsize::new(0));
    let promises: Vec<_> = (0..2)
        .map(|_| {
            let inside = inside.clone();
            when(read_all(&cowns), move |vs| {
                inside.fetch_add(1, SeqCst);
                let start = Instant::now();
                while inside.load(SeqCst) < 2 && start.elapsed() < GUARD {
                    std::hint::spin_loop();
                }
                (vs.iter().sum::<i32>(), inside.load(SeqCst) >= 2)
            })
        })
        .collect();
    for p in promises {
        assert_eq!(p.wait(), Ok((6, true)));
    }
}

/// Readers, then a writer, then readers: the writer runs after every earlier reader finished and
/// before any later reader started.
#[test]
fn a_writer_is_ordered_between_reader_phases() {
    testing::check(|rt| {
        let c = Cown::new(rt.handle(), 0u32);
        let early_done = Arc::new(AtomicUsize::new(0));
        let writer_done = Arc::new(AtomicBool::new(false));
        let late_started = Arc::new(AtomicUsize::new(0));
        let mut checks = Vec::new();
        for _ in 0..3 {
            let (early_done, writer_done) = (early_done.clone(), writer_done.clone());
            checks.push(when(c.read(), move |v: &u32| {
                let ok = *v == 0 && !writer_done.load(SeqCst);
                early_done.fetch_add(1, SeqCst);
                ok
            }));
        }
        {
            let (early_done, writer_done, late_started) = (
                early_done.clone(),
                writer_done.clone(),
                late_started.clone(),
            );
            checks.push(when(&c, move |v| {
                let ok = early_done.load(SeqCst) == 3 && late_started.load(SeqCst) == 0;
                *v = 1;
                writer_done.store(true, SeqCst);
                ok
            }));
        }
        for _ in 0..3 {
            let (writer_done, late_started) = (writer_done.clone(), late_started.clone());
            checks.push(when(c.read(), move |v: &u32| {
                late_started.fetch_add(1, SeqCst);
                *v == 1 && writer_done.load(SeqCst)
            }));
        }
        for p in checks {
            assert_eq!(p.wait(), Ok(true));
        }
    });
}

/// A behaviour reading one cown and writing another, against writers of the first.
#[test]
fn mixed_access_keeps_writer_order() {
    testing::check(|rt| {
        let config = Cown::new(rt.handle(), 1u64);
        let out = Cown::new(rt.handle(), Vec::new());
        for i in 0..20u64 {
            if i % 5 == 0 {
                drop(when(&config, move |c| *c = i));
            } else {
                drop(when((config.read(), &out), move |(c, o)| o.push((i, *c))));
            }
        }
        let seen = when(&out, |o| o.clone()).wait().unwrap();
        for (i, c) in seen {
            assert_eq!(c, i - i % 5, "reader {i} saw the wrong write");
        }
    });
}
