//! Chameneos on actix: a mall and `C` creatures, placed round-robin on the arbiters (the mall
//! first, then the creatures it creates).

use ::actix::{Actor, ActorContext, Addr, AsyncContext, Context, Handler, Message};

use crate::bench::Prepared;
use crate::benchmarks::chameneos::{Color, Config};
use crate::params::Params;
use crate::peers::{actix_program, Placement, Reporter};

use super::Pairing;

/// A creature asks the mall for a partner; the mall forwards it to the partner.
#[derive(Message)]
#[rtype(result = "()")]
struct Meet(Color, Addr<Creature>);

/// The partner's new color.
#[derive(Message)]
#[rtype(result = "()")]
struct Change(Color);

/// No meetings are left.
#[derive(Message)]
#[rtype(result = "()")]
struct Exit;

/// A faded creature's number of meetings.
#[derive(Message)]
#[rtype(result = "()")]
struct MeetingCount(u64);

struct Mall {
    state: super::Mall<Addr<Creature>>,
    place: Placement,
    /// Every creature's address, kept until the mall exits (see crate::peers).
    creatures: Vec<Addr<Creature>>,
    done: Reporter<u64>,
}

impl Actor for Mall {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        for i in 0..self.state.creatures {
            let mall = ctx.address();
            let done = self.done.clone();
            let creature = self.place.start(move || Creature {
                color: Color::initial(i),
                meetings: 0,
                mall,
                _done: done,
            });
            self.creatures.push(creature);
        }
    }
}

impl Handler<Meet> for Mall {
    type Result = ();

    fn handle(&mut self, Meet(color, from): Meet, _: &mut Context<Self>) {
        match self.state.meet(color, from) {
            Pairing::Wait => {}
            Pairing::Forward { to, color, from } => to.do_send(Meet(color, from)),
            Pairing::Exit(from) => from.do_send(Exit),
        }
    }
}

impl Handler<MeetingCount> for Mall {
    type Result = ();

    fn handle(&mut self, MeetingCount(k): MeetingCount, ctx: &mut Context<Self>) {
        if let Some(sum) = self.state.meeting_count(k) {
            self.done.report(sum);
            ctx.stop();
        }
    }
}

struct Creature {
    color: Color,
    meetings: u64,
    mall: Addr<Mall>,
    _done: Reporter<u64>,
}

impl Actor for Creature {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        self.mall.do_send(Meet(self.color, ctx.address()));
    }
}

impl Handler<Meet> for Creature {
    type Result = ();

    fn handle(&mut self, Meet(other, partner): Meet, ctx: &mut Context<Self>) {
        self.color = self.color.complement(other);
        self.meetings += 1;
        partner.do_send(Change(self.color));
        self.mall.do_send(Meet(self.color, ctx.address()));
    }
}

impl Handler<Change> for Creature {
    type Result = ();

    fn handle(&mut self, Change(color): Change, ctx: &mut Context<Self>) {
        self.color = color;
        self.meetings += 1;
        self.mall.do_send(Meet(self.color, ctx.address()));
    }
}

impl Handler<Exit> for Creature {
    type Result = ();

    fn handle(&mut self, _: Exit, ctx: &mut Context<Self>) {
        self.color = Color::Faded;
        self.mall.do_send(MeetingCount(self.meetings));
        ctx.stop();
    }
}

/// Builds the arbiters (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    actix_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Places the first actors and sends the kick-off messages, on the main thread; returns the
/// addresses the main thread keeps until every actor has exited.
fn start(Config { c, m }: Config, mut place: Placement, reporter: Reporter<u64>) -> Addr<Mall> {
    let arbiter = place.next_arbiter().clone();
    Mall::start_in_arbiter(&arbiter, move |_| Mall {
        state: super::Mall::new(c, m),
        place,
        creatures: Vec::with_capacity(c),
        done: reporter,
    })
}
