//! The storage behind ports, actions and reactor state, with their value types erased.
//!
//! A port's value lives in a [`SlotCell`]: a plain `Option<T>`, no lock, no reference count. Ports
//! joined by connections share the slot of the port at the head of the chain, so a value set on an
//! output is read in place by every downstream input (as reactor-cpp follows inward bindings). An
//! action's values live in an [`ActionCell`]: the value present at the current tag and the values
//! scheduled for later tags, ordered by tag.
//!
//! # Who touches what, and when
//!
//! The cells are `UnsafeCell`s; the scheduling discipline makes the accesses exclusive:
//! - a slot is written only by reactions of one reactor (the port's owner for an output, the
//!   container for a contained reactor's input), which never run at the same time, and read only by
//!   reactions that the dependency graph orders after every writer; the scheduler clears it between
//!   tags, when no reaction runs;
//! - an action's current value is set and cleared by the scheduler between tags, and read during the
//!   tag; its pending values are written by the owner's reactions (serialised) and by the scheduler
//!   between tags;
//! - a reactor's state is touched only by its own reactions (serialised) and by reset hooks, which
//!   run between tags.

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use core::any::Any;
use core::cell::UnsafeCell;

use crate::time::Tag;

/// The value slot of a port: present at the current tag if `Some`.
pub(crate) struct SlotCell<T> {
    pub(crate) value: UnsafeCell<Option<T>>,
}

/// What the scheduler needs of a slot without knowing its type.
pub(crate) trait SlotDyn: Send {
    /// Makes the slot absent (drops its value).
    ///
    /// # Safety
    /// No reaction that may access the slot is running.
    unsafe fn clear(&self);
    /// Whether the slot holds a value.
    ///
    /// # Safety
    /// No writer of the slot runs concurrently.
    unsafe fn is_set(&self) -> bool;
}

// SAFETY: the slot is moved between threads only as part of a program; its contents are `Send`.
unsafe impl<T: Send> Send for SlotCell<T> {}

impl<T: Send> SlotDyn for SlotCell<T> {
    unsafe fn clear(&self) {
        // SAFETY: the caller guarantees exclusive access (no reaction running).
        unsafe { *self.value.get() = None };
    }

    unsafe fn is_set(&self) -> bool {
        // SAFETY: no concurrent writer by the caller's contract.
        unsafe { (*self.value.get()).is_some() }
    }
}

/// Makes the slot of a port of type `T`.
pub(crate) fn new_slot<T: Send + Sync + 'static>() -> Box<dyn SlotDyn> {
    Box::new(SlotCell::<T> {
        value: UnsafeCell::new(None),
    })
}

/// The typed slot behind an erased one.
///
/// # Safety
/// `slot` was made by `new_slot::<T>()`.
pub(crate) unsafe fn slot_as<T>(slot: &dyn SlotDyn) -> &SlotCell<T> {
    // SAFETY: the caller guarantees the concrete type; casting the fat pointer keeps its address.
    unsafe { &*(slot as *const dyn SlotDyn as *const SlotCell<T>) }
}

/// What to do with an event scheduled closer than the minimum spacing to the previous one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SpacingPolicy {
    /// Move the event to the previous event's time plus the spacing (LF's default).
    #[default]
    Defer,
    /// Discard the event.
    Drop,
    /// If the previous event is still pending, give it the new value (it keeps its tag); otherwise
    /// defer.
    Replace,
}

/// The values of an action: the one present now and those scheduled for later tags.
pub(crate) struct ActionCell<T> {
    current: UnsafeCell<Option<T>>,
    /// Sorted by tag, one value per tag (scheduling twice for one tag keeps the later value).
    pending: UnsafeCell<VecDeque<(Tag, T)>>,
    /// The tag of the last event accepted, for the minimum spacing.
    last: UnsafeCell<Option<Tag>>,
}

