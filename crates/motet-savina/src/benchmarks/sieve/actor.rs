//! Sieve of Eratosthenes as motet actors; a full filter spawns the next one from its handler.
//!
//! The filters handle up to [`FILTER_BATCH`] messages per turn (motet's default is 128), as
//! radixsort's stages do: the chain is a pipeline, and a filter's turn must last long enough for
//! the other worker to take the filter downstream. A message to an idle filter puts it in the
//! sending worker's next-task slot, and the runtime's selective stealing leaves a busy worker's slot and
//! its queue of one alone until that worker has stayed in one turn for 10 µs. With 128 candidates a
//! turn, the upstream filters' turns (most candidates are composites that a small prime rejects)
//! were often shorter than that, the chain ran on one worker while the other stayed parked, and on
//! two workers an iteration took either about 42 ms or, as on one worker, about 80 ms (the README
//! gives the measurements).

use motet_actor::{spawn, Actor, Addr, Context, Spawn};
use motet_runtime::Runtime;

use super::{check, expected, is_locally_prime, Config, Prime, Report};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime and the expected counts (both untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    motet_support::prepare((cfg, expected(&cfg)), threads, run)
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

/// Messages a filter handles per turn (see the module docs).
const FILTER_BATCH: u32 = 1024;

/// Spawns `filter` with [`FILTER_BATCH`].
fn spawn_filter(h: &motet_runtime::Handle, filter: Filter) -> Addr<FilterMsg> {
    Spawn::new(filter).batch(FILTER_BATCH).spawn(h)
}

/// A filter holding up to `m` primes.
struct Filter {
    id: u64,
    m: usize,
    primes: Vec<Prime>,
    next: Option<Addr<FilterMsg>>,
    result: ResultSlot<Report>,
}

impl Filter {
    fn new(id: u64, m: usize, first_prime: u64, result: ResultSlot<Report>) -> Filter {
        let mut primes = Vec::with_capacity(m);
        primes.push(Prime::new(first_prime));
        Filter {
            id,
            m,
            primes,
            next: None,
            result,
        }
    }
}

impl Actor for Filter {
    type Msg = FilterMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: FilterMsg) {
        match msg {
            FilterMsg::Candidate(candidate) => {
                if !is_locally_prime(candidate, &self.primes) {
                    return;
                }
                if let Some(next) = &self.next {
                    let _ = next.tell(FilterMsg::Candidate(candidate));
                } else if self.primes.len() < self.m {
                    self.primes.push(Prime::new(candidate));
                } else {
                    let next = Filter::new(self.id + 1, self.m, candidate, self.result.clone());
                    self.next = Some(spawn_filter(ctx.runtime(), next));
                }
            }
            FilterMsg::Exit => {
                match self.next.take() {
                    Some(next) => {
                        let _ = next.send(FilterMsg::Exit);
                    }
                    None => self
                        .result
                        .set(Report::of(self.id, self.primes.len(), self.m)),
                }
                ctx.stop();
            }
        }
    }
}

/// One timed iteration: creates the producer and the first filter, runs to quiescence, checks.
fn run((cfg, expected): &(Config, Report), rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let h = rt.handle();
    let producer = spawn(h, Producer { cfg: *cfg });
    let first = spawn_filter(h, Filter::new(1, cfg.m, 2, result.clone()));
    let _ = producer.send(first);
    rt.wait_quiescent();
    check(*expected, result.take())
}
