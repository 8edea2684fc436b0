//! Rejected `when`s, seen from outside their promises: a process-wide count.
//!
//! A `when` is rejected at spawn when it names one cown twice with write access
//! ([`WhenError::DuplicateCown`]) or names no cown ([`WhenError::NoCowns`]): nothing is spawned.
//! [`try_when`](crate::try_when) and [`when_detached`](crate::when_detached) return the error,
//! [`when`](crate::when)'s promise holds it ([`Promise::rejected`](crate::Promise::rejected)), and
//! [`Batch::add`](crate::Batch::add)'s ticket says it. A `when` whose promise was dropped at once
//! has no one to tell; the count here sees it too, as a test or a metric can.
//!
//! A rejection is not a panic, in debug builds either: it is a documented result that a program
//! may test for, and code that checks `rejected()` must behave the same in every build.
//!
//! The cost is on the rejection path only: an accepted `when` pays nothing for it.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::WhenError;

/// `when`s rejected in this process so far.
static REJECTED: AtomicU64 = AtomicU64::new(0);

/// How many `when`s (of every form: [`when`](crate::when), [`try_when`](crate::try_when),
/// [`when_detached`](crate::when_detached), [`Batch::add`](crate::Batch::add)) have been rejected
/// at spawn in this process so far, on every runtime.
///
/// ```
/// use motet_boc::{rejected_whens, when, Cown};
/// let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// let c = Cown::new(rt.handle(), 0);
/// let before = rejected_whens();
/// drop(when((&c, &c), |(a, b)| *a += *b)); // two `&mut` to one value: rejected
/// assert!(rejected_whens() > before);
/// ```
pub fn rejected_whens() -> u64 {
    REJECTED.load(Ordering::Relaxed)
}

/// Counts a rejection; the error, for the caller to return.
#[cold]
#[inline(never)]
pub(crate) fn rejected(error: WhenError) -> WhenError {
    REJECTED.fetch_add(1, Ordering::Relaxed);
    error
}
