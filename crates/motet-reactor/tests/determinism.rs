//! Determinism: every conformance program gives the same event log on every one of 100 runs, on 1,
//! 2 and 8 workers, with both parallel schedulers (fast mode). `MOTET_REACTOR_RUNS` changes the
//! number of runs.

mod common;

use common::{agree_with_first, configs, run_with, scenarios};

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
    use motet_reactor::{Ports, ProgramBuilder, Startup};
    use std::time::Duration;
    let build = |log: &common::Log| {
        let mut b = ProgramBuilder::new();
        let src = b.reactor("src", 0u64);
        let o = b.output_multiport::<u64, _>(src, "out", 16);
        let again = b.logical_action::<(), _>(src, "again", Duration::ZERO);
        let back = b.input::<u64, _>(src, "back");
        b.reaction(src, "emit")
            .trigger(Startup)
            .trigger(again)
            .effect(o)
            .body(move |k, ctx| {
                for c in 0..16 {
                    ctx.set(o.channel(c), *k * 31 + c as u64);
                }
            });
        b.reaction(src, "loop")
            .trigger(back)
            .effect(again)
            .body(move |k, ctx| {
                *k += 1;
                if *k < 200 {
                    ctx.schedule(again, (), Duration::ZERO);
                }
            });
        let ws = b.bank(16, |b, i| {
            let w = b.reactor(&format!("w[{i}]"), 0u64);
            let inp = b.input::<u64, _>(w, "in");
            let out = b.output::<u64, _>(w, "out");
            b.reaction(w, "work")
                .trigger(inp)
                .effect(out)
                .body(move |acc, ctx| {
                    let mut x = *ctx.get(inp).unwrap();
                    for _ in 0..50 {
                        x = x
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                    }
                    *acc ^= x;
                    ctx.set(out, x);
                });
            (inp, out)
        });
        let sink = b.reactor("sink", 0u64);
        let si = b.input_multiport::<u64, _>(sink, "in", 16);
        let so = b.output::<u64, _>(sink, "out");
        let l = log.clone();
        b.reaction(sink, "join")
            .trigger(si)
            .effect(so)
            .body(move |sum, ctx| {
                for (c, v) in ctx.present_sorted(si) {
                    *sum = sum.wrapping_mul(31).wrapping_add(*v ^ c as u64);
                }
                if ctx.tag().microstep() % 50 == 0 {
                    l.record(ctx, *sum);
                }
                ctx.set(so, *sum);
            });
        b.connect(o, ws.iter().map(|w| w.0).collect::<Ports<u64>>());
        b.connect(ws.iter().map(|w| w.1).collect::<Ports<u64>>(), si);
        b.connect(so, back);
        b.build().unwrap()
    };
    let mut reference = None;
    for cfg in configs(&[1, 2, 8]) {
        for _ in 0..runs().min(20) {
            let (lines, report) = run_with(cfg, true, None, &build);
            let report = report.unwrap();
            assert_eq!(report.metrics.tags, 201);
            agree_with_first(&mut reference, lines, &cfg);
        }
    }
    assert_eq!(reference.unwrap().len(), 4);
}

