//! Bad programs: each is a clear error, at build or at run time, and never a hang, on every runner.

mod common;

use std::time::Duration;

use common::reactors::relay;
use common::{configs, run_with, Log};
use motet_reactor::{BuildError, Ctx, Program, ProgramBuilder, ReactorId, RunError, Startup};

#[test]
fn causality_cycle_names_the_reactions() {
    let mut b = ProgramBuilder::new();
    let a = b.reactor("a", ());
    let (ai, ao) = relay(&mut b, a, "fwd", |v| v);
    let c = b.reactor("c", ());
    let (ci, co) = relay(&mut b, c, "echo", |v| v);
    b.connect(ao, ci);
    b.connect(co, ai);
    let err = b.build().unwrap_err();
    let BuildError::Cycle(path) = &err else {
        panic!("expected a cycle, got {err}");
    };
    assert!(
        path.contains(&"a.fwd".to_string()) && path.contains(&"c.echo".to_string()),
        "{path:?}"
    );
    assert_eq!(path.first(), path.last());
    let msg = err.to_string();
    assert!(
        msg.contains("causality cycle") && msg.contains("a.fwd") && msg.contains("c.echo"),
        "{msg}"
    );
}

#[test]
fn cycle_through_a_delay_is_fine() {
    let mut b = ProgramBuilder::new();
    let a = b.reactor("a", ());
    let (ai, ao) = relay(&mut b, a, "fwd", |v| v);
    b.connect_after(ao, ai, Duration::ZERO);
    assert!(b.build().is_ok());
}

#[test]
fn cycle_within_a_reactor_through_reaction_order() {
    // Reaction 1 reads what reaction 2 of the same reactor writes through a sibling: 2 follows 1 in
    // the reactor, and 1 depends on 2's output.
    let mut b = ProgramBuilder::new();
    let a = b.reactor("a", ());
    let ai = b.input::<u32, _>(a, "in");
    let ao = b.output::<u32, _>(a, "out");
    b.reaction(a, "first").trigger(ai).body(|_, _| {});
    b.reaction(a, "second")
        .trigger(Startup)
        .effect(ao)
        .body(|_, _| {});
    b.connect(ao, ai);
    assert!(matches!(b.build(), Err(BuildError::Cycle(_))));
}

#[test]
fn unconnected_required_input() {
    let mut b = ProgramBuilder::new();
    let a = b.reactor("a", ());
    let i = b.input::<u32, _>(a, "needed");
    b.require(i);
    b.reaction(a, "use").trigger(i).body(|_, _| {});
    let err = b.build().unwrap_err();
    assert_eq!(err, BuildError::UnconnectedInput("a.needed".into()));
    assert!(err.to_string().contains("a.needed"));
}

#[test]
fn two_sources_for_one_port() {
    let mut b = ProgramBuilder::new();
    let x = b.reactor("x", ());
    let xo = b.output::<u32, _>(x, "out");
    let y = b.reactor("y", ());
    let yo = b.output::<u32, _>(y, "out");
    let z = b.reactor("z", ());
    let zi = b.input::<u32, _>(z, "in");
    b.connect(xo, zi);
    b.connect(yo, zi);
    assert!(matches!(b.build(), Err(BuildError::MultipleSources { .. })));
}

#[test]
fn connection_across_the_hierarchy_is_rejected() {
    let mut b = ProgramBuilder::new();
    let x = b.reactor("x", ());
    let xi = b.input::<u32, _>(x, "in");
    let y = b.reactor("y", ());
    let yi = b.input::<u32, _>(y, "in");
    b.connect(xi, yi); // an input to a sibling's input
    let err = b.build().unwrap_err();
    assert!(matches!(err, BuildError::InvalidConnection { .. }), "{err}");
}

#[test]
fn declaring_another_reactors_port_is_rejected() {
    let mut b = ProgramBuilder::new();
    let x = b.reactor("x", ());
    let xo = b.output::<u32, _>(x, "out");
    let y = b.reactor("y", ());
    b.reaction(y, "steal")
        .trigger(Startup)
        .effect(xo)
        .body(|_, _| {});
    let err = b.build().unwrap_err();
    assert!(
        matches!(err, BuildError::InvalidDeclaration { .. }),
        "{err}"
    );
}

