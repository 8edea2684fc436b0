//! Chameneos on ractor: a mall and `C` creatures on a tokio runtime with `threads` workers.

use ::ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::bench::Prepared;
use crate::benchmarks::chameneos::{Color, Config};
use crate::params::Params;
use crate::peers::{tokio_program, Reporter};

use super::Pairing;

/// The mall's messages.
enum MallMsg {
    /// A creature asks for a partner.
    Meet(Color, ActorRef<CreatureMsg>),
    /// A faded creature's number of meetings.
    MeetingCount(u64),
}

/// A creature's messages.
enum CreatureMsg {
    /// A partner, forwarded by the mall.
    Meet(Color, ActorRef<CreatureMsg>),
    /// The partner's new color.
    Change(Color),
    /// No meetings are left.
    Exit,
}

struct Mall;

/// The mall's arguments: the number of creatures and meetings, and the reporter.
struct MallArgs {
    c: usize,
    m: u64,
    done: Reporter<u64>,
}

struct MallState {
    state: super::Mall<ActorRef<CreatureMsg>>,
    done: Reporter<u64>,
}

impl Actor for Mall {
    type Msg = MallMsg;
    type State = MallState;
    type Arguments = MallArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<MallMsg>,
        args: MallArgs,
    ) -> Result<MallState, ActorProcessingErr> {
        for i in 0..args.c {
            let creature = CreatureState {
                color: Color::initial(i),
                meetings: 0,
                mall: myself.clone(),
                _done: args.done.clone(),
            };
            Actor::spawn(None, Creature, creature).await?;
        }
        Ok(MallState {
            state: super::Mall::new(args.c, args.m),
            done: args.done,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<MallMsg>,
        msg: MallMsg,
        state: &mut MallState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            MallMsg::Meet(color, from) => match state.state.meet(color, from) {
                Pairing::Wait => {}
                Pairing::Forward { to, color, from } => to.cast(CreatureMsg::Meet(color, from))?,
                Pairing::Exit(from) => from.cast(CreatureMsg::Exit)?,
            },
            MallMsg::MeetingCount(k) => {
                if let Some(sum) = state.state.meeting_count(k) {
                    state.done.report(sum);
                    myself.stop(None);
                }
            }
        }
        Ok(())
    }
}

struct Creature;

struct CreatureState {
    color: Color,
    meetings: u64,
    mall: ActorRef<MallMsg>,
    _done: Reporter<u64>,
}

impl Actor for Creature {
    type Msg = CreatureMsg;
    type State = CreatureState;
    type Arguments = CreatureState;

    async fn pre_start(
        &self,
        myself: ActorRef<CreatureMsg>,
        state: CreatureState,
    ) -> Result<CreatureState, ActorProcessingErr> {
        state.mall.cast(MallMsg::Meet(state.color, myself))?;
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<CreatureMsg>,
        msg: CreatureMsg,
        state: &mut CreatureState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            CreatureMsg::Meet(other, partner) => {
                state.color = state.color.complement(other);
                state.meetings += 1;
                partner.cast(CreatureMsg::Change(state.color))?;
                state.mall.cast(MallMsg::Meet(state.color, myself))?;
            }
            CreatureMsg::Change(color) => {
                state.color = color;
                state.meetings += 1;
                state.mall.cast(MallMsg::Meet(state.color, myself))?;
            }
            CreatureMsg::Exit => {
                state.color = Color::Faded;
                state.mall.cast(MallMsg::MeetingCount(state.meetings))?;
                myself.stop(None);
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
async fn start(Config { c, m }: Config, reporter: Reporter<u64>) {
    let args = MallArgs {
        c,
        m,
        done: reporter,
    };
    let (mall, _) = Actor::spawn(None, Mall, args).await.expect("spawn Mall");
    drop(mall);
}
