//! What the Master and the workers of the search do, shared by the actors and the floor.
//!
//! # Who owns what
//! The graph is read-only and shared. The Master owns every node's parent and distance (the
//! [`Ledger`]); a worker owns only the generator of its busy-wait. A Work item is a list of nodes
//! the Master has given a parent; the worker expands each (busy-wait, then lists every neighbour
//! with the node as its proposed parent) and answers with the proposals. The Master merges the
//! answers in the order it sent the Work items, whatever order they come back in: a node takes
//! the first proposal merged for it, and the nodes that got a parent in one merge become the next
//! Work items. So the parents, the path, the nodes expanded and their number are the same in every
//! run and on any number of threads; the schedule only decides which worker expands what, and
//! when.

use std::collections::VecDeque;

use super::graph::Graph;
use crate::random::JavaRandom;

/// "No parent yet".
const NONE: u32 = u32::MAX;

/// A Work item: the nodes to expand and the item's number in send order.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Work {
    pub(crate) seq: u64,
    pub(crate) nodes: Vec<u32>,
}

/// A proposal: `(node, parent)`.
pub(crate) type Proposal = (u32, u32);

/// A worker's expansion of `nodes`: for each, Savina's busy-wait (100 draws of a random double)
/// and the node as parent of each of its neighbours.
pub(crate) fn expand(graph: &Graph, nodes: &[u32], random: &mut JavaRandom) -> Vec<Proposal> {
    let mut proposals = Vec::with_capacity(nodes.len() * 4);
    for &v in nodes {
        busy_wait(random);
        proposals.extend(graph.neighbours(v).iter().map(|&w| (w, v)));
    }
    proposals
}

/// Savina's `busyWait`: 100 calls of `Math.random()`; here the worker's own generator, so that
/// workers do not contend on one.
fn busy_wait(random: &mut JavaRandom) {
    for _ in 0..100 {
        std::hint::black_box(random.next_double());
    }
}

/// What the Master does next: send these Work items, then stop the workers if `stop` (the
/// target has a parent, or nothing is left to expand).
///
/// Items cut by the merges before the one that reached the target are still sent, so that the
/// nodes expanded do not depend on how the answers were batched into calls.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Next {
    pub(crate) send: Vec<Work>,
    pub(crate) stop: bool,
}

/// The Master's parents and distances, and the Work items in flight.
pub(crate) struct Ledger {
    parent: Vec<u32>,
    distance: Vec<u32>,
    target: u32,
    /// The number the next Work item gets.
    sent: u64,
    /// The number of the next Work item to merge.
    merged: u64,
    /// Answers that came before an earlier item's, by `seq − merged`.
    early: VecDeque<Option<Vec<Proposal>>>,
    /// Nodes per Work item, at most.
    threshold: usize,
    /// Workers: a merge's new nodes are cut into up to this many items.
    workers: usize,
    /// Nodes sent in Work items.
    nodes_sent: u64,
    found: bool,
}

impl Ledger {
    /// Only the origin has a parent (itself).
    pub(crate) fn new(graph: &Graph, threshold: usize, workers: usize) -> Ledger {
        let mut parent = vec![NONE; graph.len()];
        let origin = graph.origin();
        parent[origin as usize] = origin;
        Ledger {
            parent,
            distance: vec![0; graph.len()],
            target: graph.target(),
            sent: 0,
            merged: 0,
            early: VecDeque::new(),
            threshold,
            workers,
            nodes_sent: 0,
            found: origin == graph.target(),
        }
    }

    /// The first Work item: the origin.
    pub(crate) fn start(&mut self, graph: &Graph) -> Vec<Work> {
        self.cut(vec![graph.origin()])
    }

    /// Numbers `nodes` into Work items: `⌈len / workers⌉` nodes each (at most `threshold`), so
    /// that one merge's nodes keep every worker busy.
    fn cut(&mut self, nodes: Vec<u32>) -> Vec<Work> {
        let per = nodes.len().div_ceil(self.workers).clamp(1, self.threshold);
        self.nodes_sent += nodes.len() as u64;
        nodes
            .chunks(per)
            .map(|chunk| {
                let seq = self.sent;
                self.sent += 1;
                Work {
                    seq,
                    nodes: chunk.to_vec(),
                }
            })
            .collect()
    }

    /// A worker's answer to Work item `seq`: merges every answer now due, in send order.
    pub(crate) fn answer(&mut self, graph: &Graph, seq: u64, proposals: Vec<Proposal>) -> Next {
        let mut next = Next {
            send: Vec::new(),
            stop: self.found,
        };
        if self.found {
            return next;
        }
        let slot = (seq - self.merged) as usize;
        if self.early.len() <= slot {
            self.early.resize_with(slot + 1, || None);
        }
        self.early[slot] = Some(proposals);
        while let Some(Some(proposals)) = self.early.front_mut().map(Option::take) {
            self.early.pop_front();
            self.merged += 1;
            let fresh = self.merge(graph, &proposals);
            if self.found {
                next.stop = true;
                return next;
            }
            let items = self.cut(fresh);
            next.send.extend(items);
        }
        // Everything sent is merged and nothing is new: the target is unreachable.
        next.stop = next.send.is_empty() && self.merged == self.sent;
        next
    }

    /// Gives each node without a parent its first proposal; returns those nodes.
    fn merge(&mut self, graph: &Graph, proposals: &[Proposal]) -> Vec<u32> {
        let mut fresh = Vec::new();
        for &(v, p) in proposals {
            if self.parent[v as usize] != NONE {
                continue;
            }
            self.parent[v as usize] = p;
            self.distance[v as usize] = self.distance[p as usize] + graph.distance(p, v);
            if v == self.target {
                self.found = true;
                return fresh;
            }
            fresh.push(v);
        }
        fresh
    }

    /// Nodes sent in Work items (each expanded once).
    pub(crate) fn nodes_sent(&self) -> u64 {
        self.nodes_sent
    }

    /// The parents and distances, for the check.
    pub(crate) fn into_tree(self) -> Tree {
        Tree {
            parent: self.parent,
            distance: self.distance,
        }
    }
}

/// Every node's parent (`u32::MAX`: none; the origin is its own) and distance from the origin.
pub(crate) struct Tree {
    pub(crate) parent: Vec<u32>,
    pub(crate) distance: Vec<u32>,
}

impl Tree {
    /// The parent of `v`, if it has one.
    pub(crate) fn parent(&self, v: u32) -> Option<u32> {
        Some(self.parent[v as usize]).filter(|&p| p != NONE)
    }
}

#[cfg(test)]
mod tests {
    use super::{Ledger, Next};
    use crate::benchmarks::astar::graph::Graph;

    #[test]
    fn answers_merge_in_send_order() {
        let graph = Graph::new(4);
        let mut ledger = Ledger::new(&graph, 8, 2);
        let first = ledger.start(&graph);
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].nodes, [0]);
        let children: Vec<u32> = graph.neighbours(0).to_vec();
        let Next { send: items, stop } =
            ledger.answer(&graph, 0, children.iter().map(|&c| (c, 0)).collect());
        assert!(!stop, "the origin's children are new");
        let sent: Vec<u32> = items.iter().flat_map(|w| w.nodes.clone()).collect();
        assert_eq!(sent, children);
        assert!(items.len() <= 2);
        // Answer the last item first: nothing is merged until the first comes.
        if items.len() == 2 {
            assert_eq!(
                ledger.answer(&graph, items[1].seq, vec![(63, items[1].nodes[0])]),
                Next {
                    send: Vec::new(),
                    stop: false
                }
            );
            assert_eq!(ledger.merged, 1);
        }
    }
}