#[test]
fn handle_of_another_program_is_rejected() {
    let mut other = ProgramBuilder::new();
    let o = other.reactor("o", ());
    let foreign = other.output::<u32, _>(o, "out");
    let mut b = ProgramBuilder::new();
    let x = b.reactor("x", ());
    let xi = b.input::<u32, _>(x, "in");
    b.connect(foreign, xi);
    assert!(matches!(b.build(), Err(BuildError::ForeignHandle(_))));
}

/// A program whose reactor `r` has a reaction `sneaky`, triggered at startup, with the body that
/// `declare` returns after declaring an element on `r`: the body uses the element, which the
/// reaction does not declare.
fn sneaky<F>(declare: impl FnOnce(&mut ProgramBuilder, ReactorId<()>) -> F) -> Program
where
    F: FnMut(&mut (), &Ctx<'_>) + Send + 'static,
{
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let body = declare(&mut b, r);
    b.reaction(r, "sneaky").trigger(Startup).body(body);
    b.build().unwrap()
}

fn undeclared_schedule(_: &Log) -> Program {
    sneaky(|b, r| {
        let a = b.logical_action::<(), _>(r, "a", Duration::ZERO);
        b.reaction(r, "on_a").trigger(a).body(|_, _| {});
        move |_: &mut (), ctx: &Ctx<'_>| ctx.schedule(a, (), Duration::ZERO)
    })
}

fn undeclared_set(_: &Log) -> Program {
    sneaky(|b, r| {
        let o = b.output::<u32, _>(r, "out");
        move |_: &mut (), ctx: &Ctx<'_>| ctx.set(o, 1)
    })
}

fn undeclared_read(_: &Log) -> Program {
    sneaky(|b, r| {
        let i = b.input::<u32, _>(r, "in");
        move |_: &mut (), ctx: &Ctx<'_>| {
            let _ = ctx.get(i);
        }
    })
}

fn panicking(_: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let t = b.timer(r, "t", Duration::ZERO, Duration::from_millis(1));
    b.reaction(r, "boom").trigger(t).body(move |_, ctx| {
        if ctx.time() >= Duration::from_millis(3) {
            panic!("boom at {}", ctx.tag());
        }
    });
    b.build().unwrap()
}

/// On every runner, the program `build` makes fails with the reaction `r.sneaky` refused
/// `access` (as the error says it: "schedule r.a"), and the message names the reaction.
fn assert_undeclared(build: fn(&Log) -> Program, access: &str) {
    for cfg in configs(&[1, 2]) {
        let (_, report) = run_with(cfg, true, None, &build);
        let err = report.unwrap_err();
        assert_eq!(
            err,
            RunError::Undeclared {
                reaction: "r.sneaky".into(),
                access: access.into()
            },
            "{cfg:?}"
        );
        assert!(err.to_string().contains("r.sneaky"));
    }
}

#[test]
fn scheduling_an_undeclared_action_is_an_error_not_a_hang() {
    assert_undeclared(undeclared_schedule, "schedule r.a");
}

#[test]
fn setting_an_undeclared_port_is_an_error() {
    assert_undeclared(undeclared_set, "set r.out");
}

#[test]
fn reading_an_undeclared_port_is_an_error() {
    assert_undeclared(undeclared_read, "read r.in");
}

#[test]
fn a_panicking_reaction_stops_the_run_with_its_message() {
    for cfg in configs(&[1, 2, 8]) {
        let (_, report) = run_with(cfg, true, None, &panicking);
        match report {
            Err(RunError::Panicked { reaction, message }) => {
                assert_eq!(reaction, "r.boom");
                assert_eq!(message, "boom at (3 ms, 0)");
            }
            other => panic!("{cfg:?}: {other:?}"),
        }
    }
}
