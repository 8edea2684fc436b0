//! Mailbox N:1 on actix: the receiver and the senders placed round-robin on the arbiters (the
//! receiver first).

use ::actix::{ActorContext, Addr, Context, Handler, Message};

use crate::bench::Prepared;
use crate::benchmarks::mailbox::{Config, Numbered, Tally};
use crate::params::Params;
use crate::peers::{actix_program, Placement, Reporter};

/// One numbered message.
#[derive(Message)]
#[rtype(result = "()")]
struct Item(Numbered);

/// Start sending.
#[derive(Message)]
#[rtype(result = "()")]
struct Go;

struct Receiver {
    tally: Tally,
    total: u64,
    done: Reporter<Tally>,
}

crate::peers::actix_actors!(Receiver);

impl Handler<Item> for Receiver {
    type Result = ();

    fn handle(&mut self, Item(msg): Item, ctx: &mut Context<Self>) {
        if self.tally.count(msg) == self.total {
            self.done
                .report(std::mem::replace(&mut self.tally, Tally::new(0)));
            ctx.stop();
        }
    }
}

struct Sender {
    index: u32,
    m: u32,
    receiver: Addr<Receiver>,
    _done: Reporter<Tally>,
}

crate::peers::actix_actors!(Sender);

impl Handler<Go> for Sender {
    type Result = ();

    fn handle(&mut self, _: Go, ctx: &mut Context<Self>) {
        for seq in 0..self.m {
            self.receiver.do_send(Item(Numbered {
                sender: self.index,
                seq,
            }));
        }
        ctx.stop();
    }
}

/// Builds the arbiters (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    actix_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Starts the receiver and the senders and sends each sender `Go`, on the main thread; returns
/// every address, which the main thread keeps until every actor has exited.
fn start(
    cfg: Config,
    mut place: Placement,
    reporter: Reporter<Tally>,
) -> (Addr<Receiver>, Vec<Addr<Sender>>) {
    let done = reporter.clone();
    let receiver = place.start(move || Receiver {
        tally: Tally::new(cfg.s),
        total: cfg.total(),
        done,
    });
    let senders: Vec<Addr<Sender>> = (0..cfg.s)
        .map(|index| {
            let (receiver, done) = (receiver.clone(), reporter.clone());
            place.start(move || Sender {
                index,
                m: cfg.m,
                receiver,
                _done: done,
            })
        })
        .collect();
    for sender in &senders {
        sender.do_send(Go);
    }
    (receiver, senders)
}
