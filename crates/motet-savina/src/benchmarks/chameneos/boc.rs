//! Chameneos in behaviour-oriented concurrency (motet-boc), after Verona's BoC(Full) port: a cown
//! per creature and one for the mall. A creature meets by spawning a `when` on the mall; the mall
//! keeps the first arrival waiting and, on the second, spawns one `when` over both creatures, which
//! exchange colors and meet again. Once the meetings are used up, the mall answers each arrival
//! with a `when` over itself and the creature, which fades it and adds its meeting count.

use motet_boc::{when_detached, Cown};
use motet_runtime::Runtime;

use super::{check, Color, Config};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

struct Creature {
    mall: Cown<Mall>,
    color: Color,
    meetings: u64,
}

struct Mall {
    meetings_left: u64,
    waiting: Option<Cown<Creature>>,
    creatures: usize,
    faded: usize,
    sum: u64,
    result: ResultSlot<u64>,
}

/// `creature` arrives at `mall`.
fn meet(mall: &Cown<Mall>, creature: Cown<Creature>) {
    let me = mall.clone();
    let _ = when_detached(mall, move |m| {
        if m.meetings_left == 0 {
            let _ = when_detached((&me, &creature), |(mall, creature)| {
                creature.color = Color::Faded;
                mall.sum += creature.meetings;
                mall.faded += 1;
                if mall.faded == mall.creatures {
                    mall.result.set(mall.sum);
                }
            });
            return;
        }
        match m.waiting.take() {
            None => m.waiting = Some(creature),
            Some(waiting) => {
                m.meetings_left -= 1;
                let (a, b) = (waiting.clone(), creature.clone());
                let _ = when_detached((&waiting, &creature), move |(x, y)| {
                    let color = x.color.complement(y.color);
                    (x.color, y.color) = (color, color);
                    x.meetings += 1;
                    y.meetings += 1;
                    meet(&x.mall, a);
                    meet(&y.mall, b);
                });
            }
        }
    });
}

/// One timed iteration: creates the mall and the creatures, runs to quiescence and checks the sum
/// of the meeting counts.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let h = rt.handle();
    let mall = Cown::new(
        h,
        Mall {
            meetings_left: cfg.m,
            waiting: None,
            creatures: cfg.c,
            faded: 0,
            sum: 0,
            result: result.clone(),
        },
    );
    for i in 0..cfg.c {
        let creature = Cown::new(
            h,
            Creature {
                mall: mall.clone(),
                color: Color::initial(i),
                meetings: 0,
            },
        );
        meet(&mall, creature);
    }
    drop(mall);
    rt.wait_quiescent();
    check(cfg.m, result.take().unwrap_or(0))
}
