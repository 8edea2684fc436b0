//! Reachability in the reaction graph, as bitsets: for each reaction, its ancestors and its
//! descendants. The readiness scheduler asks "is any pending reaction an ancestor of this one?" (one
//! AND over `n/64` words) and "which waiting reactions descend from the one that just finished?".
//!
//! Two bitsets of `n` bits per reaction cost `n²/4` bytes, computed at the start of each run in
//! O(edges · n/64): 4 MiB at 4,096 reactions, the limit above which the readiness scheduler falls
//! back to comparing levels (so that the set-up stays small beside the run).

use std::cell::OnceCell;

use motet_reactor_core::graph::Graph;

/// The largest program (in reactions) for which the closure is computed.
pub(crate) const MAX_REACTIONS: usize = 4096;

/// The closure of a graph, computed the first time it is asked for (see [`LazyClosure::get`]).
///
/// The analysis at the start of a run on the readiness scheduler ([`totally_ordered`], the chain
/// links) needs the closure only for some programs, and computing it costs O(edges · n/64) with
/// `n²/4` bytes to fill, a measurable share of a short run of a program of thousands of reactions
/// (Banking's), where cheap checks on levels and writers settle the question without it.
pub(crate) struct LazyClosure<'g> {
    graph: &'g Graph,
    cell: OnceCell<Option<Closure>>,
}

