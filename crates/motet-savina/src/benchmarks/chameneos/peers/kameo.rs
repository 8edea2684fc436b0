//! Chameneos on kameo: a mall and `C` creatures with unbounded mailboxes on a tokio runtime with
//! `threads` workers.

use ::kameo::actor::ActorRef;
use ::kameo::error::Infallible;
use ::kameo::message::{Context, Message};
use ::kameo::Actor;

use crate::bench::Prepared;
use crate::benchmarks::chameneos::{Color, Config};
use crate::params::Params;
use crate::peers::{kameo_spawn, tokio_program, Reporter};

use super::Pairing;

/// A creature asks the mall for a partner; the mall forwards it to the partner.
struct Meet(Color, ActorRef<Creature>);

/// The partner's new color.
struct Change(Color);

/// No meetings are left.
struct Exit;

/// A faded creature's number of meetings.
struct MeetingCount(u64);

struct Mall {
    state: super::Mall<ActorRef<Creature>>,
    done: Reporter<u64>,
}

impl Actor for Mall {
    type Args = Self;
    type Error = Infallible;

    async fn on_start(mall: Self, me: ActorRef<Self>) -> Result<Self, Infallible> {
        for i in 0..mall.state.creatures {
            let creature = Creature {
                color: Color::initial(i),
                meetings: 0,
                mall: me.clone(),
                _done: mall.done.clone(),
            };
            kameo_spawn(creature);
        }
        Ok(mall)
    }
}

impl Message<Meet> for Mall {
    type Reply = ();

    async fn handle(&mut self, Meet(color, from): Meet, _: &mut Context<Self, ()>) {
        match self.state.meet(color, from) {
            Pairing::Wait => {}
            Pairing::Forward { to, color, from } => {
                let _ = to.tell(Meet(color, from)).try_send();
            }
            Pairing::Exit(from) => {
                let _ = from.tell(Exit).try_send();
            }
        }
    }
}

impl Message<MeetingCount> for Mall {
    type Reply = ();

    async fn handle(&mut self, MeetingCount(k): MeetingCount, ctx: &mut Context<Self, ()>) {
        if let Some(sum) = self.state.meeting_count(k) {
            self.done.report(sum);
            ctx.stop();
        }
    }
}

struct Creature {
    color: Color,
    meetings: u64,
    mall: ActorRef<Mall>,
    _done: Reporter<u64>,
}

impl Creature {
    fn meet_again(&self, me: &ActorRef<Creature>) {
        let _ = self.mall.tell(Meet(self.color, me.clone())).try_send();
    }
}

impl Actor for Creature {
    type Args = Self;
    type Error = Infallible;

    async fn on_start(creature: Self, me: ActorRef<Self>) -> Result<Self, Infallible> {
        creature.meet_again(&me);
        Ok(creature)
    }
}

impl Message<Meet> for Creature {
    type Reply = ();

    async fn handle(&mut self, Meet(other, partner): Meet, ctx: &mut Context<Self, ()>) {
        self.color = self.color.complement(other);
        self.meetings += 1;
        let _ = partner.tell(Change(self.color)).try_send();
        self.meet_again(ctx.actor_ref());
    }
}

impl Message<Change> for Creature {
    type Reply = ();

    async fn handle(&mut self, Change(color): Change, ctx: &mut Context<Self, ()>) {
        self.color = color;
        self.meetings += 1;
        self.meet_again(ctx.actor_ref());
    }
}

impl Message<Exit> for Creature {
    type Reply = ();

    async fn handle(&mut self, _: Exit, ctx: &mut Context<Self, ()>) {
        self.color = Color::Faded;
        let _ = self.mall.tell(MeetingCount(self.meetings)).try_send();
        ctx.stop();
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the first actors and sends the kick-off messages, on the main thread.
async fn start(Config { c, m }: Config, reporter: Reporter<u64>) {
    let mall = Mall {
        state: super::Mall::new(c, m),
        done: reporter,
    };
    let mall = kameo_spawn(mall);
    drop(mall);
}
