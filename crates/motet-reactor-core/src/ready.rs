//! [`LevelQueue`]: the reactions triggered at a tag and not yet run, bucketed by level, for
//! schedulers that run one reaction at a time.
//!
//! Running the reactions of a tag in level order respects every dependency: a reaction's
//! predecessors all have lower levels. A bucket per level and a bitset of the non-empty levels make
//! pushing and popping O(1) (a heap would pay O(log n) on the wide tags of fan-out programs). The
//! common case of message-passing programs, a chain (one reaction triggers the next, and nothing
//! else is queued), never touches the buckets: a lone reaction waits in a register of its own.
//! Within a level the order is last in, first out: reactions of one level never depend on each
//! other. A program that orders ready reactions by deadline (see `crate::edf`) has each level
//! taken earliest deadline first instead.

use alloc::vec;
use alloc::vec::Vec;

use crate::program::Program;

/// The ready reactions of the current tag, by level (see the module docs).
///
/// ```
/// use motet_reactor_core::{LevelQueue, ProgramBuilder, Startup};
/// let mut b = ProgramBuilder::new();
/// let a = b.reactor("a", ());
/// let out = b.output::<u8, _>(a, "out");
/// b.reaction(a, "first").trigger(Startup).effect(out).body(move |_, ctx| ctx.set(out, 1));
/// let c = b.reactor("c", ());
/// let inp = b.input::<u8, _>(c, "in");
/// b.reaction(c, "second").trigger(inp).body(|_, _| {});
/// b.connect(out, inp);
/// let program = b.build().unwrap();
/// let mut q = LevelQueue::new(&program);
/// q.push(&program, 1);
/// q.push(&program, 0);
/// assert_eq!(q.pop(), Some(0));
/// assert_eq!(q.pop(), Some(1));
/// assert_eq!(q.pop(), None);
/// ```
#[derive(Debug)]
pub struct LevelQueue {
    /// The only queued reaction, when exactly one is queued and it has not been put in a bucket
    /// (`u32::MAX` otherwise). While it holds one, the buckets are empty.
    single: u32,
    /// Reactions queued, the register's included: whether the queue is empty is one test.
    len: usize,
    buckets: Vec<Vec<u32>>,
    /// Bit `l` set: bucket `l` may be non-empty (set by `push`, cleared when `pop` finds the
    /// bucket empty or takes the last reaction queued).
    nonempty: Vec<u64>,
    /// No reaction is queued below this level (`usize::MAX` when none is queued).
    low: usize,
    /// The program orders ready reactions by deadline ([`Program::set_deadline_order`]): each
    /// bucket is kept sorted so that `pop` takes the earliest deadline of its level.
    edf: bool,
}

impl LevelQueue {
    /// An empty queue for the levels of `prog`.
    pub fn new(prog: &Program) -> LevelQueue {
        let g = prog.graph();
        let levels = (g.levels as usize).max(1);
        LevelQueue {
            single: u32::MAX,
            buckets: g
                .level_widths
                .iter()
                .map(|&w| Vec::with_capacity((w as usize).min(1 << 12)))
                .chain(core::iter::repeat_with(Vec::new))
                .take(levels)
                .collect(),
            nonempty: vec![0; levels.div_ceil(64)],
            low: usize::MAX,
            len: 0,
            edf: prog.deadline_order().is_some(),
        }
    }

    /// Makes room for the levels of `prog` after a mutation added some (see
    /// [`Engine::apply_mutations`](crate::Engine::apply_mutations)); call it while the queue is
    /// empty, between tags.
    pub fn fit(&mut self, prog: &Program) {
        let levels = (prog.graph().levels as usize).max(1);
        if levels > self.buckets.len() {
            self.buckets.resize_with(levels, Vec::new);
            self.nonempty.resize(levels.div_ceil(64), 0);
        }
    }

    /// Adds reaction `r` of `prog`.
    #[inline]
    pub fn push(&mut self, prog: &Program, r: u32) {
        if self.len == 0 {
            self.single = r;
            self.len = 1;
            return;
        }
        if self.single != u32::MAX {
            self.spill_single(prog);
        }
        // Inline: a call here would make the caller's loop save and restore registers on
        // every push of a wide tag.
        self.bucket(prog, r);
        self.len += 1;
    }

