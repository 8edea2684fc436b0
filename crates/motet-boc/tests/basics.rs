//! The basic uses of `when`: one cown, several, dynamic sets, nesting, results, errors.

use std::time::Duration;

use motet_boc::{read, read_all, when, when_detached, Batch, Cown, Deferred, WhenError};
use motet_runtime::{testing, Runtime};

#[test]
fn a_single_cown_behaviour_runs_and_returns() {
    testing::check(|rt| {
        let c = Cown::new(rt.handle(), 41);
        let p = when(&c, |v| {
            *v += 1;
            *v
        });
        assert_eq!(p.wait(), Ok(42));
    });
}

#[test]
fn behaviours_on_one_cown_run_in_spawn_order() {
    testing::check(|rt| {
        let log = Cown::new(rt.handle(), Vec::new());
        for i in 0..100 {
            drop(when(&log, move |l| l.push(i)));
        }
        let seen = when(&log, |l| l.clone()).wait().unwrap();
        assert_eq!(seen, (0..100).collect::<Vec<_>>());
    });
}

#[test]
fn tuples_of_different_types_up_to_twelve() {
    testing::check(|rt| {
        let h = rt.handle();
        let (a, b, c, d) = (
            Cown::new(h, 1u8),
            Cown::new(h, 2u16),
            Cown::new(h, 3u32),
            Cown::new(h, String::from("x")),
        );
        let (e, f, g, i) = (
            Cown::new(h, 5u64),
            Cown::new(h, 6i8),
            Cown::new(h, 7i16),
            Cown::new(h, vec![8u8]),
        );
        let (j, k, l, m) = (
            Cown::new(h, 9usize),
            Cown::new(h, 10i64),
            Cown::new(h, 11i32),
            Cown::new(h, 12u128),
        );
        let p = when(
            (&a, &b, &c, &d, &e, &f, &g, &i, &j, &k, &l, &m),
            |(a, b, c, d, e, f, g, i, j, k, l, m)| {
                d.push('y');
                i.push(9);
                *a as u128
                    + *b as u128
                    + *c as u128
                    + d.len() as u128
                    + *e as u128
                    + *f as u128
                    + *g as u128
                    + i.len() as u128
                    + *j as u128
                    + *k as u128
                    + *l as u128
                    + *m
            },
        );
        assert_eq!(
            p.wait(),
            Ok(1 + 2 + 3 + 2 + 5 + 6 + 7 + 2 + 9 + 10 + 11 + 12)
        );
        let q = when((read(&d), i.read()), |(d, i)| (d.clone(), i.clone()));
        assert_eq!(q.wait(), Ok((String::from("xy"), vec![8, 9])));
    });
}

#[test]
fn a_dynamic_set_acquires_all_its_cowns() {
    testing::check(|rt| {
        let forks: Vec<_> = (0..10).map(|i| Cown::new(rt.handle(), i)).collect();
        drop(when(&forks, |mut fs| {
            assert_eq!(fs.len(), 10);
            for f in fs.iter_mut() {
                *f *= 2;
            }
        }));
        let sum = when(read_all(&forks), |fs| fs.iter().sum::<i32>()).wait();
        assert_eq!(sum, Ok(90));
        let pair = when(&forks[3..5], |fs| (fs[0], fs[1])).wait();
        assert_eq!(pair, Ok((6, 8)));
    });
}

#[test]
fn nested_whens_run_after_their_parents() {
    testing::check(|rt| {
        let a = Cown::new(rt.handle(), Vec::new());
        let b = Cown::new(rt.handle(), 0);
        let (a2, b2) = (a.clone(), b.clone());
        drop(when(&a, move |log| {
            log.push("outer");
            let a3 = a2.clone();
            drop(when(&b2, move |n| {
                *n += 1;
                drop(when(&a3, |log| log.push("inner")));
            }));
        }));
        rt.wait_quiescent();
        assert_eq!(when(&a, |l| l.clone()).wait().unwrap(), ["outer", "inner"]);
        assert_eq!(when(&b, |n| *n).wait(), Ok(1));
    });
}

#[test]
fn a_panicking_behaviour_releases_its_cowns() {
    testing::check(|rt| {
        let c = Cown::new(rt.handle(), 0);
        let p = when(&c, |_| -> () { panic!("boom") });
        let after = when(&c, |v| {
            *v += 1;
            *v
        });
        match p.wait() {
            Err(WhenError::Panicked(msg)) => assert!(msg.contains("boom")),
            other => panic!("expected a panic report, got {other:?}"),
        }
        assert_eq!(after.wait(), Ok(1));
    });
}

