//! The task cell's counting: the cell is freed, with both parts dropped, exactly when the last of
//! the runnable and the handles goes, in any order and on any thread.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use super::{Running, Task, TaskRc, Turn};
use crate::task::Runnable;
use crate::Runtime;

/// Counts its drops, to see when a part is dropped.
struct Probe(Arc<AtomicUsize>);

impl Drop for Probe {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// A task whose parts are probes; a turn bumps the shared counter and yields while it is below
/// `yields`.
struct Probed;

struct Shared {
    turns: AtomicUsize,
    yields: usize,
    _probe: Probe,
    /// The address the shared part had when `placed` ran.
    placed_at: AtomicUsize,
}

impl Task for Probed {
    type Shared = Shared;
    type Private = (Probe, Vec<usize>);

    fn run(mut task: Running<Probed>) -> Turn<Shared> {
        let (shared, private) = task.split();
        let turn = shared.turns.fetch_add(1, SeqCst);
        private.1.push(turn);
        if turn + 1 < shared.yields {
            Turn::Yield(task.into_runnable())
        } else {
            Turn::Idle
        }
    }

    fn placed(shared: &mut Shared) {
        let at = shared as *mut Shared as usize;
        shared.placed_at.store(at, SeqCst);
    }
}

fn probed(yields: usize, drops: &Arc<AtomicUsize>) -> (Runnable<Shared>, TaskRc<Shared>) {
    Runnable::with_handle::<Probed>(
        Shared {
            turns: AtomicUsize::new(0),
            yields,
            _probe: Probe(drops.clone()),
            placed_at: AtomicUsize::new(0),
        },
        (Probe(drops.clone()), Vec::new()),
    )
}

#[test]
fn the_last_of_runnable_and_handles_frees_the_cell() {
    for runnable_last in [false, true] {
        let drops = Arc::new(AtomicUsize::new(0));
        let (runnable, handle) = probed(1, &drops);
        let second = handle.clone();
        assert!(runnable.has_handles());
        if runnable_last {
            drop(handle);
            drop(second);
            assert!(!runnable.has_handles());
            assert_eq!(drops.load(SeqCst), 0);
            drop(runnable);
        } else {
            drop(runnable);
            drop(handle);
            assert_eq!(drops.load(SeqCst), 0);
            drop(second);
        }
        assert_eq!(drops.load(SeqCst), 2, "both parts dropped once");
    }
}

#[test]
fn try_release_keeps_the_last_handle_of_a_live_task() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (runnable, handle) = probed(1, &drops);
    let second = handle.clone();
    assert!(second.try_release().is_ok(), "not the last handle");
    let handle = handle
        .try_release()
        .expect_err("the last handle while the runnable exists");
    drop(runnable);
    assert_eq!(drops.load(SeqCst), 0);
    // Without the runnable, the last handle goes (and frees the cell).
    assert!(handle.try_release().is_ok());
    assert_eq!(drops.load(SeqCst), 2);
}

#[test]
fn the_shared_part_is_placed_once_where_it_stays() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (runnable, handle) = probed(1, &drops);
    let at = &*handle as *const Shared as usize;
    assert_eq!(handle.placed_at.load(SeqCst), at);
    assert_eq!(&*runnable as *const Shared as usize, at);
    assert!(runnable.is(&handle));
}

