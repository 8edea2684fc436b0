//! The sequential floor's "actor system": one thread, plain calls, one `VecDeque` mailbox per actor.
//!
//! Every benchmark's `floor` variant runs the same message flow as its actor program (SPEC.md
//! section 3) on this system, so that it does the same work per message that an actor runtime does
//! (enqueue, schedule, dequeue, dispatch by `match`) without any synchronisation. It is meant as a
//! lower bound for any runtime on the same program at one worker (no runtime should run it faster
//! than about 0.95x of the floor); where a runtime does beat it, the floor does some work the
//! runtime avoids, and that is a defect of the floor to find.
//!
//! # Model
//! - An actor is a value of the benchmark's actor type `A` (usually an enum over the actor kinds,
//!   dispatching with `match`); its messages are `A::Msg`. Actors are named by [`ActorId`]s: a slot
//!   and the slot's generation.
//! - [`Context::send`] appends to the receiver's mailbox. An actor that is not scheduled (waiting
//!   or running) becomes ready: into the next-actor slot if that is empty, otherwise to the back of
//!   the wake queue. [`Context::spawn`] schedules the new actor at once, as a runtime schedules a
//!   new actor for its start: into the slot if it is empty, otherwise on top of the spawn stack.
//!   Actors made ready from outside [`System::run`] (by the harness) wait in the injector.
//! - [`System::run`] picks the next actor as motet's runtime's worker does: on one turn in
//!   [`INJECTOR_INTERVAL`], alternately, the oldest spawn or the injector's first; otherwise the
//!   slot's actor, unless [`CHAIN_BOUND`] ran from the slot in a row while others wait (it then
//!   queues behind the woken ones); otherwise the oldest woken actor, then the newest spawned, then
//!   the injector's first. It delivers up to [`BATCH`] messages (or the actor's own
//!   [`Actor::batch`]), one [`Actor::receive`] call each; if messages remain, the actor rejoins the
//!   back of the wake queue. `run` returns when no actor has a message: quiescence.
//!
//! This is motet's runtime's policy on one worker (its next-task slot, its chain bound, its wake
//! queue and spawn stack, an actor's yield to the back of the wake queue, motet-actor's default
//! batch), so that the floor does not lose to the runtime by scheduling worse: a floor with one
//! FIFO queue ran behind motet's actors on programs whose hand-offs the slot keeps in cache
//! (chameneos, logmap), and ran recursive programs (fib, actorcreation) breadth first, with many
//! more actors alive at once than the runtime's depth-first spawn stack keeps.
//! - [`Context::exit`] stops the actor after the current message: it receives nothing more, messages
//!   sent to it later are dropped (as dead letters are), but its state stays readable through
//!   [`System::actor`] so that the harness can validate the result.
//! - A system made with [`System::reclaiming`] reuses an exited actor's slot, and its mailbox's
//!   buffer, for the next actor spawned by an actor, as a runtime frees a stopped actor: memory
//!   then follows the actors alive at once. The generation in [`ActorId`] keeps a message to the
//!   exited actor from reaching the slot's new one. Actors the harness spawned keep their slots.
//!   [`System::new`] keeps every slot, for programs whose harness reads actors that actors spawned.
//! - [`Context::spawn`] runs the new actor's [`Actor::started`] hook at once, as Akka's
//!   `onPostStart` does.

use std::collections::VecDeque;

use crate::bench::{Iteration, Outcome, Prepared};

/// How many messages an actor handles per scheduling before it yields to the next one: motet-actor's
/// default.
pub const BATCH: usize = motet_actor::DEFAULT_BATCH as usize;

/// How many actors in a row run from the next-actor slot while others wait: motet's runtime's
/// default chain bound.
pub const CHAIN_BOUND: u32 = motet_runtime::DEFAULT_CHAIN_BOUND;

/// Every how many turns the worker looks elsewhere first, as motet's runtime's does: at turn
/// [`OLDEST_TURN`] of each interval at the oldest actor on the spawn stack, at its last turn at
/// the injector.
const INJECTOR_INTERVAL: u32 = 61;

/// See [`INJECTOR_INTERVAL`].
const OLDEST_TURN: u32 = 31;

