//! Mailbox N:1 on ractor: the receiver and the senders on a tokio runtime with `threads` workers.

use ::ractor::{ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::mailbox::{Config, Numbered, Tally};
use crate::params::Params;
use crate::peers::{ractor_spawn, tokio_program, RactorState, Reporter};

/// Start sending.
struct Go;

struct ReceiverState {
    tally: Tally,
    total: u64,
    done: Reporter<Tally>,
}

impl RactorState for ReceiverState {
    type Msg = Numbered;

    async fn handle(
        &mut self,
        myself: ActorRef<Numbered>,
        msg: Numbered,
    ) -> Result<(), ActorProcessingErr> {
        if self.tally.count(msg) == self.total {
            self.done
                .report(std::mem::replace(&mut self.tally, Tally::new(0)));
            myself.stop(None);
        }
        Ok(())
    }
}

struct SenderState {
    index: u32,
    m: u32,
    receiver: ActorRef<Numbered>,
    _done: Reporter<Tally>,
}

impl RactorState for SenderState {
    type Msg = Go;

    async fn handle(&mut self, myself: ActorRef<Go>, _: Go) -> Result<(), ActorProcessingErr> {
        for seq in 0..self.m {
            self.receiver.cast(Numbered {
                sender: self.index,
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
    let (receiver, _) = ractor_spawn(state).await.expect("spawn the receiver");
    let mut senders = Vec::with_capacity(cfg.s as usize);
    for index in 0..cfg.s {
        let state = SenderState {
            index,
            m: cfg.m,
            receiver: receiver.clone(),
            _done: reporter.clone(),
        };
        let (sender, _) = ractor_spawn(state).await.expect("spawn a sender");
        senders.push(sender);
    }
    for sender in senders {
        sender.cast(Go).expect("the sender is running");
    }
}
