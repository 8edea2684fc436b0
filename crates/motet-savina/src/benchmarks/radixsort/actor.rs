//! Radix Sort as motet actors.

use motet_actor::{spawn, Actor, Addr, Context, Spawn, DEFAULT_BATCH};
use motet_runtime::Runtime;

use super::{check, Config, Expected, Seen};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime and the expected result (both untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    motet_support::prepare((cfg, Expected::of(&cfg), DEFAULT_BATCH), threads, run)
}

/// As [`prepare`], with every stage handling [`STAGE_BATCH`] messages per turn (deviation
/// `batch`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    motet_support::prepare((cfg, Expected::of(&cfg), STAGE_BATCH), threads, run)
}

/// Messages a stage handles per turn under `actor-tuned`. A stage's turn hands its output to the
/// next stage; longer turns mean fewer switches between the 61 stages.
const STAGE_BATCH: u32 = 1024;

/// Sends the values to the first stage, then exits.
struct Source {
    cfg: Config,
}

impl Actor for Source {
    type Msg = Addr<u64>;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, first: Addr<u64>) {
        for value in self.cfg.values() {
            let _ = first.tell(value);
        }
        ctx.stop();
    }
}

/// One stage: forwards values with the `radix` bit clear, keeps the others until the `n`-th value.
struct Sort {
    n: u64,
    radix: u64,
    received: u64,
    kept: Vec<u64>,
    next: Addr<u64>,
}

impl Actor for Sort {
    type Msg = u64;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, value: u64) {
        self.received += 1;
        if value & self.radix == 0 {
            let _ = self.next.tell(value);
        } else {
            self.kept.push(value);
        }
        if self.received == self.n {
            for &v in &self.kept {
                let _ = self.next.tell(v);
            }
            ctx.stop();
        }
    }
}

/// Checks the order and sums; hands what it saw to the harness after `n` values.
struct Validation {
    n: u64,
    seen: Seen,
    result: ResultSlot<Seen>,
}

impl Actor for Validation {
    type Msg = u64;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, value: u64) {
        self.seen.push(value);
        if self.seen.count == self.n {
            self.result.set(self.seen);
            ctx.stop();
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run((cfg, expected, batch): &(Config, Expected, u32), rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let h = rt.handle();
    let mut next = Spawn::new(Validation {
        n: cfg.n,
        seen: Seen::default(),
        result: result.clone(),
    })
    .batch(*batch)
    .spawn(h);
    let source = spawn(h, Source { cfg: *cfg });
    for radix in cfg.radices() {
        next = Spawn::new(Sort {
            n: cfg.n,
            radix,
            received: 0,
            kept: Vec::new(),
            next,
        })
        .batch(*batch)
        .spawn(h);
    }
    let _ = source.send(next);
    rt.wait_quiescent();
    check(expected, result.take())
}
