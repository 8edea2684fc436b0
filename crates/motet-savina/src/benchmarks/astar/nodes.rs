//! Savina's search state: every node's parent and distance from the origin, written by the
//! workers as they search (SPEC.md section 3.27), shared by the actors and the floor.
//!
//! Savina keeps them in the graph's nodes: the parent an `AtomicReference` set by
//! compare-and-swap (`setParent`), the distance a plain `int` written by the worker whose swap
//! won. Here the parent is an `AtomicU32` set by compare-and-swap, and the distance an
//! `AtomicU32` written and read with relaxed ordering (a node's distance is written before the
//! node is queued or sent in a Work message, which orders it before any read). They are cleared
//! after each iteration's validation, as Savina's `cleanupIteration` calls `initializeData`.

use std::sync::atomic::{AtomicU32, Ordering};

use super::graph::Graph;
use crate::benchmarks::busy_wait;

/// "No parent".
const NONE: u32 = u32::MAX;

/// The parents and distances of every node.
pub(crate) struct Nodes {
    parent: Vec<AtomicU32>,
    distance: Vec<AtomicU32>,
}

impl Nodes {
    /// No node has a parent; the origin is at distance 0.
    pub(crate) fn new(graph: &Graph) -> Nodes {
        let nodes = Nodes {
            parent: (0..graph.len()).map(|_| AtomicU32::new(NONE)).collect(),
            distance: (0..graph.len()).map(|_| AtomicU32::new(0)).collect(),
        };
        nodes.clear();
        nodes
    }

    /// Savina's `initializeData` after a run: no parents, distances unknown but the origin's.
    pub(crate) fn clear(&self) {
        for (v, (p, d)) in self.parent.iter().zip(&self.distance).enumerate() {
            p.store(NONE, Ordering::Relaxed);
            d.store(if v == 0 { 0 } else { u32::MAX }, Ordering::Relaxed);
        }
    }

    /// Savina's `setParent`: gives `v` the parent `p` if it has none, then its distance.
    pub(crate) fn set_parent(&self, graph: &Graph, v: u32, p: u32) -> bool {
        let won = self.parent[v as usize]
            .compare_exchange(NONE, p, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok();
        if won {
            let from = self.distance[p as usize].load(Ordering::Relaxed);
            self.distance[v as usize]
                .store(from.wrapping_add(graph.distance(p, v)), Ordering::Relaxed);
        }
        won
    }

    /// `v`'s parent, if it has one.
    pub(crate) fn parent(&self, v: u32) -> Option<u32> {
        let p = self.parent[v as usize].load(Ordering::Acquire);
        (p != NONE).then_some(p)
    }

    /// `v`'s distance from the origin.
    pub(crate) fn distance(&self, v: u32) -> u32 {
        self.distance[v as usize].load(Ordering::Relaxed)
    }

    /// Savina's "Nodes Processed": one more than the nodes with a parent.
    pub(crate) fn processed(&self) -> u64 {
        1 + self
            .parent
            .iter()
            .filter(|p| p.load(Ordering::Relaxed) != NONE)
            .count() as u64
    }
}

/// What a worker's search sends the Master.
pub(crate) enum Sent {
    /// The search gave the target its parent.
    Done,
    /// A node left in the queue, as a Work item.
    Work(u32),
}

/// What a worker does with a Work item (Savina's `search`): a breadth-first search from `start`
/// of at most `threshold` nodes, each after Savina's busy-wait (100 calls of `Math.random()`),
/// giving its neighbours their parent. Sends [`Sent::Done`] and returns at once if it gives the
/// target its parent; otherwise sends every node left in its queue, in queue order.
pub(crate) fn search(
    graph: &Graph,
    nodes: &Nodes,
    start: u32,
    threshold: usize,
    mut send: impl FnMut(Sent),
) {
    let target = graph.target();
    let mut queue = std::collections::VecDeque::from([start]);
    let mut processed = 0;
    while processed < threshold {
        let Some(v) = queue.pop_front() else {
            return;
        };
        processed += 1;
        busy_wait::spin_shared(100);
        for &w in graph.neighbours(v) {
            if nodes.set_parent(graph, w, v) {
                if w == target {
                    return send(Sent::Done);
                }
                queue.push_back(w);
            }
        }
    }
    queue.into_iter().for_each(|v| send(Sent::Work(v)));
}
