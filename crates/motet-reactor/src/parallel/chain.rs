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
//! For programs too large for the ancestor sets ([`Closure`]), only the plain case counts: `s` is
//! `r`'s only successor and `r` its only predecessor.

use motet_reactor_core::graph::Graph;

use super::closure::Closure;

/// No reaction follows.
pub(crate) const NONE: u32 = u32::MAX;

/// Per reaction, the reaction that follows it (see the module docs), or [`NONE`].
pub(crate) fn chain_links(g: &Graph, closure: Option<&Closure>) -> Vec<u32> {
    let mut writers: Vec<Vec<u32>> = vec![Vec::new(); g.ports.len()];
    for (r, info) in g.reactions.iter().enumerate() {
        for &(start, len) in &info.writes {
            for p in start..start + len {
                writers[p as usize].push(r as u32);
            }
        }
    }
    let has = |set: &[u64], i: u32| set[i as usize / 64] & (1 << (i % 64)) != 0;
    g.reactions
        .iter()
        .enumerate()
        .map(|(r, info)| {
            let candidate = match (closure, &info.successors[..]) {
                (_, [s]) => Some(*s),
                (Some(c), succ) => succ.iter().copied().find(|&s| {
                    succ.iter()
                        .all(|&x| x == s || has(c.descendants(s as usize), x))
                }),
                (None, _) => None,
            };
            match candidate {
                Some(s) if follows(g, closure, &writers, r as u32, s) => s,
                _ => NONE,
            }
        })
        .collect()
}

/// Whether `s` follows `r` (the module docs' rules, but for `r`'s other successors).
fn follows(g: &Graph, closure: Option<&Closure>, writers: &[Vec<u32>], r: u32, s: u32) -> bool {
    let info = &g.reactions[s as usize];
    let preds_ok = info.predecessors.iter().all(|&p| {
        p == r
            || closure
                .is_some_and(|c| c.ancestors(r as usize)[p as usize / 64] & (1 << (p % 64)) != 0)
    });
    let triggered_by_r_only = info.trigger_ports.iter().all(|&(start, len)| {
        (start..start + len).all(|p| {
            let slot = g.ports[p as usize].slot as usize;
            writers[slot].iter().all(|&w| w == r)
        })
    });
    let reads_multiport = info
        .reads
        .iter()
        .any(|&(start, len)| (start..start + len).any(|p| g.ports[p as usize].multiport.is_some()));
    preds_ok
        && triggered_by_r_only
        && !info.trigger_ports.is_empty()
        && info.trigger_actions.is_empty()
        && info.timers.is_empty()
        && !info.on_startup
        && !info.on_shutdown
        && !info.on_reset
        && info.mode.is_none()
        && !reads_multiport
}

#[cfg(test)]
mod tests {
    use super::*;
    use motet_reactor_core::{ProgramBuilder, Startup};
    use std::time::Duration;

    /// s -> a -> b, s -> c; b also reads a multiport fed by a; d is triggered by a timer too.
    #[test]
    fn links_only_where_one_reaction_feeds_the_next() {
        let mut b = ProgramBuilder::new();
        let s = b.reactor("s", ());
        let so = b.output::<u8, _>(s, "o");
        b.reaction(s, "r")
            .trigger(Startup)
            .effect(so)
            .body(|_, _| {});
        // a: only s feeds it, but s has two successors (a and c).
        let a = b.reactor("a", ());
        let ai = b.input::<u8, _>(a, "i");
        let ao = b.output::<u8, _>(a, "o");
        b.reaction(a, "r").trigger(ai).effect(ao).body(|_, _| {});
        let c = b.reactor("c", ());
        let ci = b.input::<u8, _>(c, "i");
        b.reaction(c, "r").trigger(ci).body(|_, _| {});
        b.connect(so, ai);
        b.connect(so, ci);
        // x follows a: a's only successor, fed only by a, triggered by a port.
        let x = b.reactor("x", ());
        let xi = b.input::<u8, _>(x, "i");
        let xo = b.output::<u8, _>(x, "o");
        b.reaction(x, "r").trigger(xi).effect(xo).body(|_, _| {});
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
        assert_eq!(
            chain_links(p.graph(), Closure::new(p.graph()).as_ref()),
            [NONE, 3, NONE, NONE, NONE, NONE]
        );
        assert_eq!(
            chain_links(p.graph(), None),
            [NONE, 3, NONE, NONE, NONE, NONE]
        );
    }

    /// A worker whose first reaction asks a computer and whose second takes the answer (Logistic
    /// Map's shape): the second also follows the first in its reactor, an edge the path through
    /// the computer implies, so the three form one chain; without the ancestor sets they do not.
    #[test]
    fn links_through_a_reactor_and_back() {
        let mut b = ProgramBuilder::new();
        let m = b.reactor("m", ());
        let mo = b.output::<u8, _>(m, "o");
        b.reaction(m, "r")
            .trigger(Startup)
            .effect(mo)
            .body(|_, _| {});
        let w = b.reactor("w", ());
        let wi = b.input::<u8, _>(w, "next");
        let ask = b.output::<u8, _>(w, "ask");
        let answer = b.input::<u8, _>(w, "answer");
        b.reaction(w, "ask").trigger(wi).effect(ask).body(|_, _| {});
        b.reaction(w, "take").trigger(answer).body(|_, _| {});
        let c = b.reactor("c", ());
        let ci = b.input::<u8, _>(c, "i");
        let co = b.output::<u8, _>(c, "o");
        b.reaction(c, "rate").trigger(ci).effect(co).body(|_, _| {});
        b.connect(mo, wi);
        b.connect(ask, ci);
        b.connect(co, answer);
        let p = b.build().unwrap();
        // Reactions in declaration order: m.r, w.ask, w.take, c.rate.
        let closure = Closure::new(p.graph()).unwrap();
        assert_eq!(chain_links(p.graph(), Some(&closure)), [1, 3, NONE, 2]);
        assert_eq!(chain_links(p.graph(), None), [1, NONE, NONE, NONE]);
    }
}
