//! 25. All-Pairs Shortest Path (parallelism): blocked Floyd–Warshall by `(n/b)²` block actors.
//!
//! Graph (SPEC.md section 3.25): complete, undirected, `n` nodes; for `i < j` in row-major order
//! `w(i, j) = w(j, i) = next_int(w) + 1` from the suite's LCG seeded with `n`; the diagonal is 0.
//! Built once in `prepare` (untimed, as Savina builds it in `initialize`).
//!
//! Flow: one actor per `b × b` block of the distance matrix; its neighbours are the other blocks of
//! its block row and block column. Each block gets `Neighbors`, then `Initial`, and broadcasts
//! `Result(k = −1, id, block)`. Once it holds the step-`k` results of all its neighbours it does
//! step `k + 1`, `D'[i][j] = min(D[i][j], D[i][k+1] + D[k+1][j])` (row and column `k + 1` come from
//! its own block or two of the neighbours'), broadcasts its result, and exits after step `n − 1`.
//! At the defaults: 36 blocks, 108,360 result messages, each the sender's whole new block (shared
//! by the neighbours it goes to); a step makes a new block of `long`s (`i64`) in a plain loop
//! (`blocks::step`), as Savina's `performComputation` does.
//!
//! Savina keys the neighbours' blocks by sender only, so a neighbour one step ahead overwrites the
//! block the current step still needs (SPEC.md sections 3.25 and 6). Here they are kept by
//! `(step parity, sender)` (the `state` module).
//!
//! The tuned programs (`actor-tuned`, `floor-tuned`; deviations `row-column-payload` and
//! `simd-relax`) send each neighbour only the row or column its next step reads and update the
//! block in place, in `i32` with AVX2 (the `narrow` module).
//!
//! Validation (untimed, as Savina's `cleanupIteration`): the matrix equals a plain Floyd–Warshall
//! computed in `prepare`; the result is the sum of all shortest distances (401,700 at the
//! defaults, the largest 9).

mod actor;
mod actor_tuned;
mod blocks;
mod floor;
mod floor_loop;
mod floor_tuned;
mod narrow;
mod reactor;
mod state;

use crate::bench::{Benchmark, Outcome};
use crate::random::PseudoRandom;

pub(crate) use blocks::{Block, Dist, Layout};

