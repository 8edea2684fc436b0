//! Mutations under every runner configuration: a recursive program that creates two reactors
//! per node, gathers their results through connections made at run time and deletes them gives
//! the same event log on 1, 2 and 8 workers with both parallel schedulers, and the exact log
//! LF's semantics gives (a created reactor starts one microstep after the tag that requested it).

mod common;

use common::{agree_across, assert_lines, Log};
use motet_reactor::{Input, Output, Program, ProgramBuilder, ReactorId, Runner, Startup};

/// A node of the recursion: `n`, the sum of its children's results, how many came, and the
/// children to delete once both came.
struct Node {
    n: u32,
    sum: u64,
    got: u8,
    kids: Vec<ReactorId<Node>>,
}

/// Declares a node computing fib(`n`) (fib(1) = fib(2) = 1) named `name`: at startup a node
/// above 2 creates its two children beside itself, connected to its `left` and `right` inputs;
/// when both results came it sends their sum on `res` and deletes them.
fn node(b: &mut ProgramBuilder, log: &Log, name: String, n: u32) -> (ReactorId<Node>, Output<u64>) {
    let me = b.reactor(
        &name,
        Node {
            n,
            sum: 0,
            got: 0,
            kids: Vec::new(),
        },
    );
    let left: Input<u64> = b.input(me, "left");
    let right: Input<u64> = b.input(me, "right");
    let res: Output<u64> = b.output(me, "res");
    let l = log.clone();
    b.reaction(me, "start")
        .trigger(Startup)
        .effect(res)
        .mutates()
        .body(move |s: &mut Node, ctx| {
            if s.n <= 2 {
                l.record(ctx, "1");
                ctx.set(res, 1);
                return;
            }
            let (n, l, name) = (s.n, l.clone(), name.clone());
            ctx.mutate(move |m| {
                let (a, ares) = node(m, &l, format!("{name}l"), n - 1);
                let (c, cres) = node(m, &l, format!("{name}r"), n - 2);
                m.connect(ares, left);
                m.connect(cres, right);
                if let Some(s) = m.state_mut(me) {
                    s.kids = vec![a, c];
                }
            });
        });
    let l = log.clone();
    b.reaction(me, "results")
        .trigger(left)
        .trigger(right)
        .effect(res)
        .mutates()
        .body(move |s: &mut Node, ctx| {
            for v in [ctx.get(left), ctx.get(right)].into_iter().flatten() {
                s.sum += v;
                s.got += 1;
            }
            if s.got == 2 {
                l.record(ctx, s.sum);
                ctx.set(res, s.sum);
                let kids = std::mem::take(&mut s.kids);
                ctx.mutate(move |m| {
                    for k in kids {
                        m.delete(k);
                    }
                });
            }
        });
    (me, res)
}

fn fib_program(log: &Log, n: u32) -> Program {
    let mut b = ProgramBuilder::new();
    let (_, res) = node(&mut b, log, "f".into(), n);
    let sink = b.reactor("sink", ());
    let inp: Input<u64> = b.input(sink, "in");
    b.connect(res, inp);
    let l = log.clone();
    b.reaction(sink, "print")
        .trigger(inp)
        .body(move |_, ctx| l.record(ctx, ctx.get(inp).unwrap()));
    b.build().unwrap()
}

#[test]
fn recursive_creation_has_the_exact_log() {
    let log = agree_across(&[1, 2, 8], 3, true, None, None, &|log| fib_program(log, 4));
    assert_lines(
        &log,
        &[
            // fib(4): f creates fl (fib 3) and fr (fib 2) at (0, 0); they start at (0, 1), where
            // fr answers and fl creates its two leaves, which start and answer at (0, 2).
            "(0, 1) fr.start: 1",
            "(0, 2) fll.start: 1",
            "(0, 2) flr.start: 1",
            "(0, 2) fl.results: 2",
            "(0, 2) f.results: 3",
            "(0, 2) sink.print: 3",
        ],
    );
}

#[test]
fn recursion_agrees_across_workers_and_counts_reactors() {
    let log = agree_across(&[1, 2, 8], 2, true, None, None, &|log| fib_program(log, 12));
    assert_eq!(
        log.last().map(String::as_str),
        Some("(0, 10) sink.print: 144")
    );
    let log = Log::new();
    let mut p = fib_program(&log, 12);
    let report = Runner::new().fast(true).run(&mut p).unwrap();
    // fib(12) = 144 leaves; a tree of 2 * 144 - 1 nodes, all but the root created.
    assert_eq!(report.metrics.reactors_created, 2 * 144 - 2);
    assert_eq!(report.metrics.reactors_deleted, 2 * 144 - 2);
    assert_eq!(report.metrics.mutations_rejected, 0);
}

/// The README's example, as written there.
#[test]
fn readme_example() {
    let mut b = ProgramBuilder::new();
    let parent = b.reactor("parent", Vec::<ReactorId<()>>::new());
    let out: Output<u32> = b.output(parent, "out");
    b.reaction(parent, "spawn")
        .trigger(Startup)
        .effect(out)
        .mutates()
        .body(move |_, ctx| {
            ctx.mutate(move |m| {
                let child = m.reactor("child", ());
                let inp: Input<u32> = m.input(child, "in");
                m.reaction(child, "start").trigger(Startup).body(|_, ctx| {
                    assert_eq!(ctx.microstep(), 1); // one microstep after the request
                });
                m.connect(out, inp);
                m.state_mut(parent).unwrap().push(child);
            });
        });
    let mut program = b.build().unwrap();
    let report = Runner::new().fast(true).run(&mut program).unwrap();
    assert_eq!(report.metrics.reactors_created, 1);
    assert_eq!(report.metrics.reactions_executed, 2);
}
