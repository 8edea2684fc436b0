//! The floor's scheduling, delivery and slot reuse, on small actor programs.

use super::{Actor, ActorId, Context, System, BATCH, CHAIN_BOUND};

/// Records what it receives; forwards `n - 1` to `next` while `n > 0`; exits on 0.
struct Relay {
    next: Option<ActorId>,
    seen: Vec<u32>,
    spawn_child: bool,
}

impl Relay {
    fn new(next: Option<ActorId>) -> Relay {
        Relay {
            next,
            seen: Vec::new(),
            spawn_child: false,
        }
    }
}

impl Actor for Relay {
    type Msg = u32;

    fn started(&mut self, cx: &mut Context<Self>) {
        if self.spawn_child {
            let me = cx.me();
            cx.send(me, 100);
            // A nested spawn inside a start hook gets the next id after its parent.
            let sibling = cx.spawn(Relay::new(None));
            assert_eq!(sibling.index(), me.index() + 1);
            cx.send(sibling, 5);
        }
    }

    fn receive(&mut self, n: u32, cx: &mut Context<Self>) {
        self.seen.push(n);
        if n == 100 {
            let child = cx.spawn(Relay::new(None));
            cx.send(child, 7);
            return;
        }
        match (n, self.next) {
            (0, _) => cx.exit(),
            (_, Some(next)) => cx.send(next, n - 1),
            (_, None) => {}
        }
    }
}

#[test]
fn two_actors_bounce_until_zero_then_drop_dead_letters() {
    let mut sys = System::new();
    let a = sys.spawn(Relay::new(None));
    let b = sys.spawn(Relay::new(Some(a)));
    sys.send(a, 0);
    sys.send(b, 3);
    sys.run();
    assert_eq!(sys.actor(a).seen, [0]);
    assert_eq!(sys.actor(b).seen, [3]);
    // b sent 2 to a after a exited.
    assert_eq!(sys.dropped(), 1);
    assert_eq!(sys.exited(), 1);
    assert_eq!(sys.delivered(), 2);
}

#[test]
fn messages_arrive_in_send_order_and_turns_are_batched() {
    let mut sys = System::new();
    let a = sys.spawn(Relay::new(None));
    let b = sys.spawn(Relay::new(None));
    // Above 100, which makes a relay spawn.
    let sent = 1_000..=(1_000 + BATCH as u32 + 1);
    for n in sent.clone() {
        sys.send(a, n);
    }
    sys.send(b, 1);
    sys.run();
    let expected: Vec<u32> = sent.collect();
    assert_eq!(sys.actor(a).seen, expected);
    assert_eq!(sys.actor(b).seen, [1]);
    assert_eq!(sys.delivered(), BATCH as u64 + 3);
}

/// Logs the order in which two actors handle their messages; actor 0 takes one per turn.
struct Turns {
    one_at_a_time: bool,
    log: std::rc::Rc<std::cell::RefCell<Vec<usize>>>,
}

impl Actor for Turns {
    type Msg = ();
    fn receive(&mut self, (): (), cx: &mut Context<Self>) {
        self.log.borrow_mut().push(cx.me().index());
    }
    fn batch(&self) -> usize {
        if self.one_at_a_time {
            1
        } else {
            BATCH
        }
    }
}

#[test]
fn an_actor_can_take_one_message_per_turn() {
    let log = std::rc::Rc::default();
    let mut sys = System::new();
    let a = sys.spawn(Turns {
        one_at_a_time: true,
        log: std::rc::Rc::clone(&log),
    });
    let b = sys.spawn(Turns {
        one_at_a_time: false,
        log: std::rc::Rc::clone(&log),
    });
    for _ in 0..3 {
        sys.send(a, ());
        sys.send(b, ());
    }
    sys.run();
    // Both wait in the injector; `a` yields after each message to the back of the wake queue,
    // which the worker serves before the injector, so `b` runs once `a` is done.
    assert_eq!(*log.borrow(), [0, 0, 0, 1, 1, 1]);
    assert_eq!(sys.delivered(), 6);
}

/// Logs its turns and passes each message on to `to`, if it has one; on its first message,
/// also wakes `also`, if it has one.
struct Forward {
    to: Option<ActorId>,
    also: Option<ActorId>,
    log: std::rc::Rc<std::cell::RefCell<Vec<usize>>>,
}

