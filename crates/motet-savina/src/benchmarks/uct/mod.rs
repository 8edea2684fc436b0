//! 19. Unbalanced Cobwebbed Tree (parallelism): a tree of node actors grown on the root's say-so.
//!
//! Flow (SPEC.md section 3.19): on `GenerateTree` the Root draws a compute size, creates
//! `binomial` children and sends each `TryGenerateChildren`. A node asks the Root
//! `ShouldGenerateChildren(self, height)`. While `size + binomial ≤ nodes`, the Root draws
//! `next_boolean()`: on true it draws a compute size and `r = next_int(100)` and answers
//! `GenerateChildren` (r > `urgent`) or `UrgentGenerateChildren(next_int(binomial))`, adding
//! `binomial` to `size`; on false it answers nothing. A node told to generate sends
//! `UpdateGrant(id mod binomial)` to its parent and creates `binomial` children (from inside the
//! actor) which it sends `TryGenerateChildren`. The first request once `size + binomial > nodes`
//! ends the tree: the Root sends `Traverse` and then `Terminate` to its children and exits; nodes
//! forward both to their children and exit on `Terminate`. Requests reaching the exited Root are
//! dropped. The Root's decisions come from `java.util.Random(2)` (see [`JavaRandom`]); compute sizes
//! are normal draws (mean `avg`, deviation `stdev`, rounded, redrawn while ≤ 0).
//!
//! Savina's nodes also run its `loop(busywait, dummy)` ([`savina_loop`]), an empty counting loop
//! whose result is discarded: `loop(100, 40000)` before each `ShouldGenerateChildren` and
//! `loop(compSize, 40000)` on each `Traverse`. Every program calls it where Savina does, written as
//! Savina writes it (no `black_box`), so the optimiser deletes it as the JVM's JIT does (SPEC.md
//! section 6.3): it costs nothing in an optimised build. Kept, it would be about 4.8e12 iterations
//! at the defaults. An unoptimised build (the crate's debug tests) would run it, billions of
//! iterations at the test sizes: there the function returns the count the loop reaches without
//! looping (no caller uses it; a test checks the two forms agree).
//!
//! Validation: the Root's final size equals a replay of its decision sequence, which does not
//! depend on the order requests arrive in (199,991 at the defaults: 19,998 grants, 10,203 of them
//! urgent, 19,938 denials, and the 39,937th request ends the tree). The result is the final size.

mod actor;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::params::Params;

use crate::random::JavaRandom;

/// Unbalanced Cobwebbed Tree (Savina 19).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "uct",
    id: 19,
    title: "Unbalanced Cobwebbed Tree: node actors created on the root's decisions",
    params: PARAMS,
    variants,
};

crate::params! {
    /// Savina's flags; "small" is a tenth of the nodes (SPEC.md gives no LF small size).
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("nodes", default = 200_000.0, small = 20_000.0, parse = int(1, 1 << 30),
            help = "maximum tree size")]
        nodes: i32,
        /// At least 1, so that a positive size is eventually drawn.
        #[param("avg", default = 500.0, small = 500.0, parse = int(1, 1 << 30),
            help = "average compute size")]
        avg: i32,
        #[param("stdev", default = 100.0, small = 100.0, parse = int(0, 1 << 30),
            help = "standard deviation of the compute size")]
        stdev: i32,
        #[param("binomial", default = 10.0, small = 10.0, parse = int(1, 1 << 16),
            help = "children per node that generates")]
        binomial: i32,
        #[param("urgent", default = 50.0, small = 50.0, parse = int(0, 100),
            help = "percent of generations that are urgent")]
        urgent: i32,
    }
}

variants!(actor, floor, reactor);

/// The seed of the Root's `java.util.Random`.
const ROOT_SEED: i64 = 2;

/// Decodes a whole number from `min` to `max` into the `int` Savina holds it in.
fn int(min: u64, max: u64) -> impl Fn(&Params, &str) -> Result<i32, String> {
    move |params, name| {
        let v = params.integer(name, min)?;
        if v > max {
            return Err(format!("parameter `{name}` must be at most {max}, got {v}"));
        }
        Ok(v as i32)
    }
}

