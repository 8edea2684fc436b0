//! Stress: many spawners, many cowns, long chains, dynamic sets, shutdown under load. Sized to run
//! in seconds in a debug build; `cargo test --release -p motet-boc --test stress --
//! --include-ignored` adds the heavier variants.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use motet_boc::{when, Cown, Promise, WhenError};
use motet_runtime::Runtime;

/// A small deterministic generator for the spawners' choices.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Transfers between random accounts from several threads at once, half of them nested (the
/// withdrawal spawns the deposit): money is conserved and every transfer ran.
fn banking(workers: usize, spawners: usize, transfers: usize) {
    let rt = Runtime::builder().workers(workers).build().unwrap();
    let accounts: Arc<Vec<Cown<i64>>> =
        Arc::new((0..64).map(|_| Cown::new(rt.handle(), 1_000)).collect());
    let done = Arc::new(AtomicUsize::new(0));
    std::thread::scope(|s| {
        for t in 0..spawners {
            let (accounts, done) = (accounts.clone(), done.clone());
            s.spawn(move || {
                let mut rng = Lcg(t as u64 + 1);
                for i in 0..transfers {
                    let a = rng.below(accounts.len());
                    let b = (a + 1 + rng.below(accounts.len() - 1)) % accounts.len();
                    let amount = rng.below(50) as i64;
                    let done = done.clone();
                    if i % 2 == 0 {
                        drop(when((&accounts[a], &accounts[b]), move |(x, y)| {
                            *x -= amount;
                            *y += amount;
                            done.fetch_add(1, SeqCst);
                        }));
                    } else {
                        let to = accounts[b].clone();
                        drop(when(&accounts[a], move |x| {
                            *x -= amount;
                            drop(when(&to, move |y| {
                                *y += amount;
                                done.fetch_add(1, SeqCst);
                            }));
                        }));
                    }
                }
            });
        }
    });
    rt.wait_quiescent();
    assert_eq!(done.load(SeqCst), spawners * transfers);
    let total = when(&accounts[..], |all| all.iter().sum::<i64>()).wait();
    assert_eq!(total, Ok(64 * 1_000));
}

#[test]
fn banking_from_four_threads() {
    banking(2, 4, 2_000);
}

#[test]
#[ignore = "heavy: run in release with --include-ignored"]
fn banking_heavy() {
    banking(4, 8, 100_000);
}

/// Lone writers and two-cown behaviours spawned by two threads outside the runtime onto the same
/// few cowns. A lone writer between two two-cown behaviours on their first cown must keep the
/// second from overtaking the first on their second cown while the first is still enqueueing;
/// otherwise the two wait for each other and these behaviours never run.
fn mixed_spawners(workers: usize, transfers: usize) {
    let rt = Runtime::builder().workers(workers).build().unwrap();
    let accounts: Arc<Vec<Cown<i64>>> =
        Arc::new((0..4).map(|_| Cown::new(rt.handle(), 0)).collect());
    let done = Arc::new(AtomicUsize::new(0));
    std::thread::scope(|s| {
        for t in 0..2 {
            let (accounts, done) = (accounts.clone(), done.clone());
            s.spawn(move || {
                let mut rng = Lcg(t + 11);
                for i in 0..transfers {
                    let a = rng.below(4);
                    let b = (a + 1 + rng.below(3)) % 4;
                    let done = done.clone();
                    if i % 2 == 0 {
                        drop(when((&accounts[a], &accounts[b]), move |(x, y)| {
                            *x -= 1;
                            *y += 1;
                            done.fetch_add(1, SeqCst);
                        }));
                    } else {
                        drop(when(&accounts[a], move |x| {
                            *x += 0;
                            done.fetch_add(1, SeqCst);
                        }));
                    }
                }
            });
        }
    });
    rt.wait_quiescent();
    assert_eq!(
        done.load(SeqCst),
        2 * transfers,
        "behaviours were left waiting"
    );
}

#[test]
fn mixed_spawners_keep_the_two_phase_order() {
    for workers in [1, 2] {
        mixed_spawners(workers, 30_000);
    }
}

#[test]
#[ignore = "heavy: run in release with --include-ignored"]
fn mixed_spawners_keep_the_two_phase_order_heavy() {
    for _ in 0..10 {
        for workers in [1, 2, 4] {
            mixed_spawners(workers, 200_000);
        }
    }
}

