//! Deadline order (EDF, `Runner::deadline_order`): every conformance scenario logs exactly what
//! it logs without it, on one worker and on two with both schedulers; on one worker a level runs
//! earliest (inferred) deadline first; on two workers, the claims of a level follow that order.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{assert_lines, configs, runner, scenarios, Config, Log};
use motet_reactor::{ProgramBuilder, SchedulerKind, Startup};

/// Every scenario, every configuration, deadline order on: the expected log.
#[test]
fn deadline_order_changes_no_log() {
    for sc in scenarios::all() {
        for cfg in configs(&[1, 2]) {
            let log = Log::new();
            let mut program = (sc.build)(&log);
            runner(cfg, true, sc.timeout)
                .deadline_order(true)
                .run(&mut program)
                .unwrap_or_else(|e| panic!("{} {cfg:?}: {e}", sc.name));
            let exp: Vec<&str> = sc.expected.iter().map(String::as_str).collect();
            assert_lines(&log.lines(), &exp);
        }
    }
}

/// Four independent startup reactions: `late` (deadline 30 s), `none` (no deadline, feeding
/// nothing), `feeder` (no deadline, feeding `urgent`, deadline 10 s: inferred 10 s) and `mid`
/// (20 s); each records its name when it starts and, with `work`, then sleeps that long. The
/// deadlines are far beyond any run here, so no handler runs.
fn level_of_four(work: Duration, started: Arc<Mutex<Vec<&'static str>>>) -> motet_reactor::Program {
    let s = |secs| Duration::from_secs(secs);
    let mut b = ProgramBuilder::new();
    let add = |b: &mut ProgramBuilder, name: &'static str, deadline: Option<u64>| {
        let r = b.reactor(name, ());
        let out = b.output::<u8, _>(r, "out");
        let seen = started.clone();
        let body = move |_: &mut (), ctx: &motet_reactor::Ctx<'_>| {
            seen.lock().unwrap().push(name);
            std::thread::sleep(work);
            ctx.set(out, 1);
        };
        let rb = b.reaction(r, name).trigger(Startup).effect(out);
        match deadline {
            Some(d) => rb
                .deadline(s(d), |_, _| panic!("deadline missed"))
                .body(body),
            None => rb.body(body),
        };
        out
    };
    add(&mut b, "late", Some(30));
    add(&mut b, "none", None);
    let feed = add(&mut b, "feeder", None);
    add(&mut b, "mid", Some(20));
    let u = b.reactor("urgent", ());
    let inp = b.input::<u8, _>(u, "in");
    b.connect(feed, inp);
    b.reaction(u, "urgent")
        .trigger(inp)
        .deadline(s(10), |_, _| panic!("deadline missed"))
        .body(|_, _| {});
    b.build().unwrap()
}

#[test]
fn one_worker_runs_a_level_earliest_deadline_first() {
    let started = Arc::new(Mutex::new(Vec::new()));
    let mut program = level_of_four(Duration::ZERO, started.clone());
    let cfg = configs(&[1])[0];
    runner(cfg, true, None)
        .deadline_order(true)
        .run(&mut program)
        .unwrap();
    assert_eq!(*started.lock().unwrap(), ["feeder", "mid", "late", "none"]);
}

/// On two workers a level's reactions are claimed one at a time in deadline order; each sleeps
/// 30 ms, so the two that start first are the two earliest, whichever worker claims them.
#[test]
fn two_workers_claim_earliest_deadline_first() {
    let schedulers = [
        (SchedulerKind::Level, false),
        (SchedulerKind::Readiness, true),
        (SchedulerKind::Readiness, false),
    ];
    for (scheduler, forced) in schedulers {
        let cfg = Config {
            workers: 2,
            scheduler,
            forced,
        };
        let started = Arc::new(Mutex::new(Vec::new()));
        let mut program = level_of_four(Duration::from_millis(30), started.clone());
        runner(cfg, true, None)
            .deadline_order(true)
            .run(&mut program)
            .unwrap();
        let mut order = started.lock().unwrap().clone();
        assert_eq!(order.len(), 4, "{cfg:?}");
        order[..2].sort_unstable();
        order[2..].sort_unstable();
        assert_eq!(order, ["feeder", "mid", "late", "none"], "{cfg:?}");
    }
}
