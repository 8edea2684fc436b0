//! What an actor of the floor can do while it handles a message (send, spawn, exit), and the
//! state those calls touch: the actors, each slot's mailbox and generation, and the free slots.
//!
//! A spawn puts the new actor into its slot at once, and its `started` hook runs on it there,
//! while the actor whose turn it is (or whose hook spawned it) stays borrowed: the actors live in
//! [`Chunks`], which never move a value, and the system reaches an actor during a run only
//! through [`Chunks::ptr`], a pointer that refers to that value alone.
//!
//! A new slot's mailbox starts with room for a few messages (a runtime allocates a new actor's
//! cell with its mailbox at once), rather than growing into it on its first message.

use std::collections::VecDeque;

use super::chunks::Chunks;
use super::schedule::Schedule;
use super::{spare, Actor, ActorId};

/// How many messages a new slot's mailbox has room for before it grows: what a `VecDeque`'s
/// first growth would allocate for small messages.
const MAILBOX_CAPACITY: usize = 4;

/// What the system keeps of one slot besides its actor, together, so that a send looks it up once.
pub(super) struct Slot<M> {
    pub(super) mailbox: VecDeque<M>,
    /// The generation its live actor's [`ActorId`] carries; bumped when the actor exits, so that
    /// no live address names an exited actor.
    pub(super) generation: u32,
    /// Whether its actor is scheduled: waiting in the slot or a queue, or running.
    pub(super) scheduled: bool,
    /// Whether an actor spawned from outside the system holds it: never reused, so that the
    /// harness can read its state once the system has run.
    pinned: bool,
}

/// What an actor can do while it handles a message: everything but touch other actors' state.
pub struct Context<A: Actor> {
    /// Each slot's actor; an exited actor's state stays until another actor takes over its slot.
    /// In chunks, so that the system's growth to many actors copies none of them and a spawn can
    /// add an actor while another one runs.
    pub(super) actors: Chunks<A>,
    /// Each slot's mailbox and bookkeeping, by slot index; as many in use as there are actors.
    /// Those after them are a dropped system's (see `spare.rs`), with their mailboxes' buffers,
    /// for the new slots of the same indices.
    pub(super) slots: Vec<Slot<A::Msg>>,
    /// Whether an exited actor's slot is reused ([`System::reclaiming`](super::System::reclaiming)).
    reclaim: bool,
    /// Slots of exited actors, to reuse (only when `reclaim`).
    free: Vec<u32>,
    /// Where the scheduled actors wait for their turns.
    pub(super) schedule: Schedule,
    pub(super) me: ActorId,
    pub(super) exit_requested: bool,
    pub(super) exited: usize,
    pub(super) delivered: u64,
    pub(super) dropped: u64,
}

/// The storage a dropped context leaves to the next one of its actor type (see `spare.rs`): all
/// of it empty, with its buffers.
struct Storage<A: Actor> {
    actors: Chunks<A>,
    slots: Vec<Slot<A::Msg>>,
    free: Vec<u32>,
    schedule: Schedule,
}

