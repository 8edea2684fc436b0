//! Mixed load on ractor: masters, chain links, workers and the collector on a tokio runtime with
//! `threads` workers. Masters and chain links share one message type, so a link's next is an
//! `ActorRef<RingMsg>` whichever it is.

use ::ractor::{ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::mixedload::{factorize, Config, Tally};
use crate::params::Params;
use crate::peers::{ractor_spawn, tokio_program, RactorState, Reporter};

use super::Collection;

/// What masters and chain links receive.
enum RingMsg {
    Build,
    Token(u64),
}

/// What a worker receives.
enum WorkerMsg {
    Calc(u64),
    Exit,
}

/// What the collector receives.
enum Collected {
    Factors(Vec<u64>),
    Done(u64),
}

struct MasterState {
    cfg: Config,
    rings_left: u64,
    tokens: u64,
    next: Option<ActorRef<RingMsg>>,
    worker: ActorRef<WorkerMsg>,
    collector: ActorRef<Collected>,
    done: Reporter<Tally>,
}

impl MasterState {
    async fn build(&mut self, myself: &ActorRef<RingMsg>) -> Result<(), ActorProcessingErr> {
        let mut next = myself.clone();
        for _ in 0..self.cfg.l {
            next = ractor_spawn(ChainLink {
                next,
                _done: self.done.clone(),
            })
            .await?
            .0;
        }
        next.cast(RingMsg::Token(self.cfg.t))?;
        self.next = Some(next);
        self.worker.cast(WorkerMsg::Calc(self.cfg.number))?;
        Ok(())
    }
}

impl RactorState for MasterState {
    type Msg = RingMsg;

    async fn handle(
        &mut self,
        myself: ActorRef<RingMsg>,
        msg: RingMsg,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            RingMsg::Build => self.build(&myself).await?,
            RingMsg::Token(x) => {
                self.tokens += 1;
                if x > 0 {
                    if let Some(next) = &self.next {
                        next.cast(RingMsg::Token(x - 1))?;
                    }
                    return Ok(());
                }
                self.next = None;
                self.rings_left -= 1;
                if self.rings_left > 0 {
                    self.build(&myself).await?;
                } else {
                    self.collector.cast(Collected::Done(self.tokens))?;
                    self.worker.cast(WorkerMsg::Exit)?;
                    myself.stop(None);
                }
            }
        }
        Ok(())
    }
}

/// A chain link: its next link (or master); it holds a reporter until it stops.
struct ChainLink {
    next: ActorRef<RingMsg>,
    _done: Reporter<Tally>,
}

impl RactorState for ChainLink {
    type Msg = RingMsg;

    async fn handle(
        &mut self,
        myself: ActorRef<RingMsg>,
        msg: RingMsg,
    ) -> Result<(), ActorProcessingErr> {
        if let RingMsg::Token(n) = msg {
            self.next.cast(RingMsg::Token(n))?;
            if n == 0 {
                myself.stop(None);
            }
        }
        Ok(())
    }
}

/// A worker: the collector it sends factors to; it holds a reporter until it stops.
struct Worker {
    collector: ActorRef<Collected>,
    _done: Reporter<Tally>,
}

impl RactorState for Worker {
    type Msg = WorkerMsg;

    async fn handle(
        &mut self,
        myself: ActorRef<WorkerMsg>,
        msg: WorkerMsg,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            WorkerMsg::Calc(n) => self.collector.cast(Collected::Factors(factorize(n)))?,
            WorkerMsg::Exit => myself.stop(None),
        }
        Ok(())
    }
}

/// The collector's state: its tally, reported once complete.
struct CollectorState(Collection);

impl RactorState for CollectorState {
    type Msg = Collected;

    async fn handle(
        &mut self,
        myself: ActorRef<Collected>,
        msg: Collected,
    ) -> Result<(), ActorProcessingErr> {
        let complete = match msg {
            Collected::Factors(factors) => self.0.factors(factors),
            Collected::Done(tokens) => self.0.done(tokens),
        };
        if complete {
            myself.stop(None);
        }
        Ok(())
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
    let state = CollectorState(Collection::new(cfg, reporter.clone()));
    let (collector, _) = ractor_spawn(state).await.expect("spawn the collector");
    let mut masters = Vec::with_capacity(cfg.r as usize);
    for _ in 0..cfg.r {
        let (worker, _) = ractor_spawn(Worker {
            collector: collector.clone(),
            _done: reporter.clone(),
        })
        .await
        .expect("spawn a worker");
        let state = MasterState {
            cfg,
            rings_left: cfg.k,
            tokens: 0,
            next: None,
            worker,
            collector: collector.clone(),
            done: reporter.clone(),
        };
        let (master, _) = ractor_spawn(state).await.expect("spawn a master");
        masters.push(master);
    }
    for master in masters {
        master.cast(RingMsg::Build).expect("the master is running");
    }
}
