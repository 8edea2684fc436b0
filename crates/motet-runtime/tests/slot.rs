//! The next-task slot does not hold a task hostage: a task that schedules a successor and then
//! waits for it (a long turn) sees the successor run on the pool's other worker, whether the
//! successor went to the slot (`Handle::schedule`) or was scheduled as new
//! (`Handle::schedule_new`), and whether the other worker was searching or parked at the time.
//!
//! Every wait is bounded: a successor held hostage fails the test after 60 seconds instead of
//! hanging it.

mod common;

use std::sync::mpsc;
use std::time::Duration;

use motet_runtime::{Handle, Runtime};

type Job = Box<dyn FnOnce() + Send>;

/// How long the spawner waits for its successor before it reports it held hostage.
const DEADLINE: Duration = Duration::from_secs(60);

/// Runs a task on a 2-worker pool that schedules a successor with `schedule`, optionally
/// sleeps first (so that the other worker has parked), then blocks until the successor has run.
/// Returns whether the successor ran while the spawner waited.
fn successor_runs_during_the_wait(schedule: fn(&Handle, Job), sleep_first: Duration) -> bool {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let handle = rt.handle().clone();
    let (done_tx, done_rx) = mpsc::channel();
    common::spawn(rt.handle(), move || {
        std::thread::sleep(sleep_first);
        let (ran_tx, ran_rx) = mpsc::channel();
        schedule(&handle, Box::new(move || ran_tx.send(()).unwrap()));
        let ran = ran_rx.recv_timeout(DEADLINE).is_ok();
        done_tx.send(ran).unwrap();
    });
    let ran = done_rx
        .recv_timeout(2 * DEADLINE)
        .expect("the spawning task never finished");
    rt.wait_quiescent();
    ran
}

fn into_slot(handle: &Handle, job: Job) {
    common::spawn(handle, job);
}

fn as_new(handle: &Handle, job: Job) {
    common::spawn_new(handle, job);
}

#[test]
fn a_successor_in_the_slot_runs_while_its_spawner_waits() {
    for round in 0..20 {
        assert!(
            successor_runs_during_the_wait(into_slot, Duration::ZERO),
            "round {round}: the successor waited in the slot behind its spawner's turn"
        );
    }
}

#[test]
fn a_successor_in_the_slot_wakes_a_parked_worker() {
    for round in 0..5 {
        assert!(
            successor_runs_during_the_wait(into_slot, Duration::from_millis(20)),
            "round {round}: the successor waited in the slot while the other worker slept"
        );
    }
}

#[test]
fn a_new_successor_runs_while_its_spawner_waits() {
    for round in 0..20 {
        assert!(
            successor_runs_during_the_wait(as_new, Duration::ZERO),
            "round {round}: the new successor waited behind its spawner's turn"
        );
    }
}

#[test]
fn a_new_successor_wakes_a_parked_worker() {
    for round in 0..5 {
        assert!(
            successor_runs_during_the_wait(as_new, Duration::from_millis(20)),
            "round {round}: the new successor waited while the other worker slept"
        );
    }
}

/// The successor starts a chain of eight tasks, each scheduling the next: once the first is taken
/// from the waiting spawner's slot, the chain runs to its end on the other worker.
#[test]
fn a_successor_chain_runs_to_its_end_while_its_spawner_waits() {
    fn link(handle: Handle, left: u32, done: mpsc::Sender<()>) {
        if left == 0 {
            done.send(()).unwrap();
            return;
        }
        let next = handle.clone();
        common::spawn(&handle, move || link(next, left - 1, done));
    }
    for round in 0..10 {
        let rt = Runtime::builder().workers(2).build().unwrap();
        let handle = rt.handle().clone();
        let (done_tx, done_rx) = mpsc::channel();
        common::spawn(rt.handle(), move || {
            let (tx, rx) = mpsc::channel();
            let next = handle.clone();
            common::spawn(&handle, move || link(next, 8, tx));
            done_tx.send(rx.recv_timeout(DEADLINE).is_ok()).unwrap();
        });
        let ran = done_rx
            .recv_timeout(2 * DEADLINE)
            .expect("the spawning task never finished");
        assert!(
            ran,
            "round {round}: the chain stopped behind its spawner's turn"
        );
        rt.wait_quiescent();
    }
}