/// One long chain on one cown, spawned from outside, with every tenth promise kept.
fn chain(workers: usize, n: u64) {
    let rt = Runtime::builder().workers(workers).build().unwrap();
    let c = Cown::new(rt.handle(), 0u64);
    let mut kept: Vec<(u64, Promise<u64>)> = Vec::new();
    for i in 0..n {
        let p = when(&c, |v| {
            *v += 1;
            *v
        });
        if i % 10 == 0 {
            kept.push((i + 1, p));
        }
    }
    for (expected, p) in kept {
        assert_eq!(p.wait(), Ok(expected));
    }
    assert_eq!(when(&c, |v| *v).wait(), Ok(n));
}

#[test]
fn a_long_chain_on_one_cown() {
    chain(2, 50_000);
}

#[test]
#[ignore = "heavy: run in release with --include-ignored"]
fn a_long_chain_on_one_cown_heavy() {
    chain(2, 2_000_000);
}

/// Dining philosophers over a dynamic set each: every philosopher eats `meals` times, each meal
/// spawning the next one.
fn philosophers(workers: usize, n: usize, meals: usize) {
    let rt = Runtime::builder().workers(workers).build().unwrap();
    let forks: Arc<Vec<Cown<usize>>> =
        Arc::new((0..n).map(|_| Cown::new(rt.handle(), 0)).collect());
    let eaten = Arc::new(AtomicUsize::new(0));
    fn eat(forks: Arc<Vec<Cown<usize>>>, i: usize, left: usize, eaten: Arc<AtomicUsize>) {
        let pair = vec![forks[i].clone(), forks[(i + 1) % forks.len()].clone()];
        drop(when(&pair, move |mut fs| {
            for f in fs.iter_mut() {
                *f += 1;
            }
            eaten.fetch_add(1, SeqCst);
            if left > 1 {
                eat(forks, i, left - 1, eaten);
            }
        }));
    }
    for i in (0..n).step_by(2).chain((1..n).step_by(2)) {
        eat(forks.clone(), i, meals, eaten.clone());
    }
    rt.wait_quiescent();
    assert_eq!(eaten.load(SeqCst), n * meals);
    let uses = when(&forks[..], |fs| fs.iter().sum::<usize>()).wait();
    assert_eq!(uses, Ok(2 * n * meals));
}

#[test]
fn dining_philosophers() {
    philosophers(2, 20, 200);
}

#[test]
#[ignore = "heavy: run in release with --include-ignored"]
fn dining_philosophers_heavy() {
    philosophers(4, 100, 10_000);
}

/// Readers and writers of a few cowns from several threads: writers see no torn state.
#[test]
fn readers_and_writers_from_several_threads() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let pairs: Arc<Vec<Cown<(u64, u64)>>> =
        Arc::new((0..4).map(|_| Cown::new(rt.handle(), (0, 0))).collect());
    let torn = Arc::new(AtomicUsize::new(0));
    std::thread::scope(|s| {
        for t in 0..4 {
            let (pairs, torn) = (pairs.clone(), torn.clone());
            s.spawn(move || {
                let mut rng = Lcg(t + 7);
                for _ in 0..3_000 {
                    let c = &pairs[rng.below(pairs.len())];
                    if rng.below(4) == 0 {
                        drop(when(c, |p| {
                            p.0 += 1;
                            p.1 += 1;
                        }));
                    } else {
                        let torn = torn.clone();
                        drop(when(c.read(), move |p: &(u64, u64)| {
                            if p.0 != p.1 {
                                torn.fetch_add(1, SeqCst);
                            }
                        }));
                    }
                }
            });
        }
    });
    rt.wait_quiescent();
    assert_eq!(torn.load(SeqCst), 0);
}

/// Dropping the runtime with behaviours queued: every promise resolves, run or cancelled, and a
/// later `when` on one of its cowns (which keep their runtime) is cancelled at once.
#[test]
fn shutdown_under_load_resolves_every_promise() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let cowns: Vec<_> = (0..8).map(|_| Cown::new(rt.handle(), 0u64)).collect();
    let mut promises = Vec::new();
    for i in 0..20_000 {
        let (a, b) = (&cowns[i % 8], &cowns[(i * 3 + 1) % 8]);
        if a.ptr_eq(b) {
            promises.push(when(a, |x| *x += 1));
        } else {
            promises.push(when((a, b), |(x, y)| {
                *x += 1;
                *y += 1;
            }));
        }
    }
    drop(rt);
    let (mut ran, mut cancelled) = (0, 0);
    for p in promises {
        match p.wait() {
            Ok(()) => ran += 1,
            Err(WhenError::Cancelled) => cancelled += 1,
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert_eq!(ran + cancelled, 20_000);
    assert_eq!(when(&cowns[0], |x| *x).wait(), Err(WhenError::Cancelled));
}
