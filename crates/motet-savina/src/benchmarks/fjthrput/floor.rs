//! Fork Join (throughput) on the sequential floor.

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
    let Config { n, a } = *cfg;
    let mut sys = System::new();
    let workers: Vec<_> = (0..a)
        .map(|_| sys.spawn(Worker { n, handled: 0 }))
        .collect();
    for _ in 0..n {
        for &w in &workers {
            sys.send(w, Compute);
        }
    }
    sys.run();
    let counts: Vec<u64> = sys.actors().iter().map(|w| w.handled).collect();
    check(n, a, &counts)
}

/// The one message: do a unit of fork-join work.
struct Compute;

/// A worker: handles `n` messages, then exits.
struct Worker {
    n: u64,
    handled: u64,
}

impl Actor for Worker {
    type Msg = Compute;

    fn receive(&mut self, _: Compute, cx: &mut Context<Self>) {
        perform_computation(FJ_THETA);
        self.handled += 1;
        if self.handled == self.n {
            cx.exit();
        }
    }
}