#[test]
fn naming_a_cown_twice_is_defined() {
    testing::check(|rt| {
        let c = Cown::new(rt.handle(), 5);
        let dup_write = when((&c, &c), |(a, b)| *a + *b);
        assert_eq!(dup_write.wait(), Err(WhenError::DuplicateCown));
        let mixed = when((&c, c.read()), |(a, b)| *a + *b);
        assert_eq!(mixed.wait(), Err(WhenError::DuplicateCown));
        let dup_read = when((c.read(), c.read()), |(a, b)| *a + *b);
        assert_eq!(dup_read.wait(), Ok(10));
        let set = vec![c.clone(), c.clone()];
        assert_eq!(
            when(&set, |s| s.len()).wait(),
            Err(WhenError::DuplicateCown)
        );
        assert_eq!(when(read_all(&set), |s| s[0] + s[1]).wait(), Ok(10));
        let empty: Vec<Cown<i32>> = Vec::new();
        assert_eq!(when(&empty, |s| s.len()).wait(), Err(WhenError::NoCowns));
        // The rejected `when`s left the cown usable.
        assert_eq!(when(&c, |v| *v).wait(), Ok(5));
    });
}

#[test]
fn detached_behaviours_keep_the_order_and_exclusion_of_when() {
    testing::check(|rt| {
        let h = rt.handle();
        let (log, other) = (Cown::new(h, Vec::new()), Cown::new(h, 0u32));
        let set = vec![Cown::new(h, 0u32), Cown::new(h, 0u32)];
        for i in 0..300u32 {
            match i % 4 {
                0 => when_detached(&log, move |l| l.push(i)),
                1 => when_detached((&log, &other), move |(l, o)| {
                    *o += 1;
                    l.push(i)
                }),
                2 => when(&log, move |l| l.push(i)).wait().map(drop),
                _ => {
                    let log = log.clone();
                    when_detached(&set, move |mut s| {
                        s[0] += 1;
                        // Nested: spawned while this behaviour holds the set, so after every
                        // earlier behaviour on the log.
                        when_detached(&log, move |l| l.push(i)).unwrap();
                    })
                }
            }
            .unwrap();
        }
        // Every set behaviour has run, so every nested spawn is enqueued before the read.
        when(&set, |_| ()).wait().unwrap();
        let seen = when((&log, &other), |(l, o)| (l.clone(), *o))
            .wait()
            .unwrap();
        // Quarters 0 to 2 are spawned on the log in order; quarter 3 only after its set behaviour,
        // so it lands later, but in order among itself.
        let direct: Vec<u32> = seen.0.iter().copied().filter(|i| i % 4 != 3).collect();
        assert_eq!(direct, (0..300).filter(|i| i % 4 != 3).collect::<Vec<_>>());
        let nested: Vec<u32> = seen.0.iter().copied().filter(|i| i % 4 == 3).collect();
        assert_eq!(nested, (0..300).filter(|i| i % 4 == 3).collect::<Vec<_>>());
        assert_eq!(seen.1, 75);
    });
}

#[test]
fn a_panicking_detached_behaviour_releases_its_cowns() {
    testing::check(|rt| {
        let c = Cown::new(rt.handle(), 0);
        when_detached(&c, |_| -> () { panic!("detached boom") }).unwrap();
        when_detached(&c, |v| *v += 1).unwrap();
        assert_eq!(when(&c, |v| *v).wait(), Ok(1));
    });
}

#[test]
fn a_rejected_detached_behaviour_returns_its_error() {
    testing::check(|rt| {
        let c = Cown::new(rt.handle(), 5);
        assert_eq!(
            when_detached((&c, &c), |(a, b)| *a += *b),
            Err(WhenError::DuplicateCown)
        );
        let empty: Vec<Cown<i32>> = Vec::new();
        assert_eq!(when_detached(&empty, |s| s.len()), Err(WhenError::NoCowns));
        assert_eq!(when_detached((c.read(), c.read()), |_| ()), Ok(()));
        assert_eq!(when(&c, |v| *v).wait(), Ok(5));
    });
}

#[test]
fn a_batch_is_not_interleaved() {
    testing::check(|rt| {
        let log = Cown::new(rt.handle(), Vec::new());
        let other = Cown::new(rt.handle(), ());
        let mut batch = Batch::new();
        let s1 = batch.add(&log, |l| l.push(1));
        let s2 = batch.add((&log, &other), |(l, _)| l.push(2));
        let spawned = batch.spawn();
        drop(when(&log, |l| l.push(3)));
        assert_eq!(spawned.promise(s1).unwrap().wait(), Ok(()));
        assert_eq!(spawned.promise(s2).unwrap().wait(), Ok(()));
        assert_eq!(when(&log, |l| l.clone()).wait().unwrap(), [1, 2, 3]);
    });
}

