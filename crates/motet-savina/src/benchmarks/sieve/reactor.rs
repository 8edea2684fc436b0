//! Sieve of Eratosthenes as reactors: the chain of filters grows while the program runs, by
//! mutations.
//!
//! A Producer and filter 1 (holding the prime 2) are declared before the run; a filter has an
//! input `candidate` and an output `next`, both carrying Savina's messages (a candidate or
//! `Exit`). Tags: the Producer sends one message per tag through its zero-delay logical action
//! `send` (its startup reaction sends the first), so candidate `k` is the value of tag (0, k − 1)
//! and `Exit` that of the tag after the last candidate. A candidate crosses the chain within its
//! tag: each filter that finds it locally prime sets it on `next`, which triggers the following
//! filter's reaction at the same tag, so a candidate that reaches filter `k` costs `k` reactions
//! (the actor program's `k` messages), with no tag of its own per hop.
//!
//! When the last filter, already holding `m` primes, finds a new prime, its reaction requests a
//! mutation that creates the next filter beside it, holding that prime, and connects its `next`
//! output to the new filter's input (Savina's spawn from inside the handler). The new filter
//! exists from the next tag (one microstep later), before the next candidate is sent, so no
//! candidate waits for it. The mutation also records the new filter's handle in the state of the
//! one that asked for it, which is how the result is read after the run.
//!
//! `Exit` travels down the chain at its tag, and the last filter keeps its report in its state.
//! The filters are not deleted at `Exit` (the actors' stop): `Exit`'s tag is the program's last,
//! where a mutation is not applied, and the report is read from the last filter's state after the
//! run.
//!
//! Validation: the benchmark's `check` on the last filter's report (a rejected mutation fails the
//! run); the record's `reactors_created` is the number of filters minus one.

use std::time::Duration;

use motet_reactor::{Input, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, expected, is_locally_prime, Config, Prime, Report};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers; the
/// expected counts are computed once, untimed.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    reactor_support::prepare((cfg, expected(&cfg)), threads, model, build)
}

/// Savina's messages to a filter.
#[derive(Clone, Copy, Debug)]
enum Msg {
    Candidate(u64),
    Exit,
}

/// The Producer's state: the next candidate to send.
struct Producer {
    next: u64,
    n: u64,
}

/// A filter's state.
struct Filter {
    id: u64,
    m: usize,
    primes: Vec<Prime>,
    /// Whether this filter has asked for the next one (set at once, so that later candidates are
    /// passed on).
    extended: bool,
    /// The next filter, recorded by the mutation that created it.
    next: Option<ReactorId<Filter>>,
    /// Set by the last filter on `Exit`.
    report: Option<Report>,
}

/// Declares filter `id` holding `first_prime` (in the program or in a mutation); returns its
/// handle and its input.
fn filter(
    b: &mut ProgramBuilder,
    id: u64,
    m: usize,
    first_prime: u64,
) -> (ReactorId<Filter>, Input<Msg>) {
    let mut primes = Vec::with_capacity(m);
    primes.push(Prime::new(first_prime));
    let me = b.reactor(
        &format!("filter[{id}]"),
        Filter {
            id,
            m,
            primes,
            extended: false,
            next: None,
            report: None,
        },
    );
    let input = b.input::<Msg, _>(me, "candidate");
    let next = b.output::<Msg, _>(me, "next");
    b.reaction(me, "filter")
        .trigger(input)
        .effect(next)
        .mutates()
        .body(move |f: &mut Filter, ctx| {
            let Some(&msg) = ctx.get(input) else { return };
            match msg {
                Msg::Candidate(candidate) => {
                    if !is_locally_prime(candidate, &f.primes) {
                        return;
                    }
                    if f.extended {
                        ctx.set(next, Msg::Candidate(candidate));
                    } else if f.primes.len() < f.m {
                        f.primes.push(Prime::new(candidate));
                    } else {
                        f.extended = true;
                        let (id, m) = (f.id + 1, f.m);
                        ctx.mutate(move |mu| {
                            let (created, its_input) = filter(mu, id, m, candidate);
                            mu.connect(next, its_input);
                            if let Some(f) = mu.state_mut(me) {
                                f.next = Some(created);
                            }
                        });
                    }
                }
                Msg::Exit => {
                    if f.extended {
                        ctx.set(next, Msg::Exit);
                    } else {
                        f.report = Some(Report::of(f.id, f.primes.len(), f.m));
                    }
                }
            }
        });
    (me, input)
}

/// What reads the result of a built program: the first filter, from which the chain is walked.
pub(super) struct Sieve {
    expected: Report,
    first: ReactorId<Filter>,
}

/// Builds the Producer and filter 1 for `cfg`.
fn build(&(cfg, expected): &(Config, Report)) -> (Program, Sieve) {
    let mut b = ProgramBuilder::new();
    let producer = b.reactor("producer", Producer { next: 3, n: cfg.n });
    let out = b.output::<Msg, _>(producer, "candidate");
    let send = b.logical_action::<(), _>(producer, "send", Duration::ZERO);
    b.reaction(producer, "send")
        .trigger(Startup)
        .trigger(send)
        .effect(out)
        .effect(send)
        .body(move |p: &mut Producer, ctx| {
            if p.next < p.n {
                ctx.set(out, Msg::Candidate(p.next));
                p.next += 2;
                ctx.schedule(send, (), Duration::ZERO);
            } else {
                ctx.set(out, Msg::Exit);
            }
        });
    let (first, input) = filter(&mut b, 1, cfg.m, 2);
    b.connect(out, input);
    (
        b.build().expect("the sieve program is well formed"),
        Sieve { expected, first },
    )
}

impl Built for Sieve {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        if let Some(e) = program.mutation_errors().first() {
            return Outcome::failed(format!("a filter was not created: {e}"));
        }
        let mut at = self.first;
        loop {
            let f = program.state_mut(at);
            match (f.report, f.next) {
                (Some(report), _) => return check(self.expected, Some(report)),
                (None, Some(next)) => at = next,
                (None, None) => return check(self.expected, None),
            }
        }
    }
}
