//! Panics in behaviours, seen from outside any promise: a process-wide count and a hook.
//!
//! A behaviour's panic reaches its promise as [`WhenError::Panicked`](crate::WhenError::Panicked);
//! a fire-and-forget behaviour ([`when_detached`](crate::when_detached), or a `when` whose promise
//! was dropped) has no one to tell, and the panic hook's printed line was all a program saw. Here a
//! program can count them, as a supervisor counts failures, or act on each one, as reactors report
//! `RunError::Panicked` from their run.
//!
//! The cost is on the panic path only: a running behaviour pays nothing for it.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use crate::behaviour::running_requests;
use crate::cown::{CownHeader, CownId};
use crate::protocol::Slot;

/// A behaviour's panic, as [`set_behaviour_panic_hook`]'s hook sees it: the panic and the cowns
/// of the behaviour that panicked.
#[derive(Debug)]
pub struct BehaviourPanic<'a> {
    message: &'a str,
    payload: &'a (dyn Any + Send),
    cowns: &'a [CownId],
}

impl<'a> BehaviourPanic<'a> {
    /// The panic's message (as [`WhenError::Panicked`](crate::WhenError::Panicked) holds it).
    pub fn message(&self) -> &'a str {
        self.message
    }

    /// The panic's payload, as `catch_unwind` returned it (`&str` or `String` for a `panic!` with
    /// a message; whatever `std::panic::panic_any` was given otherwise).
    pub fn payload(&self) -> &'a (dyn Any + Send) {
        self.payload
    }

    /// The cowns (and deferred values) the behaviour named, each once, in the order it named them
    /// (see [`Cown::id`](crate::Cown::id)). They are still held while the hook runs, and released
    /// after it returns.
    pub fn cowns(&self) -> &'a [CownId] {
        self.cowns
    }
}

type Hook = Arc<dyn Fn(&BehaviourPanic<'_>) + Send + Sync>;

/// Behaviours that panicked in this process so far.
static PANICS: AtomicU64 = AtomicU64::new(0);

/// The program's hook, if it set one.
static HOOK: RwLock<Option<Hook>> = RwLock::new(None);

/// How many behaviours have panicked in this process so far, on every runtime (their promises, if
/// any, hold [`WhenError::Panicked`](crate::WhenError::Panicked)).
///
/// ```
/// use motet_boc::{behaviour_panics, when, Cown};
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// let c = Cown::new(rt.handle(), 0);
/// let before = behaviour_panics();
/// let failed = when(&c, |_| -> () { panic!("out of range") }).wait();
/// assert!(failed.is_err());
/// assert!(behaviour_panics() > before);
/// ```
pub fn behaviour_panics() -> u64 {
    PANICS.load(Ordering::Relaxed)
}

/// Sets the hook that every behaviour's panic is handed to, with the cowns the behaviour held
/// ([`BehaviourPanic`]), in this process, on every runtime; it replaces the hook set before. Panics are counted ([`behaviour_panics`]) whether a hook is set
/// or not.
///
/// The hook runs on the worker that ran the behaviour, after the panic hook of `std` printed the
/// panic and before the behaviour's cowns are released: keep it short (count, log, send a
/// message). A panic inside the hook is caught and goes no further. Behaviours it spawns are
/// ordinary `when`s, but a bounded cown's backpressure does not hold them back.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use motet_boc::{set_behaviour_panic_hook, take_behaviour_panic_hook, when_detached, Cown};
///
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// let sensor = Cown::new(rt.handle(), 0);
/// let failed = Arc::new(Mutex::new(Vec::new()));
/// let log = Arc::clone(&failed);
/// set_behaviour_panic_hook(move |p| {
///     // Which cowns the behaviour held, and why it panicked.
///     log.lock().unwrap().push((p.cowns().to_vec(), p.message().to_string()));
/// });
/// when_detached(&sensor, |_| panic!("sensor offline")).unwrap();
/// rt.wait_quiescent();
/// assert_eq!(*failed.lock().unwrap(), [(vec![sensor.id()], "sensor offline".to_string())]);
/// take_behaviour_panic_hook();
/// ```
pub fn set_behaviour_panic_hook(hook: impl Fn(&BehaviourPanic<'_>) + Send + Sync + 'static) {
    *HOOK.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(hook));
}

/// Removes the hook set by [`set_behaviour_panic_hook`]; whether there was one.
pub fn take_behaviour_panic_hook() -> bool {
    HOOK.write()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .is_some()
}

/// Counts the panic of the behaviour whose first request is `first` (its closure just ended on
/// this thread, its requests granted and not released) and hands it to the hook. Does not unwind.
pub(crate) fn report(message: &str, payload: &(dyn Any + Send), first: Option<NonNull<Slot>>) {
    PANICS.fetch_add(1, Ordering::Relaxed);
    // Cloned out of the lock, so that a hook that sets another hook does not deadlock.
    let hook = HOOK.read().unwrap_or_else(|e| e.into_inner()).clone();
    let Some(hook) = hook else {
        return;
    };
    let cowns: Vec<CownId> = match first {
        // SAFETY: `first` is the first request of the behaviour whose closure just ended on this
        // thread, and its requests are granted and not released, so their cowns are alive.
        Some(first) => unsafe { running_requests(first) }
            // SAFETY: as above.
            .filter(|&slot| !unsafe { slot.as_ref() }.is_duplicate())
            // SAFETY: as above.
            .map(|slot| unsafe { CownHeader::from_queue(slot.as_ref().queue()) }.cown_id())
            .collect(),
        None => Vec::new(),
    };
    let panic = BehaviourPanic {
        message,
        payload,
        cowns: &cowns,
    };
    // The hook's own panic was printed by the panic hook; the behaviour's release must not
    // unwind (see `behaviour::cancel`).
    let _ = catch_unwind(AssertUnwindSafe(|| hook(&panic)));
}