#[test]
fn a_runnable_goes_back_to_its_own_kind_only() {
    struct Other;
    impl Task for Other {
        type Shared = Shared;
        type Private = ();
        fn run(_: Running<Other>) -> Turn<Shared> {
            Turn::Idle
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let (runnable, handle) = probed(1, &drops);
    let runnable = runnable
        .into_running::<Other>()
        .expect_err("a `Probed` cell is not an `Other`");
    let mut running = runnable.into_running::<Probed>().expect("a `Probed` cell");
    running.private().1.push(7);
    let runnable = running.into_runnable();
    assert!(runnable.run_now().is_none(), "one turn and done");
    assert_eq!(handle.turns.load(SeqCst), 1);
    assert_eq!(drops.load(SeqCst), 0, "the handle keeps the cell");
    drop(handle);
    assert_eq!(drops.load(SeqCst), 2);
}

#[test]
fn yielded_tasks_are_queued_again_until_done() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let drops = Arc::new(AtomicUsize::new(0));
    let handles: Vec<TaskRc<Shared>> = (0..100)
        .map(|i| {
            let (runnable, handle) = probed(1 + i % 5, &drops);
            rt.handle().schedule(runnable);
            handle
        })
        .collect();
    rt.wait_quiescent();
    for (i, h) in handles.iter().enumerate() {
        assert_eq!(h.turns.load(SeqCst), 1 + i % 5);
    }
    drop(handles);
    assert_eq!(drops.load(SeqCst), 200);
}

#[test]
fn a_shut_down_runtime_shuts_down_what_it_is_given() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let handle = rt.handle().clone();
    rt.shutdown();
    let drops = Arc::new(AtomicUsize::new(0));
    let (runnable, task) = probed(1, &drops);
    handle.schedule(runnable);
    assert_eq!(task.turns.load(SeqCst), 0, "never ran");
    drop(task);
    assert_eq!(
        drops.load(SeqCst),
        2,
        "the default shutdown dropped the runnable"
    );
}

/// Stress: handles cloned and dropped on several threads while the task runs and finishes; the
/// cell is freed exactly once, after every thread is done with it.
#[test]
fn handles_and_runnable_race_to_the_free() {
    for round in 0..200 {
        let drops = Arc::new(AtomicUsize::new(0));
        let (runnable, handle) = probed(1 + round % 3, &drops);
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let h = handle.clone();
                std::thread::spawn(move || {
                    for _ in 0..100 {
                        let c = h.clone();
                        assert!(c.turns.load(SeqCst) <= 3);
                        drop(c);
                    }
                    let _ = h.try_release();
                })
            })
            .collect();
        let runner = std::thread::spawn(move || {
            let mut next = Some(runnable);
            while let Some(r) = next.take() {
                next = r.run_now();
            }
        });
        drop(handle);
        for t in threads {
            t.join().unwrap();
        }
        runner.join().unwrap();
        assert_eq!(drops.load(SeqCst), 2, "round {round}");
    }
}

/// A task with a tail: values made after the shared part is placed, read back by its turns, and
/// dropped with the cell.
struct Tailed;

impl Task for Tailed {
    type Shared = AtomicUsize;
    type Private = ();

    fn run(task: Running<Tailed>) -> Turn<AtomicUsize> {
        let sum: usize = task.tail().iter().map(|(v, _)| *v).sum();
        task.store(sum, SeqCst);
        Turn::Idle
    }
}

impl super::TaskWithTail for Tailed {
    type Tail = (usize, Probe);
}

#[test]
fn a_tail_is_made_in_place_read_by_turns_and_dropped_with_the_cell() {
    for len in [0, 1, 7, 64] {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut seen_shared = 0;
        let runnable = Runnable::new_with_tail::<Tailed>(AtomicUsize::new(0), (), len, |i, s| {
            seen_shared = s as *const AtomicUsize as usize;
            (i + 1, Probe(drops.clone()))
        });
        if len > 0 {
            assert_eq!(seen_shared, &*runnable as *const AtomicUsize as usize);
        }
        let handle = runnable.handle();
        assert!(runnable.run_now().is_none());
        assert_eq!(handle.load(SeqCst), len * (len + 1) / 2);
        assert_eq!(drops.load(SeqCst), 0);
        drop(handle);
        assert_eq!(drops.load(SeqCst), len);
    }
}