/// The address of an actor in a [`System`]: its slot and the slot's generation, so that a message
/// to an actor that has exited is dropped also after its slot holds another actor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActorId {
    index: u32,
    generation: u32,
}

impl ActorId {
    /// The actor's slot: the number of actors spawned before it, unless it took over the slot of an
    /// exited actor (see [`System::reclaiming`]).
    pub fn index(self) -> usize {
        self.index as usize
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
    /// Each slot's generation: the one its live actor's [`ActorId`] carries; bumped when the actor
    /// exits, so that no live address names an exited actor.
    generations: Vec<u32>,
    /// Whether an exited actor's slot is reused ([`System::reclaiming`]).
    reclaim: bool,
    /// Slots that actors spawned from outside the system hold: never reused, so that the harness
    /// can read their state once the system has run.
    pinned: Vec<bool>,
    /// Slots of exited actors, to reuse (only when `reclaim`).
    free: Vec<u32>,
    /// Whether each slot's actor is scheduled: waiting in the slot or a queue, or running.
    scheduled: Vec<bool>,
    /// The actor made ready first since the slot was last emptied: it runs next.
    slot: Option<usize>,
    /// Actors from the slot that ran in a row.
    chain: u32,
    /// Actors woken by a message (or yielding with messages left), oldest first.
    wakes: VecDeque<usize>,
    /// Actors spawned by an actor that did not get the slot; the newest runs first.
    spawns: VecDeque<usize>,
    /// Actors made ready from outside [`System::run`] (the harness), oldest first.
    injector: VecDeque<usize>,
    /// Turns left until the next one that looks elsewhere first (see [`INJECTOR_INTERVAL`]).
    countdown: u32,
    /// Whether that turn looks at the oldest spawn (else at the injector).
    oldest_next: bool,
    /// Whether [`System::run`] is running: actors made ready now are scheduled locally.
    local: bool,
    /// Actors spawned since the system last adopted them, with their slots, in spawn order; `None`
    /// while an actor's `started` hook runs (it may spawn actors of its own).
    spawned: Vec<(usize, Option<A>)>,
    me: ActorId,
    exit_requested: bool,
    exited: usize,
    delivered: u64,
    dropped: u64,
}

impl<A: Actor> Context<A> {
    fn new(reclaim: bool) -> Context<A> {
        Context {
            mailboxes: Vec::new(),
            generations: Vec::new(),
            reclaim,
            pinned: Vec::new(),
            free: Vec::new(),
            scheduled: Vec::new(),
            slot: None,
            chain: 0,
            wakes: VecDeque::new(),
            spawns: VecDeque::new(),
            injector: VecDeque::new(),
            countdown: OLDEST_TURN,
            oldest_next: true,
            local: false,
            spawned: Vec::new(),
            me: ActorId {
                index: 0,
                generation: 0,
            },
            exit_requested: false,
            exited: 0,
            delivered: 0,
            dropped: 0,
        }
    }

    /// The actor handling the current message (or running its `started` hook).
    pub fn me(&self) -> ActorId {
        self.me
    }

    /// Sends `msg` to `to`; a message to an actor that has exited is dropped.
    ///
    /// # Panics
    /// If `to` does not name an actor of this system.
    // Always inlined, as motet-actor's `Addr::tell` is: a handler's sends then cost no call.
    #[inline(always)]
    pub fn send(&mut self, to: ActorId, msg: A::Msg) {
        let i = to.index();
        if self.generations[i] != to.generation {
            self.dropped += 1;
            return;
        }
        self.mailboxes[i].push_back(msg);
        if !self.scheduled[i] {
            self.scheduled[i] = true;
            self.make_ready(i, false);
        }
    }

    /// Schedules actor `i`, woken by a message (`new` false) or just spawned (`new` true). During
    /// [`System::run`]: into the slot if it is empty (the slot keeps the actor that was there
    /// first), otherwise to the back of the wake queue or the top of the spawn stack. From outside:
    /// to the back of the injector.
    #[inline]
    fn make_ready(&mut self, i: usize, new: bool) {
        if !self.local {
            self.injector.push_back(i);
        } else if self.slot.is_none() {
            self.slot = Some(i);
        } else if new {
            self.spawns.push_back(i);
        } else {
            self.wakes.push_back(i);
        }
    }

