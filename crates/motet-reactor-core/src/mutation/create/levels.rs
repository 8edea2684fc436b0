//! The level update of a creation: the levels of the new reactions and of the program's
//! reactions reachable from the new edges, by Kahn's peeling over those reactions alone (or over
//! the new reactions alone, when every new edge into the program already climbs); a causality
//! cycle through the new edges is reported with the reactions on it.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::plan::Edges;
use crate::builder::ProgramBuilder;
use crate::error::BuildError;
use crate::graph::Graph;

/// Values per reaction visited by the level update: in a vector for the new reactions (numbered
/// from `rb`, the most of a large creation), in a map for the program's.
pub(super) struct Nodes<T> {
    rb: u32,
    new: Vec<Option<T>>,
    old: BTreeMap<u32, T>,
}

impl<T: Copy> Nodes<T> {
    fn new(rb: u32, nr: usize) -> Nodes<T> {
        Nodes {
            rb,
            new: vec![None; nr],
            old: BTreeMap::new(),
        }
    }

    pub(super) fn get(&self, x: u32) -> Option<T> {
        match x.checked_sub(self.rb) {
            Some(i) => self.new[i as usize],
            None => self.old.get(&x).copied(),
        }
    }

    fn get_mut(&mut self, x: u32) -> Option<&mut T> {
        match x.checked_sub(self.rb) {
            Some(i) => self.new[i as usize].as_mut(),
            None => self.old.get_mut(&x),
        }
    }

    /// Sets `x`'s value; returns whether it had none.
    fn insert(&mut self, x: u32, v: T) -> bool {
        match x.checked_sub(self.rb) {
            Some(i) => self.new[i as usize].replace(v).is_none(),
            None => self.old.insert(x, v).is_none(),
        }
    }
}

/// The levels after the creation of `b`'s reactions with the new edges `e`: per visited reaction
/// its in-degree (spent) and level, and the visited reactions in the order they were visited.
pub(super) fn levels(
    g: &Graph,
    b: &ProgramBuilder,
    e: &Edges,
) -> Result<(Nodes<[u32; 2]>, Vec<u32>), BuildError> {
    let rb = b.base.reactions;
    let nr = b.reactions.len();
    let (preds, extra_preds) = (&e.preds, &e.extra_preds);
    // Levels: Kahn's peeling over the reactions reachable from the new edges' heads. Per visited
    // reaction: its in-degree from the visited set, and its level.
    let empty: &[u32] = &[];
    let (succs_new, succs_extra) = (&e.new_succs, &e.extra_succs);
    let succs_of = |x: u32| {
        if x >= rb {
            (succs_new[(x - rb) as usize].as_slice(), empty)
        } else {
            (
                g.reactions[x as usize].successors.as_slice(),
                succs_extra.get(&x).map_or(empty, Vec::as_slice),
            )
        }
    };
    // First the new reactions alone, from their predecessors' levels: when every new edge into
    // a reaction of the program already climbs, no level of the program changes, and the
    // reactions reachable from the new edges need not be visited (the full update below would
    // give the same levels).
    let mut visit: Nodes<[u32; 2]> = Nodes::new(rb, nr);
    let mut order: Vec<u32> = Vec::new();
    if let Some(levels) = climbing(rb, preds, succs_new, extra_preds, g) {
        for (i, l) in levels.into_iter().enumerate() {
            visit.insert(rb + i as u32, [0, l]);
        }
        order.extend(rb..rb + nr as u32);
    } else {
        order = (rb..rb + nr as u32)
            .chain(extra_preds.keys().copied())
            .collect();
        order.retain(|&x| visit.insert(x, [0, 0]));
        let mut i = 0;
        while i < order.len() {
            let (own, extra) = succs_of(order[i]);
            for &s in own.iter().chain(extra) {
                if visit.insert(s, [0, 0]) {
                    order.push(s);
                }
            }
            i += 1;
        }
        for &x in &order {
            let (own, extra) = succs_of(x);
            for &s in own.iter().chain(extra) {
                visit.get_mut(s).expect("reachable")[0] += 1;
            }
            // The lower bound from predecessors outside the visited set, whose levels stay.
            let (at_least, outside, extra) = if x >= rb {
                (0, preds[(x - rb) as usize].as_slice(), empty)
            } else {
                (
                    g.reaction_level[x as usize],
                    g.reactions[x as usize].predecessors.as_slice(),
                    extra_preds.get(&x).map_or(empty, Vec::as_slice),
                )
            };
            let lo = outside
                .iter()
                .chain(extra)
                .filter(|&&q| visit.get(q).is_none())
                .map(|&q| g.reaction_level[q as usize] + 1)
                .fold(at_least, u32::max);
            visit.get_mut(x).expect("visited")[1] = lo;
        }
        let mut queue: Vec<u32> = order
            .iter()
            .copied()
            .filter(|&x| visit.get(x).is_some_and(|v| v[0] == 0))
            .collect();
        let mut peeled = 0;
        while let Some(x) = queue.pop() {
            peeled += 1;
            let lx = visit.get(x).expect("reachable")[1];
            let (own, extra) = succs_of(x);
            for &s in own.iter().chain(extra) {
                let v = visit.get_mut(s).expect("reachable");
                v[1] = v[1].max(lx + 1);
                v[0] -= 1;
                if v[0] == 0 {
                    queue.push(s);
                }
            }
        }
        if peeled < order.len() {
            let name = |x: u32| {
                if x >= rb {
                    b.reactions[(x - rb) as usize].name.clone()
                } else {
                    g.reactions[x as usize].name.clone()
                }
            };
            // Every unpeeled reaction has an unpeeled predecessor: walking them back must repeat.
            let preds_of = |x: u32| -> Vec<u32> {
                let mut v = if x >= rb {
                    preds[(x - rb) as usize].clone()
                } else {
                    g.reactions[x as usize].predecessors.clone()
                };
                if let Some(e) = extra_preds.get(&x) {
                    v.extend_from_slice(e);
                }
                v
            };
            let start = order
                .iter()
                .copied()
                .find(|&x| visit.get(x).is_some_and(|v| v[0] > 0))
                .unwrap_or(rb);
            let mut path = vec![start];
            let mut cur = start;
            loop {
                let Some(next) = preds_of(cur)
                    .into_iter()
                    .find(|&q| visit.get(q).is_some_and(|v| v[0] > 0))
                else {
                    return Err(BuildError::Cycle(vec![name(start)]));
                };
                if let Some(pos) = path.iter().position(|&x| x == next) {
                    let mut cycle: Vec<String> =
                        path[pos..].iter().rev().map(|&x| name(x)).collect();
                    cycle.push(cycle[0].clone());
                    return Err(BuildError::Cycle(cycle));
                }
                path.push(next);
                cur = next;
            }
        }
    }
    Ok((visit, order))
}

