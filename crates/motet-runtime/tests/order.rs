//! Which task a worker runs next: tasks created by a running task run newest first (depth first, so
//! that a tree of tasks stays small in memory), woken tasks oldest first; and every waiting task
//! gets a turn: the oldest created task and a task scheduled from outside the pool run within 61
//! turns, a task that yields queues behind the tasks waiting, and a chain of tasks handing each
//! other the next-task slot makes way for them.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

use common::{schedule_fn, spawn, spawn_new, spawn_steps};
use motet_runtime::{Handle, Runtime};

fn one_worker() -> Runtime {
    Runtime::builder().workers(1).build().unwrap()
}

/// A binary tree of tasks, each creating its two children in its own turn: the worker goes depth
/// first, so a subtree finishes before its older sibling starts.
#[test]
fn a_tree_of_new_tasks_runs_depth_first() {
    fn node(h: &Handle, log: &Arc<Mutex<Vec<u32>>>, id: u32, depth: u32) {
        let (h2, log) = (h.clone(), log.clone());
        spawn_new(h, move || {
            log.lock().unwrap().push(id);
            if depth > 0 {
                node(&h2, &log, 2 * id, depth - 1);
                node(&h2, &log, 2 * id + 1, depth - 1);
            }
        });
    }
    let rt = one_worker();
    let log = Arc::new(Mutex::new(Vec::new()));
    let (h, l) = (rt.handle().clone(), log.clone());
    spawn(rt.handle(), move || node(&h, &l, 1, 3));
    rt.wait_quiescent();
    let order = log.lock().unwrap().clone();
    assert_eq!(order.len(), 15);
    // Each node runs before its descendants, and each subtree of the root runs contiguously: the
    // child in the next-task slot (the left one, 2) first, then all of subtree 2 before subtree
    // 3, waiting on the spawn stack, starts.
    let subtree_of = |id: u32| -> u32 {
        let mut id = id;
        while id > 3 {
            id /= 2;
        }
        id
    };
    let pos = |id: u32| order.iter().position(|&x| x == id).unwrap();
    for id in 2..16 {
        assert!(
            pos(id / 2) < pos(id),
            "node {id} ran before its parent: {order:?}"
        );
    }
    let subtrees: Vec<u32> = order[1..].iter().map(|&id| subtree_of(id)).collect();
    let switch = subtrees.windows(2).filter(|w| w[0] != w[1]).count();
    assert_eq!(switch, 1, "subtrees interleaved: {order:?}");
}

/// Woken tasks (not created ones) run oldest first: four tasks made runnable in one turn run in
/// that order, the first from the next-task slot and the others from the wake queue.
#[test]
fn woken_tasks_run_oldest_first() {
    let rt = one_worker();
    let log = Arc::new(Mutex::new(Vec::new()));
    let (h, l) = (rt.handle().clone(), log.clone());
    spawn(rt.handle(), move || {
        for id in 1..=4 {
            let l = l.clone();
            spawn(&h, move || l.lock().unwrap().push(id));
        }
    });
    rt.wait_quiescent();
    assert_eq!(*log.lock().unwrap(), vec![1, 2, 3, 4]);
}

/// A created task waiting at the bottom of a worker's spawn stack runs while newer ones keep
/// arriving on top: an endless tree of tasks would otherwise starve it. The tree stops growing once
/// it has run.
#[test]
fn the_oldest_created_task_is_not_starved() {
    struct World {
        handle: Handle,
        old_ran: AtomicBool,
        turns_before: AtomicUsize,
    }
    fn grow(w: &Arc<World>) {
        let w2 = w.clone();
        spawn_new(&w.handle.clone(), move || {
            if w2.old_ran.load(SeqCst) {
                return;
            }
            let turns = w2.turns_before.fetch_add(1, SeqCst);
            assert!(turns < 100_000, "the old task never ran");
            grow(&w2);
            grow(&w2);
        });
    }
    let rt = one_worker();
    let world = Arc::new(World {
        handle: rt.handle().clone(),
        old_ran: AtomicBool::new(false),
        turns_before: AtomicUsize::new(0),
    });
    let w = world.clone();
    spawn(rt.handle(), move || {
        // From a worker: a first task takes the next-task slot, so `old` goes to the bottom of
        // the spawn stack, and every later task (the tree's root first) lands on top of it.
        spawn_new(&w.handle.clone(), || {});
        let w_old = w.clone();
        spawn_new(&w.handle.clone(), move || w_old.old_ran.store(true, SeqCst));
        grow(&w);
    });
    rt.wait_quiescent();
    assert!(world.old_ran.load(SeqCst));
    // Bounded by the interval at which a worker serves the oldest task of its spawn stack (61
    // turns), whatever the tree does meanwhile.
    let turns = world.turns_before.load(SeqCst);
    assert!(turns <= 61, "the old task waited {turns} turns");
}

