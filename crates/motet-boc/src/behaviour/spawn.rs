//! Spawning a behaviour alone ([`when`], [`when_detached`]): building it, applying backpressure,
//! enqueueing its requests, and making it runnable if it got all its cowns at once.

use std::ptr::NonNull;

use motet_runtime::Handle;

use crate::cown::CownHeader;
use crate::error::WhenError;
use crate::promise::Promise;
use crate::protocol::{self, Grant, Slot};
use crate::scratch::Scratch;
use crate::set::{CownSet, Shape};

use super::block::{first_cown, Behaviour, Detached, Head, Many, One, WithPromise};
use super::build::{self, Built};
use super::deferral::{throttle, throttle_all};
use super::handoff::{hand_over, schedule_ready};
use super::step::{step_as, StepFn};

/// A clone of the runtime's handle for a promise, if the runtime is deterministic (a promise
/// waiting there drives the runtime; on a thread pool it needs nothing).
#[inline]
pub(super) fn deterministic_runtime(header: &CownHeader) -> Option<Handle> {
    if header.deterministic {
        Some(header.runtime.clone())
    } else {
        None
    }
}

/// A behaviour enqueued by a spawn: its first request, and the cown whose runtime a promise of it
/// drives on a deterministic runtime (alive while the spawner holds its cowns).
struct Spawned {
    first: NonNull<Slot>,
    header: NonNull<CownHeader>,
}

impl Spawned {
    /// The promise of a behaviour spawned with a promise (its shared part a `Promised<R>`).
    ///
    /// # Safety
    /// The behaviour's completion has its HANDLE bit set, and the spawner still holds a handle to
    /// the cown `header`.
    #[inline]
    unsafe fn promise<R>(self) -> Promise<R> {
        // SAFETY: the caller's contract.
        let deterministic = deterministic_runtime(unsafe { self.header.as_ref() });
        // SAFETY: as above; the promise owns the HANDLE bit.
        unsafe { Promise::pending(self.first, deterministic) }
    }
}

/// Spawns a behaviour over one cown: the hot path, without sorting or scratch space. Always
/// inlined, as it was before the block became a runtime task (left to itself, the compiler makes
/// it a call in some of the closures that spawn).
#[inline(always)]
fn spawn_one<S, F, R, H>(cowns: &S, f: F) -> Spawned
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: Head<R>,
{
    let first = build::one::<S, F, R, H>(cowns, f);
    // SAFETY: the spawner holds a handle to the cown.
    let header = unsafe { first_cown(first) };
    if let Some(bound) = header.bound.as_deref() {
        throttle(header, bound, false);
    }
    // SAFETY: a fresh single behaviour over a cown the spawner holds a handle to, a write request
    // if its shape says so.
    let granted = unsafe {
        if <S::Shape as Shape>::WRITERS == 1 {
            protocol::enqueue_single_writer(first)
        } else {
            protocol::enqueue_single(first)
        }
    };
    if granted {
        hand_over::<false>(header, first, step_as::<Behaviour<S::Shape, F, R, H, One>>);
    }
    Spawned {
        first,
        header: NonNull::from(header),
    }
}

/// Enqueues a behaviour built by [`build::build`], spawned alone, and makes it runnable if it got
/// all its cowns.
fn spawn_many(built: Built) -> Spawned {
    let Built {
        first,
        requests,
        step,
    } = built;
    let requests = requests.as_slice();
    throttle_all(requests);
    // SAFETY: the spawner holds handles to the cowns; the behaviour's runnable is parked, its
    // requests are fresh, sorted and distinct (a dynamic set may name a cown read-only).
    unsafe { enqueue_requests(first, requests, false, step) };
    Spawned {
        first,
        // SAFETY: as above.
        header: NonNull::from(unsafe { first_cown(first) }),
    }
}

