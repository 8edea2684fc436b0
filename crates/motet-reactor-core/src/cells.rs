//! The storage behind ports, actions and reactor state, with their value types erased.
//!
//! A port's value lives in a [`SlotCell`]: the value and the sequence number of the tag at which it
//! was set, no lock, no reference count. A value is *present* only at the tag whose sequence number
//! it carries, so nothing has to clear a port between tags: the next tag's number makes every old
//! value absent at once. (Values whose type needs dropping are still dropped at the end of their tag,
//! so that a port does not keep, say, a large vector alive until it is next set.) The sequence number
//! comes first in the `repr(C)` layout, so the scheduler and [`Ctx::is_present`](crate::Ctx) read
//! presence without knowing the value type. Ports joined by connections share the slot of the port at
//! the head of the chain, so a value set on an output is read in place by every downstream input (as
//! reactor-cpp follows inward bindings). An action's values live in an [`ActionCell`]: the value
//! present at the current tag (with its sequence number, as for ports) and the values scheduled for
//! later tags, ordered by tag (the earliest in a slot of its own, so that an action scheduled one tag
//! at a time never touches the queue behind it).
//!
//! # Who touches what, and when
//!
//! The cells are `UnsafeCell`s; the scheduling discipline makes the accesses exclusive:
//! - a slot is written only by reactions of one reactor (the port's owner for an output, the
//!   container for a contained reactor's input), which never run at the same time, and read only by
//!   reactions that the dependency graph orders after every writer; the scheduler drops its value
//!   between tags, when no reaction runs;
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

/// The value slot of a port: present at the tag whose sequence number `seq` holds.
#[repr(C)]
pub(crate) struct SlotCell<T> {
    /// The sequence number of the tag at which `value` was set (0: never). First field: read
    /// without knowing `T` (see [`present_at`]).
    pub(crate) seq: UnsafeCell<u64>,
    pub(crate) value: UnsafeCell<Option<T>>,
}

/// Whether the slot or action cell at `cell` (a `SlotCell<T>` or `ActionCell<T>`, whose first field
/// is the sequence number) holds a value present at tag `seq`.
///
/// # Safety
/// `cell` points to a live `SlotCell` or `ActionCell`, and no writer of it runs concurrently.
#[inline]
pub(crate) unsafe fn present_at(cell: *const (), seq: u64) -> bool {
    // SAFETY: both cell types are `repr(C)` with an `UnsafeCell<u64>` first; no concurrent writer
    // by the caller's contract.
    unsafe { *(*cell.cast::<UnsafeCell<u64>>()).get() == seq }
}

/// What the scheduler needs of a slot without knowing its type.
pub(crate) trait SlotDyn: Send {
    /// Drops the slot's value (it is absent from the next tag on anyway).
    ///
    /// # Safety
    /// No reaction that may access the slot is running.
    unsafe fn clear(&self);
    /// The typed cell, as an untyped pointer (for the per-port table).
    fn cell(&self) -> *const ();
}

// SAFETY: the slot is moved between threads only as part of a program; its contents are `Send`.
unsafe impl<T: Send> Send for SlotCell<T> {}

impl<T: Send> SlotDyn for SlotCell<T> {
    unsafe fn clear(&self) {
        // SAFETY: the caller guarantees exclusive access (no reaction running).
        unsafe { *self.value.get() = None };
    }

    fn cell(&self) -> *const () {
        (self as *const SlotCell<T>).cast()
    }
}

/// Makes the slot of a port of type `T`, and whether its values need dropping.
pub(crate) fn new_slot<T: Send + Sync + 'static>() -> (Box<dyn SlotDyn>, bool) {
    (
        Box::new(SlotCell::<T> {
            seq: UnsafeCell::new(0),
            value: UnsafeCell::new(None),
        }),
        core::mem::needs_drop::<T>(),
    )
}