/// The levels of the new reactions (numbered from `rb`, with predecessors `preds` and successors
/// `succs`) from their predecessors' levels, the program's levels unchanged; `None` if the new
/// reactions make a cycle among themselves, or if a new edge into a reaction of the program
/// (`extra`: per reaction, its new predecessors) does not climb: then the full update decides.
fn climbing(
    rb: u32,
    preds: &[Vec<u32>],
    succs: &[Vec<u32>],
    extra: &BTreeMap<u32, Vec<u32>>,
    g: &Graph,
) -> Option<Vec<u32>> {
    let nr = preds.len();
    let mut level = vec![0u32; nr];
    let mut indeg = vec![0u32; nr];
    for (i, p) in preds.iter().enumerate() {
        for &q in p {
            if q >= rb {
                indeg[i] += 1;
            } else {
                level[i] = level[i].max(g.reaction_level[q as usize] + 1);
            }
        }
    }
    let mut queue: Vec<usize> = (0..nr).filter(|&i| indeg[i] == 0).collect();
    let mut peeled = 0;
    while let Some(i) = queue.pop() {
        peeled += 1;
        for &s in &succs[i] {
            let Some(j) = s.checked_sub(rb) else { continue };
            let j = j as usize;
            level[j] = level[j].max(level[i] + 1);
            indeg[j] -= 1;
            if indeg[j] == 0 {
                queue.push(j);
            }
        }
    }
    if peeled < nr {
        return None;
    }
    let level_of = |w: u32| match w.checked_sub(rb) {
        Some(i) => level[i as usize],
        None => g.reaction_level[w as usize],
    };
    let climbs = extra.iter().all(|(&y, p)| {
        p.iter()
            .all(|&w| level_of(w) < g.reaction_level[y as usize])
    });
    climbs.then_some(level)
}
