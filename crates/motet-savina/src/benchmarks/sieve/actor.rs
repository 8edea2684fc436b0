//! Sieve of Eratosthenes as motet actors; a full filter spawns the next one from its handler.
//!
//! By default the filters handle the runtime's default batch per turn. Under `actor-tuned` they
//! handle up to [`FILTER_BATCH`] (deviation `batch`), as radixsort's stages do there: the chain is
//! a pipeline, and a filter's turn must last long enough for the other worker to take the filter
//! downstream. A message to an idle filter puts it in the sending worker's next-task slot, and the
//! runtime's selective stealing leaves a busy worker's slot and its queue of one alone until that
//! worker has stayed in one turn for 10 µs; with short turns the chain can run on one worker while
//! the other stays parked (docs/savina/choices.md, "sieve (18)", gives the measurements).

use motet_actor::{spawn, Actor, Addr, Context, Spawn, DEFAULT_BATCH};
use motet_runtime::Runtime;

use super::held::Held;
use super::{check, expected, Config, Report};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime and the expected counts (both untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    motet_support::prepare((cfg, expected(&cfg), DEFAULT_BATCH), threads, run)
}

/// As [`prepare`], with every filter handling [`FILTER_BATCH`] messages per turn.
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    motet_support::prepare((cfg, expected(&cfg), FILTER_BATCH), threads, run)
}

enum FilterMsg {
    Candidate(u64),
    Exit,
}

/// Sends the odd candidates and `Exit` to the first filter, then exits.
struct Producer {
    cfg: Config,
}

impl Actor for Producer {
    type Msg = Addr<FilterMsg>;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, first: Addr<FilterMsg>) {
        for candidate in self.cfg.candidates() {
            let _ = first.tell(FilterMsg::Candidate(candidate));
        }
        let _ = first.send(FilterMsg::Exit);
        ctx.stop();
    }
}

/// Messages a filter handles per turn under `actor-tuned` (see the module docs).
const FILTER_BATCH: u32 = 1024;

/// Spawns `filter` with its batch.
fn spawn_filter(h: &motet_runtime::Handle, filter: Filter) -> Addr<FilterMsg> {
    let batch = filter.batch;
    Spawn::new(filter).batch(batch).spawn(h)
}

/// A filter holding up to `m` primes.
struct Filter {
    held: Held,
    next: Option<Addr<FilterMsg>>,
    result: ResultSlot<Report>,
    /// Messages per turn, for this filter and the ones it spawns.
    batch: u32,
}

impl Filter {
    fn new(held: Held, result: ResultSlot<Report>, batch: u32) -> Filter {
        Filter {
            held,
            next: None,
            result,
            batch,
        }
    }
}

impl Actor for Filter {
    type Msg = FilterMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: FilterMsg) {
        match msg {
            FilterMsg::Candidate(candidate) => {
                if !self.held.passes(candidate) {
                    return;
                }
                if let Some(next) = &self.next {
                    let _ = next.tell(FilterMsg::Candidate(candidate));
                } else if !self.held.hold(candidate) {
                    let next = Filter::new(
                        self.held.successor(candidate),
                        self.result.clone(),
                        self.batch,
                    );
                    self.next = Some(spawn_filter(ctx.runtime(), next));
                }
            }
            FilterMsg::Exit => {
                match self.next.take() {
                    Some(next) => {
                        let _ = next.send(FilterMsg::Exit);
                    }
                    None => self.result.set(self.held.report()),
                }
                ctx.stop();
            }
        }
    }
}

/// One timed iteration: creates the producer and the first filter, runs to quiescence, checks.
fn run((cfg, expected, batch): &(Config, Report, u32), rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let h = rt.handle();
    let producer = spawn(h, Producer { cfg: *cfg });
    let first = spawn_filter(
        h,
        Filter::new(Held::new(1, cfg.m, 2), result.clone(), *batch),
    );
    let _ = producer.send(first);
    rt.wait_quiescent();
    check(*expected, result.take())
}
