//! The sequential floor's "actor system": one thread, plain calls, one `VecDeque` mailbox per actor.
//!
//! Every benchmark's `floor` variant runs the same message flow as its actor program (SPEC.md
//! section 3) on this system, so that it does the same work per message that an actor runtime does
//! (enqueue, schedule, dequeue, dispatch by `match`) without any synchronisation. It bounds what any
//! runtime can reach on the same program.
//!
//! # Model
//! - An actor is a value of the benchmark's actor type `A` (usually an enum over the actor kinds,
//!   dispatching with `match`); its messages are `A::Msg`. Actors are named by [`ActorId`]s, indices
//!   into the system, never reused.
//! - [`Context::send`] appends to the receiver's mailbox. An actor whose mailbox goes from empty to
//!   non-empty (unless it is the actor running now) becomes ready: into the next-actor slot if that
//!   is empty, otherwise to the back of the run queue.
//! - [`System::run`] runs the actor in the slot, or else the one at the front of the run queue,
//!   and delivers up to [`BATCH`] messages (or the actor's own [`Actor::batch`]) from its mailbox,
//!   one [`Actor::receive`] call each; if messages remain, the actor rejoins the back of the queue.
//!   After [`CHAIN_BOUND`] actors in a row from the slot, while others wait in the queue, the
//!   slot's actor queues behind them. `run` returns when no actor has a message: quiescence.
//!
//! This is motet's runtime's policy on one worker (its next-task slot, its chain bound, an
//! actor's yield to the back of the queue, motet-actor's default batch), so that the floor does
//! not lose to the runtime by scheduling worse: a floor with a plain FIFO queue ran behind motet's
//! actors on programs whose hand-offs the slot keeps in cache (chameneos, logmap).
//! - [`Context::exit`] stops the actor after the current message: it receives nothing more, messages
//!   sent to it later are dropped (as dead letters are), but its state stays readable through
//!   [`System::actor`] so that the harness can validate the result.
//! - [`Context::spawn`] creates an actor while the system runs (dynamic creation, as in fjcreate);
//!   its [`Actor::started`] hook runs at once, as Akka's `onPostStart` does.

use std::collections::VecDeque;

use crate::bench::{Iteration, Outcome, Prepared};

/// How many messages an actor handles per scheduling before it yields to the next one: motet-actor's
/// default.
pub const BATCH: usize = motet_actor::DEFAULT_BATCH as usize;

/// How many actors in a row run from the next-actor slot while others wait: motet's runtime's
/// default chain bound.
pub const CHAIN_BOUND: u32 = motet_runtime::DEFAULT_CHAIN_BOUND;

/// The address of an actor in a [`System`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActorId(usize);

impl ActorId {
    /// The actor's index: the number of actors spawned before it.
    pub fn index(self) -> usize {
        self.0
    }
}

/// An actor of the sequential floor.
pub trait Actor: Sized {
    /// The messages the actor type handles.
    type Msg;

    /// Runs once when the actor is spawned, with `cx.me()` set to the new actor.
    fn started(&mut self, cx: &mut Context<Self>) {
        let _ = cx;
    }

    /// Handles one message.
    fn receive(&mut self, msg: Self::Msg, cx: &mut Context<Self>);

    /// How many messages the actor handles per scheduling: [`BATCH`] unless the program configures
    /// its actor otherwise (as motet's `Spawn::batch` does).
    fn batch(&self) -> usize {
        BATCH
    }
}

/// What an actor can do while it handles a message: everything but touch other actors' state.
pub struct Context<A: Actor> {
    mailboxes: Vec<VecDeque<A::Msg>>,
    alive: Vec<bool>,
    /// The actor made ready first since the slot was last emptied: it runs next.
    slot: Option<usize>,
    /// Actors from the slot that ran in a row.
    chain: u32,
    ready: VecDeque<usize>,
    /// Actors spawned since the system last adopted them, in id order; `None` while an actor's
    /// `started` hook runs (it may spawn actors of its own, which get later ids).
    spawned: Vec<Option<A>>,
    running: Option<usize>,
    me: usize,
    exit_requested: bool,
    exited: usize,
    delivered: u64,
    dropped: u64,
}

impl<A: Actor> Context<A> {
    fn new() -> Context<A> {
        Context {
            mailboxes: Vec::new(),
            alive: Vec::new(),
            slot: None,
            chain: 0,
            ready: VecDeque::new(),
            spawned: Vec::new(),
            running: None,
            me: 0,
            exit_requested: false,
            exited: 0,
            delivered: 0,
            dropped: 0,
        }
    }

    /// The actor handling the current message (or running its `started` hook).
    pub fn me(&self) -> ActorId {
        ActorId(self.me)
    }

