//! [`Batch`]: several `when`s enqueued as one atomic step.

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::cown::CownHeader;
use crate::error::WhenError;
use crate::promise::Promise;
use crate::protocol::{self, Grant, Queue, Slot};
use crate::set::{CownSet, Shape};

use super::block::{first_cown, WithPromise};
use super::build::{build, Built};
use super::deferral::throttle_all;
use super::handoff::schedule_ready;
use super::spawn::deterministic_runtime;

/// Several `when`s scheduled as one atomic step: nothing spawned elsewhere comes between them on
/// any cown they share, as Verona's `when(..) << f1 + when(..) << f2`.
///
/// Behaviours are added with [`Batch::add`] and enqueued together by [`Batch::spawn`] (or when
/// the batch is dropped). Among themselves they keep the order they were added in. `add` hands out
/// a [`Staged`] ticket, not a promise: a promise is taken from the [`Spawned`] batch that `spawn`
/// returns, so no one can wait for a behaviour that is not enqueued yet (which would wait forever).
///
/// ```
/// use motet_boc::{when, Batch, Cown};
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let log = Cown::new(rt.handle(), Vec::new());
/// let mut batch = Batch::new();
/// let first = batch.add(&log, |l| { l.push("first"); l.len() });
/// let second = batch.add(&log, |l| { l.push("second"); l.len() });
/// let spawned = batch.spawn();
/// assert_eq!(spawned.promise(second).unwrap().wait(), Ok(2));
/// assert_eq!(spawned.promise(first).unwrap().wait(), Ok(1));
/// let entries = when(&log, |l| l.clone()).wait().unwrap();
/// assert_eq!(entries, ["first", "second"]);
/// ```
pub struct Batch {
    members: Vec<Built>,
    /// Names this batch to the tickets it hands out (unique in the process).
    id: u64,
}

/// The id of the next batch.
static NEXT_BATCH: AtomicU64 = AtomicU64::new(1);

impl Default for Batch {
    fn default() -> Batch {
        Batch {
            members: Vec::new(),
            id: NEXT_BATCH.fetch_add(1, Ordering::Relaxed),
        }
    }
}

/// A behaviour added to a [`Batch`] that is not enqueued yet: exchange it for its [`Promise`] with
/// [`Spawned::promise`] once the batch is spawned. Dropping it drops the promise (the behaviour
/// still runs when the batch is spawned).
#[must_use = "a staged behaviour's result is reached through `Spawned::promise`; drop it with \
              `drop(..)` if the result is not wanted"]
pub struct Staged<R> {
    promise: Promise<R>,
    batch: u64,
}

impl<R> Staged<R> {
    /// The error the behaviour was rejected with when it was added (a cown named twice with write
    /// access, an empty dynamic set), if it was: such a behaviour is not part of the batch.
    pub fn rejected(&self) -> Option<&WhenError> {
        self.promise.rejected()
    }
}

impl<R> std::fmt::Debug for Staged<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Staged")
            .field("batch", &self.batch)
            .finish_non_exhaustive()
    }
}

/// A batch that [`Batch::spawn`] enqueued: hands out the promises of its behaviours.
#[derive(Debug)]
pub struct Spawned {
    batch: u64,
}

impl Spawned {
    /// The promise of a behaviour of this batch, or the ticket back if it was staged in another
    /// batch (whose behaviours may not be enqueued yet).
    pub fn promise<R>(&self, staged: Staged<R>) -> Result<Promise<R>, Staged<R>> {
        if staged.batch == self.batch {
            Ok(staged.promise)
        } else {
            Err(staged)
        }
    }
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Batch {
        Batch::default()
    }

    /// Adds a behaviour (see [`when`](crate::when)); it is enqueued with the rest of the batch by
    /// [`spawn`](Batch::spawn), whose result exchanges the returned ticket for the behaviour's
    /// promise. A `when` that would be rejected (see [`try_when`](crate::try_when)) is not added;
    /// its ticket says why ([`Staged::rejected`]) and its promise holds the error.
    pub fn add<S, F, R>(&mut self, cowns: S, f: F) -> Staged<R>
    where
        S: CownSet,
        F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
        R: Send + 'static,
    {
        Staged {
            promise: self.stage(cowns, f),
            batch: self.id,
        }
    }