/// Spawns a behaviour over two cowns, the common multi-cown `when`: two distinct cowns are ordered
/// with one comparison, on the stack, without the sort and scratch buffers of the general path
/// (which a cown named twice still takes).
#[inline]
fn spawn_two<S, F, R, H>(cowns: &S, f: F) -> Result<Spawned, WhenError>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: Head<R>,
{
    let (task, a) = build::many::<S, F, R, H>(cowns, f, 2);
    let b = task.tail()[0].as_ptr();
    // SAFETY: the spawner holds handles to the cowns.
    let header = |s: NonNull<Slot>| unsafe { CownHeader::from_queue(s.as_ref().queue()) };
    let (first, second) = (header(a), header(b));
    let requests = match first.id.cmp(&second.id) {
        std::cmp::Ordering::Less => [a, b],
        std::cmp::Ordering::Greater => [b, a],
        std::cmp::Ordering::Equal => return build::distinct(task, a, &[a, b]).map(spawn_many),
    };
    // SAFETY: a fresh block that nobody else can reach yet: its park is empty and ours, and the
    // enqueue publishes it.
    unsafe { super::block::park(a, task.into_runnable().erase()) };
    throttle_all(&requests);
    // SAFETY: two fresh, distinct slots sorted by cown id, the gate counting them and the
    // spawner's hold, on cowns the spawner holds handles to; write requests if the shape says so.
    unsafe {
        enqueue_requests(
            a,
            &requests,
            <S::Shape as Shape>::WRITERS == 2,
            step_as::<Behaviour<S::Shape, F, R, H, Many>>,
        )
    };
    Ok(Spawned {
        first: a,
        header: NonNull::from(first),
    })
}

/// Spawns a behaviour of head `H` alone (see [`when`]).
#[inline(always)]
fn spawn<S, F, R, H>(cowns: &S, f: F) -> Result<Spawned, WhenError>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
    H: Head<R>,
{
    #[cfg(feature = "tracing")]
    tracing::trace!(target: "motet::boc", cowns = cowns.count(), "behaviour spawn");
    if <S::Shape as Shape>::ONE {
        return Ok(spawn_one::<S, F, R, H>(cowns, f));
    }
    match cowns.count() {
        2 => spawn_two::<S, F, R, H>(cowns, f),
        _ => build::build::<S, F, R, H>(cowns, f).map(spawn_many),
    }
}

/// Enqueues the requests of a behaviour spawned alone that counts its grants, and makes it
/// runnable if it got all of them.
///
/// # Safety
/// `requests` are the fresh requests of the behaviour whose first request is `first` (its
/// runnable parked), at least one, sorted by cown id and distinct; its gate counts them and the
/// spawner's hold; the spawner holds handles to the cowns; every request is a write request if
/// `writers`; `step` is the behaviour's kind's step.
#[inline(always)]
unsafe fn enqueue_requests(
    first: NonNull<Slot>,
    requests: &[NonNull<Slot>],
    writers: bool,
    step: StepFn,
) {
    let granted = if requests.len() <= protocol::MAX_DISTINCT {
        // SAFETY: the caller's contract.
        unsafe { protocol::enqueue_distinct(requests, writers) }
    } else {
        let mut grants = Scratch::filled(Grant::No, requests.len());
        // SAFETY: the caller's contract: distinct requests are a batch of chains of one.
        unsafe { protocol::enqueue_batch(requests, grants.as_mut_slice()) };
        grants
            .as_slice()
            .iter()
            .filter(|g| **g != Grant::No)
            .count() as u32
    };
    if granted as usize == requests.len() {
        // Every cown was granted to this spawner, so no other thread holds a grant to count
        // down (a grant not made during the enqueue is made by a predecessor's release, the
        // grant cascade or the last reader, and there is none left): the behaviour is
        // runnable, without the atomic decrement, and its gate is never read again.
        // SAFETY: the spawner holds handles to the cowns; the first request is the first cown
        // named, whose runtime the behaviour runs on.
        hand_over::<true>(unsafe { first_cown(first) }, first, step);
    } else {
        // SAFETY: the behaviour counts its grants plus the spawner's hold, and waits for them.
        unsafe { protocol::resolve_counting(first, granted + 1, &mut |f| schedule_ready(f)) };
    }
}