/// All-Pairs Shortest Path (Savina 25).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "apsp",
    id: 25,
    title: "All-Pairs Shortest Path: blocked Floyd-Warshall by (n/b)^2 block actors",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-n`, `-b`, `-w`; "small" is LF's small size (198 nodes, blocks of 33).
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        /// At most 16,384.
        #[param("n", default = 300.0, small = 198.0, min = 1, help = "graph nodes")]
        n: usize,
        /// A divisor of `n`.
        #[param("b", default = 50.0, small = 33.0, min = 1,
            help = "block size (n must be a multiple)")]
        b: usize,
        /// At most 65,536, so that it fits the `int` Savina draws weights below.
        #[param("w", default = 100.0, small = 100.0, min = 1, help = "largest edge weight")]
        w: u64,
    }
    finish = Config::finish;
}

variants!(
    actor,
    actor_tuned ["row-column-payload", "simd-relax"],
    reactor (own_protocol),
    floor,
    floor_tuned ["row-column-payload", "simd-relax"],
    floor_loop,
);

impl Config {
    /// Checks the sizes against each other and the limits.
    fn finish(&mut self) -> Result<(), String> {
        let Config { n, b, w } = *self;
        if n > 1 << 14 {
            return Err(format!("parameter `n` must be at most 16384, got {n}"));
        }
        if n % b != 0 {
            return Err(format!(
                "parameter `b` ({b}) must divide parameter `n` ({n})"
            ));
        }
        if w > 1 << 16 {
            return Err(format!("parameter `w` must be at most 65536, got {w}"));
        }
        Ok(())
    }

    /// The block layout.
    pub(crate) fn layout(&self) -> Layout {
        Layout::new(self.n, self.b)
    }
}

/// The input graph and its shortest distances, both `n × n` row-major.
pub(crate) struct Graph {
    /// Edge weights.
    pub(crate) weights: Vec<Dist>,
    /// Shortest distances by a plain Floyd–Warshall: the reference every run is checked against.
    pub(crate) reference: Vec<Dist>,
}

impl Graph {
    /// Generates the graph and its reference distances (untimed).
    pub(crate) fn new(cfg: &Config) -> Graph {
        let weights = generate(cfg);
        let reference = floyd_warshall(cfg.n, &weights);
        Graph { weights, reference }
    }
}

/// Savina's graph: LCG seeded with `n`, `w(i, j) = next_int(w) + 1` for `i < j` in row-major
/// order, mirrored below the diagonal; the diagonal is 0.
pub(crate) fn generate(cfg: &Config) -> Vec<Dist> {
    let n = cfg.n;
    let mut rng = PseudoRandom::new(n as i64);
    let mut d = vec![0; n * n];
    for i in 0..n {
        for j in i + 1..n {
            let r = Dist::from(rng.next_int_below(cfg.w as i32) + 1);
            d[i * n + j] = r;
            d[j * n + i] = r;
        }
    }
    d
}

/// The textbook Floyd–Warshall over the whole matrix (row `k` copied out for each `k`, as it does
/// not change in step `k`).
pub(crate) fn floyd_warshall(n: usize, weights: &[Dist]) -> Vec<Dist> {
    let mut d = weights.to_vec();
    let mut row_k = vec![0; n];
    for k in 0..n {
        row_k.copy_from_slice(&d[k * n..(k + 1) * n]);
        for row in d.chunks_exact_mut(n) {
            let via = row[k];
            for (x, &r) in row.iter_mut().zip(&row_k) {
                *x = (*x).min(via + r);
            }
        }
    }
    d
}

/// The sum and the largest of the shortest distances at Savina's graph (`n = 300`, `w = 100`, any
/// `b`), from SPEC.md.
const SPEC_DEFAULTS: (i64, Dist) = (401_700, 9);

/// Validates the blocks a run ended with (`None` where a block reported nothing) against the
/// reference distances, and at Savina's graph also against SPEC.md's values. The result is the sum
/// of all distances. A block's distances may be of any integer type that widens to [`Dist`] (the
/// tuned programs' are `i32`).
pub(crate) fn check<B, D>(cfg: &Config, graph: &Graph, blocks: &[Option<B>]) -> Outcome
where
    B: AsRef<[D]>,
    D: Copy + Into<Dist>,
{
    let layout = cfg.layout();
    let mut sum: i64 = 0;
    let mut max = 0;
    let mut error = None;
    for (id, block) in blocks.iter().enumerate() {
        let Some(block) = block else {
            error.get_or_insert_with(|| format!("block {id} reported no distances"));
            continue;
        };
        for (i, j, got) in layout.entries(id, block.as_ref()) {
            let got: Dist = got.into();
            let want = graph.reference[i * cfg.n + j];
            if got != want {
                error.get_or_insert_with(|| format!("d({i}, {j}) is {got}, expected {want}"));
            }
            sum += got;
            max = max.max(got);
        }
    }
    if blocks.len() != layout.blocks() {
        error = Some(format!(
            "{} blocks reported, expected {}",
            blocks.len(),
            layout.blocks()
        ));
    }
    if error.is_none() && (cfg.n, cfg.w) == (300, 100) && (sum, max) != SPEC_DEFAULTS {
        error = Some(format!("SPEC.md gives sum and max {SPEC_DEFAULTS:?}"));
    }
    let check = match error {
        Some(e) => Err(format!("{e} (sum {sum}, max {max})")),
        None => Ok(()),
    };
    Outcome {
        result: sum.into(),
        check,
    }
}

#[cfg(test)]
mod tests {
    use super::{check, generate, Config, Dist, Graph, BENCHMARK, SPEC_DEFAULTS};
    use crate::bench::Model;
    use crate::benchmarks::testing;

    fn config(sets: &[(&str, f64)]) -> Config {
        Config::from_params(&testing::defaults(&BENCHMARK, sets)).unwrap()
    }

    /// Shortest distances from every node by Dijkstra's algorithm (O(n²) per source on the dense
    /// graph), written independently of the benchmark's Floyd–Warshall.
    fn dijkstra_all(n: usize, weights: &[Dist]) -> Vec<Dist> {
        let mut all = vec![0; n * n];
        for s in 0..n {
            let mut dist = vec![Dist::MAX; n];
            let mut done = vec![false; n];
            dist[s] = 0;
            for _ in 0..n {
                let u = (0..n)
                    .filter(|&v| !done[v])
                    .min_by_key(|&v| dist[v])
                    .unwrap();
                done[u] = true;
                for v in 0..n {
                    let alt = dist[u] + weights[u * n + v];
                    if !done[v] && alt < dist[v] {
                        dist[v] = alt;
                    }
                }
            }
            all[s * n..(s + 1) * n].copy_from_slice(&dist);
        }
        all
    }

    #[test]
    fn the_graph_is_symmetric_with_a_zero_diagonal() {
        let cfg = config(&[("n", 12.0), ("b", 4.0), ("w", 7.0)]);
        let d = generate(&cfg);
        for i in 0..12 {
            assert_eq!(d[i * 12 + i], 0);
            for j in 0..12 {
                assert_eq!(d[i * 12 + j], d[j * 12 + i]);
                assert!(i == j || (1..=7).contains(&d[i * 12 + j]));
            }
        }
    }

    /// SPEC.md: in the LCG era the shortest distances at the defaults sum to 401,700, the
    /// largest is 9. (27 M relaxations: over a second unoptimised, so run with `--release`.)
    #[test]
    #[cfg_attr(debug_assertions, ignore = "slow unoptimised; run with --release")]
    fn default_graph_has_savinas_distances() {
        let graph = Graph::new(&config(&[]));
        let sum: i64 = graph.reference.iter().sum();
        let max = *graph.reference.iter().max().unwrap();
        assert_eq!((sum, max), (401_700, 9));
        assert_eq!(SPEC_DEFAULTS, (sum, max));
    }

    /// The distances equal Dijkstra's at two sizes: every entry of the reference the runs are
    /// checked against, and the sum the actors (on one and two workers) and the floor report.
    #[test]
    fn distances_equal_dijkstras() {
        for sets in [
            [("n", 24.0), ("b", 6.0), ("w", 100.0)],
            [("n", 30.0), ("b", 10.0), ("w", 9.0)],
        ] {
            let cfg = config(&sets);
            let direct = dijkstra_all(cfg.n, &generate(&cfg));
            assert_eq!(Graph::new(&cfg).reference, direct, "{sets:?}");
            let sum: i64 = direct.iter().sum();
            let cells = testing::on_one_and_two(&[Model::Actor, Model::Floor], 1);
            testing::expect_result(&BENCHMARK, &cells, &sets, serde_json::json!(sum));
        }
    }

    #[test]
    fn bad_sizes_are_rejected() {
        let err = testing::rejects(&BENCHMARK, &[("n", 30.0), ("b", 7.0)]);
        assert!(err.contains("`b`"), "{err}");
        testing::rejects(&BENCHMARK, &[("w", 0.0)]);
        testing::rejects(&BENCHMARK, &[("n", 0.0)]);
    }

    /// The floor runs the actors' flow and kernel: its sum equals theirs (on one and two workers),
    /// the plain loop's and the tuned programs', every distance having been checked against the
    /// reference.
    #[test]
    fn floor_equals_the_actors() {
        let sets = [("n", 60.0), ("b", 15.0)];
        let [one, two, floor] = testing::run_actor_and_floor(&BENCHMARK, &sets);
        let others = [
            (Model::FloorLoop, 1),
            (Model::FloorTuned, 1),
            (Model::ActorTuned, 1),
            (Model::ActorTuned, 2),
        ]
        .map(|(m, t)| testing::run(&BENCHMARK, m, t, &sets).result);
        assert_eq!([&one, &two], [&floor; 2]);
        assert_eq!(others.each_ref(), [&floor; 4]);
    }

    /// The check fails on one wrong distance, on a missing block, and on a block too few.
    #[test]
    fn check_finds_a_wrong_distance() {
        let cfg = config(&[("n", 12.0), ("b", 4.0)]);
        let graph = Graph::new(&cfg);
        let layout = cfg.layout();
        let mut blocks: Vec<Option<Vec<Dist>>> = (0..layout.blocks())
            .map(|id| Some(layout.cut(&graph.reference, id)))
            .collect();
        assert_eq!(check(&cfg, &graph, &blocks).check, Ok(()));
        blocks[4].as_mut().unwrap()[5] += 1;
        let e = check(&cfg, &graph, &blocks).check.unwrap_err();
        assert!(e.contains("d(5, 5)"), "{e}");
        blocks[4] = None;
        assert!(check(&cfg, &graph, &blocks).check.is_err());
        blocks.truncate(layout.blocks() - 1);
        blocks[4] = Some(layout.cut(&graph.reference, 4));
        assert!(check(&cfg, &graph, &blocks).check.is_err());
    }

    #[test]
    fn validates_at_a_reduced_size() {
        testing::run_actor_and_floor(&BENCHMARK, &[("n", 40.0), ("b", 10.0)]);
        // One block: no neighbours at all.
        testing::run_actor_and_floor(&BENCHMARK, &[("n", 8.0), ("b", 8.0)]);
    }
}