impl Actor for Forward {
    type Msg = u32;
    fn receive(&mut self, hops: u32, cx: &mut Context<Self>) {
        self.log.borrow_mut().push(cx.me().index());
        if let (Some(to), 1..) = (self.to, hops) {
            cx.send(to, hops - 1);
        }
        if let Some(also) = self.also.take() {
            cx.send(also, 0);
        }
    }
}

#[test]
fn the_actor_a_turn_wakes_runs_next_until_the_chain_bound() {
    let log: std::rc::Rc<std::cell::RefCell<Vec<usize>>> = std::rc::Rc::default();
    let mut sys = System::new();
    // 0 and 1 bounce a message; 1 wakes 2, which then waits in the wake queue.
    let a = sys.spawn(Forward {
        to: None,
        also: None,
        log: std::rc::Rc::clone(&log),
    });
    let c = sys.spawn(Forward {
        to: None,
        also: None,
        log: std::rc::Rc::clone(&log),
    });
    let b = sys.spawn(Forward {
        to: Some(a),
        also: Some(c),
        log: std::rc::Rc::clone(&log),
    });
    // Their first turns (nothing to handle: they were scheduled when spawned).
    sys.run();
    assert!(log.borrow().is_empty());
    sys.actor_mut(a).to = Some(b);
    let hops = 2 * CHAIN_BOUND + 10;
    sys.send(a, hops);
    sys.run();
    let log = log.borrow();
    assert_eq!(log.len(), hops as usize + 2);
    // `a` came from the injector; then CHAIN_BOUND turns come from the slot (each hand-off),
    // ahead of the woken actor; then it gets its turn.
    let queued = log.iter().position(|&i| i == c.index()).unwrap();
    assert_eq!(queued, CHAIN_BOUND as usize + 1, "{log:?}");
}

/// Spawns two children per message down to depth 0, each of which exits; records the order
/// in which depths are visited and the most actors alive at once.
struct Tree {
    parent: Option<ActorId>,
    pending: u8,
    log: std::rc::Rc<std::cell::RefCell<(Vec<u32>, usize, usize)>>,
}

impl Tree {
    fn new(
        parent: Option<ActorId>,
        log: &std::rc::Rc<std::cell::RefCell<(Vec<u32>, usize, usize)>>,
    ) -> Tree {
        let mut l = log.borrow_mut();
        l.1 += 1;
        l.2 = l.2.max(l.1);
        Tree {
            parent,
            pending: 0,
            log: std::rc::Rc::clone(log),
        }
    }

    fn done(&mut self, cx: &mut Context<Self>) {
        self.log.borrow_mut().1 -= 1;
        if let Some(parent) = self.parent {
            cx.send(parent, 0);
        }
        cx.exit();
    }
}

impl Actor for Tree {
    /// `depth + 1` to spread, 0 for a child's answer.
    type Msg = u32;
    fn receive(&mut self, msg: u32, cx: &mut Context<Self>) {
        match msg {
            0 => {
                self.pending -= 1;
                if self.pending == 0 {
                    self.done(cx);
                }
            }
            1 => {
                self.log.borrow_mut().0.push(0);
                self.done(cx);
            }
            spread => {
                self.log.borrow_mut().0.push(spread - 1);
                let me = cx.me();
                for _ in 0..2 {
                    let child = cx.spawn(Tree::new(Some(me), &self.log));
                    cx.send(child, spread - 1);
                }
                self.pending = 2;
            }
        }
    }
}

fn run_tree(sys: &mut System<Tree>, depth: u32) -> (Vec<u32>, usize) {
    let log = std::rc::Rc::default();
    let root = sys.spawn(Tree::new(None, &log));
    sys.send(root, depth + 1);
    sys.run();
    let (order, alive, most) = log.take();
    assert_eq!(alive, 0, "every actor exited");
    assert_eq!(order.len(), (1 << (depth + 1)) - 1);
    (order, most)
}

#[test]
fn spawned_actors_run_depth_first_from_the_spawn_stack() {
    let depth = 10;
    let (order, most) = run_tree(&mut System::new(), depth);
    // Depth first: the first leaf is reached after one node per level.
    let first_leaf = order.iter().position(|&d| d == 0).unwrap();
    assert_eq!(first_leaf, depth as usize, "{order:?}");
    // Breadth first would hold a whole level (1024 leaves) alive at once; depth first holds a
    // path and its siblings, plus the subtrees that the periodic oldest-spawn turns start.
    assert!(most <= 128, "{most} actors alive at once");
}