/// Savina's `loop(busywait, dummy)`: counts to `dummy · busywait` (Java's `int` arithmetic, which
/// wraps) and returns the count, which every caller discards.
///
/// Written as Savina writes it, without `black_box`: the optimiser deletes the loop, as the JVM's
/// does, so the call costs nothing in an optimised build (see the module docs). An unoptimised
/// build (`debug_assertions` on: the crate's tests) would run it; there the count is computed
/// without the loop, which changes nothing a caller can see.
#[inline]
pub(crate) fn savina_loop(busywait: i32, dummy: i32) -> i32 {
    if cfg!(debug_assertions) {
        return savina_loop_count(busywait, dummy);
    }
    counting_loop(busywait, dummy)
}

/// The loop itself, as Savina writes it.
#[inline]
fn counting_loop(busywait: i32, dummy: i32) -> i32 {
    let mut test: i32 = 0;
    for _ in 0..dummy.wrapping_mul(busywait) {
        test = test.wrapping_add(1);
    }
    test
}

/// What [`counting_loop`] returns: the bound if it is positive, else 0 (the range is empty).
fn savina_loop_count(busywait: i32, dummy: i32) -> i32 {
    dummy.wrapping_mul(busywait).max(0)
}

/// What the Root answers a `ShouldGenerateChildren`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// `GenerateChildren(current_id, comp_size)`.
    Generate { current_id: i32, comp_size: i32 },
    /// `UrgentGenerateChildren(urgent_child, current_id, comp_size)`.
    Urgent {
        urgent_child: i32,
        current_id: i32,
        comp_size: i32,
    },
    /// No answer.
    Deny,
    /// The tree is complete: traverse, terminate and exit.
    Finish,
}

/// The Root's decision state (Savina's `RootActor` without its children).
#[derive(Clone, Debug)]
pub(crate) struct RootState {
    cfg: Config,
    rng: JavaRandom,
    /// The tree's size so far.
    pub(crate) size: i32,
    /// The tree's height as the Root knows it.
    pub(crate) height: i32,
    /// Nodes whose request has not been answered: when none is left before the tree is complete,
    /// the tree has stopped growing and the Root finishes (Savina's Root would wait forever).
    pending: u64,
    /// Grants, urgent grants and denials so far.
    pub(crate) counts: [u64; 3],
}

impl RootState {
    /// A Root that has not generated the tree yet.
    pub(crate) fn new(cfg: Config) -> RootState {
        RootState {
            cfg,
            rng: JavaRandom::new(ROOT_SEED),
            size: 1,
            height: 1,
            pending: 0,
            counts: [0; 3],
        }
    }

    /// `GenerateTree`: draws the first children's compute size; returns it and the first child id.
    /// The caller creates `binomial` children with ids `first_id + i`.
    pub(crate) fn generate_tree(&mut self) -> (i32, i32) {
        self.height += 1;
        let comp_size = self.next_normal();
        let first_id = self.size;
        self.size += self.cfg.binomial;
        self.pending += self.cfg.binomial as u64;
        (first_id, comp_size)
    }

    /// A `ShouldGenerateChildren` from a node at `child_height`.
    pub(crate) fn decide(&mut self, child_height: i32) -> Decision {
        self.pending -= 1;
        let b = self.cfg.binomial;
        if self.size + b > self.cfg.nodes {
            return Decision::Finish;
        }
        if !self.rng.next_boolean() {
            self.height = self.height.max(child_height);
            self.counts[2] += 1;
            return if self.pending == 0 {
                Decision::Finish
            } else {
                Decision::Deny
            };
        }
        let comp_size = self.next_normal();
        let r = self.rng.next_int_below(100);
        let current_id = self.size;
        let decision = if r > self.cfg.urgent {
            Decision::Generate {
                current_id,
                comp_size,
            }
        } else {
            self.counts[1] += 1;
            Decision::Urgent {
                urgent_child: self.rng.next_int_below(b),
                current_id,
                comp_size,
            }
        };
        self.counts[0] += 1;
        self.size += b;
        self.pending += b as u64;
        self.height = self.height.max(child_height + 1);
        decision
    }

