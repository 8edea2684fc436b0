//! Chain links in the reaction graph: reaction `s` *follows* reaction `r` when `r` is the only
//! reaction that can trigger `s`, and nothing but `s`'s own descendants waits for `r`. The
//! readiness scheduler then runs `s` on the same thread right after `r`, when `r` set a port that
//! triggers it, and takes in both completions at once (see the readiness module's docs).
//!
//! `s` follows `r` when:
//! - only ports trigger `s` (no startup, shutdown, reset, timer or action), and `r` is the only
//!   reaction that writes them: `s` is triggered at a tag exactly when `r` sets one of them, and
//!   never pending before `r` completes;
//! - every other predecessor of `s` is an ancestor of `r` (in a worker bank, a reaction's earlier
//!   reaction in the same reactor that also feeds, through another reactor, the one before it):
//!   the ancestors of `s` are `r` and `r`'s, so once `r` has run, `s` may run;
//! - every other successor of `r` descends from `s`: holding `r`'s completion back until `s` has
//!   run holds back nothing that could run meanwhile;
//! - `s` is in no mode (triggering it does not depend on the modes' state) and reads no multiport
//!   channel (the lists of present channels are filled when a writer's completion is taken in,
//!   which for a chain happens after `s` ran).
//!
//! For programs too large for the ancestor sets ([`Closure`](super::closure::Closure)), only the
//! plain case counts: `s` is `r`'s only successor and `r` its only predecessor.

use motet_reactor_core::graph::Graph;

#[cfg(test)]
use super::closure::Closure;
use super::closure::LazyClosure;

/// No reaction follows.
pub(crate) const NONE: u32 = u32::MAX;

/// Per reaction, the reaction that follows it (see the module docs), or [`NONE`].
///
/// This runs at the start of every run on the readiness scheduler, timed with it, so it looks at
/// each reaction once and at little else: the rules that need the least are tested first, and
/// the ancestor sets are asked for only where the cheap rules leave a reaction in question, so
/// that most programs without chains never compute them. Whether `r` alone triggers `s` is
/// answered from `s`'s predecessors (every writer of a port that `s` reads is one), not from a
/// table of the writers of every port: Sleeping Barber's multiports give it 40,000 ports, and a
/// table of writers plus two scans of each successor list was a measurable share of its run on
/// two workers (figures in docs/measurements/2026-11-29-comment-figures.md).
pub(crate) fn chain_links(g: &Graph, closure: &LazyClosure<'_>) -> Vec<u32> {
    g.reactions
        .iter()
        .enumerate()
        .map(|(r, info)| {
            let r = r as u32;
            // A successor that all others descend from has a lower level than each of them
            // (descendants have higher levels): the one successor of the lowest level, if unique.
            match lowest_successor(g, &info.successors) {
                Some(s) if follows_cheaply(g, r, s) && follows_by_ancestry(g, closure, r, s) => s,
                _ => NONE,
            }
        })
        .collect()
}

/// The rules of the module docs that need the ancestor sets, for `s` following `r`: every other
/// successor of `r` descends from `s`, and every other predecessor of `s` is an ancestor of `r`.
/// Without the sets (a program too large for them) only the plain case passes: `s` is `r`'s only
/// successor and `r` its only predecessor.
fn follows_by_ancestry(g: &Graph, closure: &LazyClosure<'_>, r: u32, s: u32) -> bool {
    let has = |set: &[u64], i: u32| set[i as usize / 64] & (1 << (i % 64)) != 0;
    let succ = &g.reactions[r as usize].successors;
    let others_descend = succ.len() == 1
        || closure.get().is_some_and(|c| {
            succ.iter()
                .all(|&x| x == s || has(c.descendants(s as usize), x))
        });
    others_descend
        && g.reactions[s as usize].predecessors.iter().all(|&p| {
            p == r
                || closure
                    .get()
                    .is_some_and(|c| has(c.ancestors(r as usize), p))
        })
}