/// What the scheduler needs of an action without knowing its type.
pub(crate) trait ActionDyn: Send {
    /// Moves the value scheduled for `tag` (if still pending) into the current value; returns
    /// whether the action is present at `tag`.
    ///
    /// # Safety
    /// Called between tags (no reaction running).
    unsafe fn take_at(&self, tag: Tag) -> bool;
    /// Makes the action absent.
    ///
    /// # Safety
    /// As for `take_at`.
    unsafe fn clear_current(&self);
    /// Moves the value pending at `from` to `to` (mode history re-entry).
    ///
    /// # Safety
    /// As for `take_at`.
    unsafe fn retag(&self, from: Tag, to: Tag);
    /// Drops every pending value (mode reset).
    ///
    /// # Safety
    /// As for `take_at`.
    unsafe fn clear_pending(&self);
    /// Schedules a value of the erased type at `tag`; returns `false` if the value has another type.
    ///
    /// # Safety
    /// As for `take_at`.
    unsafe fn push_boxed(&self, tag: Tag, value: Box<dyn Any + Send>) -> bool;
    /// Whether a value is present now.
    ///
    /// # Safety
    /// No `clear_current`/`take_at` runs at the same time.
    unsafe fn is_present(&self) -> bool;
}

// SAFETY: moved between threads only as part of a program; its contents are `Send`.
unsafe impl<T: Send> Send for ActionCell<T> {}

impl<T: Send + 'static> ActionCell<T> {
    pub(crate) fn new() -> ActionCell<T> {
        ActionCell {
            current: UnsafeCell::new(None),
            pending: UnsafeCell::new(VecDeque::new()),
            last: UnsafeCell::new(None),
        }
    }

    /// The value present now.
    ///
    /// # Safety
    /// Called from a reaction of the current tag (the scheduler does not change it meanwhile).
    pub(crate) unsafe fn current(&self) -> Option<&T> {
        // SAFETY: the caller guarantees no concurrent writer.
        unsafe { (*self.current.get()).as_ref() }
    }

    /// Schedules `value` for `tag` under the spacing rule; returns the tag of the new event, or
    /// `None` if no new event is needed (dropped, or merged into a pending one).
    ///
    /// # Safety
    /// Called by one of the owner's reactions or by the scheduler between tags, never concurrently.
    pub(crate) unsafe fn schedule(
        &self,
        mut tag: Tag,
        value: T,
        spacing: u64,
        policy: SpacingPolicy,
    ) -> Option<Tag> {
        // SAFETY: exclusive access by the caller's contract.
        let (pending, last) = unsafe { (&mut *self.pending.get(), &mut *self.last.get()) };
        if spacing > 0 {
            if let Some(prev) = *last {
                let earliest = prev.nanos().saturating_add(spacing);
                if tag.nanos() < earliest {
                    match policy {
                        SpacingPolicy::Drop => return None,
                        SpacingPolicy::Replace => {
                            if let Some(slot) = pending.iter_mut().find(|(t, _)| *t == prev) {
                                slot.1 = value;
                                return None;
                            }
                            tag = Tag::from_nanos(earliest, 0);
                        }
                        SpacingPolicy::Defer => tag = Tag::from_nanos(earliest, 0),
                    }
                }
            }
        }
        *last = Some(tag);
        insert_sorted(pending, tag, value);
        Some(tag)
    }
}

#[inline]
fn insert_sorted<T>(pending: &mut VecDeque<(Tag, T)>, tag: Tag, value: T) {
    // Delays are mostly constant, so the new tag usually goes at the back.
    match pending.back_mut() {
        None => return pending.push_back((tag, value)),
        Some(last) if last.0 < tag => return pending.push_back((tag, value)),
        Some(last) if last.0 == tag => {
            last.1 = value;
            return;
        }
        Some(_) => {}
    }
    let mut i = pending.len();
    while i > 0 && pending[i - 1].0 > tag {
        i -= 1;
    }
    if i > 0 && pending[i - 1].0 == tag {
        pending[i - 1].1 = value;
    } else {
        pending.insert(i, (tag, value));
    }
}