/// Spawns a behaviour that runs `f` with the cowns of `cowns` once it has acquired all of them, and
/// returns a promise of its result.
///
/// `cowns` is one of the forms listed in [`crate::set`]: a cown (`&c`), a read-only cown
/// (`c.read()`), a deferred value, a tuple of those (up to 12), or a dynamic set (`&[Cown<T>]`,
/// `&Vec<Cown<T>>`, or [`read_all`](crate::read_all)). The closure gets `&mut T` for each cown
/// named with write access and `&T` for each read-only one, in the order they were named.
///
/// The guarantees are those of the BoC paper (section 3): the behaviour acquires all its cowns at
/// once, runs with exclusive access to them (shared with other readers, for read-only ones) until
/// its closure returns, and runs after every behaviour spawned before it that names one of its
/// cowns (happens-before). Behaviours never deadlock, whatever cowns they name.
///
/// `when` may be called from anywhere: the main thread, a behaviour, an actor, an async task. The
/// behaviour runs on the runtime of the first cown named.
///
/// # Naming a cown twice
///
/// A cown named more than once in one `when` is acquired once. If every naming is read-only
/// (`(c.read(), c.read())`), the closure gets `&T` at each position. If any naming has write
/// access, two `&mut T` (or `&mut T` and `&T`) to one value would alias, so the `when` is rejected.
/// A dynamic set that names no cown is rejected too.
///
/// # Rejection
///
/// A rejected `when` spawns nothing and drops its closure unrun. The error is known at once,
/// without waiting: the promise's [`rejected`](Promise::rejected) returns it
/// ([`WhenError::DuplicateCown`] or [`WhenError::NoCowns`]), and so does
/// [`wait`](Promise::wait) at once. [`try_when`] returns it as a `Result` instead, for code that
/// names cowns it did not choose itself (a dynamic set, cowns handed in by a caller). Ignoring the
/// promise is a compiler warning (it is `#[must_use]`); a rejection whose promise was dropped
/// anyway is still counted, process-wide, by [`rejected_whens`](crate::rejected_whens). A
/// rejection never panics, in debug builds either.
///
/// ```
/// use motet_boc::{when, Cown, WhenError};
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// let c = Cown::new(rt.handle(), 1);
/// let twice = when((&c, &c), |(a, b)| *a + *b);
/// assert_eq!(twice.rejected(), Some(&WhenError::DuplicateCown));
/// ```
///
/// # Panics in the closure
///
/// A closure that panics releases its cowns as one that returns would, the behaviours after it run
/// as usual, and the promise holds [`WhenError::Panicked`] with the panic's message. The panic is
/// also counted ([`behaviour_panics`](crate::behaviour_panics)) and handed to the program's hook
/// ([`set_behaviour_panic_hook`](crate::set_behaviour_panic_hook)), with the cowns it held.
///
/// # The promise
///
/// The result stays in the behaviour's own allocation: a [`Promise`] allocates nothing. Dropping it
/// (fire and forget) is one atomic operation on that allocation, and the result is then dropped
/// when the behaviour completes. Keep it to `.await` the result or [`wait`](Promise::wait) for it.
///
/// ```
/// use motet_boc::{when, Cown};
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let (src, dst) = (Cown::new(rt.handle(), 100), Cown::new(rt.handle(), 0));
/// drop(when((&src, &dst), |(src, dst)| {
///     *src -= 40;
///     *dst += 40;
/// }));
/// let total = when((src.read(), dst.read()), |(s, d)| s + d).wait().unwrap();
/// assert_eq!(total, 100);
/// ```
pub fn when<S, F, R>(cowns: S, f: F) -> Promise<R>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
{
    match spawn::<S, F, R, WithPromise>(&cowns, f) {
        // SAFETY: spawned with a promise, whose completion starts with HANDLE set; `cowns` holds
        // the handles.
        Ok(spawned) => unsafe { spawned.promise() },
        Err(e) => Promise::failed(e),
    }
}

