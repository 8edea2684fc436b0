//! [`Lazy<T>`]: an optional box for a part most actors never allocate, whose drop costs an empty
//! one a test and no call.

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};

/// An `Option<Box<T>>` whose drop glue is a test when empty: the compiler's glue for the option
/// of a large `T` is an out-of-line call even for `None`, which a cell pays on every free.
pub(crate) struct Lazy<T>(ManuallyDrop<Option<Box<T>>>);

impl<T> Lazy<T> {
    pub(crate) fn new(value: Option<Box<T>>) -> Lazy<T> {
        Lazy(ManuallyDrop::new(value))
    }
}

impl<T> Default for Lazy<T> {
    fn default() -> Lazy<T> {
        Lazy::new(None)
    }
}

impl<T> Deref for Lazy<T> {
    type Target = Option<Box<T>>;
    #[inline(always)]
    fn deref(&self) -> &Option<Box<T>> {
        &self.0
    }
}

impl<T> DerefMut for Lazy<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Option<Box<T>> {
        &mut self.0
    }
}

impl<T> Drop for Lazy<T> {
    #[inline(always)]
    fn drop(&mut self) {
        if self.0.is_some() {
            // SAFETY: taken once, here, and never used again.
            drop_slow(unsafe { ManuallyDrop::take(&mut self.0) });
        }
    }
}

#[cold]
#[inline(never)]
fn drop_slow<T>(value: Option<Box<T>>) {
    drop(value);
}
