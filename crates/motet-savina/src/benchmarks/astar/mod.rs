//! 27. A-star search (parallelism): a guided search of Savina's grid graph by `w` workers.
//!
//! Graph (SPEC.md section 3.27): `g³` nodes with forward links drawn from `java.util.Random(123456)`
//! ([`graph`]), built in `prepare` (untimed, as Savina builds it in `initialize`); the search goes
//! from (0, 0, 0) to (⌊0.8g⌋, ⌊0.8g⌋, ⌊0.8g⌋).
//!
//! Flow: the Master creates W workers and sends Work items round-robin; a worker expands the
//! nodes of an item (Savina's busy-wait of 100 random draws per node, then each neighbour with the
//! node as its proposed parent) and answers the Master, which merges the answers and sends the
//! nodes that got a parent as the next Work items. When the target gets a parent (or nothing is
//! left) the Master stops the workers, they echo `Stop`, and the Master exits.
//!
//! Savina's workers set parents with a compare-and-swap on the shared graph and write distances
//! without synchronisation, so the nodes searched and the path found depend on timing (SPEC.md
//! sections 3.27 and 6). Here the Master owns the parents and distances and merges the answers in
//! the order it sent the Work items ([`search`]): the whole search is deterministic, on any number
//! of threads.
//!
//! Validation (Savina's, untimed there): following parents from the target reaches the origin;
//! here also every step is a link of the graph, the target's distance is the sum of the link
//! lengths on that path, and the workers expanded exactly the nodes the Master sent. The result is
//! the number of nodes expanded (Savina's "Nodes Processed").

mod actor;
mod floor;
pub(crate) mod graph;
mod reactor;
pub(crate) mod search;

use crate::bench::{Benchmark, Outcome};

use graph::Graph;
use search::Tree;

