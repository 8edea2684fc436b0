//! Banks and multiports: a bank gathered into a multiport, broadcasts, fork and join, full
//! connection, connections that chain lists of ports, width mismatches, sparse channels, and
//! multiports across `after` and across the hierarchy.

use motet_reactor::{Ctx, InputMultiport, Ports, Program, ProgramBuilder, Startup};

use super::{ms, sc, Scenario, ZERO};
use crate::common::reactors::{relay, sink, startup_multiport, startup_source};
use crate::common::Log;

/// The scenarios of this file.
#[rustfmt::skip]
pub fn scenarios() -> Vec<Scenario> {
    vec![
        sc("bank_to_multiport", None, bank_to_multiport, &[
            "(0, 0) account.apply: user[0] -> 0", "(0, 0) account.apply: user[1] -> 10",
            "(0, 0) account.apply: user[2] -> 20", "(0, 0) account.apply: user[3] -> 30",
        ]),
        sc("broadcast", None, broadcast, &["(0, 0) w[0].log: 7 at 0", "(0, 0) w[1].log: 7 at 1", "(0, 0) w[2].log: 7 at 2"]),
        sc("fork_join", None, fork_join, &["(0, 0) sink.join: 3 values, sum 12"]),
        sc("fully_connected", None, fully_connected, &[
            "(0, 0) node[0].recv: [(0, 0), (1, 10), (2, 20)]",
            "(0, 0) node[1].recv: [(0, 1), (1, 11), (2, 21)]",
            "(0, 0) node[2].recv: [(0, 2), (1, 12), (2, 22)]",
        ]),
        sc("bank_self_broadcast", None, bank_self_broadcast, &["(0, 0) a[0].recv: [0, 1, 2]", "(0, 0) a[1].recv: [0, 1, 2]", "(0, 0) a[2].recv: [0, 1, 2]"]),
        sc("cascade", None, cascade, &["(0, 0) sink.log: 2"]),
        sc("multiport_to_ports", None, multiport_to_ports, &["(0, 0) b1.log: 1", "(0, 0) b2.log: 2"]),
        sc("width_mismatch", None, width_mismatch, &["(0, 0) sink.log: [0, 1, 2]"]),
        sc("sparse_multiport", Some(ms(10)), sparse_multiport, &[
            "(0, 0) sink.scan: unsorted=[8, 6, 4, 2, 0] sorted=[0, 2, 4, 6, 8] full=[0, 2, 4, 6, 8] count=5",
            "(10 ms, 0) sink.scan: unsorted=[9, 7, 5, 3, 1] sorted=[1, 3, 5, 7, 9] full=[1, 3, 5, 7, 9] count=5",
        ]),
        sc("multiport_after", None, multiport_after, &["(5 ms, 0) sink.log: [(0, 1), (1, 2)]"]),
        sc("multiport_hierarchy", None, multiport_hierarchy, &["(0, 0) outer.inner.sum: 3"]),
        sc("bank_index", None, bank_index, &[
            "(0, 0) lone.id: 0",
            "(0, 0) row[0].id: 0", "(0, 0) row[0].child.id: 0",
            "(0, 0) row[0].cell[0].id: 0", "(0, 0) row[0].cell[1].id: 1",
            "(0, 0) row[1].id: 1", "(0, 0) row[1].child.id: 0",
            "(0, 0) row[1].cell[0].id: 0", "(0, 0) row[1].cell[1].id: 1",
        ]),
    ]
}

