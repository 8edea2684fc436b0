//! Chameneos as motet processes: the Mall is a process reading its channel, and it spawns the
//! creatures when it starts, as the actor version's Mall does. Each creature is a process with its
//! own channel; its requests to the Mall carry the sending end of that channel, which the Mall
//! hands to the creature it pairs it with (Effpi's broker passes the mates' channels the same way).
//! The message flow is SPEC.md's: a creature starts by sending `Meet`; the Mall forwards the second
//! `Meet` of a pair to the waiting creature, which answers its mate with `Change` and both ask
//! again; with no meetings left the Mall answers `Exit`, and the creature reports its count.

use std::collections::VecDeque;

use motet_process::channel::{self, Sender};
use motet_process::ProcessSystem;

use super::{check, Color, Config};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::ResultSlot;
use crate::params::Params;
use crate::process_support;

/// Builds the runtime and the process system; `threads` workers. The Mall takes one message at a
/// time, as SPEC.md's does.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    process_support::prepare((Config::from_params(params)?, Take::One), threads, run)
}

/// As [`prepare`], with the Mall draining its channel in bulk (`recv_many`, deviation
/// `recv-many`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    process_support::prepare((Config::from_params(params)?, Take::Many), threads, run)
}

/// How the Mall takes its messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Take {
    /// One `recv` per message.
    One,
    /// Every queued message at once (`recv_many`: one lock of the channel per batch, as an actor
    /// takes its mailbox).
    Many,
}

/// What the creatures send to the Mall.
enum MallMsg {
    /// A creature of this color asks for a mate; answer on this channel.
    Meet(Color, Sender<CreatureMsg>),
    /// A faded creature's meetings.
    MeetingCount(u64),
}

/// What a creature receives.
enum CreatureMsg {
    /// From the Mall: the mate's color and channel.
    Meet(Color, Sender<CreatureMsg>),
    /// From the mate: the color to take.
    Change(Color),
    /// From the Mall: no meetings left.
    Exit,
}

/// The Mall: spawns the `c` creatures, pairs them until `m` meetings have happened, then sends
/// each `Exit` and sums their counts. It takes the requests in the order they came, one at a time
/// or in batches (`take`).
async fn mall(system: ProcessSystem, cfg: Config, take: Take, result: ResultSlot<u64>) {
    let Config { c, m } = cfg;
    let (mall_tx, inbox) = channel::unbounded();
    for i in 0..c {
        system.spawn(creature(mall_tx.clone(), Color::initial(i)));
    }
    drop(mall_tx);
    let mut meetings_left = m;
    let mut waiting: Option<Sender<CreatureMsg>> = None;
    let (mut sum_meetings, mut faded) = (0, 0);
    let mut batch = VecDeque::new();
    loop {
        match take {
            Take::One => match inbox.recv().await {
                Ok(msg) => batch.push_back(msg),
                Err(_) => return,
            },
            Take::Many => {
                if inbox.recv_many(&mut batch).await.is_err() {
                    return;
                }
            }
        }
        for msg in batch.drain(..) {
            match msg {
                MallMsg::Meet(color, from) => {
                    if meetings_left == 0 {
                        let _ = from.send(CreatureMsg::Exit);
                    } else if let Some(waiting) = waiting.take() {
                        meetings_left -= 1;
                        let _ = waiting.send(CreatureMsg::Meet(color, from));
                    } else {
                        waiting = Some(from);
                    }
                }
                MallMsg::MeetingCount(count) => {
                    sum_meetings += count;
                    faded += 1;
                    if faded == c {
                        result.set(sum_meetings);
                        return;
                    }
                }
            }
        }
    }
}

/// A creature: asks the Mall for a mate, and on each meeting changes color and asks again, until
/// the Mall says `Exit`; then reports its meetings.
async fn creature(mall: Sender<MallMsg>, mut color: Color) {
    let (me, inbox) = channel::unbounded();
    let mut meetings = 0;
    let _ = mall.send(MallMsg::Meet(color, me.clone()));
    while let Ok(msg) = inbox.recv().await {
        match msg {
            CreatureMsg::Meet(other_color, other) => {
                color = color.complement(other_color);
                meetings += 1;
                let _ = other.send(CreatureMsg::Change(color));
                let _ = mall.send(MallMsg::Meet(color, me.clone()));
            }
            CreatureMsg::Change(new_color) => {
                color = new_color;
                meetings += 1;
                let _ = mall.send(MallMsg::Meet(color, me.clone()));
            }
            CreatureMsg::Exit => {
                let _ = mall.send(MallMsg::MeetingCount(meetings));
                return;
            }
        }
    }
}

/// One timed iteration: spawns the Mall (which spawns the creatures), waits for every process and
/// checks the sum of the meetings.
fn run(&(cfg, take): &(Config, Take), system: &ProcessSystem) -> Outcome {
    let result = ResultSlot::new();
    system.spawn(mall(system.clone(), cfg, take, result.clone()));
    process_support::finish(system, || check(cfg.m, result.take().unwrap_or(0)))
}
