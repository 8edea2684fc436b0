//! Mailbox N:1 as motet actors. By default the receiver handles the runtime's default batch per
//! turn. Under `actor-tuned` it drains its mailbox without yielding (an unbounded batch, as CAF's
//! default unlimited throughput): it is the one consumer, and every turn it gives up costs a
//! rescheduling while the senders keep pushing.

use motet_actor::{spawn, Actor, Addr, Context, Spawn, DEFAULT_BATCH};
use motet_runtime::Runtime;

use super::{check, Config, Numbered, Tally};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare((Config::from_params(params)?, DEFAULT_BATCH), threads, run)
}

/// As [`prepare`], with the receiver's batch unbounded (deviation `batch`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare((Config::from_params(params)?, u32::MAX), threads, run)
}

/// Counts the messages; exits with the tally after the last.
struct Receiver {
    tally: Tally,
    total: u64,
    slot: ResultSlot<Tally>,
}

impl Actor for Receiver {
    type Msg = Numbered;

    #[inline]
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Numbered) {
        if self.tally.count(msg) == self.total {
            self.slot
                .set(std::mem::replace(&mut self.tally, Tally::new(0)));
            ctx.stop();
        }
    }
}

/// Sends its `m` messages on `Go`, then exits.
struct Sender {
    index: u32,
    m: u32,
    receiver: Addr<Numbered>,
}

impl Actor for Sender {
    type Msg = ();

    fn handle(&mut self, ctx: &mut Context<'_, Self>, _go: ()) {
        for seq in 0..self.m {
            let _ = self.receiver.tell(Numbered {
                sender: self.index,
                seq,
            });
        }
        ctx.stop();
    }
}

/// One timed iteration: creates the receiver and the senders, starts them, runs to quiescence and
/// checks the tally.
fn run((cfg, batch): &(Config, u32), rt: &Runtime) -> Outcome {
    let slot = ResultSlot::new();
    let receiver = Spawn::new(Receiver {
        tally: Tally::new(cfg.s),
        total: cfg.total(),
        slot: slot.clone(),
    })
    .batch(*batch)
    .spawn(rt.handle());
    let senders: Vec<Addr<()>> = (0..cfg.s)
        .map(|index| {
            spawn(
                rt.handle(),
                Sender {
                    index,
                    m: cfg.m,
                    receiver: receiver.clone(),
                },
            )
        })
        .collect();
    drop(receiver);
    for sender in senders {
        let _ = sender.send(());
    }
    rt.wait_quiescent();
    check(*cfg, slot.take().as_ref())
}
