//! Mixed load on ractor: masters, chain links, workers and the collector on a tokio runtime with
//! `threads` workers. Masters and chain links share one message type, so a link's next is an
//! `ActorRef<RingMsg>` whichever it is.

use ::ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::mixedload::{factorize, Config, Tally};
use crate::params::Params;
use crate::peers::{tokio_program, Reporter};

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

struct Master;

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
            let args = (next, self.done.clone());
            next = Actor::spawn(None, ChainLink, args).await?.0;
        }
        next.cast(RingMsg::Token(self.cfg.t))?;
        self.next = Some(next);
        self.worker.cast(WorkerMsg::Calc(self.cfg.number))?;
        Ok(())
    }
}

impl Actor for Master {
    type Msg = RingMsg;
    type State = MasterState;
    type Arguments = MasterState;

    async fn pre_start(
        &self,
        _: ActorRef<RingMsg>,
        state: MasterState,
    ) -> Result<MasterState, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<RingMsg>,
        msg: RingMsg,
        state: &mut MasterState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            RingMsg::Build => state.build(&myself).await?,
            RingMsg::Token(x) => {
                state.tokens += 1;
                if x > 0 {
                    if let Some(next) = &state.next {
                        next.cast(RingMsg::Token(x - 1))?;
                    }
                    return Ok(());
                }
                state.next = None;
                state.rings_left -= 1;
                if state.rings_left > 0 {
                    state.build(&myself).await?;
                } else {
                    state.collector.cast(Collected::Done(state.tokens))?;
                    state.worker.cast(WorkerMsg::Exit)?;
                    myself.stop(None);
                }
            }
        }
        Ok(())
    }
}

struct ChainLink;

impl Actor for ChainLink {
    type Msg = RingMsg;
    type State = (ActorRef<RingMsg>, Reporter<Tally>);
    type Arguments = (ActorRef<RingMsg>, Reporter<Tally>);

    async fn pre_start(
        &self,
        _: ActorRef<RingMsg>,
        state: Self::State,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<RingMsg>,
        msg: RingMsg,
        (next, _): &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        if let RingMsg::Token(n) = msg {
            next.cast(RingMsg::Token(n))?;
            if n == 0 {
                myself.stop(None);
            }
        }
        Ok(())
    }
}

struct Worker;

impl Actor for Worker {
    type Msg = WorkerMsg;
    type State = (ActorRef<Collected>, Reporter<Tally>);
    type Arguments = (ActorRef<Collected>, Reporter<Tally>);

    async fn pre_start(
        &self,
        _: ActorRef<WorkerMsg>,
        state: Self::State,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<WorkerMsg>,
        msg: WorkerMsg,
        (collector, _): &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            WorkerMsg::Calc(n) => collector.cast(Collected::Factors(factorize(n)))?,
            WorkerMsg::Exit => myself.stop(None),
        }
        Ok(())
    }
}

struct Collector;

struct CollectorState {
    cfg: Config,
    tally: Tally,
    done: Reporter<Tally>,
}

impl Actor for Collector {
    type Msg = Collected;
    type State = CollectorState;
    type Arguments = CollectorState;

    async fn pre_start(
        &self,
        _: ActorRef<Collected>,
        state: CollectorState,
    ) -> Result<CollectorState, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<Collected>,
        msg: Collected,
        state: &mut CollectorState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            Collected::Factors(factors) => state.tally.factors(factors, &state.cfg.factors),
            Collected::Done(tokens) => state.tally.done(tokens),
        }
        if state.tally.complete(&state.cfg) {
            state.done.report(std::mem::take(&mut state.tally));
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
    let state = CollectorState {
        cfg,
        tally: Tally::default(),
        done: reporter.clone(),
    };
    let (collector, _) = Actor::spawn(None, Collector, state)
        .await
        .expect("spawn the collector");
    let mut masters = Vec::with_capacity(cfg.r as usize);
    for _ in 0..cfg.r {
        let (worker, _) = Actor::spawn(None, Worker, (collector.clone(), reporter.clone()))
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
        let (master, _) = Actor::spawn(None, Master, state)
            .await
            .expect("spawn a master");
        masters.push(master);
    }
    for master in masters {
        master.cast(RingMsg::Build).expect("the master is running");
    }
}
