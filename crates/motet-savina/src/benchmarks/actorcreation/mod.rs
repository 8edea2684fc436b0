//! Actor creation, after the CAF paper's section 5.2 (beyond Savina): a binary spawn tree.
//!
//! Flow: the main thread spawns a testee and sends it `Spread(n)`. A testee receiving `Spread(0)`
//! sends `Result(1)` to its parent; one receiving `Spread(k)` spawns two testees, each with itself
//! as parent, sends each `Spread(k − 1)`, waits for their two `Result`s and sends their sum to its
//! parent. Each testee exits once it has sent its result. The root's result goes to the main
//! thread. The tree has 2^(n+1) − 1 testees, 2^n of them leaves (the paper counts the leaves: "main(20)
//! creates 2^20 actors"), and as many messages again. It stresses allocation and the scheduler: the
//! actors compute nothing.
//!
//! Validation: the root's result is 2^n. The result is that number.

#[cfg(feature = "peers")]
mod peers;

mod actor;
mod floor;

use crate::bench::{Benchmark, Outcome};
use crate::params::Params;

/// Actor creation (CAF 5.2; id 0: beyond Savina).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "actorcreation",
    id: 0,
    title: "Actor creation (CAF paper 5.2): a binary spawn tree with 2^N leaves",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `n`: the depth of the tree; "small" builds an eighth of it.
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("n", default = 20.0, small = 17.0, parse = depth,
            help = "depth of the spawn tree (2^N leaves, 2^(N+1) - 1 actors)")]
        n: u32,
    }
}

/// The deepest tree accepted: 2^31 actors would not fit in memory anyway.
const MAX_DEPTH: u64 = 30;

variants!(actor, floor, peers);

/// Decodes `n`: a whole number of at most [`MAX_DEPTH`].
fn depth(params: &Params, name: &str) -> Result<u32, String> {
    let n = params.integer(name, 0)?;
    if n > MAX_DEPTH {
        return Err(format!(
            "parameter `{name}` must be at most {MAX_DEPTH} (2^(n+1) - 1 actors), got {n}"
        ));
    }
    Ok(n as u32)
}

/// The two messages of a testee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Msg {
    /// Build a subtree of this depth.
    Spread(u32),
    /// A child's subtree has this many leaves.
    Result(u64),
}

/// Validates a run: `leaves` is the root's result (`None` if none arrived); it must be 2^n. The
/// result is `leaves` (null if none).
pub(crate) fn check(n: u32, leaves: Option<u64>) -> Outcome {
    match leaves {
        Some(leaves) => Outcome::expect_eq("leaves counted by the root", 1u64 << n, leaves),
        None => Outcome::failed("the root reported no result"),
    }
}

#[cfg(test)]
mod tests {
    use super::{check, BENCHMARK};
    use crate::benchmarks::testing;

    #[test]
    fn check_wants_two_to_the_n() {
        assert!(check(3, Some(8)).check.is_ok());
        assert!(check(3, Some(7)).check.is_err());
        assert!(check(0, Some(1)).check.is_ok());
        assert!(check(3, None).check.is_err());
    }

    #[test]
    fn every_model_counts_the_leaves_of_small_trees() {
        for n in [0.0, 1.0, 9.0] {
            let results = testing::run_actor_and_floor(&BENCHMARK, &[("n", n)]);
            let expected = serde_json::json!(1u64 << n as u32);
            assert_eq!(results, [expected.clone(), expected.clone(), expected]);
        }
    }

    #[test]
    fn too_deep_a_tree_is_rejected() {
        let err = testing::rejects(&BENCHMARK, &[("n", 31.0)]);
        assert!(err.contains("at most 30"), "{err}");
    }
}
