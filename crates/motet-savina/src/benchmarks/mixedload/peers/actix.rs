//! Mixed load on actix: the collector, then each worker and master placed round-robin on the
//! arbiters, and each master's chain links placed round-robin as it creates them. A master keeps
//! its ring's addresses until the token has been round to 0 (see crate::peers).

use ::actix::{ActorContext, Addr, AsyncContext, Context, Handler, Message};

use crate::bench::Prepared;
use crate::benchmarks::mixedload::{factorize, Config, Tally};
use crate::params::Params;
use crate::peers::{actix_program, Placement, Reporter};

use super::Collection;

/// Build the first ring.
#[derive(Message)]
#[rtype(result = "()")]
struct Build;

/// The token.
#[derive(Message)]
#[rtype(result = "()")]
struct Token(u64);

/// Factor this number.
#[derive(Message)]
#[rtype(result = "()")]
struct Calc(u64);

/// The master is done: exit.
#[derive(Message)]
#[rtype(result = "()")]
struct Exit;

/// A factorization.
#[derive(Message)]
#[rtype(result = "()")]
struct Factors(Vec<u64>);

/// A master is done, having seen this many tokens.
#[derive(Message)]
#[rtype(result = "()")]
struct Done(u64);

/// Where a chain link forwards the token.
#[derive(Clone)]
enum Next {
    Link(Addr<ChainLink>),
    Master(Addr<Master>),
}

impl Next {
    fn send(&self, token: Token) {
        match self {
            Next::Link(link) => link.do_send(token),
            Next::Master(master) => master.do_send(token),
        }
    }
}

struct Master {
    cfg: Config,
    rings_left: u64,
    tokens: u64,
    next: Option<Next>,
    /// The current ring's links, kept until the token has been round to 0.
    ring: Vec<Addr<ChainLink>>,
    worker: Addr<Worker>,
    collector: Addr<Collector>,
    place: Placement,
    done: Reporter<Tally>,
}

impl Master {
    fn build(&mut self, ctx: &mut Context<Self>) {
        let mut next = Next::Master(ctx.address());
        for _ in 0..self.cfg.l {
            let (behind, done) = (next, self.done.clone());
            let link = self.place.start(move || ChainLink {
                next: behind,
                _done: done,
            });
            self.ring.push(link.clone());
            next = Next::Link(link);
        }
        next.send(Token(self.cfg.t));
        self.next = Some(next);
        self.worker.do_send(Calc(self.cfg.number));
    }
}

crate::peers::actix_actors!(Master);

impl Handler<Build> for Master {
    type Result = ();

    fn handle(&mut self, _: Build, ctx: &mut Context<Self>) {
        self.build(ctx);
    }
}

impl Handler<Token> for Master {
    type Result = ();

    fn handle(&mut self, Token(x): Token, ctx: &mut Context<Self>) {
        self.tokens += 1;
        if x > 0 {
            if let Some(next) = &self.next {
                next.send(Token(x - 1));
            }
            return;
        }
        self.next = None;
        self.ring.clear();
        self.rings_left -= 1;
        if self.rings_left > 0 {
            self.build(ctx);
        } else {
            self.collector.do_send(Done(self.tokens));
            self.worker.do_send(Exit);
            ctx.stop();
        }
    }
}

struct ChainLink {
    next: Next,
    _done: Reporter<Tally>,
}

crate::peers::actix_actors!(ChainLink);

impl Handler<Token> for ChainLink {
    type Result = ();

    fn handle(&mut self, Token(n): Token, ctx: &mut Context<Self>) {
        self.next.send(Token(n));
        if n == 0 {
            ctx.stop();
        }
    }
}

struct Worker {
    collector: Addr<Collector>,
    _done: Reporter<Tally>,
}

crate::peers::actix_actors!(Worker);

impl Handler<Calc> for Worker {
    type Result = ();

    fn handle(&mut self, Calc(n): Calc, _: &mut Context<Self>) {
        self.collector.do_send(Factors(factorize(n)));
    }
}

impl Handler<Exit> for Worker {
    type Result = ();

    fn handle(&mut self, _: Exit, ctx: &mut Context<Self>) {
        ctx.stop();
    }
}

/// The collector: its tally, reported once complete.
struct Collector(Collection);

crate::peers::actix_actors!(Collector);

impl Handler<Factors> for Collector {
    type Result = ();

    fn handle(&mut self, Factors(factors): Factors, ctx: &mut Context<Self>) {
        if self.0.factors(factors) {
            ctx.stop();
        }
    }
}

impl Handler<Done> for Collector {
    type Result = ();

    fn handle(&mut self, Done(tokens): Done, ctx: &mut Context<Self>) {
        if self.0.done(tokens) {
            ctx.stop();
        }
    }
}

/// Builds the arbiters (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    program(Config::from_params(params)?, threads)
}

/// Builds the program for `cfg`.
pub(super) fn program(cfg: Config, threads: usize) -> Prepared {
    actix_program(cfg, threads, start, super::outcome)
}

/// The addresses the main thread keeps: the collector's, every worker's and every master's.
type Kept = (Addr<Collector>, Vec<(Addr<Worker>, Addr<Master>)>);

/// Starts the collector, the workers and the masters and sends each master `Build`, on the main
/// thread; returns every address, which the main thread keeps until every actor has exited.
fn start(cfg: Config, mut place: Placement, reporter: Reporter<Tally>) -> Kept {
    let done = reporter.clone();
    let collector = place.start(move || Collector(Collection::new(cfg, done)));
    let pairs: Vec<(Addr<Worker>, Addr<Master>)> = (0..cfg.r)
        .map(|_| {
            let (c, done) = (collector.clone(), reporter.clone());
            let worker = place.start(move || Worker {
                collector: c,
                _done: done,
            });
            let (w, c, done) = (worker.clone(), collector.clone(), reporter.clone());
            let links = place.clone();
            let master = place.start(move || Master {
                cfg,
                rings_left: cfg.k,
                tokens: 0,
                next: None,
                ring: Vec::with_capacity(cfg.l as usize),
                worker: w,
                collector: c,
                place: links,
                done,
            });
            (worker, master)
        })
        .collect();
    for (_, master) in &pairs {
        master.do_send(Build);
    }
    (collector, pairs)
}