    /// The actor to run next, as motet's runtime's worker chooses it: on the periodic turns (see
    /// [`INJECTOR_INTERVAL`]) the oldest spawn or the injector's first; otherwise the slot's,
    /// unless [`CHAIN_BOUND`] ran from it in a row while others wait (it then queues behind the
    /// woken ones); otherwise the oldest woken actor, the newest spawned, the injector's first.
    fn next_ready(&mut self) -> Option<usize> {
        self.countdown -= 1;
        if self.countdown == 0 {
            if let Some(i) = self.periodic() {
                return Some(i);
            }
        }
        if let Some(i) = self.slot.take() {
            if self.chain < CHAIN_BOUND {
                self.chain += 1;
                return Some(i);
            }
            if self.wakes.is_empty() && self.spawns.is_empty() && self.injector.is_empty() {
                // Nobody waits: the chain goes on.
                self.chain = 0;
                return Some(i);
            }
            self.wakes.push_back(i);
        }
        self.chain = 0;
        self.wakes
            .pop_front()
            .or_else(|| self.spawns.pop_back())
            .or_else(|| self.injector.pop_front())
    }

    /// The periodic turn's actor: alternately the oldest spawn and the injector's first. Sets
    /// the countdown to the next periodic turn.
    #[cold]
    fn periodic(&mut self) -> Option<usize> {
        if self.oldest_next {
            self.oldest_next = false;
            self.countdown = INJECTOR_INTERVAL - OLDEST_TURN;
            self.spawns.pop_front()
        } else {
            self.oldest_next = true;
            self.countdown = OLDEST_TURN;
            self.injector.pop_front()
        }
    }

    /// Creates `actor`, runs its `started` hook and returns its address.
    pub fn spawn(&mut self, actor: A) -> ActorId {
        self.spawn_in(actor, false)
    }

    /// Creates `actor` in a free slot (if the system reclaims them and `pinned` is false) or a new
    /// one, runs its `started` hook and returns its address.
    fn spawn_in(&mut self, mut actor: A, pinned: bool) -> ActorId {
        let reused = if pinned { None } else { self.free.pop() };
        let index = match reused {
            // Retiring emptied the mailbox and kept its buffer for this actor.
            Some(index) => index,
            None => {
                let index =
                    u32::try_from(self.mailboxes.len()).expect("fewer than 2^32 actor slots");
                self.mailboxes.push(VecDeque::new());
                self.generations.push(0);
                self.pinned.push(pinned);
                self.scheduled.push(false);
                index
            }
        };
        // A runtime schedules a new actor at once (for its start): so does the floor.
        self.scheduled[index as usize] = true;
        self.make_ready(index as usize, true);
        let id = ActorId {
            index,
            generation: self.generations[index as usize],
        };
        let pending = self.spawned.len();
        self.spawned.push((id.index(), None));
        let (me, exit) = (self.me, self.exit_requested);
        self.me = id;
        self.exit_requested = false;
        actor.started(self);
        if self.exit_requested {
            // Not reclaimed: the actor waits in a queue for its first turn.
            self.retire(id.index(), false);
        }
        (self.me, self.exit_requested) = (me, exit);
        self.spawned[pending].1 = Some(actor);
        id
    }

    /// Stops the current actor once this message (or `started` hook) is handled.
    pub fn exit(&mut self) {
        self.exit_requested = true;
    }

