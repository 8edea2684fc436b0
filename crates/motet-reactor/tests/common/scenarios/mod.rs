//! motet's own programs for the scenarios of LF's semantics (notes/reactors-lf.md section 3d), each
//! with the exact event log it must produce. The conformance tests check each log; the determinism
//! test runs every one of them many times on 1, 2 and 8 workers.
//!
//! A file per subject, each with its table of scenarios and their logs beside the programs:
//! [`order`] (microsteps, the order of reactions, hierarchy), [`stop`] (the end of a run),
//! [`time`] (timers, actions, `after`), [`banks`] (banks and multiports) and [`modes`]. The
//! programs are built from the small reactors of `common::reactors`.

mod banks;
mod modes;
mod modes_lf;
mod order;
mod stop;
mod time;
mod watchdog;

use std::time::Duration;

use motet_reactor::{Program, ProgramBuilder};

use super::Log;

const ZERO: Duration = Duration::ZERO;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A deterministic program and the log it must produce.
pub struct Scenario {
    pub name: &'static str,
    pub timeout: Option<Duration>,
    pub build: fn(&Log) -> Program,
    pub expected: Vec<String>,
}

fn sc(
    name: &'static str,
    timeout: Option<Duration>,
    build: fn(&Log) -> Program,
    expected: &[&str],
) -> Scenario {
    Scenario {
        name,
        timeout,
        build,
        expected: expected.iter().map(|s| s.to_string()).collect(),
    }
}

/// Every scenario.
pub fn all() -> Vec<Scenario> {
    [
        order::scenarios(),
        stop::scenarios(),
        time::scenarios(),
        banks::scenarios(),
        modes::scenarios(),
        modes_lf::scenarios(),
        watchdog::scenarios(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// A reactor `r` with timers `t1` and `t2`, each (offset, period), and a reaction `reaction`
/// triggered by both that logs which of them is present.
fn two_timers(
    log: &Log,
    reaction: &str,
    t1: (Duration, Duration),
    t2: (Duration, Duration),
) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let t1 = b.timer(r, "t1", t1.0, t1.1);
    let t2 = b.timer(r, "t2", t2.0, t2.1);
    let l = log.clone();
    b.reaction(r, reaction)
        .trigger(t1)
        .trigger(t2)
        .body(move |_, ctx| {
            l.record(
                ctx,
                format!("t1={} t2={}", ctx.is_present(t1), ctx.is_present(t2)),
            );
        });
    b.build().unwrap()
}
