//! The process system: spawning, waiting, shutting down, panics, multi-step budgets. Scenarios run
//! under the deterministic scheduler and on pools of 1 and 2 workers.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use motet_process::{channel, ProcessSystem, WaitError};
use motet_runtime::{testing, Runtime};

#[test]
fn thousands_of_processes_finish_and_are_counted() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let done = Arc::new(AtomicUsize::new(0));
        let mut senders = Vec::new();
        for _ in 0..2_000 {
            let (tx, rx) = channel::unbounded::<usize>();
            let done = done.clone();
            system.spawn(async move {
                let v = rx.recv().await.unwrap();
                done.fetch_add(v, SeqCst);
            });
            senders.push(tx);
        }
        rt.wait_quiescent();
        assert_eq!(
            system.live(),
            2_000,
            "every process is parked on its receive"
        );
        for tx in &senders {
            tx.send(1).unwrap();
        }
        system.wait().unwrap();
        assert_eq!(done.load(SeqCst), 2_000);
        assert_eq!(system.live(), 0);
    });
}

#[test]
fn shutdown_cancels_a_parked_cycle() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        // A ring where every process holds the sender to the next one: nothing ever closes.
        let n = 100;
        let channels: Vec<_> = (0..n).map(|_| channel::unbounded::<u32>()).collect();
        let dropped = Arc::new(AtomicUsize::new(0));
        for i in 0..n {
            let rx = channels[i].1.clone();
            let next = channels[(i + 1) % n].0.clone();
            let guard = DropCount(dropped.clone());
            system.spawn(async move {
                let _guard = guard;
                while let Ok(v) = rx.recv().await {
                    let _ = next.send(v);
                }
            });
        }
        drop(channels);
        rt.wait_quiescent();
        assert_eq!(system.live(), n);
        system.shutdown();
        assert_eq!(system.live(), 0);
        assert_eq!(
            dropped.load(SeqCst),
            n,
            "every process's future was dropped"
        );
        assert!(system.is_shut_down());
        // Spawning after shutdown drops the future unrun.
        let guard = DropCount(dropped.clone());
        system.spawn(async move {
            let _guard = guard;
            unreachable!("a shut-down system runs nothing");
        });
        assert_eq!(dropped.load(SeqCst), n + 1);
    });
}

struct DropCount(Arc<AtomicUsize>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

#[test]
fn a_panicking_process_is_reported_and_the_others_go_on() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let (tx, rx) = channel::unbounded::<u32>();
        system.spawn(async move {
            panic!("boom");
        });
        system.spawn(async move {
            tx.send(1).unwrap();
        });
        assert_eq!(system.block_on(rx.recv()).unwrap(), Ok(1));
        match system.wait() {
            Err(WaitError::Panicked { count: 1, first }) => assert_eq!(first, "boom"),
            other => panic!("expected a panic report, got {other:?}"),
        }
    });
}

#[test]
fn a_busy_process_yields_to_the_others() {
    // One worker: a process that never waits (it only sends on an unbounded channel and yields
    // through its step budget via receives of its own) must not keep the others from running.
    testing::check(|rt| {
        let system = ProcessSystem::builder(rt.handle()).steps(8).build();
        let (flag_tx, flag_rx) = channel::unbounded::<()>();
        let (spin_tx, spin_rx) = channel::unbounded::<u32>();
        let (out_tx, out_rx) = channel::unbounded::<u32>();
        system.spawn(async move {
            // Receives that always find a value: each one is a step; the budget makes it yield.
            let mut spins = 0;
            loop {
                spin_tx.send(0).unwrap();
                spin_rx.recv().await.unwrap();
                spins += 1;
                if flag_rx.try_recv().is_ok() {
                    break;
                }
            }
            out_tx.send(spins).unwrap();
        });
        system.spawn(async move {
            flag_tx.send(()).unwrap();
        });
        let spins = system.block_on(out_rx.recv()).unwrap().unwrap();
        assert!(spins >= 1);
        system.wait().unwrap();
    });
}

#[test]
fn stuck_processes_are_reported_deterministically() {
    let rt = Runtime::builder().deterministic(7).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let (_tx, rx) = channel::unbounded::<u32>();
    system.spawn(async move {
        let _ = rx.recv().await;
    });
    assert_eq!(system.wait(), Err(WaitError::Stuck { live: 1 }));
    let (_tx2, rx2) = channel::unbounded::<u32>();
    assert_eq!(
        system.block_on(rx2.recv()),
        Err(WaitError::Stuck { live: 1 })
    );
    system.shutdown();
    assert_eq!(system.live(), 0);
}

#[test]
fn shutdown_drops_processes_that_never_ran_unpolled() {
    // On the deterministic runtime nothing runs until the system drives it: the spawned processes
    // wait in the runtime's queue, counted but never parked, so the registry does not hold them.
    let rt = Runtime::builder().deterministic(3).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let dropped = Arc::new(AtomicUsize::new(0));
    let polled = Arc::new(AtomicUsize::new(0));
    for _ in 0..10 {
        let guard = DropCount(dropped.clone());
        let polled = polled.clone();
        system.spawn(async move {
            let _guard = guard;
            polled.fetch_add(1, SeqCst);
        });
    }
    assert_eq!(system.live(), 10);
    system.shutdown();
    assert_eq!(system.live(), 0);
    assert_eq!(dropped.load(SeqCst), 10, "every future was dropped");
    assert_eq!(
        polled.load(SeqCst),
        0,
        "no future was polled after shutdown"
    );
}