    /// Adds reaction `r` of `prog`, or hands it back in `hand` (which holds `u32::MAX` or a
    /// reaction handed back before) when nothing else is queued or handed: the reaction to run
    /// next, kept by the caller in a local rather than in the queue's memory. A second reaction
    /// offered puts the handed one into the queue first.
    #[inline(always)]
    pub fn offer(&mut self, prog: &Program, r: u32, hand: &mut u32) {
        if *hand == u32::MAX && self.is_empty() {
            *hand = r;
            return;
        }
        if *hand != u32::MAX {
            self.take_hand(prog, core::mem::replace(hand, u32::MAX));
        }
        // Inline, as in `push`: the wide tags offer most of their reactions here.
        self.push(prog, r);
    }

    /// Queues the reaction handed back by `offer` when a second one comes. Out of line, and given
    /// the handed reaction by value, so that the caller's `hand` never needs an address (it stays
    /// in a register).
    #[inline(never)]
    fn take_hand(&mut self, prog: &Program, handed: u32) {
        self.push(prog, handed);
    }

    /// Moves the lone reaction of the register into its bucket, when a second one is pushed.
    #[inline(never)]
    fn spill_single(&mut self, prog: &Program) {
        let first = core::mem::replace(&mut self.single, u32::MAX);
        self.bucket(prog, first);
    }

    #[inline]
    fn bucket(&mut self, prog: &Program, r: u32) {
        let l = prog.level(r as usize) as usize;
        let edf = self.edf;
        let bucket = &mut self.buckets[l];
        if bucket.is_empty() {
            // The bit of a non-empty bucket is set already (`pop` clears it only once it finds
            // the bucket empty): one test instead of a read-modify-write per push.
            self.nonempty[l / 64] |= 1 << (l % 64);
        }
        if edf {
            crate::edf::insert_latest_first(prog, bucket, r);
        } else {
            bucket.push(r);
        }
        self.low = self.low.min(l);
    }

    /// Takes a reaction of the lowest non-empty level.
    #[inline]
    pub fn pop(&mut self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        if self.single != u32::MAX {
            // The register holds the only queued reaction.
            self.len = 0;
            return Some(core::mem::replace(&mut self.single, u32::MAX));
        }
        // Inline fast path: the lowest level still holds a reaction (most pops of a wide tag).
        if let Some(r) = self.buckets[self.low].pop() {
            self.len -= 1;
            if self.len == 0 {
                self.drained();
            }
            return Some(r);
        }
        self.pop_higher()
    }

    /// The queue has just been emptied: forget the lowest level.
    #[inline(never)]
    fn drained(&mut self) {
        let l = self.low;
        self.nonempty[l / 64] &= !(1 << (l % 64));
        self.low = usize::MAX;
    }

    /// `pop` when the lowest level's bucket is empty: moves on to the next non-empty one.
    #[inline(never)]
    fn pop_higher(&mut self) -> Option<u32> {
        loop {
            let l = self.low;
            if let Some(r) = self.buckets[l].pop() {
                self.len -= 1;
                if self.len == 0 {
                    self.drained();
                }
                return Some(r);
            }
            self.nonempty[l / 64] &= !(1 << (l % 64));
            self.low = self.next_nonempty(l);
        }
    }