    /// Savina's `getNextNormal`: `round(gaussian·stdev + avg)`, redrawn while ≤ 0.
    fn next_normal(&mut self) -> i32 {
        loop {
            let x = self.rng.next_gaussian() * f64::from(self.cfg.stdev) + f64::from(self.cfg.avg);
            // Java's Math.round(double) then a cast to int.
            let r = (x + 0.5).floor() as i64 as i32;
            if r > 0 {
                return r;
            }
        }
    }
}

/// The Root's final state, replayed without a tree: every request is decided in turn until the
/// tree is complete (the decisions do not depend on which node asks).
pub(crate) fn replay(cfg: &Config) -> RootState {
    let mut root = RootState::new(*cfg);
    root.generate_tree();
    while root.decide(0) != Decision::Finish {}
    root
}

/// The Root's report when it finishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Report {
    /// The final size.
    pub(crate) size: i32,
    /// The final height (depends on the interleaving).
    pub(crate) height: i32,
}

/// Validates a run: the final size must equal the replay's. The result is the final size.
pub(crate) fn check(expected_size: i32, got: Option<Report>) -> Outcome {
    match got {
        Some(report) => Outcome::expect_eq("final size", expected_size, report.size),
        None => Outcome::failed("the root did not finish"),
    }
}

#[cfg(test)]
mod tests {
    use super::{check, replay, Config, Report, BENCHMARK};
    use crate::benchmarks::testing::{self, rejects, run_actor_and_floor};

    fn config(sets: &[(&str, f64)]) -> Config {
        Config::from_params(&testing::defaults(&BENCHMARK, sets)).unwrap()
    }

    /// SPEC.md: final size 199,991; 19,998 grants, 10,203 urgent, 19,938 denials.
    #[test]
    fn defaults_replay_to_savinas_decisions() {
        let root = replay(&config(&[]));
        assert_eq!(root.size, 199_991);
        assert_eq!(root.counts, [19_998, 10_203, 19_938]);
    }

    #[test]
    fn check_compares_the_final_size() {
        let r = Report {
            size: 91,
            height: 4,
        };
        assert!(check(91, Some(r)).check.is_ok());
        assert!(check(101, Some(r)).check.is_err());
        assert!(check(91, None).check.is_err());
    }

    /// A tree that stops growing before reaching `nodes` still finishes.
    #[test]
    fn a_tree_that_dies_out_finishes() {
        let cfg = config(&[("nodes", 100_000.0), ("binomial", 1.0)]);
        let root = replay(&cfg);
        assert!(root.size < 100_000, "binomial 1 never grows past a chain");
        for result in run_actor_and_floor(&BENCHMARK, &[("nodes", 100_000.0), ("binomial", 1.0)]) {
            assert_eq!(result, serde_json::json!(root.size));
        }
    }

    #[test]
    fn actor_and_floor_reach_the_replayed_size() {
        for nodes in [300.0, 3000.0] {
            let size = replay(&config(&[("nodes", nodes)])).size;
            for result in run_actor_and_floor(&BENCHMARK, &[("nodes", nodes)]) {
                assert_eq!(result, serde_json::json!(size));
            }
        }
    }

    #[test]
    fn savinas_loop_counts_to_the_product() {
        assert_eq!(super::savina_loop(100, 400), 40_000);
        assert_eq!(super::savina_loop(0, 40_000), 0);
        assert_eq!(super::savina_loop(-3, 40_000), 0);
    }

    /// The count an unoptimised build takes is the count the loop reaches, wrapping included.
    #[test]
    fn the_count_without_the_loop_is_the_loops() {
        for (busywait, dummy) in [
            (100, 400),
            (0, 5),
            (-3, 7),
            (7, -3),
            (65_537, 65_537),
            (3, 1_000),
        ] {
            assert_eq!(
                super::savina_loop_count(busywait, dummy),
                super::counting_loop(busywait, dummy),
                "loop({busywait}, {dummy})"
            );
        }
    }

    #[test]
    fn bad_sizes_are_rejected() {
        assert!(rejects(&BENCHMARK, &[("urgent", 101.0)]).contains("`urgent`"));
        assert!(rejects(&BENCHMARK, &[("binomial", 0.0)]).contains("`binomial`"));
        assert!(rejects(&BENCHMARK, &[("avg", 0.0)]).contains("`avg`"));
    }
}