#[test]
fn wait_sees_the_last_of_processes_spawned_on_one_worker_and_finished_on_another() {
    // A driver process forks processes that finish on whichever worker runs them: the spawned and
    // finished counts are kept per thread, and `wait` must still see the last one finish.
    for workers in [1, 2] {
        let rt = Runtime::builder().workers(workers).build().unwrap();
        let system = ProcessSystem::new(rt.handle());
        let done = Arc::new(AtomicUsize::new(0));
        for _round in 0..20 {
            let forks = system.clone();
            let done = done.clone();
            system.spawn(async move {
                for _ in 0..1_000 {
                    let (tx, rx) = channel::unbounded::<u32>();
                    let done = done.clone();
                    forks.spawn(async move {
                        if rx.recv().await == Ok(1) {
                            done.fetch_add(1, SeqCst);
                        }
                    });
                    tx.send(1).unwrap();
                }
            });
            system.wait().unwrap();
            assert_eq!(system.live(), 0);
        }
        assert_eq!(done.load(SeqCst), 20 * 1_000);
    }
}

#[test]
fn wait_timeout_reports_live_processes() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let (tx, rx) = channel::unbounded::<u32>();
    system.spawn(async move {
        let _ = rx.recv().await;
    });
    assert_eq!(
        system.wait_timeout(Duration::from_millis(10)),
        Err(WaitError::Timeout { live: 1 })
    );
    tx.send(1).unwrap();
    system.wait_timeout(Duration::from_secs(60)).unwrap();
}

#[test]
fn runtime_shutdown_cancels_scheduled_processes() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let dropped = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = channel::unbounded::<u32>();
    let guard = DropCount(dropped.clone());
    system.spawn(async move {
        let _guard = guard;
        let _ = rx.recv().await;
    });
    rt.wait_quiescent();
    drop(rt);
    // The parked process is woken onto a runtime that has shut down: it is cancelled at once.
    tx.send(1).unwrap();
    assert_eq!(dropped.load(SeqCst), 1);
    assert_eq!(system.live(), 0);
}

#[test]
fn processes_spawn_processes() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let (tx, rx) = channel::unbounded::<u32>();
        // Not an `async fn`: its future spawns futures of its own type, and naming the `Send` bound
        // here keeps the compiler from having to infer it through that cycle.
        #[allow(clippy::manual_async_fn)]
        fn fork(
            depth: u32,
            tx: channel::Sender<u32>,
        ) -> impl std::future::Future<Output = ()> + Send {
            async move {
                if depth == 0 {
                    tx.send(1).unwrap();
                    return;
                }
                let system = ProcessSystem::current().unwrap();
                system.spawn(fork(depth - 1, tx.clone()));
                system.spawn(fork(depth - 1, tx));
            }
        }
        system.spawn(fork(8, tx));
        let count = system
            .block_on(async {
                let mut n = 0;
                while rx.recv().await.is_ok() {
                    n += 1;
                }
                n
            })
            .unwrap();
        assert_eq!(count, 256);
        system.wait().unwrap();
    });
}

#[test]
fn processes_spawned_from_many_threads_are_counted_and_shut_down() {
    // Each spawning thread registers its processes in a shard of its own: the count and shutdown
    // must still see all of them, wherever they finish.
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let dropped = Arc::new(AtomicUsize::new(0));
    let received = Arc::new(AtomicUsize::new(0));
    let (threads, per_thread) = (8, 250);
    let spawners: Vec<_> = (0..threads)
        .map(|_| {
            let system = system.clone();
            let (dropped, received) = (dropped.clone(), received.clone());
            std::thread::spawn(move || {
                (0..per_thread)
                    .map(|_| {
                        let (tx, rx) = channel::unbounded::<usize>();
                        let guard = DropCount(dropped.clone());
                        let received = received.clone();
                        system.spawn(async move {
                            let _guard = guard;
                            if let Ok(v) = rx.recv().await {
                                received.fetch_add(v, SeqCst);
                            }
                        });
                        tx
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let senders: Vec<_> = spawners
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    rt.wait_quiescent();
    assert_eq!(
        system.live(),
        threads * per_thread,
        "every process is parked"
    );
    // Half of them get their value and finish on the workers, not on the threads that spawned them.
    for tx in senders.iter().step_by(2) {
        tx.send(1).unwrap();
    }
    rt.wait_quiescent();
    let half = threads * per_thread / 2;
    assert_eq!(received.load(SeqCst), half);
    assert_eq!(system.live(), half);
    system.shutdown();
    assert_eq!(system.live(), 0);
    assert_eq!(
        dropped.load(SeqCst),
        threads * per_thread,
        "every process's future was dropped once"
    );
    drop(senders);
}
