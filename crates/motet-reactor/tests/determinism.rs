//! Determinism: every conformance program gives the same event log on every one of 100 runs, on 1,
//! 2 and 8 workers, with both parallel schedulers (fast mode). `MOTET_REACTOR_RUNS` changes the
//! number of runs.

mod common;

use common::fan::{checksum_sink, looping_fan, looping_source, scramble, worker};
use common::{agree_across, configs, run_with, scenarios, Log};
use motet_reactor::{Ports, ProgramBuilder, Startup};

fn runs() -> usize {
    std::env::var("MOTET_REACTOR_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100)
}

#[test]
fn every_scenario_is_deterministic_across_runs_and_workers() {
    let n = runs();
    for sc in scenarios::all() {
        for cfg in configs(&[1, 2, 8]) {
            for run in 0..n {
                let (lines, report) = run_with(cfg, true, sc.timeout, &sc.build);
                if let Err(e) = report {
                    panic!("{} on {cfg:?}, run {run}: {e}", sc.name);
                }
                assert_eq!(lines, sc.expected, "{} on {cfg:?}, run {run}", sc.name);
            }
        }
    }
}

/// A wider program with real parallelism (a fork-join over 16 workers per tag, 200 tags, with a
/// feedback loop through a logical action): the checksum of everything observed is the same for
/// every configuration and run.
#[test]
fn wide_program_is_deterministic() {
    let build = |log: &Log| {
        let emit = |k, c| Some(k * 31 + c as u64);
        let work = |_| {
            |acc: &mut u64, x| {
                let x = scramble(x, 50);
                *acc ^= x;
                x
            }
        };
        looping_fan(log, (16, 200), emit, work, |m| m % 50 == 0)
    };
    let log = agree_across(&[1, 2, 8], runs().min(20), true, None, Some(201), &build);
    assert_eq!(log.len(), 4);
}

/// A program above the readiness scheduler's closure limit (4,096 reactions) runs on its level
/// fallback and still agrees with one worker.
#[test]
fn large_program_on_the_level_fallback() {
    const N: usize = 2100;
    let build = |log: &Log| {
        let mut b = ProgramBuilder::new();
        let src = b.reactor("src", ());
        let o = b.output::<u64, _>(src, "out");
        b.reaction(src, "start")
            .trigger(Startup)
            .effect(o)
            .body(move |_, ctx| ctx.set(o, 3));
        let members = b.bank(N, |b, i| {
            let a = b.reactor(&format!("a[{i}]"), i as u64);
            let ai = b.input::<u64, _>(a, "in");
            let ao = b.output::<u64, _>(a, "out");
            b.reaction(a, "prepare")
                .trigger(Startup)
                .body(move |k, _| *k += 1);
            b.reaction(a, "mul")
                .trigger(ai)
                .effect(ao)
                .body(move |k, ctx| {
                    let v = *ctx.get(ai).unwrap();
                    ctx.set(ao, v * *k);
                });
            (ai, ao)
        });
        let sink = b.reactor("sink", ());
        let si = b.input_multiport::<u64, _>(sink, "in", N);
        let l = log.clone();
        b.reaction(sink, "sum").trigger(si).body(move |_, ctx| {
            l.record(ctx, ctx.present(si).map(|(_, v)| *v).sum::<u64>());
        });
        b.connect_broadcast(o, members.iter().map(|m| m.0).collect::<Ports<u64>>());
        b.connect(members.iter().map(|m| m.1).collect::<Ports<u64>>(), si);
        let p = b.build().unwrap();
        assert!(p.graph().reactions.len() > 4096);
        p
    };
    let expected = 3 * (1..=N as u64).sum::<u64>();
    let log = agree_across(&[1, 2], 1, true, None, None, &build);
    assert_eq!(log, [format!("(0, 0) sink.sum: {expected}")]);
}

/// Branches of uneven depth (a fan-out where one branch is a chain of 6 reactors and the other a
/// single one, joined at a sink, 300 tags through a feedback action): the program is not
/// level-exact, its branches are chains, so the readiness scheduler runs it on the level protocol
/// with each chain run as one (and, forced, on its own protocol, which runs chains as one too),
/// and every configuration and run agrees.
#[test]
fn uneven_branches_are_deterministic() {
    let build = |log: &Log| {
        let mut b = ProgramBuilder::new();
        let (o, back) = looping_source(&mut b, 4, 300, |k, c| Some(k * 7 + c as u64));
        // Branch c (of 4) is a chain of c + 1 stages.
        let mut ends = Vec::new();
        for c in 0..4 {
            let mut prev = o.channel(c);
            for s in 0..=c {
                let (i, out) = worker(&mut b, &format!("b{c}s{s}"), |acc, mut x| {
                    for _ in 0..20 {
                        x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(7);
                    }
                    *acc ^= x;
                    x
                });
                b.connect(prev, i);
                prev = out;
            }
            ends.push(prev);
        }
        let (si, so) = checksum_sink(&mut b, log, 4, |m| m % 100 == 0);
        b.connect(ends, si);
        b.connect(so, back);
        b.build().unwrap()
    };
    let log = agree_across(&[1, 2, 8], runs().min(20), true, None, Some(301), &build);
    assert_eq!(log.len(), 3);
}

/// Levels whose width and cost change from tag to tag (a fan-out to 1-16 of 16 workers, whose
/// reactions take tens of nanoseconds at some tags and tens of microseconds at others): the
/// readiness scheduler runs some levels on the thread playing the scheduler, shares others, and
/// shares the rest of one that turned out long part-way through; every configuration and run
/// agrees.
#[test]
fn levels_of_changing_cost_are_deterministic() {
    const TAGS: u64 = 120;
    let build = |log: &Log| {
        let emit = |k, c| (c < 1 + (k as usize * 7) % 16).then_some(k);
        let work = |i| {
            move |acc: &mut u64, k| {
                // Long at tags 20-39, 60-79, 100-119; short elsewhere.
                let rounds = if (k / 20) % 2 == 1 { 20_000 } else { 10 };
                let x = scramble(k ^ (i as u64) << 32, rounds);
                *acc ^= x;
                x
            }
        };
        looping_fan(log, (16, TAGS), emit, work, |m| m % 20 == 19)
    };
    let log = agree_across(
        &[1, 2, 8],
        runs().min(5),
        true,
        None,
        Some(TAGS + 1),
        &build,
    );
    assert_eq!(log.len(), 6);
}