/// The typed slot behind an untyped cell pointer.
///
/// # Safety
/// `cell` came from [`SlotDyn::cell`] of a slot made by `new_slot::<T>()`, and the slot is alive.
#[inline]
pub(crate) unsafe fn slot_as<'a, T>(cell: *const ()) -> &'a SlotCell<T> {
    // SAFETY: the caller guarantees the concrete type and liveness.
    unsafe { &*cell.cast::<SlotCell<T>>() }
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

/// The values of an action: the one present now (at the tag whose sequence number `seq` holds) and
/// those scheduled for later tags.
#[repr(C)]
pub(crate) struct ActionCell<T> {
    /// First field: read without knowing `T` (see [`present_at`]).
    seq: UnsafeCell<u64>,
    current: UnsafeCell<Option<T>>,
    /// The earliest pending value, out of the queue: an action scheduled one tag at a time (a
    /// zero-delay loop, a timer-like chain) never touches `pending`'s ring buffer.
    head: UnsafeCell<Option<(Tag, T)>>,
    /// The pending values after `head`, sorted by tag; empty while `head` is `None`. One value
    /// per tag across both (scheduling twice for one tag keeps the later value).
    pending: UnsafeCell<VecDeque<(Tag, T)>>,
    /// The tag of the last event accepted, for the minimum spacing.
    last: UnsafeCell<Option<Tag>>,
}

/// What the scheduler needs of an action without knowing its type.
pub(crate) trait ActionDyn: Send {
    /// Moves the value scheduled for `tag` (if still pending) into the current value, present at
    /// the tag numbered `seq`; returns whether the action is present at `tag`.
    ///
    /// # Safety
    /// Called between tags (no reaction running).
    unsafe fn take_at(&self, tag: Tag, seq: u64) -> bool;
    /// Drops the current value (it is absent from the next tag on anyway).
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
    /// The typed cell, as an untyped pointer (for the per-action table).
    fn cell(&self) -> *const ();
}

// SAFETY: moved between threads only as part of a program; its contents are `Send`.
unsafe impl<T: Send> Send for ActionCell<T> {}

impl<T: Send + 'static> ActionCell<T> {
    pub(crate) fn new() -> ActionCell<T> {
        ActionCell {
            seq: UnsafeCell::new(0),
            current: UnsafeCell::new(None),
            head: UnsafeCell::new(None),
            pending: UnsafeCell::new(VecDeque::new()),
            last: UnsafeCell::new(None),
        }
    }

    /// The value present at the tag numbered `seq`.
    ///
    /// # Safety
    /// Called from a reaction of the current tag (the scheduler does not change it meanwhile).
    #[inline]
    pub(crate) unsafe fn current(&self, seq: u64) -> Option<&T> {
        // SAFETY: the caller guarantees no concurrent writer.
        unsafe {
            if *self.seq.get() == seq {
                (*self.current.get()).as_ref()
            } else {
                None
            }
        }
    }

    /// Schedules `value` for `tag` under the spacing rule; returns the tag of the new event, or
    /// `None` if no new event is needed (dropped, or merged into a pending one).
    ///
    /// # Safety
    /// Called by one of the owner's reactions or by the scheduler between tags, never concurrently.
    #[inline]
    pub(crate) unsafe fn schedule(
        &self,
        tag: Tag,
        value: T,
        spacing: u64,
        policy: SpacingPolicy,
    ) -> Option<Tag> {
        if spacing != 0 {
            // SAFETY: forwarded.
            return unsafe { self.schedule_spaced(tag, value, spacing, policy) };
        }
        // SAFETY: forwarded.
        unsafe { self.schedule_unspaced(tag, value) };
        Some(tag)
    }

    /// `schedule` of an action without a minimum spacing: always a new event at `tag`.
    ///
    /// # Safety
    /// As for `schedule`.
    #[inline]
    pub(crate) unsafe fn schedule_unspaced(&self, tag: Tag, value: T) {
        // SAFETY: exclusive access by the caller's contract.
        let head = unsafe { &mut *self.head.get() };
        if head.is_none() {
            *head = Some((tag, value));
        } else {
            // SAFETY: forwarded.
            unsafe { self.schedule_behind(tag, value) };
        }
    }

    /// `schedule_unspaced` when a value is pending already. Out of line: the common case, one
    /// event at a time, stays small in the reaction bodies it is inlined into (fewer registers
    /// to save on their entry).
    ///
    /// # Safety
    /// As for `schedule`.
    #[inline(never)]
    unsafe fn schedule_behind(&self, tag: Tag, value: T) {
        // SAFETY: exclusive access by the caller's contract.
        let (head, pending) = unsafe { (&mut *self.head.get(), &mut *self.pending.get()) };
        match head {
            None => *head = Some((tag, value)),
            Some(first) => {
                // Delays are mostly constant, so the new tag usually goes at the back.
                if pending.back().map_or(first.0, |last| last.0) < tag {
                    pending.push_back((tag, value));
                } else {
                    // SAFETY: forwarded.
                    unsafe { self.with_all(|all| insert_sorted_slow(all, tag, value)) };
                }
            }
        }
    }

    /// Runs `f` on every pending value in one queue (`head` put back at its front), then takes
    /// the earliest out into `head` again. For the rare operations that search or reorder.
    ///
    /// # Safety
    /// As for `schedule`.
    #[inline(never)]
    unsafe fn with_all<R>(&self, f: impl FnOnce(&mut VecDeque<(Tag, T)>) -> R) -> R {
        // SAFETY: exclusive access by the caller's contract.
        let (head, pending) = unsafe { (&mut *self.head.get(), &mut *self.pending.get()) };
        if let Some(first) = head.take() {
            pending.push_front(first);
        }
        let r = f(pending);
        *head = pending.pop_front();
        r
    }

    /// `schedule` for an action with a minimum spacing.
    ///
    /// # Safety
    /// As for `schedule`.
    #[inline(never)]
    unsafe fn schedule_spaced(
        &self,
        mut tag: Tag,
        mut value: T,
        spacing: u64,
        policy: SpacingPolicy,
    ) -> Option<Tag> {
        // SAFETY: exclusive access by the caller's contract.
        let last = unsafe { &mut *self.last.get() };
        if let Some(prev) = *last {
            let earliest = prev.nanos().saturating_add(spacing);
            if tag.nanos() < earliest {
                match policy {
                    SpacingPolicy::Drop => return None,
                    SpacingPolicy::Replace => {
                        // SAFETY: forwarded.
                        let replaced = unsafe {
                            self.with_all(|all| match all.iter_mut().find(|(t, _)| *t == prev) {
                                Some(slot) => {
                                    slot.1 = value;
                                    None
                                }
                                None => Some(value),
                            })
                        };
                        match replaced {
                            None => return None,
                            Some(v) => value = v,
                        }
                        tag = Tag::from_nanos(earliest, 0);
                    }
                    SpacingPolicy::Defer => tag = Tag::from_nanos(earliest, 0),
                }
            }
        }
        *last = Some(tag);
        // SAFETY: forwarded.
        unsafe { self.with_all(|all| insert_sorted(all, tag, value)) };
        Some(tag)
    }
}

