//! Cowns: concurrent owners of isolated data.
//!
//! A [`Cown<T>`] is a cheap, cloneable handle (one pointer, a reference count) to one allocation
//! holding the cown's protocol state (its request queue, see [`crate::protocol`]) and the value. The
//! value is reachable only inside a behaviour that acquired the cown ([`when`](crate::when)): the
//! handle itself has no accessor, and a behaviour's closure gets `&mut T` (or `&T` for read-only
//! access) for the duration of the behaviour only. That, with `T: Send`, is the isolation the BoC
//! paper asks of its host language; Rust's ownership checks it at compile time.
//!
//! A cown belongs to a runtime ([`Cown::new`] takes its [`Handle`]): a behaviour runs on the
//! runtime of the first cown it names. Cowns are ordered by an id drawn at creation, the stable
//! global order in which a behaviour enqueues on its cowns.

use std::cell::{Cell, UnsafeCell};
use std::fmt;
use std::marker::PhantomData;
use std::num::NonZeroUsize;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use motet_runtime::Handle;

use crate::backpressure::Bound;
use crate::protocol::Queue;

/// Ids are handed to threads in blocks, so that creating cowns in parallel does not contend.
const ID_BLOCK: u64 = 1024;
static NEXT_ID_BLOCK: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The next id and the end of this thread's block.
    static IDS: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// A fresh cown id, unique in the process.
fn next_id() -> u64 {
    IDS.with(|ids| {
        let (next, end) = ids.get();
        if next < end {
            ids.set((next + 1, end));
            next
        } else {
            // Relaxed: only uniqueness matters.
            let start = NEXT_ID_BLOCK.fetch_add(ID_BLOCK, Ordering::Relaxed);
            ids.set((start + 1, start + ID_BLOCK));
            start
        }
    })
}

/// A cown's identity: unique in the process, and the cown's place in the global order in which a
/// behaviour enqueues on its cowns. [`Cown::id`] and [`Deferred::id`](crate::Deferred::id) give
/// it; a behaviour's panic names its cowns by it ([`BehaviourPanic::cowns`](crate::BehaviourPanic::cowns)).
///
/// ```
/// use motet_boc::Cown;
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// let a = Cown::new(rt.handle(), 0);
/// let b = Cown::new(rt.handle(), 0);
/// assert_eq!(a.id(), a.clone().id());
/// assert_ne!(a.id(), b.id());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CownId(u64);

impl CownId {
    /// The id as a number (for logs and metrics).
    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for CownId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cown#{}", self.0)
    }
}

/// The untyped part of a cown, at offset 0 of its allocation (so `Queue` is at offset 0 too).
#[repr(C)]
pub(crate) struct CownHeader {
    pub(crate) queue: Queue,
    /// The cown's place in the global order.
    pub(crate) id: u64,
    /// The runtime its behaviours run on.
    pub(crate) runtime: Handle,
    /// Whether that runtime is deterministic (promises then drive it while waiting).
    pub(crate) deterministic: bool,
    /// The pending-queue bound, for bounded cowns.
    pub(crate) bound: Option<Box<Bound>>,
}

impl CownHeader {
    /// The header of a cown with one reference, freed by `free`.
    pub(crate) fn new(
        runtime: &Handle,
        free: unsafe fn(NonNull<Queue>),
        bound: Option<Box<Bound>>,
    ) -> CownHeader {
        CownHeader {
            queue: Queue::new(1, free),
            id: next_id(),
            runtime: runtime.clone(),
            deterministic: runtime.seed().is_some(),
            bound,
        }
    }

    /// The cown's identity.
    pub(crate) fn cown_id(&self) -> CownId {
        CownId(self.id)
    }

    /// The header of the cown whose queue is `queue`.
    ///
    /// # Safety
    /// `queue` is the queue of a live cown.
    #[inline]
    pub(crate) unsafe fn from_queue<'a>(queue: NonNull<Queue>) -> &'a CownHeader {
        // SAFETY: the queue is the first field of a `#[repr(C)]` header (caller's contract).
        unsafe { queue.cast::<CownHeader>().as_ref() }
    }
}

/// A cown's allocation: header, then value.
#[repr(C)]
pub(crate) struct CownBox<T> {
    pub(crate) header: CownHeader,
    pub(crate) value: UnsafeCell<T>,
}

impl<T> CownBox<T> {
    /// The value of the cown whose queue is `queue`.
    ///
    /// # Safety
    /// `queue` is the queue of a live `CownBox<T>`.
    #[inline]
    pub(crate) unsafe fn value_of(queue: NonNull<Queue>) -> *mut T {
        // SAFETY: the queue is at offset 0 of the header, itself at offset 0 of the box.
        unsafe { (*queue.cast::<CownBox<T>>().as_ptr()).value.get() }
    }
}

