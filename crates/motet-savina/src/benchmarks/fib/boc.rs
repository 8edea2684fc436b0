//! Fibonacci in BoC: the actor program's flow with cowns and behaviours. Each actor of the tree is
//! a cown; Savina's `Request` and `Response` messages are behaviours on the receiving cown. A
//! `Request(n)` behaviour with n ≤ 2 reports 1; otherwise it creates its two children's cowns and
//! spawns `Request(n − 1)` and `Request(n − 2)` on them. A `Response` behaviour adds the value and,
//! at the second, reports the sum to the parent's cown (the root to the harness). 2·fib(N) − 1
//! cowns, one `Request` behaviour each and one `Response` each but for the root.
//!
//! `boc-tuned` is the BoC paper's port instead (`driver-decomposition`): fib(n) is a cown,
//! computed bottom-up by a decomposition that runs in one driver behaviour (the paper's runs in the
//! scheduler's thread before the run); for n > 2 it recurses into fib(n − 1) and fib(n − 2), then
//! spawns one behaviour over both result cowns that adds the second into the first, which becomes
//! fib(n)'s cown. The happens-before order of `when` puts every sum after the sums it reads: no
//! message goes back to a parent. fib(N) leaf cowns and fib(N) − 1 two-cown behaviours (75,025 and
//! 75,024 at the defaults); the root's value is read by one more behaviour.

use motet_boc::{when_detached, Cown};
use motet_runtime::{Handle, Runtime};

use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::boc_driver::{read, start};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// The BoC paper's decomposition (`driver-decomposition`); `threads` workers.
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run_driver)
}

/// An actor of the tree, in its cown.
struct Fib {
    /// The parent's cown; `None` for the root.
    parent: Option<Cown<Fib>>,
    /// Where the root reports.
    root: Option<ResultSlot<u64>>,
    result: u64,
    responses: u8,
}

impl Fib {
    fn new(parent: Option<Cown<Fib>>) -> Fib {
        Fib {
            parent,
            root: None,
            result: 0,
            responses: 0,
        }
    }

    /// Reports the result: a `Response` behaviour on the parent's cown, or to the harness from the
    /// root.
    fn report(&mut self) {
        let value = self.result;
        if let Some(parent) = self.parent.take() {
            let _ = when_detached(&parent, move |p| {
                p.result += value;
                p.responses += 1;
                if p.responses == 2 {
                    p.report();
                }
            });
        } else if let Some(root) = self.root.take() {
            root.set(value);
        }
    }
}

/// Spawns the `Request(n)` behaviour on `me`.
fn request(h: &Handle, me: Cown<Fib>, n: u32) {
    let (h, myself) = (h.clone(), me.clone());
    let _ = when_detached(&me, move |f| {
        if n <= 2 {
            f.result = 1;
            f.report();
            return;
        }
        for k in [n - 1, n - 2] {
            let child = Cown::new(&h, Fib::new(Some(myself.clone())));
            request(&h, child, k);
        }
    });
}

/// One timed iteration: sends the root its `Request(N)`, runs the tree to quiescence and checks
/// the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let mut root = Fib::new(None);
    root.root = Some(result.clone());
    request(rt.handle(), Cown::new(rt.handle(), root), cfg.n);
    rt.wait_quiescent();
    check(cfg, result.take())
}

/// fib(n)'s cown in the BoC paper's decomposition, whose value is fib(n) once the behaviours
/// spawned on it have run.
fn compute(h: &Handle, n: u32) -> Cown<u64> {
    if n <= 2 {
        return Cown::new(h, 1);
    }
    let sum = compute(h, n - 1);
    let other = compute(h, n - 2);
    let _ = when_detached((&sum, &other), |(sum, other)| *sum += *other);
    sum
}

/// One timed iteration of `boc-tuned`: decomposes in a driver behaviour, reads the root and checks
/// it.
fn run_driver(cfg: &Config, rt: &Runtime) -> Outcome {
    let n = cfg.n;
    let result = start(rt, move |h| compute(h, n)).and_then(|root| read(&root, |v| *v));
    rt.wait_quiescent();
    match result {
        Ok(value) => check(cfg, Some(value)),
        Err(e) => Outcome::failed(e),
    }
}
