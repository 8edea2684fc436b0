//! Fork Join (actor creation) on the sequential floor.

use crate::bench::{Outcome, Prepared};
use crate::benchmarks::{perform_computation, FJ_THETA};
use crate::floor::{Actor, Context, System};
use crate::params::Params;

use super::{check, Config};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let mut sys = System::new();
    for _ in 0..cfg.n {
        let worker = sys.spawn(Worker { done: false });
        sys.send(worker, Compute);
    }
    sys.run();
    let completions = sys.actors().iter().filter(|w| w.done).count() as u64;
    check(cfg.n, completions)
}

/// The one message: do a unit of fork-join work.
struct Compute;

/// A worker: computes once and exits.
struct Worker {
    done: bool,
}

impl Actor for Worker {
    type Msg = Compute;

    fn receive(&mut self, _: Compute, cx: &mut Context<Self>) {
        perform_computation(FJ_THETA);
        self.done = true;
        cx.exit();
    }
}
