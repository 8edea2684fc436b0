//! Chain links in the reaction graph: reaction `s` *follows* reaction `r` when `r` is the only
//! reaction that can make `s` run or change what it reads. The readiness scheduler then runs `s`
//! on the same thread right after `r`, when `r` set a port that triggers it, and takes in both
//! completions in one round of its lock (see the readiness module's docs).
//!
//! `s` follows `r` when:
//! - `s` is `r`'s only successor and `r` is `s`'s only predecessor: every writer of a port `s`
//!   reads is a predecessor, so only `r` writes what `s` reads, and `s`'s other ancestors are
//!   `r`'s, none pending once `r` was released;
//! - only ports trigger `s` (no startup, shutdown, reset, timer or action): so `s` is triggered at
//!   a tag exactly when `r` sets one of them, and never pending before `r` completes;
//! - `s` is in no mode (triggering it does not depend on the modes' state) and reads no multiport
//!   channel (the lists of present channels are filled when a writer's completion is taken in,
//!   which for a chain happens after `s` ran).

use motet_reactor_core::graph::Graph;

/// No reaction follows.
pub(crate) const NONE: u32 = u32::MAX;

/// Per reaction, the reaction that follows it (see the module docs), or [`NONE`].
pub(crate) fn chain_links(g: &Graph) -> Vec<u32> {
    g.reactions
        .iter()
        .enumerate()
        .map(|(r, info)| match info.successors[..] {
            [s] if follows(g, r, s as usize) => s,
            _ => NONE,
        })
        .collect()
}

/// Whether `s` follows `r` (the module docs' rules; `s` is `r`'s only successor).
fn follows(g: &Graph, r: usize, s: usize) -> bool {
    let info = &g.reactions[s];
    let reads_multiport = info
        .reads
        .iter()
        .any(|&(start, len)| (start..start + len).any(|p| g.ports[p as usize].multiport.is_some()));
    info.predecessors[..] == [r as u32]
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
        assert_eq!(chain_links(p.graph()), [NONE, 3, NONE, NONE, NONE, NONE]);
    }
}
