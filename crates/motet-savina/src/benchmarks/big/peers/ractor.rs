//! Big on ractor: the sink and `W` Big actors on a tokio runtime with `threads` workers.

use std::sync::Arc;

use ::ractor::{ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::big::Config;
use crate::params::Params;
use crate::peers::{ractor_spawn, tokio_program, RactorState, Reporter};

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

struct BigState {
    pinger: Pinger,
    neighbors: Arc<[ActorRef<BigMsg>]>,
    sink: ActorRef<SinkMsg>,
    done: Reporter<Report>,
}

impl RactorState for BigState {
    type Msg = BigMsg;

    async fn handle(
        &mut self,
        myself: ActorRef<BigMsg>,
        msg: BigMsg,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            BigMsg::Neighbors(neighbors) => self.neighbors = neighbors,
            BigMsg::Pong(sender) => match self.pinger.pong(sender, self.neighbors.len()) {
                AfterPong::Ping(target) => {
                    self.neighbors[target].cast(BigMsg::Ping(self.pinger.id))?;
                }
                AfterPong::Exit => self.sink.cast(SinkMsg::Exit)?,
            },
            BigMsg::Ping(sender) => {
                self.neighbors[sender].cast(BigMsg::Pong(self.pinger.ping()))?;
            }
            BigMsg::Exit => {
                self.done.report(self.pinger.report());
                myself.stop(None);
            }
        }
        Ok(())
    }
}

struct SinkState {
    exits: u64,
    neighbors: Arc<[ActorRef<BigMsg>]>,
    done: Reporter<Report>,
}

impl RactorState for SinkState {
    type Msg = SinkMsg;

    async fn handle(
        &mut self,
        myself: ActorRef<SinkMsg>,
        msg: SinkMsg,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SinkMsg::Neighbors(neighbors) => self.neighbors = neighbors,
            SinkMsg::Exit => {
                self.exits += 1;
                if self.exits == self.neighbors.len() as u64 {
                    for big in self.neighbors.iter() {
                        big.cast(BigMsg::Exit)?;
                    }
                    self.done.report(Report::Exits(self.exits));
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
    let (sink, _) = ractor_spawn(sink_state).await.expect("spawn the sink");
    let mut bigs = Vec::with_capacity(w);
    for id in 0..w {
        let state = BigState {
            pinger: Pinger::new(id, n),
            neighbors: Arc::from([]),
            sink: sink.clone(),
            done: reporter.clone(),
        };
        let (big, _) = ractor_spawn(state).await.expect("spawn a Big actor");
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
