//! Chameneos as motet actors: the mall creates the creatures when it starts, and each creature
//! sends the Mall its first `Meet` as it starts (SPEC.md's flow).

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Color, Config};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

enum MallMsg {
    Meet(Color, Addr<CreatureMsg>),
    MeetingCount(u64),
}

enum CreatureMsg {
    Meet(Color, Addr<CreatureMsg>),
    Change(Color),
    Exit,
}

struct Mall {
    c: usize,
    meetings_left: u64,
    waiting: Option<Addr<CreatureMsg>>,
    sum_meetings: u64,
    faded: usize,
    result: ResultSlot<u64>,
}

impl Actor for Mall {
    type Msg = MallMsg;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        let mall = ctx.myself();
        for i in 0..self.c {
            ctx.spawn(Creature {
                mall: mall.clone(),
                color: Color::initial(i),
                meetings: 0,
            });
        }
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: MallMsg) {
        match msg {
            MallMsg::Meet(color, from) => {
                if self.meetings_left == 0 {
                    let _ = from.send(CreatureMsg::Exit);
                } else if let Some(waiting) = self.waiting.take() {
                    self.meetings_left -= 1;
                    let _ = waiting.send(CreatureMsg::Meet(color, from));
                } else {
                    self.waiting = Some(from);
                }
            }
            MallMsg::MeetingCount(count) => {
                self.sum_meetings += count;
                self.faded += 1;
                if self.faded == self.c {
                    self.result.set(self.sum_meetings);
                    ctx.stop();
                }
            }
        }
    }
}

struct Creature {
    mall: Addr<MallMsg>,
    color: Color,
    meetings: u64,
}

impl Actor for Creature {
    type Msg = CreatureMsg;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        let _ = self.mall.tell(MallMsg::Meet(self.color, ctx.myself()));
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: CreatureMsg) {
        match msg {
            CreatureMsg::Meet(other_color, other) => {
                self.color = self.color.complement(other_color);
                self.meetings += 1;
                let _ = other.send(CreatureMsg::Change(self.color));
                let _ = self.mall.tell(MallMsg::Meet(self.color, ctx.myself()));
            }
            CreatureMsg::Change(color) => {
                self.color = color;
                self.meetings += 1;
                let _ = self.mall.tell(MallMsg::Meet(self.color, ctx.myself()));
            }
            CreatureMsg::Exit => {
                self.color = Color::Faded;
                let _ = self.mall.tell(MallMsg::MeetingCount(self.meetings));
                ctx.stop();
            }
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let mall = spawn(
        rt.handle(),
        Mall {
            c: cfg.c,
            meetings_left: cfg.m,
            waiting: None,
            sum_meetings: 0,
            faded: 0,
            result: result.clone(),
        },
    );
    drop(mall);
    rt.wait_quiescent();
    check(cfg.m, result.take().unwrap_or(0))
}
