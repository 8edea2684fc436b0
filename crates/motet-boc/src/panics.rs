//! Panics in behaviours, seen from outside any promise: a process-wide count and a hook.
//!
//! A behaviour's panic reaches its promise as [`WhenError::Panicked`](crate::WhenError::Panicked);
//! a fire-and-forget behaviour ([`when_detached`](crate::when_detached), or a `when` whose promise
//! was dropped) has no one to tell, and the panic hook's printed line was all a program saw. Here a
//! program can count them, as a supervisor counts failures, or act on each one, as reactors report
//! `RunError::Panicked` from their run.
//!
//! The cost is on the panic path only: a running behaviour pays nothing for it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// A behaviour's panic, as [`set_behaviour_panic_hook`]'s hook sees it.
#[derive(Debug)]
pub struct BehaviourPanic<'a> {
    message: &'a str,
}

impl BehaviourPanic<'_> {
    /// The panic's message (as [`WhenError::Panicked`](crate::WhenError::Panicked) holds it).
    pub fn message(&self) -> &str {
        self.message
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

/// Sets the hook that every behaviour's panic is handed to, in this process, on every runtime; it
/// replaces the hook set before. Panics are counted ([`behaviour_panics`]) whether a hook is set
/// or not.
///
/// The hook runs on the worker that ran the behaviour, after the panic hook of `std` printed the
/// panic and before the behaviour's cowns are released: keep it short (count, log, send a
/// message). A panic inside the hook is caught and goes no further. Behaviours it spawns are
/// ordinary `when`s, but a bounded cown's backpressure does not hold them back.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use motet_boc::{set_behaviour_panic_hook, take_behaviour_panic_hook, when_detached, Cown};
///
/// let seen = Arc::new(AtomicUsize::new(0));
/// let counter = Arc::clone(&seen);
/// set_behaviour_panic_hook(move |p| {
///     if p.message().contains("sensor") {
///         counter.fetch_add(1, Ordering::Relaxed);
///     }
/// });
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// let c = Cown::new(rt.handle(), 0);
/// when_detached(&c, |_| panic!("sensor offline")).unwrap();
/// rt.wait_quiescent();
/// assert_eq!(seen.load(Ordering::Relaxed), 1);
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

/// Counts a behaviour's panic and hands it to the hook. Does not unwind.
pub(crate) fn report(message: &str) {
    PANICS.fetch_add(1, Ordering::Relaxed);
    // Cloned out of the lock, so that a hook that sets another hook does not deadlock.
    let hook = HOOK.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(hook) = hook {
        // The hook's own panic was printed by the panic hook; the behaviour's release must not
        // unwind (see `behaviour::cancel`).
        let _ = catch_unwind(AssertUnwindSafe(|| hook(&BehaviourPanic { message })));
    }
}