impl<T: Send + 'static> ActionDyn for ActionCell<T> {
    unsafe fn take_at(&self, tag: Tag) -> bool {
        // SAFETY: between tags, exclusive by the caller's contract.
        let (pending, current) = unsafe { (&mut *self.pending.get(), &mut *self.current.get()) };
        while let Some((t, _)) = pending.front() {
            if *t < tag {
                pending.pop_front(); // stale (suspended and cancelled): never delivered
            } else {
                break;
            }
        }
        if pending.front().is_some_and(|(t, _)| *t == tag) {
            *current = pending.pop_front().map(|(_, v)| v);
        }
        current.is_some()
    }

    unsafe fn clear_current(&self) {
        // SAFETY: between tags.
        unsafe { *self.current.get() = None };
    }

    unsafe fn retag(&self, from: Tag, to: Tag) {
        // SAFETY: between tags.
        let pending = unsafe { &mut *self.pending.get() };
        if let Some(i) = pending.iter().position(|(t, _)| *t == from) {
            if let Some((_, v)) = pending.remove(i) {
                insert_sorted(pending, to, v);
            }
        }
    }

    unsafe fn clear_pending(&self) {
        // SAFETY: between tags.
        unsafe {
            (*self.pending.get()).clear();
            *self.last.get() = None;
        }
    }

    unsafe fn push_boxed(&self, tag: Tag, value: Box<dyn Any + Send>) -> bool {
        match value.downcast::<T>() {
            Ok(v) => {
                // SAFETY: between tags.
                unsafe { insert_sorted(&mut *self.pending.get(), tag, *v) };
                true
            }
            Err(_) => false,
        }
    }

    unsafe fn is_present(&self) -> bool {
        // SAFETY: no concurrent writer by the caller's contract.
        unsafe { (*self.current.get()).is_some() }
    }
}

/// The typed action behind an erased one.
///
/// # Safety
/// `action` was made as an `ActionCell<T>`.
pub(crate) unsafe fn action_as<T>(action: &dyn ActionDyn) -> &ActionCell<T> {
    // SAFETY: the caller guarantees the concrete type.
    unsafe { &*(action as *const dyn ActionDyn as *const ActionCell<T>) }
}

/// A reactor's state, boxed, with its type erased.
pub(crate) struct StateBox {
    ptr: *mut (),
    drop: unsafe fn(*mut ()),
}

// SAFETY: made only from `S: Send` (see `StateBox::new`).
unsafe impl Send for StateBox {}

impl StateBox {
    pub(crate) fn new<S: Send + 'static>(state: S) -> StateBox {
        unsafe fn drop_box<S>(p: *mut ()) {
            // SAFETY: `p` came from `Box::<S>::into_raw` and is dropped once (in `Drop`).
            drop(unsafe { Box::from_raw(p.cast::<S>()) });
        }
        StateBox {
            ptr: Box::into_raw(Box::new(state)).cast(),
            drop: drop_box::<S>,
        }
    }

    pub(crate) fn ptr(&self) -> *mut () {
        self.ptr
    }
}

impl Drop for StateBox {
    fn drop(&mut self) {
        // SAFETY: `ptr` and `drop` were made together in `new`; this runs once.
        unsafe { (self.drop)(self.ptr) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_policies() {
        let a = ActionCell::<u32>::new();
        // SAFETY: single-threaded test.
        unsafe {
            let ms = 1_000_000;
            assert_eq!(
                a.schedule(Tag::from_nanos(0, 1), 1, 10 * ms, SpacingPolicy::Defer),
                Some(Tag::from_nanos(0, 1))
            );
            assert_eq!(
                a.schedule(Tag::from_nanos(ms, 0), 2, 10 * ms, SpacingPolicy::Defer),
                Some(Tag::from_nanos(10 * ms, 0))
            );
            assert_eq!(
                a.schedule(Tag::from_nanos(ms, 0), 3, 10 * ms, SpacingPolicy::Drop),
                None
            );
            assert_eq!(
                a.schedule(Tag::from_nanos(ms, 0), 4, 10 * ms, SpacingPolicy::Replace),
                None
            );
            assert!(a.take_at(Tag::from_nanos(0, 1)));
            assert_eq!(a.current(), Some(&1));
            a.clear_current();
            assert!(a.take_at(Tag::from_nanos(10 * ms, 0)));
            assert_eq!(a.current(), Some(&4));
        }
    }

    #[test]
    fn same_tag_keeps_the_later_value() {
        let a = ActionCell::<u32>::new();
        // SAFETY: single-threaded test.
        unsafe {
            a.schedule(Tag::from_nanos(5, 0), 1, 0, SpacingPolicy::Defer);
            a.schedule(Tag::from_nanos(5, 0), 2, 0, SpacingPolicy::Defer);
            a.schedule(Tag::from_nanos(3, 0), 0, 0, SpacingPolicy::Defer);
            assert!(a.take_at(Tag::from_nanos(3, 0)));
            assert_eq!(a.current(), Some(&0));
            assert!(a.take_at(Tag::from_nanos(5, 0)));
            assert_eq!(a.current(), Some(&2));
        }
    }
}