    /// Marks actor `i` as exited and drops what is left in its mailbox; if `reuse` and the system
    /// reclaims slots, the slot (and its mailbox's buffer) goes to the next actor spawned.
    fn retire(&mut self, i: usize, reuse: bool) {
        self.generations[i] = self.generations[i].wrapping_add(1);
        self.exited += 1;
        let mailbox = &mut self.mailboxes[i];
        self.dropped += mailbox.len() as u64;
        if self.reclaim && reuse && !self.pinned[i] {
            mailbox.clear();
            self.free.push(i as u32);
        } else {
            *mailbox = VecDeque::new();
        }
    }
}

/// A sequential actor system: actors, their mailboxes and the run queue.
pub struct System<A: Actor> {
    /// Each slot's actor; an exited actor's state stays until another actor takes over its slot.
    actors: Vec<A>,
    cx: Context<A>,
}

impl<A: Actor> Default for System<A> {
    fn default() -> System<A> {
        System::new()
    }
}

impl<A: Actor> System<A> {
    /// An empty system that keeps every actor's state, also after it has exited, so that the
    /// harness can read any actor once the system has run.
    pub fn new() -> System<A> {
        System {
            actors: Vec::new(),
            cx: Context::new(false),
        }
    }

    /// An empty system that reuses the slot of an actor spawned by another actor once it has
    /// exited (its state is dropped when the next actor takes the slot; its mailbox's buffer goes
    /// to that actor), as a runtime frees an actor that has stopped. Memory then follows the
    /// actors alive at once, not all actors ever spawned. Actors spawned from outside (with
    /// [`System::spawn`]) keep their slots, so their state stays readable.
    pub fn reclaiming() -> System<A> {
        System {
            actors: Vec::new(),
            cx: Context::new(true),
        }
    }

    /// Creates `actor` from outside any actor (the benchmark's main thread) and runs its `started`
    /// hook.
    pub fn spawn(&mut self, actor: A) -> ActorId {
        let id = self.cx.spawn_in(actor, true);
        self.adopt_spawned();
        id
    }

    /// Sends `msg` to `to` from outside any actor.
    pub fn send(&mut self, to: ActorId, msg: A::Msg) {
        self.cx.send(to, msg);
    }

    /// Delivers messages until no actor has one left (quiescence).
    pub fn run(&mut self) {
        self.cx.local = true;
        while let Some(i) = self.cx.next_ready() {
            self.run_turn(i);
        }
        self.cx.local = false;
    }

    /// Lets actor `i` handle up to [`Actor::batch`] messages.
    fn run_turn(&mut self, i: usize) {
        self.cx.me = ActorId {
            index: i as u32,
            generation: self.cx.generations[i],
        };
        for _ in 0..self.actors[i].batch() {
            let Some(msg) = self.cx.mailboxes[i].pop_front() else {
                break;
            };
            self.cx.delivered += 1;
            self.actors[i].receive(msg, &mut self.cx);
            self.adopt_spawned();
            if self.cx.exit_requested {
                self.cx.exit_requested = false;
                self.cx.retire(i, true);
                break;
            }
        }
        if self.cx.mailboxes[i].is_empty() {
            self.cx.scheduled[i] = false;
        } else {
            // Its turn is over, not its work: it yields to the back of the wake queue.
            self.cx.wakes.push_back(i);
        }
    }

    /// Moves the actors spawned during the last call into their slots.
    #[inline]
    fn adopt_spawned(&mut self) {
        if self.cx.spawned.is_empty() {
            return;
        }
        self.adopt_spawned_slow();
    }

    /// [`System::adopt_spawned`]'s work, out of line: most messages spawn nothing.
    #[inline(never)]
    fn adopt_spawned_slow(&mut self) {
        for (i, actor) in self.cx.spawned.drain(..) {
            let actor = actor.expect("a spawned actor's start hook has returned");
            // New slots come in increasing order, each the next one; reused slots are below.
            if i < self.actors.len() {
                self.actors[i] = actor;
            } else {
                self.actors.push(actor);
            }
        }
    }

    /// The state of actor `id` (also after it has exited, unless its slot was reused).
    pub fn actor(&self, id: ActorId) -> &A {
        &self.actors[id.index()]
    }

    /// Every slot's actor, in slot order: every actor spawned, in spawn order, unless the system
    /// reclaims slots.
    pub fn actors(&self) -> &[A] {
        &self.actors
    }

    /// The state of actor `id`, to take what it holds (a result) once the system has run.
    pub fn actor_mut(&mut self, id: ActorId) -> &mut A {
        &mut self.actors[id.index()]
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
        let mut actors = std::mem::take(&mut sys.actors);
        actors[0].to = Some(b);
        sys.actors = actors;
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
}