    /// Adds a behaviour and returns its promise at once: waiting for that promise before the batch
    /// is spawned waits forever, which [`add`](Batch::add) rules out through the types.
    #[deprecated(
        since = "0.1.0",
        note = "use `Batch::add` and take the promise from the `Spawned` batch that `spawn` returns"
    )]
    pub fn when<S, F, R>(&mut self, cowns: S, f: F) -> Promise<R>
    where
        S: CownSet,
        F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
        R: Send + 'static,
    {
        self.stage(cowns, f)
    }

    /// Builds a behaviour into the batch; its promise.
    fn stage<S, F, R>(&mut self, cowns: S, f: F) -> Promise<R>
    where
        S: CownSet,
        F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
        R: Send + 'static,
    {
        match build::<S, F, R, WithPromise>(&cowns, f) {
            Ok(built) => {
                // Keep the cowns alive until the batch is enqueued.
                for &slot in built.requests.as_slice() {
                    // SAFETY: the caller holds a handle to each cown.
                    unsafe { slot.as_ref().queue().as_ref() }.retain();
                }
                // SAFETY: as above.
                let deterministic = deterministic_runtime(unsafe { first_cown(built.first) });
                let first = built.first;
                self.members.push(built);
                // SAFETY: a behaviour with a promise, whose completion starts with HANDLE set,
                // which the promise owns.
                unsafe { Promise::pending(first, deterministic) }
            }
            Err(e) => Promise::failed(e),
        }
    }

    /// How many behaviours the batch holds.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the batch holds no behaviour.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Enqueues every behaviour of the batch at once; the result hands out their promises.
    pub fn spawn(mut self) -> Spawned {
        self.spawn_members();
        Spawned { batch: self.id }
    }

    fn spawn_members(&mut self) {
        let members = std::mem::take(&mut self.members);
        if members.is_empty() {
            return;
        }
        let mut requests: Vec<(u64, usize, NonNull<Slot>)> = Vec::new();
        for (owner, m) in members.iter().enumerate() {
            throttle_all(m.requests.as_slice());
            for &slot in m.requests.as_slice() {
                // SAFETY: the batch holds a reference to each cown.
                let id = unsafe { CownHeader::from_queue(slot.as_ref().queue()) }.id;
                requests.push((id, owner, slot));
            }
        }
        requests.sort_unstable_by_key(|&(id, owner, _)| (id, owner));
        let slots: Vec<NonNull<Slot>> = requests.iter().map(|r| r.2).collect();
        let mut grants = vec![Grant::No; slots.len()];
        // SAFETY: fresh slots sorted by (cown, behaviour), distinct per behaviour, gates not single
        // and counting the spawner's hold; the batch holds references to the cowns.
        unsafe { protocol::enqueue_batch(&slots, &mut grants) };
        let mut counts = vec![1u32; members.len()];
        for (r, g) in requests.iter().zip(&grants) {
            if *g != Grant::No {
                counts[r.1] += 1;
            }
        }
        let queues: Vec<NonNull<Queue>> = requests
            .iter()
            // SAFETY: as above; read before the behaviours can run and release.
            .map(|r| unsafe { r.2.as_ref() }.queue())
            .collect();
        for (m, n) in members.iter().zip(counts) {
            // SAFETY: the behaviour counts its grants plus the spawner's hold, and waits for them.
            unsafe { protocol::resolve_counting(m.first, n, &mut |f| schedule_ready(f)) };
        }
        for queue in queues {
            // SAFETY: the reference taken in `Batch::when`.
            unsafe { Queue::release_ref(queue) };
        }
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        self.spawn_members();
    }
}

impl std::fmt::Debug for Batch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("len", &self.members.len())
            .finish()
    }
}
