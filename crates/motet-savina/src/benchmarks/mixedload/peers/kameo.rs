//! Mixed load on kameo: masters, chain links, workers and the collector with unbounded mailboxes
//! on a tokio runtime with `threads` workers.

use ::kameo::actor::ActorRef;
use ::kameo::message::{Context, Message};
use ::kameo::Actor;

use crate::bench::Prepared;
use crate::benchmarks::mixedload::{factorize, Config, Tally};
use crate::params::Params;
use crate::peers::{kameo_spawn, tokio_program, Reporter};

use super::Collection;

/// Build the first ring.
struct Build;

/// The token.
struct Token(u64);

/// Factor this number.
struct Calc(u64);

/// The master is done: exit.
struct Exit;

/// A factorization.
struct Factors(Vec<u64>);

/// A master is done, having seen this many tokens.
struct Done(u64);

/// Where a chain link forwards the token.
enum Next {
    Link(ActorRef<ChainLink>),
    Master(ActorRef<Master>),
}

impl Next {
    fn send(&self, token: Token) {
        let _ = match self {
            Next::Link(link) => link.tell(token).try_send(),
            Next::Master(master) => master.tell(token).try_send(),
        };
    }
}

#[derive(Actor)]
struct Master {
    cfg: Config,
    rings_left: u64,
    tokens: u64,
    next: Option<Next>,
    worker: ActorRef<Worker>,
    collector: ActorRef<Collector>,
    done: Reporter<Tally>,
}

impl Master {
    fn build(&mut self, me: &ActorRef<Master>) {
        let mut next = Next::Master(me.clone());
        for _ in 0..self.cfg.l {
            let link = ChainLink {
                next,
                _done: self.done.clone(),
            };
            next = Next::Link(kameo_spawn(link));
        }
        next.send(Token(self.cfg.t));
        self.next = Some(next);
        let _ = self.worker.tell(Calc(self.cfg.number)).try_send();
    }
}

impl Message<Build> for Master {
    type Reply = ();

    async fn handle(&mut self, _: Build, ctx: &mut Context<Self, ()>) {
        self.build(ctx.actor_ref());
    }
}

impl Message<Token> for Master {
    type Reply = ();

    async fn handle(&mut self, Token(x): Token, ctx: &mut Context<Self, ()>) {
        self.tokens += 1;
        if x > 0 {
            if let Some(next) = &self.next {
                next.send(Token(x - 1));
            }
            return;
        }
        self.next = None;
        self.rings_left -= 1;
        if self.rings_left > 0 {
            self.build(ctx.actor_ref());
        } else {
            let _ = self.collector.tell(Done(self.tokens)).try_send();
            let _ = self.worker.tell(Exit).try_send();
            ctx.stop();
        }
    }
}

#[derive(Actor)]
struct ChainLink {
    next: Next,
    _done: Reporter<Tally>,
}

impl Message<Token> for ChainLink {
    type Reply = ();

    async fn handle(&mut self, Token(n): Token, ctx: &mut Context<Self, ()>) {
        self.next.send(Token(n));
        if n == 0 {
            ctx.stop();
        }
    }
}

#[derive(Actor)]
struct Worker {
    collector: ActorRef<Collector>,
    _done: Reporter<Tally>,
}

impl Message<Calc> for Worker {
    type Reply = ();

    async fn handle(&mut self, Calc(n): Calc, _: &mut Context<Self, ()>) {
        let _ = self.collector.tell(Factors(factorize(n))).try_send();
    }
}

impl Message<Exit> for Worker {
    type Reply = ();

    async fn handle(&mut self, _: Exit, ctx: &mut Context<Self, ()>) {
        ctx.stop();
    }
}

/// The collector: its tally, reported once complete.
#[derive(Actor)]
struct Collector(Collection);

impl Message<Factors> for Collector {
    type Reply = ();

    async fn handle(&mut self, Factors(factors): Factors, ctx: &mut Context<Self, ()>) {
        if self.0.factors(factors) {
            ctx.stop();
        }
    }
}

impl Message<Done> for Collector {
    type Reply = ();

    async fn handle(&mut self, Done(tokens): Done, ctx: &mut Context<Self, ()>) {
        if self.0.done(tokens) {
            ctx.stop();
        }
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    program(Config::from_params(params)?, threads)
}

/// Builds the program for `cfg`.
pub(super) fn program(cfg: Config, threads: usize) -> Prepared {
    tokio_program(cfg, threads, start, super::outcome)
}

/// Spawns the collector, the workers and the masters and sends each master `Build`, on the main
/// thread.
async fn start(cfg: Config, reporter: Reporter<Tally>) {
    let collector = Collector(Collection::new(cfg, reporter.clone()));
    let collector = kameo_spawn(collector);
    let masters: Vec<ActorRef<Master>> = (0..cfg.r)
        .map(|_| {
            let worker = Worker {
                collector: collector.clone(),
                _done: reporter.clone(),
            };
            let worker = kameo_spawn(worker);
            let master = Master {
                cfg,
                rings_left: cfg.k,
                tokens: 0,
                next: None,
                worker,
                collector: collector.clone(),
                done: reporter.clone(),
            };
            kameo_spawn(master)
        })
        .collect();
    for master in masters {
        master
            .tell(Build)
            .try_send()
            .expect("the master is running");
    }
}
