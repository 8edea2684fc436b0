//! The levels a mutation gives: a created reactor whose edges into the program already climb
//! (its reaction's level is below the reactions it feeds) leaves every level of the program as it
//! was; one whose edge does not climb raises the levels it reaches. Both are checked on the
//! graph (every edge climbs afterwards) and on the exact log of the tag that runs them. (Without
//! the `mutations` feature requests are rejected: `tests/mutations.rs` checks that build.)
#![cfg(feature = "mutations")]

use std::sync::{Arc, Mutex};

use motet_reactor_core::{
    run_sequential, Input, Output, Program, ProgramBuilder, RunOptions, Startup,
};

mod common;
use common::Virtual;

type Log = Arc<Mutex<Vec<String>>>;

fn entry(log: &Log, ctx: &motet_reactor_core::Ctx<'_>, what: String) {
    log.lock().unwrap().push(format!(
        "{}/{} {what}",
        ctx.time().as_millis(),
        ctx.microstep()
    ));
}

/// `src.o -> a.in`, `a.out -> b.in`; `b` also has an unconnected input `aux` and an output `out`;
/// `c` has an unconnected input `aux`. The levels: src 0, a 1, b 2, c 0. At startup `spawner`
/// creates `n1` (a startup reaction setting `n1.o`, connected to `b.aux`: level 0 below b's 2)
/// and `n2` (`b.out -> n2.in`, its reaction setting `n2.o`, connected to `c.aux`: level 3 above
/// c's 0, so c's reaction is raised to 4).
fn program(log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", ());
    let o: Output<u32> = b.output(src, "o");
    b.reaction(src, "start")
        .trigger(Startup)
        .effect(o)
        .body(move |_, ctx| ctx.set(o, 1));
    let a = b.reactor("a", ());
    let a_in: Input<u32> = b.input(a, "in");
    let a_out: Output<u32> = b.output(a, "out");
    b.reaction(a, "ra")
        .trigger(a_in)
        .effect(a_out)
        .body(move |_, ctx| ctx.set(a_out, ctx.get(a_in).unwrap() + 1));
    let rb = b.reactor("b", ());
    let b_in: Input<u32> = b.input(rb, "in");
    let b_aux: Input<u32> = b.input(rb, "aux");
    let b_out: Output<u32> = b.output(rb, "out");
    let l = log.clone();
    b.reaction(rb, "rb")
        .trigger(b_in)
        .trigger(b_aux)
        .effect(b_out)
        .body(move |_, ctx| {
            let (i, x) = (ctx.get(b_in).copied(), ctx.get(b_aux).copied());
            entry(&l, ctx, format!("b in {i:?} aux {x:?}"));
            ctx.set(b_out, i.unwrap_or(0) + x.unwrap_or(0));
        });
    let c = b.reactor("c", ());
    let c_aux: Input<u32> = b.input(c, "aux");
    let l = log.clone();
    b.reaction(c, "rc").trigger(c_aux).body(move |_, ctx| {
        entry(&l, ctx, format!("c aux {}", ctx.get(c_aux).unwrap()));
    });
    b.connect(o, a_in);
    b.connect(a_out, b_in);
    let spawner = b.reactor("spawner", ());
    let l = log.clone();
    b.reaction(spawner, "spawn")
        .trigger(Startup)
        .mutates()
        .body(move |_, ctx| {
            let l = l.clone();
            ctx.mutate(move |m| {
                let n1 = m.reactor("n1", ());
                let n1_o: Output<u32> = m.output(n1, "o");
                m.reaction(n1, "start")
                    .trigger(Startup)
                    .effect(n1_o)
                    .body(move |_, ctx| ctx.set(n1_o, 7));
                m.connect(n1_o, b_aux);
                let n2 = m.reactor("n2", ());
                let n2_in: Input<u32> = m.input(n2, "in");
                let n2_o: Output<u32> = m.output(n2, "o");
                let l = l.clone();
                m.reaction(n2, "r")
                    .trigger(n2_in)
                    .effect(n2_o)
                    .body(move |_, ctx| {
                        let v = *ctx.get(n2_in).unwrap();
                        entry(&l, ctx, format!("n2 in {v}"));
                        ctx.set(n2_o, v * 10);
                    });
                m.connect(b_out, n2_in);
                m.connect(n2_o, c_aux);
            });
        });
    b.build().unwrap()
}

fn level(p: &Program, name: &str) -> u32 {
    let g = p.graph();
    g.reactions
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no reaction {name}"))
        .level
}

#[test]
fn created_edges_that_climb_keep_the_levels_and_others_raise_them() {
    let log = Log::default();
    let mut p = program(&log);
    assert_eq!(
        [level(&p, "b.rb"), level(&p, "c.rc")],
        [2, 0],
        "the program's levels before the mutation"
    );
    let options = RunOptions {
        fast: true,
        timeout: None,
    };
    let m = run_sequential(&mut p, &mut Virtual(0), &options, &mut ()).unwrap();
    assert_eq!(m.reactors_created, 2);
    assert!(p.mutation_errors().is_empty());
    assert_eq!(level(&p, "n1.start"), 0, "no predecessor");
    assert_eq!(
        level(&p, "b.rb"),
        2,
        "n1's edge into b climbs: b keeps its level"
    );
    assert_eq!(level(&p, "n2.r"), 3, "after b");
    assert_eq!(level(&p, "c.rc"), 4, "raised above n2");
    let g = p.graph();
    for (i, r) in g.reactions.iter().enumerate() {
        for &s in &r.successors {
            assert!(
                g.reactions[s as usize].level > r.level,
                "edge {} -> {} does not climb",
                g.reactions[i].name,
                g.reactions[s as usize].name
            );
        }
    }
    assert_eq!(
        log.lock().unwrap().clone(),
        [
            "0/0 b in Some(2) aux None",
            "0/1 b in None aux Some(7)",
            "0/1 n2 in 7",
            "0/1 c aux 70",
        ]
    );
}