/// Spawns a behaviour as [`when`] does, and returns a `when` rejected at spawn (a cown named twice
/// with write access, an empty dynamic set) as an error at once rather than as a failed promise
/// (see [`when`'s *Rejection*](when#rejection)). Costs what `when` costs.
///
/// ```
/// use motet_boc::{try_when, Cown, WhenError};
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// let a = Cown::new(rt.handle(), 1);
/// let rejected = try_when((&a, &a), |(x, y)| *x + *y);
/// assert_eq!(rejected.err(), Some(WhenError::DuplicateCown));
/// let sum = try_when((a.read(), a.read()), |(x, y)| *x + *y).unwrap();
/// assert_eq!(sum.wait(), Ok(2));
/// ```
pub fn try_when<S, F, R>(cowns: S, f: F) -> Result<Promise<R>, WhenError>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
{
    // SAFETY: spawned with a promise, whose completion starts with HANDLE set; `cowns` holds the
    // handles.
    spawn::<S, F, R, WithPromise>(&cowns, f).map(|spawned| unsafe { spawned.promise() })
}

/// Spawns a behaviour as [`when`] does, without a promise: for fire-and-forget behaviours, as an
/// actor's `tell` is to an `ask`.
///
/// The behaviour has every guarantee of one spawned by [`when`] (atomic acquisition, exclusive
/// access, spawn order, no deadlock); only its result is dropped when it completes. A panic in
/// its closure is reported by the panic hook as usual, releases its cowns, and is otherwise
/// dropped, as with a `when` whose promise was dropped.
///
/// What it saves over `when(..)` with its promise dropped at once: the promise's part of the
/// behaviour's block (the result cell and the hand-over state, 40 bytes and more), the atomic
/// operation that drops the promise, and the result and hand-over on completion. A single-cown
/// behaviour whose closure captures nothing is a 40-byte block (80 with a promise); a million of
/// them pending on one cown (Savina's Counting) are that many fewer bytes written and read back.
///
/// A `when_detached` rejected at spawn (a cown named twice with write access, an empty dynamic
/// set) returns the error at once, and nothing is spawned.
///
/// ```
/// use motet_boc::{when, when_detached, Cown};
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let counter = Cown::new(rt.handle(), 0u64);
/// for _ in 0..100 {
///     when_detached(&counter, |n| *n += 1).expect("one cown");
/// }
/// // Spawned after the increments and naming the counter, so it runs after them all.
/// assert_eq!(when(&counter, |n| *n).wait().unwrap(), 100);
/// ```
#[inline(always)]
pub fn when_detached<S, F, R>(cowns: S, f: F) -> Result<(), WhenError>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
{
    if <S::Shape as Shape>::ONE {
        detached_one(cowns, f);
        Ok(())
    } else {
        detached(cowns, f)
    }
}

/// [`when_detached`] over one cown, which is never rejected: where it is not inlined (a closure
/// that spawns in several places), a call that returns nothing, so that its caller neither passes
/// a place for a `Result` nor checks one that can only be `Ok`. Left to the compiler to inline:
/// a loop of spawns (a producer's), which it inlines into, measured dearer per spawn with the call
/// forced.
fn detached_one<S, F, R>(cowns: S, f: F)
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
{
    spawn_one::<S, F, R, Detached>(&cowns, f);
}

/// [`when_detached`] over several cowns (or a dynamic set), which may be rejected.
fn detached<S, F, R>(cowns: S, f: F) -> Result<(), WhenError>
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as Shape>::View<'a>) -> R + Send + 'static,
    R: Send + 'static,
{
    spawn::<S, F, R, Detached>(&cowns, f).map(|_| ())
}
