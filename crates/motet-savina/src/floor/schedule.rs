//! The floor's run queue: which ready actor runs next, chosen as motet's runtime's worker chooses
//! on one worker (its next-task slot, its chain bound, its wake queue, its spawn stack, the
//! injector and the periodic turns that look at the oldest spawn and the injector first).

use std::collections::VecDeque;

use super::CHAIN_BOUND;

/// Every how many turns the worker looks elsewhere first, as motet's runtime's does: at turn
/// [`OLDEST_TURN`] of each interval at the oldest actor on the spawn stack, at its last turn at
/// the injector.
pub(super) const INJECTOR_INTERVAL: u32 = 61;

/// See [`INJECTOR_INTERVAL`].
const OLDEST_TURN: u32 = 31;

/// The ready actors, by slot, in the places motet's runtime's worker keeps them.
pub(super) struct Schedule {
    /// The actor made ready first since the slot was last emptied: it runs next.
    slot: Option<usize>,
    /// Actors from the slot that ran in a row.
    chain: u32,
    /// Actors woken by a message (or yielding with messages left), oldest first.
    wakes: VecDeque<usize>,
    /// Actors spawned by an actor that did not get the slot; the newest runs first.
    spawns: VecDeque<usize>,
    /// Actors made ready from outside [`System::run`](super::System::run) (the harness), oldest
    /// first.
    injector: VecDeque<usize>,
    /// Turns left until the next one that looks elsewhere first (see [`INJECTOR_INTERVAL`]).
    countdown: u32,
    /// Whether that turn looks at the oldest spawn (else at the injector).
    oldest_next: bool,
    /// Whether [`System::run`](super::System::run) is running: actors made ready now are
    /// scheduled locally.
    pub(super) local: bool,
}

impl Schedule {
    /// An empty schedule, outside a run.
    pub(super) fn new() -> Schedule {
        Schedule {
            slot: None,
            chain: 0,
            wakes: VecDeque::new(),
            spawns: VecDeque::new(),
            injector: VecDeque::new(),
            countdown: OLDEST_TURN,
            oldest_next: true,
            local: false,
        }
    }

    /// Empties the queues, keeping their buffers, and starts the turns' count afresh: a schedule
    /// as [`Schedule::new`] makes it, for the next system.
    pub(super) fn reset(&mut self) {
        let mut queues = [
            std::mem::take(&mut self.wakes),
            std::mem::take(&mut self.spawns),
            std::mem::take(&mut self.injector),
        ];
        for queue in &mut queues {
            queue.clear();
        }
        let [wakes, spawns, injector] = queues;
        *self = Schedule {
            wakes,
            spawns,
            injector,
            ..Schedule::new()
        };
    }

    /// Schedules actor `i`, woken by a message (`new` false) or just spawned (`new` true). During
    /// [`System::run`](super::System::run): into the slot if it is empty (the slot keeps the actor
    /// that was there first), otherwise to the back of the wake queue or the top of the spawn
    /// stack. From outside: to the back of the injector.
    #[inline]
    pub(super) fn make_ready(&mut self, i: usize, new: bool) {
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

    /// Queues actor `i`, whose turn is over but not its work, at the back of the wake queue.
    #[inline]
    pub(super) fn yield_turn(&mut self, i: usize) {
        self.wakes.push_back(i);
    }

    /// The actor to run next, as motet's runtime's worker chooses it: on the periodic turns (see
    /// [`INJECTOR_INTERVAL`]) the oldest spawn or the injector's first; otherwise the slot's,
    /// unless [`CHAIN_BOUND`] ran from it in a row while others wait (it then queues behind the
    /// woken ones); otherwise the oldest woken actor, the newest spawned, the injector's first.
    // Always inlined: `System::run` is its one caller per program, whose loop it sits in.
    #[inline(always)]
    pub(super) fn next_ready(&mut self) -> Option<usize> {
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
}