/// Frees a cown: by its last handle's drop, or by the release of its last behaviour or reader
/// once the last handle is gone.
///
/// A value whose `drop` may run code runs it under `catch_unwind`: a panic there is reported by
/// the panic hook and goes no further, whoever frees. A release must never unwind (the chain of
/// behaviours on a worker relies on it, see `step` in `behaviour.rs`, and the behaviour's other
/// cowns are still to be released); a value that needs no `drop` costs no `catch_unwind` (programs
/// that free many small cowns, as Savina's fib does, measured the difference: see docs/measurements/2026-11-29-hot-path-choices.md).
unsafe fn free_cown<T>(queue: NonNull<Queue>) {
    // SAFETY: called once, by the last reference, on a box allocated by `Cown::build`.
    let cown = unsafe { Box::from_raw(queue.cast::<CownBox<T>>().as_ptr()) };
    if std::mem::needs_drop::<T>() {
        // The value's `drop` is user code, which may spawn: it runs as outside any behaviour,
        // since a releasing step may still be named as running (see `outside_behaviours`).
        crate::behaviour::outside_behaviours(move || {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(cown)));
        });
    } else {
        drop(cown);
    }
}

/// A concurrent owner: a handle to a value that only behaviours can reach.
///
/// Create one with [`Cown::new`]; name it in [`when`](crate::when) to spawn a behaviour that gets
/// `&mut T` (or, through [`Cown::read`], `&T`). Cloning a `Cown` clones the handle, not the value.
/// The value is dropped when the last handle is gone and no behaviour waits for it.
///
/// ```
/// use motet_boc::{when, Cown};
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let account = Cown::new(rt.handle(), 100i64);
/// drop(when(&account, |balance| *balance -= 30));
/// let left = when(&account, |balance| *balance).wait().unwrap();
/// assert_eq!(left, 70);
/// ```
pub struct Cown<T> {
    ptr: NonNull<CownBox<T>>,
    marker: PhantomData<CownBox<T>>,
}

// SAFETY: a handle gives no access to the value; behaviours reach it with the exclusion the
// protocol guarantees, on any thread, so the value must be `Send`. The handle's own state is
// atomic.
unsafe impl<T: Send> Send for Cown<T> {}
// SAFETY: as above: `&Cown<T>` gives no access to the value either.
unsafe impl<T: Send> Sync for Cown<T> {}

impl<T: Send + 'static> Cown<T> {
    /// A cown holding `value`, whose behaviours run on `runtime`.
    pub fn new(runtime: &Handle, value: T) -> Cown<T> {
        Cown::build(runtime, value, None)
    }

    /// A cown with *backpressure*: while `bound` or more behaviours are queued on it (waiting or
    /// running), spawning another slows the spawner down: a thread outside the runtime blocks, and
    /// a behaviour keeps its own cowns once its closure returns (its next behaviours wait) until
    /// the count is below the bound again. See [the crate docs](crate#backpressure) for exactly
    /// what blocks, what is deferred, by how much the count may exceed the bound, and why this
    /// cannot deadlock.
    ///
    /// ```
    /// use std::num::NonZeroUsize;
    /// use motet_boc::{when, Cown};
    /// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
    /// let sink = Cown::bounded(rt.handle(), 0u64, NonZeroUsize::new(8).unwrap());
    /// for _ in 0..100 {
    ///     // From outside the runtime: blocks while 8 behaviours are queued on the sink.
    ///     drop(when(&sink, |n| *n += 1));
    ///     assert!(sink.pending().unwrap() <= 8);
    /// }
    /// assert_eq!(when(&sink, |n| *n).wait(), Ok(100));
    /// ```
    pub fn bounded(runtime: &Handle, value: T, bound: NonZeroUsize) -> Cown<T> {
        Cown::build(runtime, value, Some(Box::new(Bound::new(bound.get()))))
    }

    fn build(runtime: &Handle, value: T, bound: Option<Box<Bound>>) -> Cown<T> {
        let boxed = Box::new(CownBox {
            header: CownHeader::new(runtime, free_cown::<T>, bound),
            value: UnsafeCell::new(value),
        });
        // SAFETY: a fresh box with one reference, freed by `free_cown::<T>`.
        unsafe { Cown::from_raw(NonNull::from(Box::leak(boxed))) }
    }
}

