//! How idle workers take work from running ones ([`Stealing`]): under either policy no queued task
//! is held hostage behind a long turn, and fine-grained work that thieves take, give up on and
//! back off from runs every task exactly once, with the pool quiescent after each round.
//!
//! Every wait is bounded: a task held hostage fails the test after 60 seconds instead of hanging
//! it.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use motet_runtime::{Handle, Runtime, Stealing};

/// How long a waiting task waits before it reports its successors held hostage.
const DEADLINE: Duration = Duration::from_secs(60);

const POLICIES: [Stealing; 2] = [Stealing::Selective, Stealing::Eager];

/// A task on a 2-worker pool fills its slot, queues one more task behind it (a queue of one,
/// which a selective thief leaves alone while its owner moves from turn to turn), and then blocks
/// until both have run: the other worker must take both over.
#[test]
fn a_lone_queued_task_behind_a_long_turn_is_taken_over() {
    for stealing in POLICIES {
        for round in 0..10 {
            let ran = tasks_behind_a_long_turn_all_run(stealing, 2);
            assert!(
                ran,
                "{stealing:?}, round {round}: a queued task waited behind its owner's turn"
            );
        }
    }
}

/// Stress: on 2 and 4 workers, under either policy, chains of tiny tasks that now and then fan
/// out into a few more chains (so queues of one, of two and of many tasks form and are stolen
/// from, and thieves whose stolen work runs out at once back off): every task runs exactly
/// once, and the pool is quiescent after each round.
#[test]
fn fine_grained_work_runs_exactly_once_under_either_policy() {
    const ROOTS: usize = 16;
    const DEPTH: usize = 300;

    fn link(handle: Handle, id: usize, left: usize, runs: Arc<Vec<AtomicUsize>>) {
        runs[id * DEPTH + left].fetch_add(1, SeqCst);
        if left == 0 {
            return;
        }
        let next = handle.clone();
        let r = runs.clone();
        common::spawn(&handle, move || link(next, id, left - 1, r));
        if left.is_multiple_of(50) {
            // A burst of tasks that each end at once: a queue of several for a thief to halve.
            for _ in 0..8 {
                let r = runs.clone();
                common::spawn(&handle, move || {
                    r[ROOTS * DEPTH].fetch_add(1, SeqCst);
                });
            }
        }
    }

    for workers in [2, 4] {
        for stealing in POLICIES {
            let rt = Runtime::builder()
                .workers(workers)
                .stealing(stealing)
                .build()
                .unwrap();
            for round in 0..5 {
                let runs: Arc<Vec<AtomicUsize>> =
                    Arc::new((0..=ROOTS * DEPTH).map(|_| AtomicUsize::new(0)).collect());
                for id in 0..ROOTS {
                    let handle = rt.handle().clone();
                    let runs = runs.clone();
                    common::spawn(rt.handle(), move || link(handle, id, DEPTH - 1, runs));
                }
                rt.wait_quiescent();
                for (i, n) in runs[..ROOTS * DEPTH].iter().enumerate() {
                    assert_eq!(
                        n.load(SeqCst),
                        1,
                        "{stealing:?} on {workers} workers, round {round}: link {i}"
                    );
                }
                let bursts = ROOTS * ((DEPTH - 1) / 50) * 8;
                assert_eq!(
                    runs[ROOTS * DEPTH].load(SeqCst),
                    bursts,
                    "{stealing:?} on {workers} workers, round {round}: burst tasks"
                );
            }
        }
    }
}

/// A task on a 2-worker pool makes many tasks runnable in one long turn and waits for all of them:
/// the other worker takes them over in halves while the owner's turn lasts.
#[test]
fn a_long_queue_behind_a_long_turn_is_run_by_the_other_worker() {
    const TASKS: usize = 1000;
    for stealing in POLICIES {
        let ran = tasks_behind_a_long_turn_all_run(stealing, TASKS);
        assert!(
            ran,
            "{stealing:?}: queued tasks waited behind their owner's turn"
        );
    }
}

/// On a 2-worker pool, a task makes `tasks` tasks runnable (the first into its slot, the rest
/// into its queue) and then blocks until all of them have run, so the other worker must take
/// them over; whether they all ran within [`DEADLINE`]. The pool is quiescent afterwards.
fn tasks_behind_a_long_turn_all_run(stealing: Stealing, tasks: usize) -> bool {
    let rt = Runtime::builder()
        .workers(2)
        .stealing(stealing)
        .build()
        .unwrap();
    let handle = rt.handle().clone();
    let (done_tx, done_rx) = mpsc::channel();
    common::spawn(rt.handle(), move || {
        let (ran_tx, ran_rx) = mpsc::channel();
        for _ in 0..tasks {
            let ran_tx = ran_tx.clone();
            common::spawn(&handle, move || ran_tx.send(()).unwrap());
        }
        let ran = (0..tasks).all(|_| ran_rx.recv_timeout(DEADLINE).is_ok());
        done_tx.send(ran).unwrap();
    });
    let ran = done_rx
        .recv_timeout(2 * DEADLINE)
        .expect("the waiting task never finished");
    rt.wait_quiescent();
    ran
}