/// One turn hands a successor over through its slot and blocks until it has run, forty times in
/// a row. Each rescue from that turn ends while the turn goes on, so the other worker waits longer
/// before it takes the slot (up to the runtime's bound): every successor still runs, on the other
/// worker, while the turn waits.
#[test]
fn a_turn_that_waits_for_successor_after_successor_sees_each_run() {
    const SUCCESSORS: usize = 40;
    let rt = Runtime::builder().workers(2).build().unwrap();
    let handle = rt.handle().clone();
    let (done_tx, done_rx) = mpsc::channel();
    common::spawn(rt.handle(), move || {
        let mut ran = 0;
        for _ in 0..SUCCESSORS {
            let (ran_tx, ran_rx) = mpsc::channel();
            common::spawn(&handle, move || ran_tx.send(()).unwrap());
            if ran_rx.recv_timeout(DEADLINE).is_err() {
                break;
            }
            ran += 1;
        }
        done_tx.send(ran).unwrap();
    });
    let ran = done_rx
        .recv_timeout(2 * DEADLINE)
        .expect("the spawning task never finished");
    assert_eq!(
        ran, SUCCESSORS,
        "successor {ran} waited in the slot behind its spawner's turn"
    );
    rt.wait_quiescent();
}

/// Stress: chains of tasks on four workers, where some turns busy-wait long enough for thieves to
/// take slots over while owners also take them: every link runs exactly once.
#[test]
fn slots_taken_by_owners_and_thieves_lose_and_repeat_nothing() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use std::sync::Arc;
    use std::time::Instant;

    const CHAINS: usize = 64;
    const LENGTH: usize = 200;

    fn link(handle: Handle, chain: usize, left: usize, runs: Arc<Vec<AtomicUsize>>) {
        runs[chain * LENGTH + left].fetch_add(1, SeqCst);
        if left == 0 {
            return;
        }
        if (chain + left).is_multiple_of(16) {
            // A long turn, with the successor already in the slot.
            let next = handle.clone();
            let r = runs.clone();
            common::spawn(&handle, move || link(next, chain, left - 1, r));
            let start = Instant::now();
            while start.elapsed() < Duration::from_micros(100) {
                std::hint::spin_loop();
            }
        } else {
            let next = handle.clone();
            common::spawn(&handle, move || link(next, chain, left - 1, runs));
        }
    }

    let rt = Runtime::builder().workers(4).build().unwrap();
    let runs: Arc<Vec<AtomicUsize>> =
        Arc::new((0..CHAINS * LENGTH).map(|_| AtomicUsize::new(0)).collect());
    for chain in 0..CHAINS {
        let handle = rt.handle().clone();
        let runs = runs.clone();
        common::spawn(rt.handle(), move || link(handle, chain, LENGTH - 1, runs));
    }
    rt.wait_quiescent();
    for (i, n) in runs.iter().enumerate() {
        assert_eq!(n.load(SeqCst), 1, "link {i} ran {} times", n.load(SeqCst));
    }
}

/// Stress of the timed park: on a 2-worker pool, a task waits after an idle gap of a different
/// length each round (so the other worker is spinning, parked with its first timeout, or parked
/// with a longer one), then schedules a successor into its slot and blocks until it has run.
/// Each successor runs, and the pool is quiescent after every round.
#[test]
fn slot_tasks_are_rescued_whatever_the_idle_worker_is_doing() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let gaps_us = [0, 20, 60, 150, 400, 1000, 3000];
    for round in 0..70 {
        let gap = Duration::from_micros(gaps_us[round % gaps_us.len()]);
        let handle = rt.handle().clone();
        let (done_tx, done_rx) = mpsc::channel();
        common::spawn(rt.handle(), move || {
            std::thread::sleep(gap);
            let (ran_tx, ran_rx) = mpsc::channel();
            common::spawn(&handle, move || ran_tx.send(()).unwrap());
            done_tx.send(ran_rx.recv_timeout(DEADLINE).is_ok()).unwrap();
        });
        let ran = done_rx
            .recv_timeout(2 * DEADLINE)
            .expect("the spawning task never finished");
        assert!(
            ran,
            "round {round} (gap {gap:?}): the successor was held hostage"
        );
        rt.wait_quiescent();
        assert!(rt.handle().is_quiescent(), "round {round}");
    }
}

/// An idle pool stays quiescent: a worker parked with a timeout only looks around when the
/// timeout passes, and takes itself back (which would make the pool busy for a moment) only for
/// work it sees. Sampled between sleeps long enough for several timeouts.
#[test]
fn an_idle_pool_stays_quiescent_through_timed_parks() {
    for workers in [2, 4] {
        let rt = Runtime::builder().workers(workers).build().unwrap();
        // Some work first, so that workers park while others still run (with timeouts).
        for _ in 0..100 {
            common::spawn(rt.handle(), || {
                let start = std::time::Instant::now();
                while start.elapsed() < Duration::from_micros(50) {
                    std::hint::spin_loop();
                }
            });
        }
        rt.wait_quiescent();
        for sample in 0..50 {
            assert!(
                rt.handle().is_quiescent(),
                "{workers} workers, sample {sample}: an idle pool looked busy"
            );
            std::thread::sleep(Duration::from_micros(300));
        }
    }
}