#[test]
fn deferred_values_release_their_waiters() {
    testing::check(|rt| {
        let (d, resolver) = Deferred::<u32>::new(rt.handle());
        let c = Cown::new(rt.handle(), 0u32);
        let p = when((&c, &d), |(c, d)| {
            *c = *d.unwrap();
            *c
        });
        let q = d.get();
        assert!(!p.is_done());
        resolver.resolve(7);
        assert_eq!(p.wait(), Ok(7));
        assert_eq!(q.wait(), Ok(Ok(7)));
        let (broken, resolver) = Deferred::<u32>::new(rt.handle());
        let r = broken.get();
        drop(resolver);
        assert_eq!(r.wait(), Ok(Err(motet_boc::Broken)));
    });
}

#[test]
fn promises_are_futures() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let c = Cown::new(rt.handle(), 3);
    let p = when(&c, |v| *v * 3);
    let value = futures_lite_block_on(p);
    assert_eq!(value, Ok(9));
    let slow = when(&c, |v| *v);
    assert!(slow.wait_timeout(Duration::from_secs(60)).is_ok());
}

/// A minimal executor for one future: polls it on this thread, parking between polls.
fn futures_lite_block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut f = std::pin::pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

/// A behaviour spawned from a running behaviour on a free cown is kept by the spawning worker to
/// run next; these check that it still runs, in order, wherever its cown lives.
mod handoff {
    use std::time::Duration;

    use motet_boc::{when, Cown, WhenError};
    use motet_runtime::{testing, Runtime};

    /// A guard against a hang, not a time measured: a machine under load still runs these
    /// behaviours in far less.
    const HANG: Duration = Duration::from_secs(120);

    #[test]
    fn a_behaviour_waiting_for_its_own_spawn_is_served_by_another_worker() {
        let rt = Runtime::builder().workers(2).build().unwrap();
        let (a, b) = (Cown::new(rt.handle(), 0u32), Cown::new(rt.handle(), 41u32));
        let inner = when(&a, move |_| {
            when(&b, |v| {
                *v += 1;
                *v
            })
            .wait_timeout(HANG)
            .ok()
        });
        assert_eq!(inner.wait_timeout(HANG).ok(), Some(Ok(Some(Ok(42)))));
    }

    #[test]
    fn spawns_from_a_behaviour_run_in_spawn_order() {
        testing::check(|rt| {
            let (a, log) = (
                Cown::new(rt.handle(), ()),
                Cown::new(rt.handle(), Vec::new()),
            );
            let l = log.clone();
            drop(when(&a, move |_| {
                for i in 0..50 {
                    drop(when(&l, move |l| l.push(i)));
                }
            }));
            rt.wait_quiescent();
            let seen = when(&log, |l| l.clone()).wait().unwrap();
            assert_eq!(seen, (0..50).collect::<Vec<_>>());
        });
    }

    #[test]
    fn a_spawn_on_another_runtime_runs_there() {
        let (rt1, rt2) = (
            Runtime::builder().workers(1).build().unwrap(),
            Runtime::builder().workers(1).build().unwrap(),
        );
        let (a, b) = (Cown::new(rt1.handle(), ()), Cown::new(rt2.handle(), 0u64));
        let b2 = b.clone();
        drop(when(&a, move |_| {
            for _ in 0..100 {
                drop(when(&b2, |v| *v += 1));
            }
        }));
        rt1.wait_quiescent();
        rt2.wait_quiescent();
        assert_eq!(when(&b, |v| *v).wait_timeout(HANG).ok(), Some(Ok(100)));
    }

    #[test]
    fn a_spawn_kept_by_a_panicking_behaviour_still_runs() {
        testing::check(|rt| {
            let (a, b) = (Cown::new(rt.handle(), ()), Cown::new(rt.handle(), 0u32));
            let b2 = b.clone();
            let p = when(&a, move |_| {
                drop(when(&b2, |v| *v += 1));
                panic!("after the spawn");
            });
            assert!(matches!(p.wait(), Err(WhenError::Panicked(_))));
            rt.wait_quiescent();
            assert_eq!(when(&b, |v| *v).wait(), Ok(1));
        });
    }
}