/// A program above the readiness scheduler's closure limit (4,096 reactions) runs on its level
/// fallback and still agrees with one worker.
#[test]
fn large_program_on_the_level_fallback() {
    use motet_reactor::{Ports, ProgramBuilder, Startup};
    const N: usize = 2100;
    let build = |log: &common::Log| {
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
    for cfg in configs(&[1, 2]) {
        let (lines, report) = run_with(cfg, true, None, &build);
        report.unwrap();
        assert_eq!(lines, [format!("(0, 0) sink.sum: {expected}")], "{cfg:?}");
    }
}

/// Branches of uneven depth (a fan-out where one branch is a chain of 6 reactors and the other a
/// single one, joined at a sink, 300 tags through a feedback action): the program is not
/// level-exact, its branches are chains, so the readiness scheduler runs it on the level protocol
/// with each chain run as one (and, forced, on its own protocol, which runs chains as one too),
/// and every configuration and run agrees.
#[test]
fn uneven_branches_are_deterministic() {
    use motet_reactor::{ProgramBuilder, Startup};
    use std::time::Duration;
    let build = |log: &common::Log| {
        let mut b = ProgramBuilder::new();
        let src = b.reactor("src", 0u64);
        let o = b.output_multiport::<u64, _>(src, "out", 4);
        let again = b.logical_action::<(), _>(src, "again", Duration::ZERO);
        let back = b.input::<u64, _>(src, "back");
        b.reaction(src, "emit")
            .trigger(Startup)
            .trigger(again)
            .effect(o)
            .body(move |k, ctx| {
                for c in 0..4 {
                    ctx.set(o.channel(c), *k * 7 + c as u64);
                }
            });
        b.reaction(src, "loop")
            .trigger(back)
            .effect(again)
            .body(move |k, ctx| {
                *k += 1;
                if *k < 300 {
                    ctx.schedule(again, (), Duration::ZERO);
                }
            });
        // Branch c (of 4) is a chain of c + 1 stages.
        let mut ends = Vec::new();
        for c in 0..4 {
            let mut prev = o.channel(c);
            for s in 0..=c {
                let r = b.reactor(&format!("b{c}s{s}"), 0u64);
                let i = b.input::<u64, _>(r, "in");
                let out = b.output::<u64, _>(r, "out");
                b.reaction(r, "step")
                    .trigger(i)
                    .effect(out)
                    .body(move |acc, ctx| {
                        let mut x = *ctx.get(i).unwrap();
                        for _ in 0..20 {
                            x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(7);
                        }
                        *acc ^= x;
                        ctx.set(out, x);
                    });
                b.connect(prev, i);
                prev = out;
            }
            ends.push(prev);
        }
        let sink = b.reactor("sink", 0u64);
        let si = b.input_multiport::<u64, _>(sink, "in", 4);
        let so = b.output::<u64, _>(sink, "out");
        let l = log.clone();
        b.reaction(sink, "join")
            .trigger(si)
            .effect(so)
            .body(move |sum, ctx| {
                for (c, v) in ctx.present_sorted(si) {
                    *sum = sum.wrapping_mul(31).wrapping_add(*v ^ c as u64);
                }
                if ctx.tag().microstep() % 100 == 0 {
                    l.record(ctx, *sum);
                }
                ctx.set(so, *sum);
            });
        b.connect(ends, si);
        b.connect(so, back);
        b.build().unwrap()
    };
    let mut reference = None;
    for cfg in configs(&[1, 2, 8]) {
        for _ in 0..runs().min(20) {
            let (lines, report) = run_with(cfg, true, None, &build);
            let report = report.unwrap();
            assert_eq!(report.metrics.tags, 301);
            agree_with_first(&mut reference, lines, &cfg);
        }
    }
    assert_eq!(reference.unwrap().len(), 3);
}

/// Levels whose width and cost change from tag to tag (a fan-out to 1-16 of 16 workers, whose
/// reactions take tens of nanoseconds at some tags and tens of microseconds at others): the
/// readiness scheduler runs some levels on the thread playing the scheduler, shares others, and
/// shares the rest of one that turned out long part-way through; every configuration and run
/// agrees.
#[test]
fn levels_of_changing_cost_are_deterministic() {
    use motet_reactor::{Ports, ProgramBuilder, Startup};
    use std::time::Duration;
    const TAGS: u64 = 120;
    let build = |log: &common::Log| {
        let mut b = ProgramBuilder::new();
        let src = b.reactor("src", 0u64);
        let o = b.output_multiport::<u64, _>(src, "out", 16);
        let again = b.logical_action::<(), _>(src, "again", Duration::ZERO);
        let back = b.input::<u64, _>(src, "back");
        b.reaction(src, "emit")
            .trigger(Startup)
            .trigger(again)
            .effect(o)
            .body(move |k, ctx| {
                for c in 0..1 + (*k as usize * 7) % 16 {
                    ctx.set(o.channel(c), *k);
                }
            });
        b.reaction(src, "loop")
            .trigger(back)
            .effect(again)
            .body(move |k, ctx| {
                *k += 1;
                if *k < TAGS {
                    ctx.schedule(again, (), Duration::ZERO);
                }
            });
        let ws = b.bank(16, |b, i| {
            let w = b.reactor(&format!("w[{i}]"), 0u64);
            let inp = b.input::<u64, _>(w, "in");
            let out = b.output::<u64, _>(w, "out");
            b.reaction(w, "work")
                .trigger(inp)
                .effect(out)
                .body(move |acc, ctx| {
                    let k = *ctx.get(inp).unwrap();
                    // Long at tags 20-39, 60-79, 100-119; short elsewhere.
                    let rounds = if (k / 20) % 2 == 1 { 20_000 } else { 10 };
                    let mut x = k ^ (i as u64) << 32;
                    for _ in 0..rounds {
                        x = x
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                    }
                    *acc ^= x;
                    ctx.set(out, x);
                });
            (inp, out)
        });
        let sink = b.reactor("sink", 0u64);
        let si = b.input_multiport::<u64, _>(sink, "in", 16);
        let so = b.output::<u64, _>(sink, "out");
        let l = log.clone();
        b.reaction(sink, "join")
            .trigger(si)
            .effect(so)
            .body(move |sum, ctx| {
                for (c, v) in ctx.present_sorted(si) {
                    *sum = sum.wrapping_mul(31).wrapping_add(*v ^ c as u64);
                }
                if ctx.tag().microstep() % 20 == 19 {
                    l.record(ctx, *sum);
                }
                ctx.set(so, *sum);
            });
        b.connect(o, ws.iter().map(|w| w.0).collect::<Ports<u64>>());
        b.connect(ws.iter().map(|w| w.1).collect::<Ports<u64>>(), si);
        b.connect(so, back);
        b.build().unwrap()
    };
    let mut reference = None;
    for cfg in configs(&[1, 2, 8]) {
        for _ in 0..runs().min(5) {
            let (lines, report) = run_with(cfg, true, None, &build);
            let report = report.unwrap();
            assert_eq!(report.metrics.tags, TAGS + 1);
            agree_with_first(&mut reference, lines, &cfg);
        }
    }
    assert_eq!(reference.unwrap().len(), 6);
}
