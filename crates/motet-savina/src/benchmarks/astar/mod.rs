//! 27. A-star search (parallelism): a guided search of Savina's grid graph by `w` workers.
//!
//! Graph (SPEC.md section 3.27): `g³` nodes with forward links drawn from `java.util.Random(123456)`
//! ([`graph`]), built in `prepare` (untimed, as Savina builds it in `initialize`); the search goes
//! from (0, 0, 0) to (⌊0.8g⌋, ⌊0.8g⌋, ⌊0.8g⌋).
//!
//! Flow (Savina's): the Master creates W workers and sends Work(origin) to the first; it forwards
//! every Work item round-robin. A worker searches breadth-first from the item's node, up to `t`
//! nodes, each after Savina's busy-wait (100 calls of one shared `Math.random()`), giving every
//! neighbour without a parent the node as its parent by compare-and-swap on the shared search
//! state ([`nodes`]); it sends `Done` as soon as it gives the target its parent, else each node
//! left in its queue as a Work item, then `Received`. On `Done`, or once every item sent is
//! received, the Master sends the workers `Stop`; they echo it and the Master exits after W.
//! As in Savina, the nodes searched and the path found depend on timing (SPEC.md sections 3.27
//! and 6).
//!
//! The reactors follow the same flow, a tag's Work items searched in parallel on the shared
//! state. The tuned programs (`actor-tuned`, `floor-tuned`; deviations `ledger-search` and
//! `private-random`) keep the parents at the Master instead, which merges the workers' answers in
//! send order ([`search`]): a deterministic search.
//!
//! Validation (Savina's, untimed as there): following parents from the target reaches the
//! origin; here also every step is a link of the graph, the target's distance is the sum of the
//! link lengths on that path, and every worker echoed `Stop`. The result is Savina's "Nodes
//! Processed" (one more than the nodes with a parent); the tuned programs' is the number of nodes
//! expanded.

mod actor;
mod actor_tuned;
mod floor;
mod floor_tuned;
pub(crate) mod graph;
pub(crate) mod nodes;
mod reactor;
pub(crate) mod search;

use crate::bench::{Benchmark, Outcome};

use graph::Graph;
use nodes::Nodes;
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
    actor,
    actor_tuned ["ledger-search", "private-random"],
    reactor (own_protocol),
    floor,
    floor_tuned ["ledger-search", "private-random"],
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

/// What Savina's search ended with: the shared search state, and how many workers echoed `Stop`
/// to the Master (`None`: the Master did not finish).
pub(crate) struct Searched<'a> {
    pub(crate) nodes: &'a Nodes,
    pub(crate) stopped: Option<usize>,
    pub(crate) workers: usize,
}

/// Validates Savina's search: every worker stopped, and a path of links from the target back to
/// the origin whose lengths add up to the target's distance. The result is Savina's "Nodes
/// Processed".
pub(crate) fn check_search(graph: &Graph, searched: &Searched<'_>) -> Outcome {
    let processed = searched.nodes.processed();
    let check = if searched.stopped != Some(searched.workers) {
        Err(format!(
            "{:?} of the {} workers echoed Stop",
            searched.stopped, searched.workers
        ))
    } else {
        let nodes = searched.nodes;
        path(graph, |v| nodes.parent(v), nodes.distance(graph.target())).map(|_| ())
    };
    Outcome {
        result: processed.into(),
        check,
    }
}

/// Follows parents from the target to the origin; the path's length in hops.
pub(crate) fn path_to_origin(graph: &Graph, tree: &Tree) -> Result<usize, String> {
    path(
        graph,
        |v| tree.parent(v),
        tree.distance[graph.target() as usize],
    )
}

