//! Deadline order (EDF): an option under which the ready reactions of one level (or the released
//! set of the readiness scheduler) run earliest deadline first, as LF's C runtime orders its
//! reaction queue by deadline. It changes which of several independent reactions starts first,
//! never what a run computes: reactions of one level do not depend on each other, and the event
//! log of a program is the same with it on or off.
//!
//! A reaction's *inferred* deadline, the key, is the smallest of its own deadline and the
//! inferred deadlines of the reactions that follow it in the reaction graph (LF infers deadlines
//! upstream in the same way): a reaction without a deadline that feeds one with a deadline is as
//! urgent as it. Reactions with no deadline anywhere downstream come last; ties go by declaration
//! order. Deadlines are relative to the tag, which all reactions of a level share, so comparing
//! them compares the absolute deadlines.

use alloc::vec::Vec;

use crate::graph::Graph;
use crate::program::Program;

impl Program {
    /// Orders ready reactions by deadline (on) or as the schedulers otherwise do (off, the
    /// default); see the module docs. Computes the inferred deadlines now (O(reactions +
    /// edges)), so call it before the run rather than inside a timed section.
    ///
    /// ```
    /// use core::time::Duration;
    /// use motet_reactor_core::{ProgramBuilder, Startup};
    /// let mut b = ProgramBuilder::new();
    /// let r = b.reactor("r", ());
    /// b.reaction(r, "urgent").trigger(Startup)
    ///     .deadline(Duration::from_millis(1), |_, _| {})
    ///     .body(|_, _| {});
    /// let mut program = b.build().unwrap();
    /// program.set_deadline_order(true);
    /// assert_eq!(program.deadline_order(), Some(&[1_000_000u64][..]));
    /// ```
    pub fn set_deadline_order(&mut self, on: bool) {
        self.deadline_order = on.then(|| inferred_deadlines(&self.graph));
    }

    /// With deadline order on, each reaction's inferred deadline in nanoseconds (`u64::MAX` for
    /// none), by declaration index.
    pub fn deadline_order(&self) -> Option<&[u64]> {
        self.deadline_order.as_deref()
    }
}

/// Each reaction's inferred deadline (see the module docs): successors have higher levels, so one
/// pass from the highest level down sees every successor before its predecessors.
fn inferred_deadlines(g: &Graph) -> Vec<u64> {
    let n = g.reactions.len();
    let mut key: Vec<u64> = g
        .reactions
        .iter()
        .map(|r| r.deadline.unwrap_or(u64::MAX))
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by_key(|&r| core::cmp::Reverse(g.reactions[r].level));
    for r in order {
        let downstream = g.reactions[r]
            .successors
            .iter()
            .map(|&s| key[s as usize])
            .min()
            .unwrap_or(u64::MAX);
        key[r] = key[r].min(downstream);
    }
    key
}

/// The order key of reaction `r`: its inferred deadline, then its index.
#[inline]
fn order_key(keys: &[u64], r: u32) -> (u64, u32) {
    (keys[r as usize], r)
}

/// Inserts `r` into `bucket`, kept latest deadline first, so that popping from its end takes the
/// earliest. Without deadline order, pushes. Out of line: the one-worker tag loop inlines the
/// queue's push, and this, which runs only under deadline order, would only make it larger.
#[cold]
#[inline(never)]
pub(crate) fn insert_latest_first(prog: &Program, bucket: &mut Vec<u32>, r: u32) {
    let Some(keys) = prog.deadline_order() else {
        bucket.push(r);
        return;
    };
    let k = order_key(keys, r);
    let at = bucket.partition_point(|&x| order_key(keys, x) > k);
    bucket.insert(at, r);
}

/// Sorts `reactions` earliest deadline first (ties by index), for a scheduler that hands a level
/// out from its start.
pub fn sort_earliest_first(keys: &[u64], reactions: &mut [u32]) {
    reactions.sort_unstable_by_key(|&r| order_key(keys, r));
}

/// Removes and returns the reaction of `reactions` with the earliest deadline (ties: the lowest
/// index), for a scheduler that takes one ready reaction at a time.
pub fn take_earliest(keys: &[u64], reactions: &mut Vec<u32>) -> Option<u32> {
    let (at, _) = reactions
        .iter()
        .enumerate()
        .min_by_key(|&(_, &r)| order_key(keys, r))?;
    Some(reactions.swap_remove(at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ProgramBuilder, Startup};
    use alloc::vec;
    use core::time::Duration;

    /// `a` (no deadline) feeds `b` (deadline 5 ms); `c` has 10 ms; `d` has none and feeds
    /// nothing: a's inferred deadline is b's.
    fn program() -> Program {
        let mut b = ProgramBuilder::new();
        let ra = b.reactor("a", ());
        let out = b.output::<u8, _>(ra, "out");
        b.reaction(ra, "a")
            .trigger(Startup)
            .effect(out)
            .body(|_, _| {});
        let rb = b.reactor("b", ());
        let inp = b.input::<u8, _>(rb, "in");
        b.connect(out, inp);
        b.reaction(rb, "b")
            .trigger(inp)
            .deadline(Duration::from_millis(5), |_, _| {})
            .body(|_, _| {});
        let rc = b.reactor("c", ());
        b.reaction(rc, "c")
            .trigger(Startup)
            .deadline(Duration::from_millis(10), |_, _| {})
            .body(|_, _| {});
        let rd = b.reactor("d", ());
        b.reaction(rd, "d").trigger(Startup).body(|_, _| {});
        b.build().unwrap()
    }

    #[test]
    fn deadlines_are_inferred_upstream() {
        let mut p = program();
        assert_eq!(p.deadline_order(), None);
        p.set_deadline_order(true);
        let ms = 1_000_000;
        assert_eq!(
            p.deadline_order().unwrap(),
            &[5 * ms, 5 * ms, 10 * ms, u64::MAX]
        );
        p.set_deadline_order(false);
        assert_eq!(p.deadline_order(), None);
    }

    #[test]
    fn the_three_orders_agree() {
        let keys = [30, 10, u64::MAX, 10, 20];
        let mut sorted = vec![2, 0, 4, 3, 1];
        sort_earliest_first(&keys, &mut sorted);
        assert_eq!(sorted, [1, 3, 4, 0, 2]);
        let mut set = vec![2, 0, 4, 3, 1];
        let mut taken = Vec::new();
        while let Some(r) = take_earliest(&keys, &mut set) {
            taken.push(r);
        }
        assert_eq!(taken, sorted);
        let mut p = program();
        p.set_deadline_order(true);
        let keys = p.deadline_order().unwrap().to_vec();
        let mut bucket = Vec::new();
        for r in [3, 0, 2, 1] {
            insert_latest_first(&p, &mut bucket, r);
        }
        let mut popped = Vec::new();
        while let Some(r) = bucket.pop() {
            popped.push(r);
        }
        let mut expected = vec![3, 0, 2, 1];
        sort_earliest_first(&keys, &mut expected);
        assert_eq!(popped, expected);
        assert_eq!(popped, [0, 1, 2, 3]);
    }
}
