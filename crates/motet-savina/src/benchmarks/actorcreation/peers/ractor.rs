//! Actor creation on ractor: every testee spawns its two children from its handler, on a tokio
//! runtime with `threads` workers.

use ::ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::actorcreation::{Config, Msg};
use crate::params::Params;
use crate::peers::{tokio_program, Reporter};

struct Testee;

struct TesteeState {
    /// `None` for the root, which reports to the main thread.
    parent: Option<ActorRef<Msg>>,
    pending: u8,
    leaves: u64,
    done: Reporter<u64>,
}

impl TesteeState {
    fn finish(&mut self, leaves: u64, myself: &ActorRef<Msg>) -> Result<(), ActorProcessingErr> {
        match self.parent.take() {
            Some(parent) => parent.cast(Msg::Result(leaves))?,
            None => self.done.report(leaves),
        }
        myself.stop(None);
        Ok(())
    }
}

impl Actor for Testee {
    type Msg = Msg;
    type State = TesteeState;
    type Arguments = (Option<ActorRef<Msg>>, Reporter<u64>);

    async fn pre_start(
        &self,
        _: ActorRef<Msg>,
        (parent, done): Self::Arguments,
    ) -> Result<TesteeState, ActorProcessingErr> {
        Ok(TesteeState {
            parent,
            pending: 0,
            leaves: 0,
            done,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<Msg>,
        msg: Msg,
        state: &mut TesteeState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            Msg::Spread(0) => state.finish(1, &myself)?,
            Msg::Spread(depth) => {
                for _ in 0..2 {
                    let args = (Some(myself.clone()), state.done.clone());
                    let (child, _) = Actor::spawn(None, Testee, args).await?;
                    child.cast(Msg::Spread(depth - 1))?;
                }
                state.pending = 2;
            }
            Msg::Result(leaves) => {
                state.leaves += leaves;
                state.pending -= 1;
                if state.pending == 0 {
                    state.finish(state.leaves, &myself)?;
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

/// Spawns the root and sends it `Spread(n)`, on the main thread.
async fn start(Config { n }: Config, reporter: Reporter<u64>) {
    let (root, _) = Actor::spawn(None, Testee, (None, reporter))
        .await
        .expect("spawn the root");
    root.cast(Msg::Spread(n)).expect("the root is running");
}