/// Follows `parent` from the target to the origin, checking that every step is a link and that
/// the links' lengths add up to `recorded`, the target's distance; the path's length in hops.
fn path(
    graph: &Graph,
    parent: impl Fn(u32) -> Option<u32>,
    recorded: u32,
) -> Result<usize, String> {
    let (origin, target) = (graph.origin(), graph.target());
    let mut v = target;
    let mut length = 0;
    let mut hops = 0;
    while v != origin {
        let p = parent(v)
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
    use super::{
        actor_tuned, check, check_search, path_to_origin, Config, Found, Graph, Nodes, Searched,
        BENCHMARK,
    };
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

    /// Savina's search validates on every default model, at two grid sizes, several iterations
    /// on one prepared program (the search state is cleared between them).
    #[test]
    fn savinas_search_validates() {
        for (g, t, w) in [(12.0, 40.0, 3.0), (16.0, 1024.0, 20.0)] {
            let sets = [("g", g), ("t", t), ("w", w)];
            let cells = testing::on_one_and_two(&[Model::Actor, Model::Floor], 3);
            for outcome in testing::cells(&BENCHMARK, &cells, &sets) {
                let processed = outcome.result.as_u64().unwrap();
                assert!((2..=(g * g * g) as u64).contains(&processed), "{processed}");
            }
        }
    }

    /// The floor's search is the same in every iteration (one thread, one order).
    #[test]
    fn the_floors_search_repeats() {
        let params = testing::params(&BENCHMARK, &[("g", 12.0), ("t", 40.0), ("w", 3.0)]);
        let results: Vec<_> = testing::run_iterations(&BENCHMARK, Model::Floor, 1, &params, 3)
            .into_iter()
            .map(|o| o.result)
            .collect();
        assert!(results.iter().all(|r| r == &results[0]), "{results:?}");
    }

    /// The check of Savina's search fails without a parent at the target, with a worker that did
    /// not stop, and with a wrong distance.
    #[test]
    fn check_search_finds_a_broken_search() {
        let graph = Graph::new(5);
        let nodes = Nodes::new(&graph);
        let searched = |stopped| Searched {
            nodes: &nodes,
            stopped,
            workers: 2,
        };
        assert!(check_search(&graph, &searched(Some(2))).check.is_err());
        // Parents set breadth-first from the origin, each node's before its neighbours'.
        let mut queue = std::collections::VecDeque::from([graph.origin()]);
        while let Some(v) = queue.pop_front() {
            for &w in graph.neighbours(v) {
                if nodes.set_parent(&graph, w, v) {
                    queue.push_back(w);
                }
            }
        }
        assert_eq!(check_search(&graph, &searched(Some(2))).check, Ok(()));
        assert!(check_search(&graph, &searched(Some(1))).check.is_err());
        assert!(check_search(&graph, &searched(None)).check.is_err());
        nodes.clear();
        assert!(check_search(&graph, &searched(Some(2))).check.is_err());
    }

    /// The tuned programs find the same search (it is deterministic), on a path no shorter than
    /// the breadth-first distance, at two grid sizes.
    #[test]
    fn every_tuned_model_finds_the_same_valid_path() {
        for (g, t, w) in [(12.0, 40.0, 3.0), (16.0, 1024.0, 20.0)] {
            let sets = [("g", g), ("t", t), ("w", w)];
            let cells = testing::on_one_and_two(&[Model::ActorTuned], 1);
            let mut results: Vec<_> = testing::cells(&BENCHMARK, &cells, &sets)
                .into_iter()
                .map(|o| o.result)
                .collect();
            results.push(testing::run(&BENCHMARK, Model::FloorTuned, 1, &sets).result);
            assert!(
                results.iter().all(|r| r == &results[0]),
                "{sets:?}: {results:?}"
            );
            let graph = Graph::new(g as usize);
            let shortest = bfs_hops(&graph)[graph.target() as usize].expect("reachable");
            let cfg = Config::from_params(&testing::params(&BENCHMARK, &sets)).unwrap();
            let rt = runtime(2).unwrap();
            let found = actor_tuned::search(&cfg, std::sync::Arc::new(Graph::new(cfg.grid)), &rt);
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

    /// Savina's programs, the reactors among them, check the path after their timed run.
    #[test]
    fn validation_is_untimed() {
        testing::validation_is_untimed(
            &BENCHMARK,
            &[
                Model::Actor,
                Model::Floor,
                Model::Reactor,
                Model::ReactorLevel,
            ],
            &[("g", 8.0), ("w", 4.0)],
        );
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
        testing::run(&BENCHMARK, Model::FloorTuned, 1, &[("g", 8.0)]);
    }
}
