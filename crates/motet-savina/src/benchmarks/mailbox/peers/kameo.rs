//! Mailbox N:1 on kameo: the receiver and the senders with unbounded mailboxes on a tokio runtime
//! with `threads` workers.

use ::kameo::actor::ActorRef;
use ::kameo::message::{Context, Message};
use ::kameo::Actor;

use crate::bench::Prepared;
use crate::benchmarks::mailbox::{Config, Numbered, Tally};
use crate::params::Params;
use crate::peers::{kameo_spawn, tokio_program, Reporter};

/// Start sending.
struct Go;

#[derive(Actor)]
struct Receiver {
    tally: Tally,
    total: u64,
    done: Reporter<Tally>,
}

impl Message<Numbered> for Receiver {
    type Reply = ();

    async fn handle(&mut self, msg: Numbered, ctx: &mut Context<Self, ()>) {
        if self.tally.count(msg) == self.total {
            self.done
                .report(std::mem::replace(&mut self.tally, Tally::new(0)));
            ctx.stop();
        }
    }
}

#[derive(Actor)]
struct Sender {
    index: u32,
    m: u32,
    receiver: ActorRef<Receiver>,
    _done: Reporter<Tally>,
}

impl Message<Go> for Sender {
    type Reply = ();

    async fn handle(&mut self, _: Go, ctx: &mut Context<Self, ()>) {
        for seq in 0..self.m {
            let msg = Numbered {
                sender: self.index,
                seq,
            };
            let _ = self.receiver.tell(msg).try_send();
        }
        ctx.stop();
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Spawns the receiver and the senders and sends each sender `Go`, on the main thread.
async fn start(cfg: Config, reporter: Reporter<Tally>) {
    let receiver = Receiver {
        tally: Tally::new(cfg.s),
        total: cfg.total(),
        done: reporter.clone(),
    };
    let receiver = kameo_spawn(receiver);
    let senders: Vec<ActorRef<Sender>> = (0..cfg.s)
        .map(|index| {
            let sender = Sender {
                index,
                m: cfg.m,
                receiver: receiver.clone(),
                _done: reporter.clone(),
            };
            kameo_spawn(sender)
        })
        .collect();
    for sender in senders {
        sender.tell(Go).try_send().expect("the sender is running");
    }
}