    /// Sends `msg` to `to`; a message to an actor that has exited is dropped.
    ///
    /// # Panics
    /// If `to` does not name an actor of this system.
    pub fn send(&mut self, to: ActorId, msg: A::Msg) {
        let i = to.0;
        if !self.alive[i] {
            self.dropped += 1;
            return;
        }
        let mailbox = &mut self.mailboxes[i];
        let was_empty = mailbox.is_empty();
        mailbox.push_back(msg);
        if was_empty && self.running != Some(i) {
            self.make_ready(i);
        }
    }

    /// Schedules actor `i`, whose mailbox has just become non-empty: into the slot if it is empty
    /// (the slot keeps the actor that was there first), otherwise to the back of the queue.
    fn make_ready(&mut self, i: usize) {
        if self.slot.is_none() {
            self.slot = Some(i);
        } else {
            self.ready.push_back(i);
        }
    }

    /// The actor to run next: the slot's, unless [`CHAIN_BOUND`] ran from it in a row while
    /// others wait (it then queues behind them); otherwise the front of the queue.
    fn next_ready(&mut self) -> Option<usize> {
        if let Some(i) = self.slot.take() {
            if self.chain < CHAIN_BOUND {
                self.chain += 1;
                return Some(i);
            }
            if self.ready.is_empty() {
                // Nobody waits: the chain goes on.
                self.chain = 0;
                return Some(i);
            }
            self.ready.push_back(i);
        }
        self.chain = 0;
        self.ready.pop_front()
    }

    /// Creates `actor`, runs its `started` hook and returns its address.
    pub fn spawn(&mut self, mut actor: A) -> ActorId {
        let id = self.mailboxes.len();
        self.mailboxes.push(VecDeque::new());
        self.alive.push(true);
        let slot = self.spawned.len();
        self.spawned.push(None);
        let (me, exit) = (self.me, self.exit_requested);
        self.me = id;
        self.exit_requested = false;
        actor.started(self);
        if self.exit_requested {
            self.retire(id);
        }
        (self.me, self.exit_requested) = (me, exit);
        self.spawned[slot] = Some(actor);
        ActorId(id)
    }

    /// Stops the current actor once this message (or `started` hook) is handled.
    pub fn exit(&mut self) {
        self.exit_requested = true;
    }

    /// Marks actor `i` as exited and drops what is left in its mailbox.
    fn retire(&mut self, i: usize) {
        self.alive[i] = false;
        self.exited += 1;
        let left = std::mem::take(&mut self.mailboxes[i]);
        self.dropped += left.len() as u64;
    }
}

/// A sequential actor system: actors, their mailboxes and the run queue.
pub struct System<A: Actor> {
    actors: Vec<A>,
    cx: Context<A>,
}

impl<A: Actor> Default for System<A> {
    fn default() -> System<A> {
        System::new()
    }
}

impl<A: Actor> System<A> {
    /// An empty system.
    pub fn new() -> System<A> {
        System {
            actors: Vec::new(),
            cx: Context::new(),
        }
    }

    /// Creates `actor` from outside any actor (the benchmark's main thread) and runs its `started`
    /// hook.
    pub fn spawn(&mut self, actor: A) -> ActorId {
        let id = self.cx.spawn(actor);
        self.adopt_spawned();
        id
    }

    /// Sends `msg` to `to` from outside any actor.
    pub fn send(&mut self, to: ActorId, msg: A::Msg) {
        self.cx.send(to, msg);
    }

    /// Delivers messages until no actor has one left (quiescence).
    pub fn run(&mut self) {
        while let Some(i) = self.cx.next_ready() {
            self.run_turn(i);
        }
    }

    /// Lets actor `i` handle up to [`Actor::batch`] messages.
    fn run_turn(&mut self, i: usize) {
        self.cx.running = Some(i);
        self.cx.me = i;
        for _ in 0..self.actors[i].batch() {
            let Some(msg) = self.cx.mailboxes[i].pop_front() else {
                break;
            };
            self.cx.delivered += 1;
            self.actors[i].receive(msg, &mut self.cx);
            self.adopt_spawned();
            if self.cx.exit_requested {
                self.cx.exit_requested = false;
                self.cx.retire(i);
                break;
            }
        }
        self.cx.running = None;
        if !self.cx.mailboxes[i].is_empty() {
            self.cx.ready.push_back(i);
        }
    }

    /// Moves the actors spawned during the last call into the system.
    fn adopt_spawned(&mut self) {
        if !self.cx.spawned.is_empty() {
            let spawned = self.cx.spawned.drain(..);
            self.actors
                .extend(spawned.map(|a| a.expect("a spawned actor's start hook has returned")));
        }
    }

    /// The state of actor `id` (also after it has exited).
    pub fn actor(&self, id: ActorId) -> &A {
        &self.actors[id.0]
    }

    /// Every actor's state, in spawn order.
    pub fn actors(&self) -> &[A] {
        &self.actors
    }