/// A task that yields queues behind the tasks already waiting: on one worker, two yielding tasks
/// and a plain one interleave instead of one running all its turns first.
#[test]
fn a_yielding_task_queues_behind_the_waiting_ones() {
    let rt = one_worker();
    let log = Arc::new(Mutex::new(Vec::new()));
    let (h, l) = (rt.handle().clone(), log.clone());
    spawn(rt.handle(), move || {
        spawn_steps(&h, 1, 3, &l);
        spawn_steps(&h, 2, 3, &l);
    });
    rt.wait_quiescent();
    let order = log.lock().unwrap().clone();
    assert_eq!(order.len(), 6);
    let ones: Vec<usize> = (0..6).filter(|&i| order[i] == 1).collect();
    assert!(
        ones.windows(2).all(|w| w[1] - w[0] > 1),
        "task 1 ran twice in a row while task 2 waited: {order:?}"
    );
}

/// A chain of tasks handing each other the next-task slot until `stop` is set; while `counting`,
/// each hop is counted in `hops`, and a million of them fail the test: the task the chain should
/// make way for (`waiting`, for the message) never ran.
struct Chain {
    handle: Handle,
    counting: AtomicBool,
    stop: AtomicBool,
    hops: AtomicUsize,
    waiting: &'static str,
}

impl Chain {
    /// A chain on a one-worker runtime whose chains make way after `chain_bound` hops.
    fn new(chain_bound: u32, counting: bool, waiting: &'static str) -> (Runtime, Arc<Chain>) {
        let rt = Runtime::builder()
            .workers(1)
            .chain_bound(chain_bound)
            .build()
            .unwrap();
        let chain = Arc::new(Chain {
            handle: rt.handle().clone(),
            counting: AtomicBool::new(counting),
            stop: AtomicBool::new(false),
            hops: AtomicUsize::new(0),
            waiting,
        });
        (rt, chain)
    }

    fn hop(self: &Arc<Self>) {
        let c = self.clone();
        schedule_fn(
            &self.handle.clone(),
            move || {
                if c.stop.load(SeqCst) {
                    return;
                }
                if c.counting.load(SeqCst) {
                    let hops = c.hops.fetch_add(1, SeqCst);
                    assert!(hops < 1_000_000, "{} never ran", c.waiting);
                }
                c.hop();
            },
            || {},
        );
    }
}

/// Two tasks handing the next-task slot back and forth (a ping-pong chain) make way for a task
/// waiting in the wake queue once the chain bound is reached.
#[test]
fn a_slot_chain_makes_way_for_waiting_tasks() {
    let (rt, chain) = Chain::new(16, true, "the waiting task");
    let c = chain.clone();
    spawn(rt.handle(), move || {
        // The chain takes the next-task slot; the waiting task queues behind it.
        c.hop();
        let c_wait = c.clone();
        spawn(&c.handle.clone(), move || c_wait.stop.store(true, SeqCst));
    });
    rt.wait_quiescent();
    assert!(chain.stop.load(SeqCst));
    let hops = chain.hops.load(SeqCst);
    assert!(
        hops >= 16,
        "the chain made way before its bound: {hops} hops"
    );
    assert!(hops <= 16 + 61, "{hops} hops");
}

/// A chain of tasks handing each other the next-task slot that never makes way by itself (its
/// bound out of reach) still lets in a task scheduled from outside the pool: the worker looks at
/// the injector first once every 61 turns.
#[test]
fn a_slot_chain_lets_in_a_task_from_outside() {
    let (rt, chain) = Chain::new(u32::MAX, false, "the task from outside");
    let c = chain.clone();
    spawn(rt.handle(), move || {
        c.hop();
        // From a thread outside the pool: into the injector. The chain counts its hops from the
        // moment the task is there.
        std::thread::spawn(move || {
            let c_stop = c.clone();
            spawn(&c.handle.clone(), move || c_stop.stop.store(true, SeqCst));
            c.counting.store(true, SeqCst);
        });
    });
    rt.wait_quiescent();
    assert!(chain.stop.load(SeqCst));
    let hops = chain.hops.load(SeqCst);
    assert!(hops <= 61, "the task from outside waited {hops} turns");
}