/// Declares, on reactor `name`, an input multiport `in` of `width` channels and a reaction
/// `reaction` that logs what `show` makes of it at each tag where a channel is present.
fn gather(
    b: &mut ProgramBuilder,
    log: &Log,
    name: &str,
    width: usize,
    reaction: &str,
    show: fn(&Ctx<'_>, InputMultiport<u32>) -> String,
) -> InputMultiport<u32> {
    let r = b.reactor(name, ());
    let i = b.input_multiport::<u32, _>(r, "in", width);
    let l = log.clone();
    b.reaction(r, reaction)
        .trigger(i)
        .body(move |_, ctx| l.record(ctx, show(ctx, i)));
    i
}

/// The present channels of `i` with their values, in channel order.
fn channels_and_values(ctx: &Ctx<'_>, i: InputMultiport<u32>) -> String {
    let got: Vec<(usize, u32)> = ctx.present_sorted(i).map(|(c, v)| (c, *v)).collect();
    format!("{got:?}")
}

fn bank_to_multiport(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let outs = b.bank(4, |b, i| {
        let u = b.reactor(&format!("user[{i}]"), i as u32);
        let o = b.output::<u32, _>(u, "req");
        b.reaction(u, "send")
            .trigger(Startup)
            .effect(o)
            .body(move |idx, ctx| ctx.set(o, *idx * 10));
        o
    });
    let acc = b.reactor("account", ());
    let req = b.input_multiport::<u32, _>(acc, "req", 4);
    let l = log.clone();
    b.reaction(acc, "apply").trigger(req).body(move |_, ctx| {
        for (i, v) in ctx.present_sorted(req) {
            l.record(ctx, format!("user[{i}] -> {v}"));
        }
    });
    b.connect(outs, req);
    b.build().unwrap()
}

fn broadcast(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = startup_source(&mut b, "src", 7);
    let ins = b.bank(3, |b, i| {
        let w = b.reactor(&format!("w[{i}]"), i);
        let inp = b.input::<u32, _>(w, "in");
        let l = log.clone();
        b.reaction(w, "log")
            .trigger(inp)
            .body(move |idx, ctx| l.record(ctx, format!("{} at {idx}", ctx.get(inp).unwrap())));
        inp
    });
    b.connect_broadcast(o, ins);
    b.build().unwrap()
}

fn fork_join(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = startup_multiport(&mut b, "src", 3, |c| c as u32 + 1);
    let workers = b.bank(3, |b, i| {
        let w = b.reactor(&format!("wrk[{i}]"), ());
        relay(b, w, "double", |v| v * 2)
    });
    let i = gather(&mut b, log, "sink", 3, "join", |ctx, i| {
        let n = ctx.present_count(i);
        let sum: u32 = ctx.present(i).map(|(_, v)| *v).sum();
        format!("{n} values, sum {sum}")
    });
    b.connect(o, workers.iter().map(|w| w.0).collect::<Ports<u32>>());
    b.connect(workers.iter().map(|w| w.1).collect::<Ports<u32>>(), i);
    b.build().unwrap()
}

fn fully_connected(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let nodes = b.bank(3, |b, i| {
        let n = b.reactor(&format!("node[{i}]"), i as u32);
        let o = b.output_multiport::<u32, _>(n, "out", 3);
        let inp = b.input_multiport::<u32, _>(n, "in", 3);
        b.reaction(n, "send")
            .trigger(Startup)
            .effect(o)
            .body(move |me, ctx| {
                for j in 0..3 {
                    ctx.set(o.channel(j), *me * 10 + j as u32);
                }
            });
        let l = log.clone();
        b.reaction(n, "recv")
            .trigger(inp)
            .body(move |_, ctx| l.record(ctx, channels_and_values(ctx, inp)));
        (o, inp)
    });
    let outs: Ports<u32> = nodes.iter().map(|n| n.0).collect();
    b.connect(outs, Ports::interleaved(nodes.iter().map(|n| n.1)));
    b.build().unwrap()
}

fn bank_self_broadcast(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let members = b.bank(3, |b, i| {
        let a = b.reactor(&format!("a[{i}]"), i as u32);
        let o = b.output::<u32, _>(a, "out");
        let inp = b.input_multiport::<u32, _>(a, "in", 3);
        b.reaction(a, "send")
            .trigger(Startup)
            .effect(o)
            .body(move |me, ctx| ctx.set(o, *me));
        let l = log.clone();
        b.reaction(a, "recv").trigger(inp).body(move |_, ctx| {
            let got: Vec<u32> = ctx.present_sorted(inp).map(|(_, v)| *v).collect();
            l.record(ctx, format!("{got:?}"));
        });
        (o, inp)
    });
    let outs: Ports<u32> = members.iter().map(|m| m.0).collect();
    let ins: Ports<u32> = members.iter().map(|m| m.1).collect();
    b.connect_broadcast(outs, ins);
    b.build().unwrap()
}

fn cascade(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = startup_source(&mut b, "src", 0);
    let a = b.reactor("a", ());
    let (ai, ao) = relay(&mut b, a, "inc", |v| v + 1);
    let c = b.reactor("b", ());
    let (bi, bo) = relay(&mut b, c, "inc", |v| v + 1);
    let s = sink::<u32>(&mut b, log, "sink");
    b.connect(
        Ports::from(o).and(ao).and(bo),
        Ports::from(ai).and(bi).and(s),
    );
    b.build().unwrap()
}

fn multiport_to_ports(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = startup_multiport(&mut b, "a", 2, |c| c as u32 + 1);
    let b1 = sink::<u32>(&mut b, log, "b1");
    let b2 = sink::<u32>(&mut b, log, "b2");
    b.connect(o, [b1, b2]);
    b.build().unwrap()
}

fn width_mismatch(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = startup_multiport(&mut b, "src", 3, |c| c as u32);
    let i = gather(&mut b, log, "sink", 4, "log", |ctx, i| {
        let got: Vec<usize> = ctx.present_sorted(i).map(|(c, _)| c).collect();
        format!("{got:?}")
    });
    b.connect(o, i);
    let p = b.build().unwrap();
    assert_eq!(p.warnings().len(), 1, "a width mismatch warns");
    p
}

fn sparse_multiport(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let a = b.reactor("src", 0usize);
    let t = b.timer(a, "t", ZERO, ms(10));
    let o = b.output_multiport::<u32, _>(a, "out", 10);
    b.reaction(a, "emit")
        .trigger(t)
        .effect(o)
        .body(move |k, ctx| {
            for c in (0..10).rev().filter(|c| c % 2 == *k % 2) {
                ctx.set(o.channel(c), c as u32);
            }
            *k += 1;
        });
    let i = gather(&mut b, log, "sink", 10, "scan", |ctx, i| {
        let unsorted: Vec<usize> = ctx.present_unordered(i).map(|(c, _)| c).collect();
        let sorted: Vec<usize> = ctx.present(i).map(|(c, _)| c).collect();
        let again: Vec<usize> = ctx.present_sorted(i).map(|(c, _)| c).collect();
        assert_eq!(sorted, again, "present_sorted is present");
        let full: Vec<usize> = (0..10)
            .filter(|&c| ctx.get(i.channel(c)).is_some())
            .collect();
        format!(
            "unsorted={unsorted:?} sorted={sorted:?} full={full:?} count={}",
            ctx.present_count(i)
        )
    });
    b.connect(o, i);
    b.build().unwrap()
}

fn multiport_after(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = startup_multiport(&mut b, "src", 2, |c| c as u32 + 1);
    let i = gather(&mut b, log, "sink", 2, "log", channels_and_values);
    b.connect_after(o, i, ms(5));
    b.build().unwrap()
}

fn multiport_hierarchy(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let o = startup_multiport(&mut b, "src", 2, |c| c as u32 + 1);
    let outer = b.reactor("outer", ());
    let oin = b.input_multiport::<u32, _>(outer, "in", 2);
    let inner = b.child(outer, "inner", ());
    let iin = b.input_multiport::<u32, _>(inner, "in", 2);
    let l = log.clone();
    b.reaction(inner, "sum")
        .trigger(iin)
        .body(move |_, ctx| l.record(ctx, ctx.present(iin).map(|(_, v)| *v).sum::<u32>()));
    b.connect(oin, iin);
    b.connect(o, oin);
    b.build().unwrap()
}

/// `Ctx::bank_index`: the members of a bank see their index; a reactor outside a bank, and a
/// child declared inside a member, see 0; an inner bank's members see the inner index.
fn bank_index(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let report = |b: &mut ProgramBuilder, r: motet_reactor::ReactorId<()>| {
        let l = log.clone();
        b.reaction(r, "id")
            .trigger(Startup)
            .body(move |_, ctx| l.record(ctx, ctx.bank_index()));
    };
    let lone = b.reactor("lone", ());
    report(&mut b, lone);
    b.bank(2, |b, i| {
        let row = b.reactor(&format!("row[{i}]"), ());
        report(b, row);
        let child = b.child(row, "child", ());
        report(b, child);
        b.bank(2, |b, j| {
            let cell = b.child(row, &format!("cell[{j}]"), ());
            report(b, cell);
        });
    });
    b.build().unwrap()
}
