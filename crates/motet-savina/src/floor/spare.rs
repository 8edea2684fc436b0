//! What a dropped system leaves for the next system of the same actor type on the same thread:
//! its actors' chunks, its slots' vector, its mailboxes' buffers and its run queue, emptied.
//!
//! A benchmark's floor builds a fresh [`System`](super::System) in every timed iteration, where a
//! runtime is built once, untimed, and serves every iteration from memory it already holds (its
//! actors' cells, mailbox nodes and queues come from its caches and its allocator's). A system
//! that started from nothing each time would pay alone for fresh memory (page faults, vectors
//! growing and copying) on every iteration; with this, the floor's second iteration on starts
//! where a warm runtime does.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;

thread_local! {
    /// One spare per type, keyed by the type's id.
    static SPARE: RefCell<HashMap<TypeId, Box<dyn Any>>> = RefCell::new(HashMap::new());
}

/// Takes the spare of type `T` this thread holds, if any.
pub(super) fn take<T: 'static>() -> Option<T> {
    let spare = SPARE
        .try_with(|spare| spare.borrow_mut().remove(&TypeId::of::<T>()))
        .ok()
        .flatten()?;
    Some(
        *spare
            .downcast::<T>()
            .expect("a spare is keyed by its own type"),
    )
}

/// Keeps `value` as this thread's spare of type `T`, in place of one it held. A thread being
/// torn down keeps nothing.
pub(super) fn put<T: 'static>(value: T) {
    let _ = SPARE.try_with(|spare| {
        spare
            .borrow_mut()
            .insert(TypeId::of::<T>(), Box::new(value))
    });
}

#[cfg(test)]
mod tests {
    use super::{put, take};

    #[test]
    fn a_spare_is_taken_once_and_by_its_own_type() {
        struct Mine(Vec<u8>);
        assert!(take::<Mine>().is_none());
        put(Mine(vec![1, 2, 3]));
        assert!(take::<Vec<u8>>().is_none(), "another type's spare");
        assert_eq!(take::<Mine>().map(|m| m.0), Some(vec![1, 2, 3]));
        assert!(take::<Mine>().is_none(), "taken already");
    }
}