/// A-star search (Savina 27).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "astar",
    id: 27,
    title: "A-star search: W workers search Savina's grid graph from origin to target",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-w`, `-t`, `-g`, `-p`. "small" uses grid 16 (4,096 nodes, about a tenth of the work).
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param(super::WORKERS, parse = super::workers)]
        workers: usize,
        /// Clamped to 2^32.
        #[param("t", default = 1024.0, small = 1024.0, min = 1,
            help = "most nodes in one Work item")]
        threshold: usize,
        /// At most [`MAX_GRID`].
        #[param("g", default = 30.0, small = 16.0, min = 1,
            help = "grid size (g³ nodes, at most 248)")]
        grid: usize,
        /// At most 31, as in Savina.
        #[param(super::priorities(30.0), min = 1)]
        priorities: u64,
    }
    finish = Config::finish;
}

/// The largest grid Savina accepts (31 priorities × granularity 8).
const MAX_GRID: usize = 248;

variants!(
    actor ["ledger-search", "private-random"],
    reactor ["ledger-search", "private-random"] (own_protocol),
    floor ["ledger-search", "private-random"],
);

impl Config {
    /// Checks the grid size and the priorities, and clamps the threshold.
    fn finish(&mut self) -> Result<(), String> {
        if self.grid > MAX_GRID {
            return Err(format!(
                "parameter `g` must be at most {MAX_GRID}, got {}",
                self.grid
            ));
        }
        if self.priorities > 31 {
            return Err(format!(
                "parameter `p` must be at most 31, got {}",
                self.priorities
            ));
        }
        self.threshold = self.threshold.min(1 << 32);
        Ok(())
    }
}

/// What a search ended with: the Master's tree, the nodes it sent in Work items, and the nodes the
/// workers expanded.
pub(crate) struct Found {
    pub(crate) tree: Tree,
    pub(crate) nodes_sent: u64,
    pub(crate) nodes_expanded: u64,
}

/// Validates a search: a path of links from the target back to the origin whose lengths add up
/// to the target's distance, and every node sent expanded once. The result is the number of nodes
/// expanded.
pub(crate) fn check(graph: &Graph, found: Option<&Found>) -> Outcome {
    let Some(found) = found else {
        return Outcome::failed("the Master reported no search");
    };
    let mut outcome = Outcome::expect_eq(
        "nodes expanded (nodes sent in Work items)",
        found.nodes_sent,
        found.nodes_expanded,
    );
    if outcome.check.is_ok() {
        outcome.check = path_to_origin(graph, &found.tree).map(|_| ());
    }
    outcome
}

/// Follows parents from the target to the origin; the path's length in hops.
pub(crate) fn path_to_origin(graph: &Graph, tree: &Tree) -> Result<usize, String> {
    let (origin, target) = (graph.origin(), graph.target());
    let mut v = target;
    let mut length = 0;
    let mut hops = 0;
    while v != origin {
        let p = tree
            .parent(v)
            .ok_or_else(|| format!("node {v} on the path from the target has no parent"))?;
        if !graph.neighbours(p).contains(&v) {
            return Err(format!("node {v}'s parent {p} has no link to it"));
        }
        length += graph.distance(p, v);
        hops += 1;
        if hops > graph.len() {
            return Err("the parents from the target form a cycle".into());
        }
        v = p;
    }
    let recorded = tree.distance[target as usize];
    if recorded != length {
        return Err(format!(
            "the target's distance is {recorded}, its path is {length} long"
        ));
    }
    Ok(hops)
}

#[cfg(test)]
mod tests {
    use super::search::Ledger;
    use super::{actor, check, path_to_origin, Config, Found, Graph, BENCHMARK};
    use crate::bench::Model;
    use crate::benchmarks::testing;
    use crate::motet_support::runtime;

    /// Breadth-first distances in hops from the origin, computed directly.
    fn bfs_hops(graph: &Graph) -> Vec<Option<usize>> {
        let mut hops = vec![None; graph.len()];
        hops[0] = Some(0);
        let mut queue = std::collections::VecDeque::from([0u32]);
        while let Some(v) = queue.pop_front() {
            for &w in graph.neighbours(v) {
                if hops[w as usize].is_none() {
                    hops[w as usize] = Some(hops[v as usize].unwrap() + 1);
                    queue.push_back(w);
                }
            }
        }
        hops
    }

    /// Every model finds the same search (it is deterministic), on a path no shorter than the
    /// breadth-first distance, at two grid sizes.
    #[test]
    fn every_model_finds_the_same_valid_path() {
        for (g, t, w) in [(12.0, 40.0, 3.0), (16.0, 1024.0, 20.0)] {
            let sets = [("g", g), ("t", t), ("w", w)];
            let results = testing::run_actor_and_floor(&BENCHMARK, &sets);
            assert!(
                results.iter().all(|r| r == &results[0]),
                "{sets:?}: {results:?}"
            );
            let graph = Graph::new(g as usize);
            let shortest = bfs_hops(&graph)[graph.target() as usize].expect("reachable");
            let cfg = Config::from_params(&testing::params(&BENCHMARK, &sets)).unwrap();
            let rt = runtime(2).unwrap();
            let found = actor::search(&cfg, std::sync::Arc::new(Graph::new(cfg.grid)), &rt);
            let hops = path_to_origin(&graph, &found.unwrap().tree).unwrap();
            assert!(hops >= shortest, "{hops} hops, the shortest is {shortest}");
        }
    }

    #[test]
    fn check_rejects_a_broken_path() {
        let graph = Graph::new(5);
        let mut ledger = Ledger::new(&graph, 1024, 1);
        ledger.start(&graph);
        let mut tree = ledger.into_tree();
        assert!(
            path_to_origin(&graph, &tree).is_err(),
            "the target has no parent"
        );
        let target = graph.target();
        tree.parent[target as usize] = 0;
        assert!(
            path_to_origin(&graph, &tree).is_err(),
            "0 has no link to the target"
        );
        let found = Found {
            tree,
            nodes_sent: 3,
            nodes_expanded: 2,
        };
        assert!(check(&graph, Some(&found)).check.is_err());
        assert!(check(&graph, None).check.is_err());
    }

    #[test]
    fn one_node_grid_needs_no_search() {
        testing::run_actor_and_floor(&BENCHMARK, &[("g", 1.0)]);
    }

    #[test]
    fn bad_sizes_are_rejected() {
        let err = testing::rejects(&BENCHMARK, &[("g", 249.0)]);
        assert!(err.contains("`g`"), "{err}");
        testing::rejects(&BENCHMARK, &[("w", 0.0)]);
        testing::rejects(&BENCHMARK, &[("t", 0.0)]);
        testing::rejects(&BENCHMARK, &[("p", 32.0)]);
    }

    #[test]
    fn runs_with_a_floor_variant() {
        testing::run(&BENCHMARK, Model::Floor, 1, &[("g", 8.0)]);
    }
}
