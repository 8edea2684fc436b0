//! [`NextMicrostep`]: the events of the next microstep, kept out of the event queue.
//!
//! A zero-delay logical action scheduled at tag (t, m) is an event of (t, m + 1), and no event can
//! come before it: the engine keeps such events apart, in the order they were scheduled, with no
//! heap operation and no tag per event. Message-passing programs (Ping Pong, Counting, the ring
//! opener of Thread Ring) schedule exactly one per tag, so the first waits in a register of its own
//! and only the others touch a buffer.

use alloc::vec::Vec;

use crate::time::Tag;

/// The actions with an event at the next microstep (see the module docs).
#[derive(Debug)]
pub(crate) struct NextMicrostep {
    /// The first action scheduled, or `u32::MAX` when none is.
    first: u32,
    /// The actions scheduled after `first`, in order; empty while `first` is `u32::MAX`.
    rest: Vec<u32>,
    /// The tag of these events: the microstep after the tag during which they were scheduled.
    tag: Tag,
}

impl NextMicrostep {
    /// None scheduled.
    pub(crate) fn new() -> NextMicrostep {
        NextMicrostep {
            first: u32::MAX,
            rest: Vec::new(),
            tag: Tag::ZERO,
        }
    }

    /// Whether no event is held.
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.first == u32::MAX
    }

    /// The tag of the events held (meaningful when some are).
    #[inline(always)]
    pub(crate) fn tag(&self) -> Tag {
        self.tag
    }

    /// Sets the tag of the events to come: the microstep after the tag being entered (called once
    /// per tag, while none is held, so that adding events needs no tag).
    #[inline(always)]
    pub(crate) fn set_tag(&mut self, tag: Tag) {
        debug_assert!(self.is_empty());
        self.tag = tag;
    }

    /// Adds `first` and then the actions in `rest`, in order, and empties `rest`.
    #[inline(always)]
    pub(crate) fn take_from(&mut self, first: u32, rest: &mut Vec<u32>) {
        if self.first == u32::MAX && rest.is_empty() {
            self.first = first;
        } else {
            self.take_many(first, rest);
        }
    }

    #[inline(never)]
    fn take_many(&mut self, first: u32, rest: &mut Vec<u32>) {
        for a in core::iter::once(first).chain(rest.drain(..)) {
            if self.first == u32::MAX {
                self.first = a;
            } else {
                self.rest.push(a);
            }
        }
    }

    /// Takes the first action held (the caller checked that one is); the others, if any, wait for
    /// [`NextMicrostep::take_rest`].
    #[inline(always)]
    pub(crate) fn take_first(&mut self) -> u32 {
        debug_assert!(!self.is_empty());
        core::mem::replace(&mut self.first, u32::MAX)
    }

    /// The actions held after the first, moved out (the buffer comes back with
    /// [`NextMicrostep::recycle`]).
    #[inline(always)]
    pub(crate) fn take_rest(&mut self) -> Option<Vec<u32>> {
        if self.rest.is_empty() {
            None
        } else {
            Some(core::mem::take(&mut self.rest))
        }
    }

    /// Gives back the buffer of [`NextMicrostep::take_rest`], emptied, to keep its capacity.
    pub(crate) fn recycle(&mut self, mut rest: Vec<u32>) {
        rest.clear();
        if self.rest.is_empty() {
            self.rest = rest;
        }
    }

    /// Takes every action held, in order.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = u32> {
        let first = core::mem::replace(&mut self.first, u32::MAX);
        let rest = core::mem::take(&mut self.rest);
        (first != u32::MAX).then_some(first).into_iter().chain(rest)
    }

    /// Drops every event held.
    pub(crate) fn clear(&mut self) {
        self.first = u32::MAX;
        self.rest.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_order_scheduled() {
        let mut s = NextMicrostep::new();
        assert!(s.is_empty());
        let at = Tag::from_nanos(5, 1);
        s.set_tag(at);
        let mut none = alloc::vec![];
        s.take_from(7, &mut none);
        let mut more = alloc::vec![9];
        s.take_from(3, &mut more);
        assert!(more.is_empty());
        assert_eq!(s.tag(), at);
        assert_eq!(s.drain().collect::<Vec<_>>(), [7, 3, 9]);
        assert!(s.is_empty());
        let mut two = alloc::vec![2];
        s.take_from(4, &mut two);
        assert_eq!(s.take_first(), 4);
        let rest = s.take_rest().unwrap();
        assert_eq!(rest, [2]);
        s.recycle(rest);
        assert!(s.is_empty() && s.take_rest().is_none());
    }
}