impl<T> Cown<T> {
    /// A handle owning one reference to the cown at `ptr`.
    ///
    /// # Safety
    /// `ptr` is a live cown box (possibly embedded at offset 0 of a larger allocation that its
    /// queue's `free` function frees), and the caller hands over one of its references.
    pub(crate) unsafe fn from_raw(ptr: NonNull<CownBox<T>>) -> Cown<T> {
        Cown {
            ptr,
            marker: PhantomData,
        }
    }

    #[inline]
    pub(crate) fn header(&self) -> &CownHeader {
        // SAFETY: the handle's reference keeps the box alive.
        unsafe { &self.ptr.as_ref().header }
    }

    /// The cown's queue.
    #[inline]
    pub(crate) fn queue(&self) -> NonNull<Queue> {
        self.ptr.cast()
    }

    /// The runtime this cown's behaviours run on.
    pub fn runtime(&self) -> &Handle {
        &self.header().runtime
    }

    /// Read-only access to this cown in a [`when`](crate::when): behaviours that only read a cown
    /// run together, and the closure gets `&T`. A writer waits for the readers spawned before it;
    /// readers spawned after a writer wait for it.
    ///
    /// ```
    /// use motet_boc::{when, Cown};
    /// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
    /// let config = Cown::new(rt.handle(), String::from("v1"));
    /// let len = when(config.read(), |c: &String| c.len()).wait().unwrap();
    /// assert_eq!(len, 2);
    /// ```
    pub fn read(&self) -> Read<'_, T>
    where
        T: Sync,
    {
        Read(self)
    }

    /// This cown's identity (the same for every handle to it).
    pub fn id(&self) -> CownId {
        CownId(self.header().id)
    }

    /// Whether two handles refer to the same cown.
    pub fn ptr_eq(&self, other: &Cown<T>) -> bool {
        self.ptr == other.ptr
    }

    /// For a cown made with [`Cown::bounded`]: how many behaviours are queued on it now (waiting
    /// or running), as counted by their spawns (a spawn in progress included) and their releases.
    /// `None` for an unbounded cown, which does not count them: counting costs two atomic
    /// operations on a shared line per behaviour, which a cown that needs no bound does not pay.
    pub fn pending(&self) -> Option<usize> {
        self.header().bound.as_ref().map(|b| b.pending())
    }

    /// Takes the value out if this is the last handle and no behaviour is queued on the cown;
    /// otherwise gives the handle back.
    ///
    /// ```
    /// use motet_boc::{when, Cown};
    /// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
    /// let c = Cown::new(rt.handle(), 1);
    /// drop(when(&c, |v| *v += 1));
    /// rt.wait_quiescent();
    /// assert_eq!(c.try_unwrap().ok(), Some(2));
    /// ```
    pub fn try_unwrap(self) -> Result<T, Cown<T>> {
        if !self.header().queue.try_take_last() {
            return Err(self);
        }
        let ptr = self.ptr;
        std::mem::forget(self);
        // SAFETY: the last reference was ours and no behaviour holds the cown: nobody else can
        // reach the box, which `Cown::build` allocated.
        let boxed = unsafe { Box::from_raw(ptr.as_ptr()) };
        Ok(boxed.value.into_inner())
    }
}

impl<T> Clone for Cown<T> {
    fn clone(&self) -> Cown<T> {
        self.header().queue.retain();
        Cown {
            ptr: self.ptr,
            marker: PhantomData,
        }
    }
}

impl<T> Drop for Cown<T> {
    fn drop(&mut self) {
        // SAFETY: this handle's reference, given up here.
        unsafe { Queue::release_ref(self.queue()) };
    }
}

impl<T> fmt::Debug for Cown<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cown")
            .field("id", &self.header().id)
            .finish_non_exhaustive()
    }
}

/// Read-only access to a cown, for [`when`](crate::when): made by [`Cown::read`] or [`read`].
pub struct Read<'c, T>(pub(crate) &'c Cown<T>);

impl<T> fmt::Debug for Read<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Read").field(self.0).finish()
    }
}

/// Read-only access to `cown` (the same as [`Cown::read`]).
pub fn read<T: Sync>(cown: &Cown<T>) -> Read<'_, T> {
    Read(cown)
}

/// Read-only access to every cown of a dynamic set, for [`when`](crate::when): made by
/// [`read_all`].
pub struct ReadAll<'c, T>(pub(crate) &'c [Cown<T>]);

impl<T> fmt::Debug for ReadAll<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ReadAll").field(&self.0.len()).finish()
    }
}

/// Read-only access to every cown of `cowns`.
pub fn read_all<T: Sync>(cowns: &[Cown<T>]) -> ReadAll<'_, T> {
    ReadAll(cowns)
}