impl<'g> LazyClosure<'g> {
    /// `graph`'s closure, not computed yet.
    pub(crate) fn new(graph: &'g Graph) -> LazyClosure<'g> {
        LazyClosure {
            graph,
            cell: OnceCell::new(),
        }
    }

    /// `graph`'s closure as already computed (`None`: the program is too large for it).
    pub(crate) fn computed(graph: &'g Graph, closure: Option<Closure>) -> LazyClosure<'g> {
        let cell = OnceCell::new();
        let _ = cell.set(closure);
        LazyClosure { graph, cell }
    }

    /// The closure (computed now if it was not), or `None` if the program is too large for it.
    pub(crate) fn get(&self) -> Option<&Closure> {
        self.cell.get_or_init(|| Closure::new(self.graph)).as_ref()
    }

    /// Whether the closure has been computed (or given).
    #[cfg(test)]
    pub(crate) fn is_computed(&self) -> bool {
        self.cell.get().is_some()
    }

    /// The closure, computed if it was not.
    pub(crate) fn into_inner(self) -> Option<Closure> {
        let _ = self.get();
        self.cell.into_inner().flatten()
    }
}

/// Whether every two reactions that can run after startup (see [`runs_after_startup`]) are
/// ordered: one is an ancestor of the other. Then the readiness rule never has two of them to
/// run at once (a pipeline: Radix Sort, the message-passing programs), and a run gains nothing
/// from more than one thread after the startup tag.
///
/// Two reactions of one level are never ordered (an ancestor has a lower level), so a program
/// with two such reactions on one level is answered without the closure.
pub(crate) fn totally_ordered(g: &Graph, closure: &LazyClosure<'_>) -> bool {
    let mut seen = vec![false; g.levels as usize];
    for (r, info) in g.reactions.iter().enumerate() {
        if runs_after_startup(g, r) {
            let level = &mut seen[info.level as usize];
            if *level {
                return false;
            }
            *level = true;
        }
    }
    closure.get().is_some_and(|c| c.totally_ordered(g))
}

/// Ancestor and descendant bitsets of every reaction.
pub(crate) struct Closure {
    words: usize,
    anc: Vec<u64>,
    desc: Vec<u64>,
}

/// Whether reaction `r` can run on a tag other than startup and shutdown (it has a trigger other
/// than those two).
pub(crate) fn runs_after_startup(g: &Graph, r: usize) -> bool {
    let r = &g.reactions[r];
    !r.trigger_ports.is_empty()
        || !r.trigger_actions.is_empty()
        || !r.timers.is_empty()
        || r.on_reset
}

impl Closure {
    /// The closure of `g`'s reaction graph, or `None` if the program is too large.
    pub(crate) fn new(g: &Graph) -> Option<Closure> {
        let n = g.reactions.len();
        if n > MAX_REACTIONS {
            return None;
        }
        let words = n.div_ceil(64).max(1);
        let mut c = Closure {
            words,
            anc: vec![0; n * words],
            desc: vec![0; n * words],
        };
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&r| g.reactions[r].level);
        for &r in &order {
            for &p in &g.reactions[r].predecessors {
                let p = p as usize;
                c.anc[r * words + p / 64] |= 1 << (p % 64);
                for w in 0..words {
                    c.anc[r * words + w] |= c.anc[p * words + w];
                }
            }
        }
        for &r in order.iter().rev() {
            for &s in &g.reactions[r].successors {
                let s = s as usize;
                c.desc[r * words + s / 64] |= 1 << (s % 64);
                for w in 0..words {
                    c.desc[r * words + w] |= c.desc[s * words + w];
                }
            }
        }
        Some(c)
    }

    /// Per reaction, whether its ancestors are exactly the reactions of all lower levels, counting
    /// only reactions that can run after startup (see [`runs_after_startup`]: a reaction that runs
    /// at most once, at the startup or shutdown tag, does not make a program worth the readiness
    /// protocol). For such a reaction "no pending ancestor" and "no pending reaction of a lower
    /// level" are the same rule on every tag but those two, and the readiness scheduler uses the
    /// cheaper level counts (most reactions of chains and of fully connected banks). The level
    /// rule is the stricter of the two (every ancestor has a lower level), so it is safe for any
    /// reaction; exactness only says that it costs no parallelism.
    pub(crate) fn level_exact(&self, g: &Graph) -> Vec<bool> {
        let mut counted = vec![0u64; self.words];
        let mut below = vec![0usize; g.levels as usize + 1];
        for (r, info) in g.reactions.iter().enumerate() {
            if runs_after_startup(g, r) {
                counted[r / 64] |= 1 << (r % 64);
                below[info.level as usize + 1] += 1;
            }
        }
        for l in 1..below.len() {
            below[l] += below[l - 1];
        }
        g.reactions
            .iter()
            .enumerate()
            .map(|(r, info)| {
                let ancestors: u32 = self
                    .ancestors(r)
                    .iter()
                    .zip(&counted)
                    .map(|(a, c)| (a & c).count_ones())
                    .sum();
                ancestors as usize == below[info.level as usize]
            })
            .collect()
    }

    /// Whether every two reactions that can run after startup (see [`runs_after_startup`]) are
    /// ordered: one is an ancestor of the other. Then the readiness rule never has two of them to
    /// run at once (a pipeline: Radix Sort, the message-passing programs), and a run gains nothing
    /// from more than one thread after the startup tag.
    pub(crate) fn totally_ordered(&self, g: &Graph) -> bool {
        let mut counted = vec![0u64; self.words];
        for r in 0..g.reactions.len() {
            if runs_after_startup(g, r) {
                counted[r / 64] |= 1 << (r % 64);
            }
        }
        (0..g.reactions.len())
            .filter(|&r| runs_after_startup(g, r))
            .all(|r| {
                (0..self.words).all(|w| {
                    let own = if r / 64 == w { 1u64 << (r % 64) } else { 0 };
                    let related =
                        self.anc[r * self.words + w] | self.desc[r * self.words + w] | own;
                    counted[w] & !related == 0
                })
            })
    }

    /// Words per bitset.
    pub(crate) fn words(&self) -> usize {
        self.words
    }

    /// The ancestors of `r`.
    pub(crate) fn ancestors(&self, r: usize) -> &[u64] {
        &self.anc[r * self.words..(r + 1) * self.words]
    }

    /// The descendants of `r`.
    pub(crate) fn descendants(&self, r: usize) -> &[u64] {
        &self.desc[r * self.words..(r + 1) * self.words]
    }
}

/// A fixed-size bitset.
pub(crate) struct Bits(pub(crate) Vec<u64>);

impl Bits {
    pub(crate) fn new(words: usize) -> Bits {
        Bits(vec![0; words])
    }

    pub(crate) fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    pub(crate) fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }

    /// Whether `self` and `other` share a bit.
    pub(crate) fn intersects(&self, other: &[u64]) -> bool {
        self.0.iter().zip(other).any(|(a, b)| a & b != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::test_programs::{sink, source, stage};
    use motet_reactor_core::{ProgramBuilder, Startup};
    use std::time::Duration;

    #[test]
    fn level_exactness_per_reaction() {
        // s -> x, s -> y -> z: z's ancestors are s and y, but x is at y's level too.
        let mut b = ProgramBuilder::new();
        let o = source(&mut b, "s");
        let xi = sink(&mut b, "x");
        let (yi, yo) = stage(&mut b, "y");
        let zi = sink(&mut b, "z");
        b.connect(o, xi);
        b.connect(o, yi);
        b.connect(yo, zi);
        let p = b.build().unwrap();
        // s.r, x.r, y.r exact; z.r (level 2) misses x.r (level 1).
        assert_eq!(
            Closure::new(p.graph()).unwrap().level_exact(p.graph()),
            [true, true, true, false]
        );

        let mut b = ProgramBuilder::new();
        let o = source(&mut b, "s");
        let xi = sink(&mut b, "x");
        b.connect(o, xi);
        let p = b.build().unwrap();
        assert_eq!(
            Closure::new(p.graph()).unwrap().level_exact(p.graph()),
            [true, true]
        );
    }

    /// A chain is totally ordered; two branches are not; reactions that run only at startup do
    /// not count.
    #[test]
    fn total_order_after_startup() {
        // s (startup) -> x -> y, with an action that keeps x going: ordered.
        let mut b = ProgramBuilder::new();
        let o = source(&mut b, "s");
        let x = b.reactor("x", ());
        let xi = b.input::<u8, _>(x, "i");
        let xo = b.output::<u8, _>(x, "o");
        let again = b.logical_action::<(), _>(x, "again", Duration::ZERO);
        b.reaction(x, "r")
            .trigger(xi)
            .trigger(again)
            .effect(xo)
            .effect(again)
            .body(|_, _| {});
        let yi = sink(&mut b, "y");
        b.connect(o, xi);
        b.connect(xo, yi);
        // A second startup reaction, independent of the chain: it runs only once.
        let t = b.reactor("t", ());
        b.reaction(t, "r").trigger(Startup).body(|_, _| {});
        let p = b.build().unwrap();
        assert!(Closure::new(p.graph()).unwrap().totally_ordered(p.graph()));
        // One reaction after startup per level: the closure has to answer.
        let lazy = LazyClosure::new(p.graph());
        assert!(totally_ordered(p.graph(), &lazy));
        assert!(lazy.is_computed());

        // s -> x, s -> y: x and y are independent.
        let mut b = ProgramBuilder::new();
        let s = b.reactor("s", ());
        let o = b.output::<u8, _>(s, "o");
        let again = b.logical_action::<(), _>(s, "again", Duration::ZERO);
        b.reaction(s, "r")
            .trigger(Startup)
            .trigger(again)
            .effect(o)
            .effect(again)
            .body(|_, _| {});
        for name in ["x", "y"] {
            let i = sink(&mut b, name);
            b.connect(o, i);
        }
        let p = b.build().unwrap();
        assert!(!Closure::new(p.graph()).unwrap().totally_ordered(p.graph()));
        // x and y share a level: answered without the closure.
        let lazy = LazyClosure::new(p.graph());
        assert!(!totally_ordered(p.graph(), &lazy));
        assert!(!lazy.is_computed());
    }

    #[test]
    fn chain_and_diamond() {
        let mut b = ProgramBuilder::new();
        let o = source(&mut b, "s");
        let xi = sink(&mut b, "x");
        let yi = sink(&mut b, "y");
        b.connect(o, xi);
        b.connect(o, yi);
        let p = b.build().unwrap();
        let c = Closure::new(p.graph()).unwrap();
        assert_eq!(c.descendants(0)[0], 0b110);
        assert_eq!(c.ancestors(1)[0], 0b001);
        assert_eq!(c.ancestors(2)[0], 0b001);
        assert_eq!(c.descendants(1)[0], 0);
    }
}
