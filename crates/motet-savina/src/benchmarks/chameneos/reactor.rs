//! Chameneos as reactors, after LF's port.
//!
//! The Mall and a bank of C creatures. The Mall talks to creature i on channel i of its multiports
//! (`mall.out -> creatures.from_mall`, `creatures.to_mall -> mall.in`), and the creatures are fully
//! connected to each other (`creatures.out -> interleaved(creatures.in)`: creature i's channel j
//! reaches creature j's channel i). The Mall takes in all the `Meet`s that arrive at a tag in one
//! reaction and then, one microstep later (a logical action breaks the loop Mall → creature →
//! Mall), pairs the waiting creatures in index order: it forwards the second creature's `Meet` to
//! the first, or, once no meetings are left, tells every waiting creature to exit. A creature that
//! gets a `Meet` takes the complement color, counts, sends `Change` to the other creature and goes
//! back to the mall; one that gets `Change` takes the color, counts and goes back; one that gets
//! `Exit` fades and reports its count. As LF notes, pairing is deterministic: the same creatures
//! meet in every run.

use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, Color, Config};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// What travels between the Mall and the creatures.
#[derive(Clone, Copy, Debug)]
enum Msg {
    /// Mall → creature: go to the mall.
    Start,
    /// Creature → Mall: I am here, with my color; Mall → creature: meet this creature.
    Meet { color: Color, id: usize },
    /// Creature → creature: the color the other one took.
    Change { color: Color },
    /// Mall → creature: no meetings left.
    Exit,
    /// Creature → Mall: the meetings of a faded creature.
    MeetingCount(u64),
}

/// The Mall's state.
struct Mall {
    meetings_left: u64,
    /// Per creature, its `Meet` while it waits at the mall.
    waiting: Vec<Option<Msg>>,
    faded: usize,
    sum_meetings: u64,
}

/// A creature's state.
struct Creature {
    id: usize,
    color: Color,
    meetings: u64,
}

/// What reads the result of a built program: the Mall, which holds the result.
pub(super) struct Chameneos {
    cfg: Config,
    mall: ReactorId<Mall>,
}

/// Builds the program for `cfg.c` creatures and `cfg.m` meetings.
pub(super) fn build(cfg: &Config) -> (Program, Chameneos) {
    let c = cfg.c;
    let mut b = ProgramBuilder::new();
    let mall = b.reactor(
        "mall",
        Mall {
            meetings_left: cfg.m,
            waiting: vec![None; c],
            faded: 0,
            sum_meetings: 0,
        },
    );
    let to_creatures = b.output_multiport::<Msg, _>(mall, "out", c);
    let from_creatures = b.input_multiport::<Msg, _>(mall, "in", c);
    let pair = b.logical_action::<(), _>(mall, "pair", Duration::ZERO);
    b.reaction(mall, "start")
        .trigger(Startup)
        .effect(to_creatures)
        .body(move |_, ctx| {
            for ch in to_creatures.channels() {
                ctx.set(ch, Msg::Start);
            }
        });
    b.reaction(mall, "pair")
        .trigger(pair)
        .effect(to_creatures)
        .body(move |m: &mut Mall, ctx| {
            let mut first: Option<usize> = None;
            for i in 0..m.waiting.len() {
                let Some(meet) = m.waiting[i] else { continue };
                if m.meetings_left == 0 {
                    m.waiting[i] = None;
                    ctx.set(to_creatures.channel(i), Msg::Exit);
                } else if let Some(w) = first.take() {
                    m.meetings_left -= 1;
                    m.waiting[w] = None;
                    m.waiting[i] = None;
                    ctx.set(to_creatures.channel(w), meet);
                } else {
                    first = Some(i);
                }
            }
        });
    b.reaction(mall, "arrive")
        .trigger(from_creatures)
        .effect(pair)
        .body(move |m: &mut Mall, ctx| {
            for (i, msg) in ctx.present_unordered(from_creatures) {
                match *msg {
                    Msg::MeetingCount(k) => {
                        m.faded += 1;
                        m.sum_meetings += k;
                    }
                    meet => m.waiting[i] = Some(meet),
                }
            }
            if m.faded < m.waiting.len() {
                ctx.schedule(pair, (), Duration::ZERO);
            }
        });
    let creatures = b.bank(c, |b, i| {
        let r = b.reactor(
            &format!("creature[{i}]"),
            Creature {
                id: i,
                color: Color::initial(i),
                meetings: 0,
            },
        );
        let from_mall = b.input::<Msg, _>(r, "from_mall");
        let to_mall = b.output::<Msg, _>(r, "to_mall");
        let out = b.output_multiport::<Msg, _>(r, "out", c);
        let input = b.input_multiport::<Msg, _>(r, "in", c);
        b.reaction(r, "mall")
            .trigger(from_mall)
            .effect(to_mall)
            .effect(out)
            .body(move |me: &mut Creature, ctx| match ctx.get(from_mall) {
                Some(Msg::Start) => ctx.set(
                    to_mall,
                    Msg::Meet {
                        color: me.color,
                        id: me.id,
                    },
                ),
                Some(&Msg::Meet { color, id }) => {
                    me.color = me.color.complement(color);
                    me.meetings += 1;
                    ctx.set(out.channel(id), Msg::Change { color: me.color });
                    ctx.set(
                        to_mall,
                        Msg::Meet {
                            color: me.color,
                            id: me.id,
                        },
                    );
                }
                Some(Msg::Exit) => {
                    me.color = Color::Faded;
                    ctx.set(to_mall, Msg::MeetingCount(me.meetings));
                }
                _ => {}
            });
        b.reaction(r, "change").trigger(input).effect(to_mall).body(
            move |me: &mut Creature, ctx| {
                for (_, msg) in ctx.present_unordered(input) {
                    if let Msg::Change { color } = *msg {
                        me.color = color;
                        me.meetings += 1;
                        ctx.set(
                            to_mall,
                            Msg::Meet {
                                color: me.color,
                                id: me.id,
                            },
                        );
                    }
                }
            },
        );
        (from_mall, to_mall, out, input)
    });
    let from_mall: Ports<Msg> = creatures.iter().map(|x| x.0).collect();
    let to_mall: Ports<Msg> = creatures.iter().map(|x| x.1).collect();
    let outs: Ports<Msg> = creatures.iter().map(|x| x.2).collect();
    b.connect(to_creatures, from_mall);
    b.connect(to_mall, from_creatures);
    b.connect(outs, Ports::interleaved(creatures.iter().map(|x| x.3)));
    (
        b.build().expect("the chameneos program is well formed"),
        Chameneos { cfg: *cfg, mall },
    )
}

impl Built for Chameneos {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let mall = program.state_mut(self.mall);
        if mall.faded != self.cfg.c {
            return Outcome {
                result: mall.sum_meetings.into(),
                check: Err(format!("{} of {} creatures faded", mall.faded, self.cfg.c)),
            };
        }
        check(self.cfg.m, mall.sum_meetings)
    }
}