/// The one successor in `succ` of the lowest level, or `None` if there is none or two share that
/// level (one pass: a reaction with a wide multiport has thousands of successors).
fn lowest_successor(g: &Graph, succ: &[u32]) -> Option<u32> {
    let mut best: Option<(u32, u32)> = None;
    let mut tied = false;
    for &x in succ {
        let l = g.reactions[x as usize].level;
        match best {
            Some((_, bl)) if l > bl => {}
            Some((_, bl)) if l == bl => tied = true,
            _ => {
                best = Some((x, l));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(x, _)| x)
}

/// The rules of the module docs that need no ancestor sets, for `s` following `r`.
fn follows_cheaply(g: &Graph, r: u32, s: u32) -> bool {
    let info = &g.reactions[s as usize];
    // The flags first, then the multiport reads (the scans stop at the first port that fails),
    // then the writers, the only test that looks at other reactions.
    if info.trigger_ports.is_empty()
        || !info.trigger_actions.is_empty()
        || !info.timers.is_empty()
        || info.on_startup
        || info.on_shutdown
        || info.on_reset
        || info.mode.is_some()
    {
        return false;
    }
    let reads_multiport = info
        .reads
        .iter()
        .any(|&(start, len)| (start..start + len).any(|p| g.ports[p as usize].multiport.is_some()));
    !reads_multiport && triggered_by_only(g, r, s)
}

/// Whether no reaction but `r` writes a port that triggers `s`. A reaction that writes a port
/// `s` reads is one of `s`'s predecessors, so only those are looked at: whether one of their
/// write ranges holds one of `s`'s trigger slots (a port is written through its slot, as in
/// the graph's edges).
fn triggered_by_only(g: &Graph, r: u32, s: u32) -> bool {
    let info = &g.reactions[s as usize];
    info.predecessors.iter().filter(|&&q| q != r).all(|&q| {
        g.reactions[q as usize].writes.iter().all(|&(start, len)| {
            info.trigger_ports.iter().all(|&(ts, tl)| {
                (ts..ts + tl).all(|p| {
                    let slot = g.ports[p as usize].slot;
                    slot < start || slot >= start + len
                })
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::test_programs::{sink, source, stage};
    use motet_reactor_core::{Ports, ProgramBuilder, Startup};
    use std::time::Duration;

    /// The rule as first written, with a table of every slot's writers: [`chain_links`] must
    /// agree with it. The rules on ancestry are the same function in both
    /// ([`follows_by_ancestry`]); what this checks is the rest, which `chain_links` answers from
    /// the predecessors alone.
    fn reference_links(g: &Graph, closure: &LazyClosure<'_>) -> Vec<u32> {
        const MANY: u32 = NONE - 1;
        let mut writers = vec![NONE; g.ports.len()];
        for (r, info) in g.reactions.iter().enumerate() {
            for &(start, len) in &info.writes {
                for w in &mut writers[start as usize..(start + len) as usize] {
                    *w = match *w {
                        NONE => r as u32,
                        x if x == r as u32 => x,
                        _ => MANY,
                    };
                }
            }
        }
        let level = |r: u32| g.reactions[r as usize].level;
        (0..g.reactions.len() as u32)
            .map(|r| {
                let succ = &g.reactions[r as usize].successors[..];
                let Some(&s) = succ.iter().min_by_key(|&&s| level(s)) else {
                    return NONE;
                };
                let info = &g.reactions[s as usize];
                let flags = info.trigger_ports.is_empty()
                    || !info.trigger_actions.is_empty()
                    || !info.timers.is_empty()
                    || info.on_startup
                    || info.on_shutdown
                    || info.on_reset
                    || info.mode.is_some();
                let by_r = info.trigger_ports.iter().all(|&(start, len)| {
                    (start..start + len).all(|p| {
                        let slot = g.ports[p as usize].slot as usize;
                        writers[slot] == NONE || writers[slot] == r
                    })
                });
                let multi = info.reads.iter().any(|&(start, len)| {
                    (start..start + len).any(|p| g.ports[p as usize].multiport.is_some())
                });
                let tied = succ.iter().any(|&x| x != s && level(x) == level(s));
                if tied || flags || !by_r || multi || !follows_by_ancestry(g, closure, r, s) {
                    return NONE;
                }
                s
            })
            .collect()
    }

    /// Banks whose reactions share writers, write one port from two reactions, feed one another
    /// through single ports and multiports, and leave ports unconnected: the links agree with
    /// the table-based rule, with and without the ancestor sets.
    #[test]
    fn agrees_with_the_table_of_writers() {
        for width in [1usize, 2, 3, 7] {
            let mut b = ProgramBuilder::new();
            let src = b.reactor("src", ());
            let out = b.output::<u8, _>(src, "out");
            let wide = b.output_multiport::<u8, _>(src, "wide", width);
            b.reaction(src, "go")
                .trigger(Startup)
                .effect(out)
                .effect(wide)
                .body(|_, _| {});
            // A second writer of `out` in the same reactor: nothing `out` feeds follows `go`.
            let t = b.timer(src, "t", Duration::from_millis(1), Duration::ZERO);
            if width % 2 == 1 {
                b.reaction(src, "again")
                    .trigger(t)
                    .effect(out)
                    .body(|_, _| {});
            }
            let sink = b.reactor("sink", ());
            let gather = b.input_multiport::<u8, _>(sink, "gather", width);
            let single = b.input::<u8, _>(sink, "single");
            let spare = b.input::<u8, _>(sink, "spare");
            b.reaction(sink, "one")
                .trigger(single)
                .trigger(spare)
                .body(|_, _| {});
            b.reaction(sink, "all").trigger(gather).body(|_, _| {});
            b.connect(out, single);
            let stages = b.bank(width, |b, i| {
                let r = b.reactor(&format!("stage[{i}]"), ());
                let input = b.input::<u8, _>(r, "in");
                let mid = b.output::<u8, _>(r, "mid");
                let mid_in = b.input::<u8, _>(r, "mid_in");
                let o = b.output::<u8, _>(r, "o");
                b.reaction(r, "a")
                    .trigger(input)
                    .effect(mid)
                    .body(|_, _| {});
                b.reaction(r, "b").trigger(mid_in).effect(o).body(|_, _| {});
                (input, mid, mid_in, o)
            });
            for (i, st) in stages.iter().enumerate() {
                b.connect(st.1, st.2);
                if i == 0 {
                    b.connect(out, st.0);
                }
            }
            b.connect(
                wide,
                stages.iter().skip(1).map(|x| x.0).collect::<Ports<u8>>(),
            );
            b.connect(stages.iter().map(|x| x.3).collect::<Ports<u8>>(), gather);
            let p = b.build().expect("a well-formed program");
            let g = p.graph();
            for closure in [LazyClosure::new(g), LazyClosure::computed(g, None)] {
                let want = reference_links(g, &closure);
                assert_eq!(chain_links(g, &closure), want, "width {width}");
                // Each stage's `b` follows its `a` (only `a` feeds it, its only successor).
                assert!(want.iter().filter(|&&s| s != NONE).count() >= width);
            }
        }
    }

    /// s -> a -> b, s -> c; b also reads a multiport fed by a; d is triggered by a timer too.
    #[test]
    fn links_only_where_one_reaction_feeds_the_next() {
        let mut b = ProgramBuilder::new();
        let so = source(&mut b, "s");
        // a: only s feeds it, but s has two successors (a and c).
        let (ai, ao) = stage(&mut b, "a");
        let ci = sink(&mut b, "c");
        b.connect(so, ai);
        b.connect(so, ci);
        // x follows a: a's only successor, fed only by a, triggered by a port.
        let (xi, xo) = stage(&mut b, "x");
        b.connect(ao, xi);
        // y reads x on a multiport: not a link.
        let y = b.reactor("y", ());
        let yi = b.input_multiport::<u8, _>(y, "i", 1);
        let yo = b.output::<u8, _>(y, "o");
        b.reaction(y, "r").trigger(yi).effect(yo).body(|_, _| {});
        b.connect(xo, yi);
        // z is triggered by y's port and by a timer: not a link.
        let z = b.reactor("z", ());
        let zi = b.input::<u8, _>(z, "i");
        let t = b.timer(z, "t", Duration::from_millis(1), Duration::ZERO);
        b.reaction(z, "r").trigger(zi).trigger(t).body(|_, _| {});
        b.connect(yo, zi);
        let p = b.build().unwrap();
        // Reactions in declaration order: s, a, c, x, y, z.
        let lazy = LazyClosure::new(p.graph());
        assert_eq!(
            chain_links(p.graph(), &lazy),
            [NONE, 3, NONE, NONE, NONE, NONE]
        );
        // s's two successors share a level, and every other candidate has one predecessor:
        // settled without the ancestor sets.
        assert!(!lazy.is_computed());
        assert_eq!(
            chain_links(p.graph(), &LazyClosure::computed(p.graph(), None)),
            [NONE, 3, NONE, NONE, NONE, NONE]
        );
    }

    /// r feeds s and x, and s feeds x too: x descends from s, so s follows r, which only the
    /// ancestor sets can tell (asked for, and only then, when the cheap rules pass).
    #[test]
    fn links_past_a_successor_that_descends() {
        let mut b = ProgramBuilder::new();
        let ro = source(&mut b, "r");
        let (si, so) = stage(&mut b, "s");
        let x = b.reactor("x", ());
        let xa = b.input::<u8, _>(x, "a");
        let xb = b.input::<u8, _>(x, "b");
        b.reaction(x, "r").trigger(xa).trigger(xb).body(|_, _| {});
        b.connect(ro, si);
        b.connect(ro, xa);
        b.connect(so, xb);
        let p = b.build().unwrap();
        // Reactions in declaration order: r, s, x.
        let lazy = LazyClosure::new(p.graph());
        assert_eq!(chain_links(p.graph(), &lazy), [1, NONE, NONE]);
        assert!(lazy.is_computed());
        let none = LazyClosure::computed(p.graph(), None);
        assert_eq!(chain_links(p.graph(), &none), [NONE, NONE, NONE]);
    }

    /// A worker whose first reaction asks a computer and whose second takes the answer (Logistic
    /// Map's shape): the second also follows the first in its reactor, an edge the path through
    /// the computer implies, so the three form one chain; without the ancestor sets they do not.
    #[test]
    fn links_through_a_reactor_and_back() {
        let mut b = ProgramBuilder::new();
        let mo = source(&mut b, "m");
        let w = b.reactor("w", ());
        let wi = b.input::<u8, _>(w, "next");
        let ask = b.output::<u8, _>(w, "ask");
        let answer = b.input::<u8, _>(w, "answer");
        b.reaction(w, "ask").trigger(wi).effect(ask).body(|_, _| {});
        b.reaction(w, "take").trigger(answer).body(|_, _| {});
        let (ci, co) = stage(&mut b, "c");
        b.connect(mo, wi);
        b.connect(ask, ci);
        b.connect(co, answer);
        let p = b.build().unwrap();
        // Reactions in declaration order: m.r, w.ask, w.take, c.r.
        let closure = LazyClosure::computed(p.graph(), Closure::new(p.graph()));
        assert_eq!(chain_links(p.graph(), &closure), [1, 3, NONE, 2]);
        let none = LazyClosure::computed(p.graph(), None);
        assert_eq!(chain_links(p.graph(), &none), [1, NONE, NONE, NONE]);
    }
}