    /// Takes a reaction of the lowest non-empty level if that level lies below `limit`, and
    /// `None`, leaving the queue as it is, when it does not (or nothing is queued): for a
    /// scheduler that may run a tag only up to a level (see
    /// [`Engine::run_ready_below`](crate::Engine::run_ready_below)). The test is on the lowest
    /// level the queue keeps track of anyway, one comparison per pop.
    #[inline]
    pub fn pop_below(&mut self, prog: &Program, limit: u32) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        if self.single != u32::MAX {
            if prog.level(self.single as usize) >= limit {
                return None;
            }
            self.len = 0;
            return Some(core::mem::replace(&mut self.single, u32::MAX));
        }
        // `low` may name a bucket emptied by earlier pops: move it onto a non-empty one (one
        // exists while reactions are queued).
        while self.buckets[self.low].is_empty() {
            let l = self.low;
            self.nonempty[l / 64] &= !(1 << (l % 64));
            self.low = self.next_nonempty(l);
        }
        if self.low >= limit as usize {
            return None;
        }
        self.pop()
    }

    /// Whether no reaction is queued.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The lowest level above `l` whose bit is set (one exists while reactions are queued).
    #[cold]
    fn next_nonempty(&self, l: usize) -> usize {
        let mut w = l / 64;
        let mut bits = self.nonempty[w] & (!0u64).checked_shl((l % 64) as u32 + 1).unwrap_or(0);
        loop {
            if bits != 0 {
                return w * 64 + bits.trailing_zeros() as usize;
            }
            w += 1;
            bits = self.nonempty[w];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ProgramBuilder, Startup};

    /// A chain of `n` reactors, each reaction one level above the previous.
    fn chain(n: usize) -> Program {
        let mut b = ProgramBuilder::new();
        let mut prev = None;
        for i in 0..n {
            let r = b.reactor(&alloc::format!("r{i}"), ());
            let out = b.output::<u8, _>(r, "out");
            match prev {
                None => {
                    b.reaction(r, "go")
                        .trigger(Startup)
                        .effect(out)
                        .body(|_, _| {});
                }
                Some(p) => {
                    let inp = b.input::<u8, _>(r, "in");
                    b.connect(p, inp);
                    b.reaction(r, "go").trigger(inp).effect(out).body(|_, _| {});
                }
            }
            prev = Some(out);
        }
        b.build().unwrap()
    }

    /// `offer` hands back a reaction while nothing else is queued, and queues the handed one
    /// first when a second comes.
    #[test]
    fn offer_hands_back_a_lone_reaction() {
        let p = chain(3);
        let mut q = LevelQueue::new(&p);
        let mut hand = u32::MAX;
        q.offer(&p, 2, &mut hand);
        assert_eq!(hand, 2);
        assert!(q.is_empty());
        q.offer(&p, 1, &mut hand);
        assert_eq!(hand, u32::MAX);
        assert_eq!(q.pop(), Some(1));
        assert_eq!(q.pop(), Some(2));
        assert_eq!(q.pop(), None);
        q.push(&p, 0);
        q.offer(&p, 1, &mut hand);
        assert_eq!(hand, u32::MAX);
        assert_eq!(q.pop(), Some(0));
        assert_eq!(q.pop(), Some(1));
    }

    /// `pop_below` takes reactions below the limit in level order and leaves the others queued,
    /// from the register as from the buckets.
    #[test]
    fn pop_below_stops_at_the_limit() {
        let p = chain(6);
        let mut q = LevelQueue::new(&p);
        q.push(&p, 3);
        assert_eq!(q.pop_below(&p, 3), None);
        assert_eq!(q.pop_below(&p, 4), Some(3));
        assert!(q.is_empty());
        for r in [5, 1, 4, 0] {
            q.push(&p, r);
        }
        assert_eq!(q.pop_below(&p, 2), Some(0));
        assert_eq!(q.pop_below(&p, 2), Some(1));
        assert_eq!(q.pop_below(&p, 2), None);
        // A lower level pushed while the queue waits at the limit comes first.
        q.push(&p, 2);
        assert_eq!(q.pop_below(&p, 5), Some(2));
        assert_eq!(q.pop_below(&p, 5), Some(4));
        assert_eq!(q.pop_below(&p, 5), None);
        assert_eq!(q.pop_below(&p, u32::MAX), Some(5));
        assert_eq!(q.pop_below(&p, u32::MAX), None);
        assert!(q.is_empty());
    }

    #[test]
    fn pops_in_level_order_across_words() {
        let p = chain(150);
        assert!(p.graph().levels > 128);
        let mut q = LevelQueue::new(&p);
        assert!(q.is_empty());
        let order: Vec<u32> = (0..p.graph().reactions.len() as u32).rev().collect();
        for &r in &order {
            q.push(&p, r);
        }
        let mut last = 0;
        let mut n = 0;
        while let Some(r) = q.pop() {
            let l = p.level(r as usize);
            assert!(l >= last, "level {l} after {last}");
            last = l;
            n += 1;
            if n == 40 {
                // Pushing a lower level in the middle takes it next.
                q.push(&p, 0);
                assert_eq!(q.pop(), Some(0));
            }
        }
        assert_eq!(n, order.len());
        assert!(q.is_empty());
    }
}