/// An erased runnable runs and ends its task as the typed one does, and goes back to its own kind
/// only.
#[test]
fn an_erased_runnable_runs_and_goes_back_to_its_kind_only() {
    struct Other;
    impl Task for Other {
        type Shared = AtomicUsize;
        type Private = ();
        fn run(_: Running<Other>) -> Turn<AtomicUsize> {
            Turn::Idle
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let (runnable, handle) = probed(2, &drops);
    let erased = runnable.erase();
    let erased = erased
        .downcast::<Other>()
        .expect_err("a `Probed` cell is not an `Other`");
    let erased = erased
        .run_now()
        .expect("the first of two turns yields the runnable");
    assert_eq!(handle.turns.load(SeqCst), 1);
    let mut running = erased.downcast::<Probed>().expect("a `Probed` cell");
    assert_eq!(running.private().1, [0]);
    assert!(running.into_runnable().erase().run_now().is_none());
    assert_eq!(handle.turns.load(SeqCst), 2);
    drop(handle);
    assert_eq!(drops.load(SeqCst), 2, "both parts dropped once");

    // Scheduled erased, on a runtime.
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (runnable, handle) = probed(3, &drops);
    rt.handle().schedule(runnable.erase());
    rt.wait_quiescent();
    assert_eq!(handle.turns.load(SeqCst), 3);
    drop(handle);
    assert_eq!(drops.load(SeqCst), 4);
}

crate::block_cache! {
    /// A block cache for the task tests.
    struct TestBlocks = crate::alloc::CacheConfig::new().grain(16).align(8).classes(8).bin_blocks(4);
}

#[test]
fn a_task_made_running_reads_its_tail_at_once() {
    for cached in [false, true] {
        let drops = Arc::new(AtomicUsize::new(0));
        let value = |i, _: &AtomicUsize| (10 * (i + 1), Probe(drops.clone()));
        let running = if cached {
            Running::<Tailed>::new_with_tail_in::<TestBlocks>(AtomicUsize::new(0), (), 3, value)
        } else {
            Running::<Tailed>::new_with_tail(AtomicUsize::new(0), (), 3, value)
        };
        let values: Vec<usize> = running.tail().iter().map(|(v, _)| *v).collect();
        assert_eq!(values, [10, 20, 30]);
        let handle = running.handle();
        assert!(running.into_runnable().run_now().is_none());
        assert_eq!(handle.load(SeqCst), 60);
        drop(handle);
        assert_eq!(drops.load(SeqCst), 3);
    }
}

/// A task whose `call` counts as a turn and returns the word it is given plus the turns so far.
struct Adder;

impl Task for Adder {
    type Shared = AtomicUsize;
    type Private = Probe;

    fn run(task: Running<Adder>) -> Turn<AtomicUsize> {
        task.fetch_add(1, SeqCst);
        Turn::Idle
    }

    fn call(task: Running<Adder>, arg: usize) -> usize {
        arg + task.fetch_add(1, SeqCst) + 1
    }
}

#[test]
fn a_call_reaches_its_kind_through_an_erased_runnable_and_ends_it() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (runnable, handle) =
        Runnable::with_handle::<Adder>(AtomicUsize::new(10), Probe(drops.clone()));
    // Through the erased form, as a model that does not know the kind calls it.
    assert_eq!(runnable.erase().call(5), 16);
    assert_eq!(handle.load(SeqCst), 11);
    // The call took the runnable over and dropped it: the handle is the last reference.
    assert_eq!(drops.load(SeqCst), 0);
    drop(handle);
    assert_eq!(drops.load(SeqCst), 1);
}

#[test]
fn the_default_call_ends_the_task_and_returns_its_word() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (runnable, handle) = probed(1, &drops);
    assert_eq!(runnable.call(42), 42);
    assert_eq!(
        handle.turns.load(SeqCst),
        0,
        "the default call runs no turn"
    );
    drop(handle);
    assert_eq!(
        drops.load(SeqCst),
        2,
        "both parts dropped once the handle went"
    );
}