#[inline]
fn insert_sorted<T>(pending: &mut VecDeque<(Tag, T)>, tag: Tag, value: T) {
    // Delays are mostly constant, so the new tag usually goes at the back.
    if pending.back().is_none_or(|last| last.0 < tag) {
        pending.push_back((tag, value));
    } else {
        insert_sorted_slow(pending, tag, value);
    }
}

#[cold]
#[inline(never)]
fn insert_sorted_slow<T>(pending: &mut VecDeque<(Tag, T)>, tag: Tag, value: T) {
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
    #[inline]
    unsafe fn take_at(&self, tag: Tag, seq: u64) -> bool {
        // SAFETY: between tags, exclusive by the caller's contract.
        let (head, pending) = unsafe { (&mut *self.head.get(), &mut *self.pending.get()) };
        match head {
            Some((t, _)) if *t == tag => {}
            Some((t, _)) if *t < tag => {
                // Stale values (suspended with their mode and cancelled): never delivered.
                while head.as_ref().is_some_and(|(t, _)| *t < tag) {
                    *head = pending.pop_front();
                }
                if head.as_ref().is_none_or(|(t, _)| *t != tag) {
                    return false;
                }
            }
            _ => return false,
        }
        let value = head.take().map(|(_, v)| v);
        if !pending.is_empty() {
            *head = pending.pop_front();
        }
        // SAFETY: as above.
        unsafe {
            *self.current.get() = value;
            *self.seq.get() = seq;
        }
        true
    }

    unsafe fn clear_current(&self) {
        // SAFETY: between tags.
        unsafe { *self.current.get() = None };
    }

    unsafe fn retag(&self, from: Tag, to: Tag) {
        // SAFETY: between tags.
        unsafe {
            self.with_all(|all| {
                if let Some(i) = all.iter().position(|(t, _)| *t == from) {
                    if let Some((_, v)) = all.remove(i) {
                        insert_sorted(all, to, v);
                    }
                }
            })
        }
    }

    unsafe fn clear_pending(&self) {
        // SAFETY: between tags.
        unsafe {
            *self.head.get() = None;
            (*self.pending.get()).clear();
            *self.last.get() = None;
        }
    }

    unsafe fn push_boxed(&self, tag: Tag, value: Box<dyn Any + Send>) -> bool {
        match value.downcast::<T>() {
            Ok(v) => {
                // SAFETY: between tags.
                unsafe { self.with_all(|all| insert_sorted(all, tag, *v)) };
                true
            }
            Err(_) => false,
        }
    }

    fn cell(&self) -> *const () {
        (self as *const ActionCell<T>).cast()
    }
}