impl<A: Actor> Context<A> {
    pub(super) fn new(reclaim: bool) -> Context<A> {
        let storage = spare::take::<Storage<A>>().unwrap_or_else(|| Storage {
            actors: Chunks::new(),
            slots: Vec::new(),
            free: Vec::new(),
            schedule: Schedule::new(),
        });
        Context {
            actors: storage.actors,
            slots: storage.slots,
            reclaim,
            free: storage.free,
            schedule: storage.schedule,
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
        let slot = &mut self.slots[i];
        if slot.generation != to.generation {
            self.dropped += 1;
            return;
        }
        slot.mailbox.push_back(msg);
        if !slot.scheduled {
            slot.scheduled = true;
            self.schedule.make_ready(i, false);
        }
    }

    /// Creates `actor`, runs its `started` hook and returns its address.
    pub fn spawn(&mut self, actor: A) -> ActorId {
        self.spawn_in(actor, false)
    }

    /// Creates `actor` in a free slot (if the system reclaims them and `pinned` is false) or a new
    /// one, runs its `started` hook and returns its address.
    pub(super) fn spawn_in(&mut self, actor: A, pinned: bool) -> ActorId {
        let reused = if pinned { None } else { self.free.pop() };
        let index = match reused {
            // Retiring emptied the mailbox and kept its buffer for this actor. The exited actor's
            // state goes now.
            Some(index) => {
                let place = self.actors.ptr(index as usize);
                // SAFETY: `place` points to the value in slot `index` (Chunks::ptr), which stays
                // where it is. No reference to it is live: its actor has exited after its last
                // turn (a slot is freed only when a turn ends with the actor's exit), and the
                // running actor and those whose `started` hooks are on the stack hold other slots.
                unsafe { *place = actor };
                index
            }
            None => {
                let index = u32::try_from(self.actors.len()).expect("fewer than 2^32 actor slots");
                let i = index as usize;
                // A dropped system's slot of this index lends its empty mailbox's buffer (in a
                // deterministic program, the one this index needed).
                let mailbox = match self.slots.get_mut(i) {
                    Some(old) if old.mailbox.capacity() > 0 => std::mem::take(&mut old.mailbox),
                    _ => VecDeque::with_capacity(MAILBOX_CAPACITY),
                };
                let slot = Slot {
                    mailbox,
                    generation: 0,
                    scheduled: false,
                    pinned,
                };
                if i < self.slots.len() {
                    self.slots[i] = slot;
                } else {
                    self.slots.push(slot);
                }
                // The actors in use and their slots are the first `actors.len()`: the new
                // actor's index is `index`.
                self.actors.push(actor);
                index
            }
        };
        let slot = &mut self.slots[index as usize];
        // A runtime schedules a new actor at once (for its start): so does the floor.
        slot.scheduled = true;
        let id = ActorId {
            index,
            generation: slot.generation,
        };
        self.schedule.make_ready(index as usize, true);
        let (me, exit) = (self.me, self.exit_requested);
        self.me = id;
        self.exit_requested = false;
        let actor = self.actors.ptr(id.index());
        // SAFETY: `actor` points to the new actor, in its slot, which never moves (Chunks::ptr).
        // Nothing else refers to it while its hook runs: the system reaches actors only through
        // Chunks::ptr, and the actors the hook spawns take other slots (new ones, or those of
        // actors that exited after a turn).
        unsafe { (*actor).started(self) };
        if self.exit_requested {
            // Not reclaimed: the actor waits in a queue for its first turn.
            self.retire(id.index(), false);
        }
        (self.me, self.exit_requested) = (me, exit);
        id
    }

    /// Stops the current actor once this message (or `started` hook) is handled.
    pub fn exit(&mut self) {
        self.exit_requested = true;
    }

    /// Marks actor `i` as exited and drops what is left in its mailbox; if `reuse` and the system
    /// reclaims slots, the slot (and its mailbox's buffer) goes to the next actor spawned.
    pub(super) fn retire(&mut self, i: usize, reuse: bool) {
        let slot = &mut self.slots[i];
        slot.generation = slot.generation.wrapping_add(1);
        self.exited += 1;
        self.dropped += slot.mailbox.len() as u64;
        if self.reclaim && reuse && !slot.pinned {
            slot.mailbox.clear();
            self.free.push(i as u32);
        } else {
            slot.mailbox = VecDeque::new();
        }
    }
}

impl<A: Actor> Drop for Context<A> {
    /// Drops the actors and the messages left, and leaves the storage, emptied, to the next
    /// context of this actor type on this thread. Each slot keeps its mailbox's buffer for the
    /// next context's slot of the same index: a deterministic program's next run needs the same
    /// buffer there (a slot's buffer never shrinks, so handing buffers to other indices would
    /// let them grow run after run).
    fn drop(&mut self) {
        self.actors.clear();
        for slot in &mut self.slots {
            slot.mailbox.clear();
        }
        self.free.clear();
        self.schedule.reset();
        spare::put(Storage {
            actors: std::mem::replace(&mut self.actors, Chunks::new()),
            slots: std::mem::take(&mut self.slots),
            free: std::mem::take(&mut self.free),
            schedule: std::mem::replace(&mut self.schedule, Schedule::new()),
        });
    }
}
