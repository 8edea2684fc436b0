//! Big on ractor: the sink and `W` Big actors on a tokio runtime with `threads` workers.

use std::sync::Arc;

use ::ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::big::Config;
use crate::params::Params;
use crate::peers::{tokio_program, Reporter};

use super::{AfterPong, Pinger, Report};

/// A Big actor's messages.
enum BigMsg {
    /// Every Big actor, by id.
    Neighbors(Arc<[ActorRef<BigMsg>]>),
    /// A ping from the Big actor with the given id.
    Ping(usize),
    /// A pong from the Big actor with the given id (`-1`: the kick-off).
    Pong(i64),
    /// Stop.
    Exit,
}

/// The sink's messages.
enum SinkMsg {
    /// Every Big actor, by id.
    Neighbors(Arc<[ActorRef<BigMsg>]>),
    /// A Big actor is done.
    Exit,
}

struct BigActor;

struct BigState {
    pinger: Pinger,
    neighbors: Arc<[ActorRef<BigMsg>]>,
    sink: ActorRef<SinkMsg>,
    done: Reporter<Report>,
}

impl Actor for BigActor {
    type Msg = BigMsg;
    type State = BigState;
    type Arguments = BigState;

    async fn pre_start(
        &self,
        _: ActorRef<BigMsg>,
        state: BigState,
    ) -> Result<BigState, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<BigMsg>,
        msg: BigMsg,
        state: &mut BigState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            BigMsg::Neighbors(neighbors) => state.neighbors = neighbors,
            BigMsg::Pong(sender) => match state.pinger.pong(sender, state.neighbors.len()) {
                AfterPong::Ping(target) => {
                    state.neighbors[target].cast(BigMsg::Ping(state.pinger.id))?;
                }
                AfterPong::Exit => state.sink.cast(SinkMsg::Exit)?,
            },
            BigMsg::Ping(sender) => {
                state.neighbors[sender].cast(BigMsg::Pong(state.pinger.id as i64))?;
            }
            BigMsg::Exit => {
                state.done.report(Report::Errors(state.pinger.errors));
                myself.stop(None);
            }
        }
        Ok(())
    }
}

struct Sink;

struct SinkState {
    exits: u64,
    neighbors: Arc<[ActorRef<BigMsg>]>,
    done: Reporter<Report>,
}

impl Actor for Sink {
    type Msg = SinkMsg;
    type State = SinkState;
    type Arguments = SinkState;

    async fn pre_start(
        &self,
        _: ActorRef<SinkMsg>,
        state: SinkState,
    ) -> Result<SinkState, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<SinkMsg>,
        msg: SinkMsg,
        state: &mut SinkState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SinkMsg::Neighbors(neighbors) => state.neighbors = neighbors,
            SinkMsg::Exit => {
                state.exits += 1;
                if state.exits == state.neighbors.len() as u64 {
                    for big in state.neighbors.iter() {
                        big.cast(BigMsg::Exit)?;
                    }
                    state.done.report(Report::Exits(state.exits));
                    myself.stop(None);
                }
            }
        }
        Ok(())
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the first actors and sends the kick-off messages, on the main thread.
async fn start(Config { n, w }: Config, reporter: Reporter<Report>) {
    let sink_state = SinkState {
        exits: 0,
        neighbors: Arc::from([]),
        done: reporter.clone(),
    };
    let (sink, _) = Actor::spawn(None, Sink, sink_state)
        .await
        .expect("spawn the sink");
    let mut bigs = Vec::with_capacity(w);
    for id in 0..w {
        let state = BigState {
            pinger: Pinger::new(id, n),
            neighbors: Arc::from([]),
            sink: sink.clone(),
            done: reporter.clone(),
        };
        let (big, _) = Actor::spawn(None, BigActor, state)
            .await
            .expect("spawn a Big actor");
        bigs.push(big);
    }
    drop(reporter);
    let bigs: Arc<[ActorRef<BigMsg>]> = bigs.into();
    sink.cast(SinkMsg::Neighbors(Arc::clone(&bigs)))
        .expect("the sink is running");
    for big in bigs.iter() {
        big.cast(BigMsg::Neighbors(Arc::clone(&bigs)))
            .expect("the Big actor is running");
    }
    for big in bigs.iter() {
        big.cast(BigMsg::Pong(-1))
            .expect("the Big actor is running");
    }
    drop((sink, bigs));
}