#[test]
fn a_reclaiming_system_reuses_the_slots_of_exited_actors() {
    let depth = 10;
    let mut keeping = System::new();
    let (kept_order, _) = run_tree(&mut keeping, depth);
    assert_eq!(keeping.actors().len(), (1 << (depth + 1)) - 1);
    let mut reclaiming = System::reclaiming();
    let (order, most) = run_tree(&mut reclaiming, depth);
    // The same flow; slots only for the actors alive at once (and the root, which keeps its).
    assert_eq!(order, kept_order);
    assert!(
        reclaiming.actors().len() <= most + 1,
        "{}",
        reclaiming.actors().len()
    );
    assert_eq!(reclaiming.exited(), (1 << (depth + 1)) - 1);
    assert_eq!(reclaiming.dropped(), 0);
}

#[test]
fn a_message_to_an_exited_actor_is_dropped_after_its_slot_is_reused() {
    let mut sys = System::reclaiming();
    let log = std::rc::Rc::default();
    let root = sys.spawn(Tree::new(None, &log));
    // A leaf under the root: it exits after its one message, and its slot is free.
    sys.send(root, 2);
    sys.run();
    let stale = ActorId {
        index: 1,
        generation: 0,
    };
    assert_eq!(sys.exited(), 3);
    // A new tree takes slot 1 again; the stale address still names nothing.
    let again = sys.spawn(Tree::new(None, &log));
    assert_eq!(again.index(), 3, "the harness's actors take new slots");
    sys.send(again, 2);
    sys.run();
    let before = sys.dropped();
    sys.send(stale, 1);
    assert_eq!(sys.dropped(), before + 1);
    sys.run();
    assert_eq!(sys.delivered(), 10);
}

#[test]
fn spawn_runs_the_start_hook_and_children_receive() {
    let mut sys = System::new();
    let mut parent = Relay::new(None);
    parent.spawn_child = true;
    let p = sys.spawn(parent);
    sys.run();
    assert_eq!(sys.actors().len(), 3);
    assert!(sys.actor(p).spawn_child);
    assert_eq!(sys.actor(p).seen, [100]);
    assert_eq!(sys.actors()[1].seen, [5]);
    assert_eq!(sys.actors()[2].seen, [7]);
}

/// What a run of [`run_tree`] leaves to compare: the order of the actors' turns, the most alive
/// at once, and the system's counts (slots, exits, deliveries, drops).
fn tree_run(sys: &mut System<Tree>, depth: u32) -> (Vec<u32>, usize, [u64; 4]) {
    let (order, most) = run_tree(sys, depth);
    let counts = [
        sys.actors().len() as u64,
        sys.exited() as u64,
        sys.delivered(),
        sys.dropped(),
    ];
    (order, most, counts)
}

#[test]
fn a_system_built_after_one_is_dropped_starts_empty_and_runs_the_same() {
    let depth = 8;
    let first = tree_run(&mut System::reclaiming(), depth);
    // Dropped with an actor waiting in the injector, messages in its mailbox and a spawned
    // actor's turn pending: none of it may reach the next system on this thread, which takes
    // over the dropped one's storage.
    {
        let mut left = System::reclaiming();
        let log = std::rc::Rc::default();
        let root = left.spawn(Tree::new(None, &log));
        left.send(root, 3);
        left.send(root, 4);
    }
    let second = tree_run(&mut System::reclaiming(), depth);
    assert_eq!(second, first);
    // A keeping system after a reclaiming one of the same type: every actor in a slot of its own,
    // numbered from 0 again, generations from 0 again.
    let mut keeping = System::new();
    let (order, _, counts) = tree_run(&mut keeping, depth);
    assert_eq!(order, first.0);
    assert_eq!(counts[0], (1 << (depth + 1)) - 1);
    drop(keeping);
    // Slot 0's actor exited in the dropped system (its generation went up): a new one there
    // starts at generation 0, as in a system that never had one.
    let mut fresh = System::new();
    let log = std::rc::Rc::default();
    let id = fresh.spawn(Tree::new(None, &log));
    assert_eq!(
        id,
        ActorId {
            index: 0,
            generation: 0
        }
    );
}
