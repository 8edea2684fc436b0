//! The behaviour whose closure runs on this thread ([`CURRENT`]): what a spawn from inside a
//! closure needs to know (whether to keep its behaviour for this thread, whether backpressure
//! defers the spawner), and how user code reached from a release runs as outside any behaviour.

use std::cell::Cell;
use std::ptr::{self, NonNull};

use crate::cown::CownHeader;
use crate::protocol::{LaterSlot, Slot};

thread_local! {
    /// The behaviour whose closure runs on this thread, if any, and the bounded cown its release
    /// is deferred on if backpressure defers it (see `deferral::throttle`).
    pub(super) static CURRENT: Cell<Current> = const { Cell::new(Current::NONE) };
    /// The later requests of the behaviour in [`CURRENT`], if it counts its grants (written by the
    /// steps of such behaviours only, and read only for them: a single behaviour, the common one,
    /// has none, and its step writes two words to `CURRENT` and nothing here).
    pub(super) static CURRENT_LATER: Cell<*const [LaterSlot]> = const { Cell::new(NO_LATER) };
}

/// No later requests.
const NO_LATER: *const [LaterSlot] =
    ptr::slice_from_raw_parts(NonNull::<LaterSlot>::dangling().as_ptr(), 0);

/// What [`CURRENT`] holds.
#[derive(Clone, Copy)]
pub(super) struct Current {
    /// The running behaviour's first request (its identity).
    pub(super) first: Option<NonNull<Slot>>,
    /// The bounded cown whose backlog defers the behaviour's release, holding one reference.
    pub(super) deferred_on: Option<NonNull<CownHeader>>,
}

impl Current {
    pub(super) const NONE: Current = Current {
        first: None,
        deferred_on: None,
    };

    /// Names the behaviour whose first request is `first` as running, with its later requests.
    /// `counting`: the behaviour counts its grants (its first request is not tagged single), a
    /// constant of its kind. Such a behaviour writes [`CURRENT_LATER`] even without later requests
    /// (a batch member or a dynamic set over one cown), which [`Current::requests`] reads for it:
    /// what a behaviour that ran before left there may be freed.
    #[inline(always)]
    pub(super) fn set_running(first: NonNull<Slot>, later: &[LaterSlot], counting: bool) {
        if counting {
            CURRENT_LATER.with(|l| l.set(later));
        }
        CURRENT.with(|cur| {
            cur.set(Current {
                first: Some(first),
                deferred_on: None,
            })
        });
    }

    /// Whether a behaviour's closure runs on this thread (or its step is not over).
    #[inline(always)]
    pub(super) fn is_some(&self) -> bool {
        self.first.is_some()
    }

    /// The requests of the running behaviour (`first` is `CURRENT`'s): the first, and the later
    /// ones of a behaviour that counts its grants.
    ///
    /// # Safety
    /// `first` is the first request of the behaviour whose closure runs on this thread.
    pub(super) unsafe fn requests(first: NonNull<Slot>) -> impl Iterator<Item = NonNull<Slot>> {
        // SAFETY: the caller's contract: the behaviour runs, so its requests are alive.
        let single = unsafe { first.as_ref() }.is_single();
        let later = if single {
            NO_LATER
        } else {
            CURRENT_LATER.with(Cell::get)
        };
        // SAFETY: as above: a counting behaviour's step wrote its later requests before its
        // closure began, and a nested turn puts back what it found there (see `RestoreCurrent`).
        let later = unsafe { &*later };
        std::iter::once(first).chain(later.iter().map(LaterSlot::as_ptr))
    }
}

/// The requests of the behaviour whose closure ran last on this thread (see [`Current::requests`]),
/// for the panic hook (see `panics`).
///
/// # Safety
/// `first` is the first request of the behaviour whose closure runs or has just ended on this
/// thread (its step is not over), and its requests are not released.
pub(crate) unsafe fn running_requests(first: NonNull<Slot>) -> impl Iterator<Item = NonNull<Slot>> {
    // SAFETY: the caller's contract; [`CURRENT_LATER`] still holds the behaviour's later
    // requests after its closure (a nested turn puts back what it found, and only a step writes
    // it).
    unsafe { Current::requests(first) }
}

/// Puts back what [`CURRENT`] and [`CURRENT_LATER`] held when a nested task's turn began (or when
/// [`outside_behaviours`] began).
pub(super) struct RestoreCurrent(Current, *const [LaterSlot]);

impl RestoreCurrent {
    /// Saves what the thread-locals hold, and leaves `now` in [`CURRENT`].
    pub(super) fn replace(now: Current) -> RestoreCurrent {
        RestoreCurrent(
            CURRENT.with(|cur| cur.replace(now)),
            CURRENT_LATER.with(Cell::get),
        )
    }
}

impl Drop for RestoreCurrent {
    fn drop(&mut self) {
        CURRENT.with(|cur| cur.set(self.0));
        CURRENT_LATER.with(|l| l.set(self.1));
    }
}

/// Runs `f`, user code reached from a release or a cancellation (a freed cown's `drop`, a
/// cancelled closure's `drop`), with no behaviour named in [`CURRENT`], and puts back what it held.
///
/// A step whose closure cannot be followed by an unwind leaves its behaviour in `CURRENT` through
/// its release (see `step`), and the release may end the behaviour's task before it frees a cown.
/// A `when` from such user code must not take that behaviour for its spawner (hand-over,
/// backpressure read its requests): it is spawned as from a thread that runs no behaviour. Cold:
/// only values whose `drop` runs code, and shut-down runtimes, come here.
#[inline(never)]
pub(crate) fn outside_behaviours<T>(f: impl FnOnce() -> T) -> T {
    let _restore = RestoreCurrent::replace(Current::NONE);
    f()
}
