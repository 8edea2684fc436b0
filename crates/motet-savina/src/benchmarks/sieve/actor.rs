//! Sieve of Eratosthenes as motet actors; a full filter spawns the next one from its handler.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, expected, is_locally_prime, Config, Prime, Report};
use crate::bench::{Iteration, Outcome};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime and the expected counts (both untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Result<Box<dyn Iteration>, String> {
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
                    self.next = Some(ctx.spawn(next));
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
    let first = spawn(h, Filter::new(1, cfg.m, 2, result.clone()));
    let _ = producer.send(first);
    rt.wait_quiescent();
    check(*expected, result.take())
}
