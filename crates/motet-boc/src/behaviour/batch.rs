//! [`Batch`]: several `when`s enqueued as one atomic step.

use std::ptr::NonNull;

use crate::cown::CownHeader;
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
/// Behaviours are added with [`Batch::when`], which returns their promises at once, and are
/// enqueued together by [`Batch::spawn`] (or when the batch is dropped). Among themselves they keep
/// the order they were added in.
///
/// ```
/// use motet_boc::{when, Batch, Cown};
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let log = Cown::new(rt.handle(), Vec::new());
/// let mut batch = Batch::new();
/// drop(batch.when(&log, |l| l.push("first")));
/// drop(batch.when(&log, |l| l.push("second")));
/// batch.spawn();
/// let entries = when(&log, |l| l.clone()).wait().unwrap();
/// assert_eq!(entries, ["first", "second"]);
/// ```
#[derive(Default)]
pub struct Batch {
    members: Vec<Built>,
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Batch {
        Batch::default()
    }

    /// Adds a behaviour (see [`when`](crate::when)); it is enqueued with the rest of the batch. Do
    /// not wait for the returned promise before the batch is spawned.
    pub fn when<S, F, R>(&mut self, cowns: S, f: F) -> Promise<R>
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

    /// Enqueues every behaviour of the batch at once.
    pub fn spawn(mut self) {
        self.spawn_members();
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
