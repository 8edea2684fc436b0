//! Mailbox N:1 on ractor: the receiver and the senders on a tokio runtime with `threads` workers.

use ::ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::mailbox::{Config, Numbered, Tally};
use crate::params::Params;
use crate::peers::{tokio_program, Reporter};

/// Start sending.
struct Go;

struct Receiver;

struct ReceiverState {
    tally: Tally,
    total: u64,
    done: Reporter<Tally>,
}

impl Actor for Receiver {
    type Msg = Numbered;
    type State = ReceiverState;
    type Arguments = ReceiverState;

    async fn pre_start(
        &self,
        _: ActorRef<Numbered>,
        state: ReceiverState,
    ) -> Result<ReceiverState, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<Numbered>,
        msg: Numbered,
        state: &mut ReceiverState,
    ) -> Result<(), ActorProcessingErr> {
        if state.tally.count(msg) == state.total {
            state
                .done
                .report(std::mem::replace(&mut state.tally, Tally::new(0)));
            myself.stop(None);
        }
        Ok(())
    }
}

struct Sender;

struct SenderState {
    index: u32,
    m: u32,
    receiver: ActorRef<Numbered>,
    _done: Reporter<Tally>,
}

impl Actor for Sender {
    type Msg = Go;
    type State = SenderState;
    type Arguments = SenderState;

    async fn pre_start(
        &self,
        _: ActorRef<Go>,
        state: SenderState,
    ) -> Result<SenderState, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<Go>,
        _: Go,
        state: &mut SenderState,
    ) -> Result<(), ActorProcessingErr> {
        for seq in 0..state.m {
            state.receiver.cast(Numbered {
                sender: state.index,
                seq,
            })?;
        }
        myself.stop(None);
        Ok(())
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Spawns the receiver and the senders and sends each sender `Go`, on the main thread.
async fn start(cfg: Config, reporter: Reporter<Tally>) {
    let state = ReceiverState {
        tally: Tally::new(cfg.s),
        total: cfg.total(),
        done: reporter.clone(),
    };
    let (receiver, _) = Actor::spawn(None, Receiver, state)
        .await
        .expect("spawn the receiver");
    let mut senders = Vec::with_capacity(cfg.s as usize);
    for index in 0..cfg.s {
        let state = SenderState {
            index,
            m: cfg.m,
            receiver: receiver.clone(),
            _done: reporter.clone(),
        };
        let (sender, _) = Actor::spawn(None, Sender, state)
            .await
            .expect("spawn a sender");
        senders.push(sender);
    }
    for sender in senders {
        sender.cast(Go).expect("the sender is running");
    }
}
