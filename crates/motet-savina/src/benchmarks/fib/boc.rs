//! Fibonacci in BoC(Full), after the BoC paper's port: fib(n) is a cown, computed bottom-up. For
//! n > 2 the decomposition recurses into fib(n − 1) and fib(n − 2), then spawns one behaviour over
//! both result cowns that adds the second into the first, which becomes fib(n)'s cown. The
//! happens-before order of `when` puts every sum after the sums it reads: no message goes back to
//! a parent.
//!
//! The decomposition runs in one driver behaviour (the paper's runs in the scheduler's thread
//! before the run): fib(N) leaf cowns and fib(N) − 1 two-cown behaviours (75,025 and 75,024 at the
//! defaults). The root's value is read by one more behaviour.

use motet_boc::{when_detached, Cown};
use motet_runtime::{Handle, Runtime};

use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::boc_driver::{read, start};
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// fib(n)'s cown, whose value is fib(n) once the behaviours spawned on it have run.
fn compute(h: &Handle, n: u32) -> Cown<u64> {
    if n <= 2 {
        return Cown::new(h, 1);
    }
    let sum = compute(h, n - 1);
    let other = compute(h, n - 2);
    let _ = when_detached((&sum, &other), |(sum, other)| *sum += *other);
    sum
}

/// One timed iteration: decomposes in a driver behaviour, reads the root and checks it.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let n = cfg.n;
    let result = start(rt, move |h| compute(h, n)).and_then(|root| read(&root, |v| *v));
    rt.wait_quiescent();
    match result {
        Ok(value) => check(cfg, Some(value)),
        Err(e) => Outcome::failed(e),
    }
}
