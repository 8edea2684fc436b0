//! The dependency graph of behaviours: a queue of requests per cown, two-phase enqueue over several
//! cowns, release, and read-only acquisition.
//!
//! This module knows nothing about closures, types or the runtime. A behaviour is one [`Slot`] per
//! cown it names and, unless it is single (below), a [`Gate`] counting the grants it still waits
//! for; a cown is a [`Queue`]. The caller (the `behaviour` module) owns the memory, sorts the
//! requests, and decides what "runnable" means (scheduling a task on motet-runtime; recording an
//! event in the loom models).
//!
//! One file per part: [`queue`] (a cown's queue and its freeing), [`slot`] (requests, their status
//! and tags), [`gate`] (counting grants), [`enqueue`], [`read`] (the read phase) and [`release`].
//!
//! # A behaviour seen by the protocol
//!
//! A behaviour's *first* request (the cown it named first) stands for the behaviour: the protocol
//! hands it to the caller's `runnable` when the behaviour has all its cowns, and the caller lays
//! out whatever else it keeps around it. The requests after the first are [`LaterSlot`]s, each
//! pointing back to the first. A behaviour spawned alone over one cown is *single*: its only
//! request carries a tag saying so, and its one grant, which comes from exactly one place, makes it
//! runnable without counting. Any other behaviour has a [`Gate`] right after its first request
//! ([`Gate::of`]). So a grant reads the granted request's tags and, for a counting behaviour, its
//! gate: nothing else of the behaviour.
//!
//! # The queue of a cown (after the BoC paper, section 4)
//!
//! Seen from one cown, the behaviours that name it form a queue in spawn order, an MCS queue lock
//! whose waiters are behaviours rather than spinning threads. [`Queue::tail`] points to the last
//! request (slot) enqueued, or is null when no behaviour uses or waits for the cown. A behaviour
//! enqueues a slot with one `swap` on the tail; the previous tail is its predecessor, to which it
//! links itself by writing its slot's address into the predecessor's `status`. When a behaviour
//! completes, each of its slots either finds a successor there and passes the cown on, or swings the
//! tail back to null with a compare-and-swap.
//!
//! # Two-phase enqueue (atomic acquisition and happens-before)
//!
//! A behaviour over several cowns enqueues on them in one global order (the caller sorts by cown
//! id), and its slots start in [`WAIT`]. A successor that finds a predecessor in `WAIT` spins until
//! the predecessor's behaviour has enqueued on *all* its cowns and set its slots to [`READY`]. So a
//! later behaviour can never overtake an earlier one on a cown they share: the graph is a DAG
//! ordered by spawn order (Definition 2.1 of the paper), and since every behaviour waits only on
//! predecessors that are earlier in that order, and enqueues in one global cown order, no cycle of
//! waits can form: neither in the spins of the enqueue nor in the graph.
//!
//! A behaviour's [`Gate`] counts the grants it still needs: one per distinct cown, plus one held by
//! the spawner until its second phase is complete, so a behaviour never runs (and is never freed)
//! half-enqueued. Whoever takes the count to zero makes the behaviour runnable. A single behaviour
//! (the common case) has no count; its writer slot becomes [`READY`] as it links in (see
//! [`enqueue_single`]).
//!
//! # Slot status
//!
//! The `status` word of a slot is owned by its behaviour until a successor links in:
//!
//! - [`WAIT`]: the behaviour is still enqueueing; a successor spins.
//! - [`READY`]: enqueued, no successor yet, not granted as a reader.
//! - [`READ_AVAILABLE`]: a *granted reader* with no successor yet: the next request may join the
//!   read phase if it is a reader, or must wait for the readers to drain if it is a writer.
//! - [`CHAIN_CLOSED`]: a successor found `READ_AVAILABLE` and took care of itself; the slot owes it
//!   nothing.
//! - a pointer (at least 8: slots are 8-aligned): the successor's slot, which this slot's release
//!   (a writer) or the grant cascade through it (a reader) must grant.
//!
//! A duplicate request (a cown named twice, read-only, by one behaviour: acquired once) holds a
//! status of its own from its spawn on; it is never enqueued, so none of the above applies to it.
//!
//! Transitions: the owner stores `WAIT → READY | READ_AVAILABLE` at the end of its enqueue; the
//! successor CASes `READY → successor` or, on `READ_AVAILABLE`, stores `CHAIN_CLOSED`; a grant
//! cascade CASes `READY → READ_AVAILABLE`. Only `READY` is contended (successor against cascade), and
//! a CAS settles it.
//!
//! # Read-only acquisition (as Verona's runtime does it since 2024)
//!
//! Consecutive readers of a cown run together; a writer waits for the readers spawned before it, and
//! readers spawned after a writer wait for it. The cown's [`Queue::read_count`] holds twice the
//! number of running (granted, unfinished) readers, plus [`WRITER_WAITING`]. A request *granted* on a
//! cown either runs (writer) or is counted there (reader):
//!
//! - a request that finds the queue empty is at the head: a reader adds itself to the count; a
//!   writer tries to claim the cown ([`try_write`]): it gets it if no reader runs, otherwise it
//!   parks in [`Queue::next_writer`] with `WRITER_WAITING` set, and the last reader to finish grants
//!   it;
//! - a request behind a `READ_AVAILABLE` reader is granted the same way (a reader joins; a writer
//!   tries to claim);
//! - a writer that completes grants its successor: a writer directly; a reader through the *grant
//!   cascade*, which counts and grants each reader of the run that follows, marks the last one
//!   `READ_AVAILABLE`, and hands a writer found at the end of the run to [`try_write`].
//!
//! A reader that completes leaves the tail (CAS to null) if it is the tail and has no successor, even
//! while other readers still run: the read count, not the tail, says whether the cown is free, which
//! is why a head writer must still [`try_write`]. A reader never grants its successor on release:
//! readers after it were granted by the cascade or by joining, and a writer after it waits on the
//! read count.
//!
//! # Reference counts and freeing
//!
//! [`Queue::refs`] counts the handles to the cown (and the holds that act like handles: a batch
//! being built, a producer deferred by backpressure). Neither the queue nor a read phase holds a
//! reference: a request is only ever enqueued through a handle, so while a handle exists the cown
//! lives, and once the last one is gone nothing can be enqueued any more and the cown only has to
//! outlive the requests already queued and the readers still running. Verona's queue holds one
//! reference while it is non-empty; here an idle cown's behaviour costs no reference-count
//! operation at all, which is two atomic operations less per behaviour on an idle cown.
//!
//! So the last handle's release ([`Queue::release_ref`]) frees the cown only if the queue is empty
//! and no reader runs. Otherwise it hands the freeing on, with a tag set by one atomic operation:
//!
//! - a non-null tail gets the [`ORPHAN`] tag. The request at the tail is the last one the cown will
//!   ever have; its release finds its compare-and-swap of the tail failing on its own tagged
//!   address, and frees the cown itself (after the last reader, if it is a reader: next point).
//!   Earlier requests see a tail that is not theirs and wait for their successor as usual.
//! - with the tail null, a read count that is not zero gets [`ORPHAN_READERS`]: the reader that
//!   takes the count to zero frees the cown.
//!
//! Each tag is set once, when the last handle is gone, and read by exactly one party, so the cown
//! is freed exactly once and after everything that used it.
//!
//! # Memory ordering
//!
//! Each atomic operation below says what it synchronises with. In short: the tail `swap` is
//! acquire-release (it publishes the new slot to its successor, and acquires the completed
//! behaviour's writes when the tail was null); links (`status` stores and CASes) are release and are
//! read with acquire before the successor pointer is dereferenced; the release CAS of the tail to
//! null publishes the completed behaviour's writes to the next head; `read_count` updates are
//! acquire-release so that a writer sees the readers' reads finished; gates use the
//! last-decrementer pattern (release decrement, acquire fence for the one that schedules), except
//! that a grant whose acquire load finds the count at its own share knows it is the last and
//! skips the decrement (see [`resolve_counting`]).

#[cfg(all(test, loom))]
mod loom_models;
#[cfg(test)]
pub(crate) mod testkit;
#[cfg(all(test, not(loom)))]
mod tests;

pub(crate) mod enqueue;
pub(crate) mod gate;
pub(crate) mod queue;
pub(crate) mod read;
pub(crate) mod release;
pub(crate) mod slot;

pub(crate) use enqueue::{
    enqueue_batch, enqueue_blocker, enqueue_distinct, enqueue_single, enqueue_single_writer,
    MAX_DISTINCT,
};
pub(crate) use gate::{resolve_counting, Gate};
pub(crate) use queue::Queue;
#[cfg(doc)]
use queue::WRITER_WAITING;
pub(crate) use release::{release, release_distinct, release_writer};
pub(crate) use slot::{Grant, LaterSlot, Slot};
#[cfg(doc)]
use slot::{CHAIN_CLOSED, READY, READ_AVAILABLE, WAIT};