    /// The state of actor `id`, to take what it holds (a result) once the system has run.
    pub fn actor_mut(&mut self, id: ActorId) -> &mut A {
        &mut self.actors[id.0]
    }

    /// How many actors have exited.
    pub fn exited(&self) -> usize {
        self.cx.exited
    }

    /// How many messages were delivered to an actor.
    pub fn delivered(&self) -> u64 {
        self.cx.delivered
    }

    /// How many messages were dropped because their receiver had exited.
    pub fn dropped(&self) -> u64 {
        self.cx.dropped
    }
}

/// Builds a floor variant's program: an [`Iteration`] whose timed `run` calls `run` with
/// `prepared`, what the variant's `prepare` made once, untimed (the decoded parameters and any
/// data every iteration reads). The floor is sequential, so no runtime is built.
///
/// `run` is a type parameter rather than a function pointer, so that each program calls its
/// iteration directly.
pub(crate) fn program<P, F>(prepared: P, run: F) -> Prepared
where
    P: 'static,
    F: Fn(&P) -> Outcome + 'static,
{
    Ok(Box::new(Program { prepared, run }))
}

/// A floor variant's program (see [`program`]).
struct Program<P, F> {
    prepared: P,
    run: F,
}

impl<P, F: Fn(&P) -> Outcome> Iteration for Program<P, F> {
    fn run(&mut self) -> Outcome {
        (self.run)(&self.prepared)
    }
}

/// Builds a floor variant's program whose validation is untimed (see
/// [`motet_support::prepare_validated`](crate::motet_support::prepare_validated)): the timed `run`
/// returns what the program ended with, `validate` checks it in [`Iteration::validate`].
pub(crate) fn program_validated<P, R, F, V>(prepared: P, run: F, validate: V) -> Prepared
where
    P: 'static,
    R: 'static,
    F: Fn(&P) -> R + 'static,
    V: Fn(&P, R) -> Outcome + 'static,
{
    Ok(Box::new(Validated {
        prepared,
        run,
        validate,
        last: None,
    }))
}

/// A floor variant's program with an untimed validation (see [`program_validated`]).
struct Validated<P, R, F, V> {
    prepared: P,
    run: F,
    validate: V,
    last: Option<R>,
}

impl<P, R, F: Fn(&P) -> R, V: Fn(&P, R) -> Outcome> Iteration for Validated<P, R, F, V> {
    fn run(&mut self) -> Outcome {
        self.last = Some((self.run)(&self.prepared));
        Outcome::failed(crate::motet_support::NOT_VALIDATED)
    }

    fn validate(&mut self, outcome: Outcome) -> Outcome {
        match self.last.take() {
            Some(last) => (self.validate)(&self.prepared, last),
            None => outcome,
        }
    }
}

#[cfg(test)]
mod tests {
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
        assert_eq!(*log.borrow(), [0, 1, 1, 1, 0, 0]);
    }

    /// Logs its turns and passes each message on to `to`, if it has one.
    struct Forward {
        to: Option<ActorId>,
        log: std::rc::Rc<std::cell::RefCell<Vec<usize>>>,
    }

    impl Actor for Forward {
        type Msg = u32;
        fn receive(&mut self, hops: u32, cx: &mut Context<Self>) {
            self.log.borrow_mut().push(cx.me().index());
            if let (Some(to), 1..) = (self.to, hops) {
                cx.send(to, hops - 1);
            }
        }
    }

    #[test]
    fn the_actor_a_turn_wakes_runs_next_until_the_chain_bound() {
        let log: std::rc::Rc<std::cell::RefCell<Vec<usize>>> = std::rc::Rc::default();
        let mut sys = System::new();
        // 0 and 1 bounce a message; 2 waits in the queue.
        let a = sys.spawn(Forward {
            to: None,
            log: std::rc::Rc::clone(&log),
        });
        let b = sys.spawn(Forward {
            to: Some(a),
            log: std::rc::Rc::clone(&log),
        });
        let c = sys.spawn(Forward {
            to: None,
            log: std::rc::Rc::clone(&log),
        });
        let mut actors = std::mem::take(&mut sys.actors);
        actors[0].to = Some(b);
        sys.actors = actors;
        let hops = 2 * CHAIN_BOUND + 10;
        sys.send(a, hops);
        sys.send(c, 0);
        sys.run();
        let log = log.borrow();
        assert_eq!(log.len(), hops as usize + 2);
        // The first CHAIN_BOUND turns come from the slot (0 was put there first, then each
        // hand-off), ahead of the queued actor; then it gets its turn.
        let queued = log.iter().position(|&i| i == 2).unwrap();
        assert_eq!(queued, CHAIN_BOUND as usize, "{log:?}");
        assert!(log[..queued].iter().all(|&i| i != 2));
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
}