/// `end_with_tail_in` ends a task as its drop does, whatever the task was made with and whatever
/// length it is told: the cell and its tail are dropped once the last reference goes, and a cell
/// with a tail from the named cache goes back to that cache (the block it freed last is the next
/// one it hands out).
#[test]
fn ending_a_task_in_its_cache_frees_it_as_the_drop_does() {
    let value = |drops: &Arc<AtomicUsize>| {
        let drops = drops.clone();
        move |i, _: &AtomicUsize| (i, Probe(drops.clone()))
    };
    // Made with a tail in the cache: freed by the inlined free, into the cache.
    for len in [0, 1, 3] {
        let drops = Arc::new(AtomicUsize::new(0));
        let running = Running::<Tailed>::new_with_tail_in::<TestBlocks>(
            AtomicUsize::new(0),
            (),
            len,
            value(&drops),
        );
        let at = running.handle().as_ptr();
        // The length given or not, right or wrong: the free is the same.
        let expected = match len {
            1 => None,
            3 => Some(4),
            n => Some(n),
        };
        running.end_with_tail_in::<TestBlocks>(expected);
        assert_eq!(drops.load(SeqCst), len, "len {len}: the tail dropped");
        let again = Running::<Tailed>::new_with_tail_in::<TestBlocks>(
            AtomicUsize::new(0),
            (),
            len,
            value(&drops),
        );
        assert_eq!(
            again.handle().as_ptr(),
            at,
            "len {len}: the block came back from the cache"
        );
        drop(again);
        assert_eq!(drops.load(SeqCst), 2 * len);
    }
    // A handle left: the end gives up the runnable's count only; the handle frees the cell.
    let drops = Arc::new(AtomicUsize::new(0));
    let running = Running::<Tailed>::new_with_tail_in::<TestBlocks>(
        AtomicUsize::new(7),
        (),
        2,
        value(&drops),
    );
    let handle = running.handle();
    running.end_with_tail_in::<TestBlocks>(Some(2));
    assert_eq!(drops.load(SeqCst), 0, "the handle keeps the cell");
    assert_eq!(handle.load(SeqCst), 7);
    drop(handle);
    assert_eq!(drops.load(SeqCst), 2);
    // Made from the global allocator, or without a tail: ended through the kind's own free.
    let drops = Arc::new(AtomicUsize::new(0));
    let running = Running::<Tailed>::new_with_tail(AtomicUsize::new(0), (), 3, value(&drops));
    running.end_with_tail_in::<TestBlocks>(Some(3));
    assert_eq!(drops.load(SeqCst), 3);
    let runnable = Runnable::new_in::<Tailed, TestBlocks>(AtomicUsize::new(0), ());
    let running = runnable.into_running::<Tailed>().expect("a `Tailed` cell");
    let handle = running.handle();
    running.end_with_tail_in::<TestBlocks>(None);
    assert_eq!(handle.load(SeqCst), 0);
    drop(handle);
}

/// A task that checks, in its turn, which addresses [`super::cell_contains`] puts in its cell.
struct Spanned;

impl Task for Spanned {
    type Shared = AtomicUsize;
    type Private = [u64; 8];

    fn run(mut task: Running<Spanned>) -> Turn<AtomicUsize> {
        let shared = &*task as *const AtomicUsize as usize;
        let private = task.private().as_ptr() as usize;
        let end = private + std::mem::size_of::<[u64; 8]>();
        let tail = task.tail().as_ptr() as usize;
        let inside = |addr: usize| {
            // SAFETY: `task` is the running task: its cell is alive.
            unsafe { super::cell_contains(&*task, addr) }
        };
        assert!(inside(shared) && inside(private) && inside(end - 1));
        assert!(!inside(shared - 1) && !inside(end) && !inside(0) && !inside(usize::MAX));
        if !task.tail().is_empty() {
            assert!(tail >= end && !inside(tail), "the tail is not included");
        }
        task.store(1, SeqCst);
        Turn::Idle
    }
}

impl super::TaskWithTail for Spanned {
    type Tail = u64;
}

#[test]
fn cell_contains_spans_the_shared_and_private_parts_only() {
    let plain = Runnable::new::<Spanned>(AtomicUsize::new(0), [0; 8]);
    let handle = plain.handle();
    assert!(plain.run_now().is_none());
    assert_eq!(handle.load(SeqCst), 1, "the turn ran its checks");
    let tailed =
        Runnable::new_with_tail::<Spanned>(AtomicUsize::new(0), [0; 8], 3, |i, _| i as u64);
    let handle = tailed.handle();
    assert!(tailed.run_now().is_none());
    assert_eq!(handle.load(SeqCst), 1, "the turn ran its checks");
}