/// [`ActionDyn::take_at`] through an untyped cell pointer: what the per-action record calls, one
/// indirect call without going through the box's vtable.
///
/// # Safety
/// `cell` is a live `ActionCell<T>`; called between tags.
pub(crate) unsafe fn take_erased<T: Send + 'static>(cell: *const (), tag: Tag, seq: u64) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe { action_as::<T>(cell).take_at(tag, seq) }
}

/// The typed action behind an untyped cell pointer.
///
/// # Safety
/// `cell` came from [`ActionDyn::cell`] of an `ActionCell<T>` that is alive.
#[inline]
pub(crate) unsafe fn action_as<'a, T>(cell: *const ()) -> &'a ActionCell<T> {
    // SAFETY: the caller guarantees the concrete type and liveness.
    unsafe { &*cell.cast::<ActionCell<T>>() }
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
            assert!(a.take_at(Tag::from_nanos(0, 1), 1));
            assert_eq!(a.current(1), Some(&1));
            a.clear_current();
            assert!(a.take_at(Tag::from_nanos(10 * ms, 0), 2));
            assert_eq!(a.current(1), None);
            assert_eq!(a.current(2), Some(&4));
        }
    }

    #[test]
    fn head_and_queue_stay_in_tag_order() {
        let a = ActionCell::<u32>::new();
        let t = |n| Tag::from_nanos(n, 0);
        // SAFETY: single-threaded test.
        unsafe {
            // Out of order, a replacement of the head, one of the queue, and a stale value.
            a.schedule(t(20), 2, 0, SpacingPolicy::Defer);
            a.schedule(t(30), 3, 0, SpacingPolicy::Defer);
            a.schedule(t(10), 1, 0, SpacingPolicy::Defer);
            a.schedule(t(10), 11, 0, SpacingPolicy::Defer);
            a.schedule(t(30), 33, 0, SpacingPolicy::Defer);
            a.schedule(t(5), 0, 0, SpacingPolicy::Defer);
            a.retag(t(20), t(25));
            assert!(!a.take_at(t(7), 1), "nothing at 7; the value at 5 is stale");
            assert!(a.take_at(t(10), 2));
            assert_eq!(a.current(2), Some(&11));
            assert!(a.take_at(t(25), 3));
            assert_eq!(a.current(3), Some(&2));
            assert!(a.push_boxed(t(27), Box::new(27u32)));
            assert!(!a.push_boxed(t(28), Box::new("not a u32")));
            assert!(a.take_at(t(27), 4));
            assert_eq!(a.current(4), Some(&27));
            assert!(a.take_at(t(30), 5));
            assert_eq!(a.current(5), Some(&33));
            assert!(!a.take_at(t(40), 6));
            // Emptied: the next value goes to the head again; a reset drops it.
            a.schedule(t(50), 5, 0, SpacingPolicy::Defer);
            a.clear_pending();
            assert!(!a.take_at(t(50), 7));
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
            assert!(a.take_at(Tag::from_nanos(3, 0), 1));
            assert_eq!(a.current(1), Some(&0));
            assert!(a.take_at(Tag::from_nanos(5, 0), 2));
            assert_eq!(a.current(2), Some(&2));
            assert!(!a.take_at(Tag::from_nanos(6, 0), 3));
            assert_eq!(a.current(3), None);
        }
    }
}
