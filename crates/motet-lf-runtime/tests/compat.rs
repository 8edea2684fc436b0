//! The reactor-rs names on motet programs declared by hand: ports, multiports, actions with and
//! without values, timers, and the tag as bodies see it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use motet_lf_runtime::motet::{ProgramBuilder, Runner, Startup};
use motet_lf_runtime::prelude::*;
use motet_lf_runtime::{connect, connect_delayed, Declarable, Role, Shared};

type Log = Arc<Mutex<Vec<(EventTag, u32)>>>;

#[test]
fn ports_actions_and_tags() {
    let shared = Shared::new(1);
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", 0u32);
    let out = Port::output(b.output::<u32, _>(src, "out"));
    let act = LogicalAction::<u32>::declare(&mut b, src, "act", Duration::from_millis(2), None);
    let log: Log = Arc::default();
    let sink = b.reactor("sink", log.clone());
    let inp = Port::input(b.input::<u32, _>(sink, "inp"));
    connect_delayed(
        &mut b,
        &out.channels(),
        &inp.channels(),
        Some(delay!(1 ms)),
        false,
        false,
    );

    let (mut o, mut a) = (out, act.clone());
    let sh = shared.clone();
    let rb = b.reaction(src, "emit").trigger(Startup);
    let rb = act.declare(rb, Role::Trigger);
    let rb = o.declare(rb, Role::Effect);
    let rb = a.declare(rb, Role::Effect);
    rb.body(move |n: &mut u32, c| {
        let mut ctx = ReactionCtx::new(c, &sh);
        *n += 1;
        let v = ctx.get(&a);
        match *n {
            1 => {
                assert_eq!(v, None);
                ctx.schedule_with_v(&mut a, Some(10), Asap);
            }
            2 => {
                assert_eq!(v, Some(10));
                assert_eq!(ctx.get_tag(), tag!(T0 + 2 ms));
                ctx.set(&mut o, 42);
                ctx.schedule(&mut a, after!(1 ms));
            }
            _ => {
                // Scheduled without a value: present, with no value.
                assert!(ctx.is_present(&a));
                assert_eq!(v, None);
                assert_tag_is!(ctx, T0 + 5 ms);
            }
        }
    });
    let sh = shared.clone();
    let rb = b.reaction(sink, "record");
    let rb = inp.declare(rb, Role::Trigger);
    rb.body(move |log: &mut Log, c| {
        let ctx = ReactionCtx::new(c, &sh);
        log.lock()
            .unwrap()
            .push((ctx.get_tag(), ctx.get(&inp).unwrap()));
    });
    let mut program = b.build().unwrap();
    Runner::new()
        .fast(true)
        .timeout(Duration::from_millis(10))
        .run(&mut program)
        .unwrap();
    assert_eq!(*log.lock().unwrap(), vec![(tag!(T0 + 3 ms), 42)]);
}

#[test]
fn multiports_iterate_present_values() {
    let shared = Shared::new(1);
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", ());
    let outs = Multiport::outputs(b.output_multiport::<u32, _>(src, "out", 4));
    let seen: Arc<Mutex<Vec<(usize, u32)>>> = Arc::default();
    let sink = b.reactor("sink", seen.clone());
    let ins = Multiport::inputs(b.input_multiport::<u32, _>(sink, "inp", 4));
    connect(&mut b, &outs.channels(), &ins.channels(), false);
    let mut o = outs.clone();
    let sh = shared.clone();
    let rb = b.reaction(src, "emit").trigger(Startup);
    o.declare(rb, Role::Effect).body(move |_: &mut (), c| {
        let mut ctx = ReactionCtx::new(c, &sh);
        ctx.set(&mut o[1], 11);
        ctx.set(&mut o[3], 33);
    });
    let i = ins.clone();
    let sh = shared.clone();
    let rb = b.reaction(sink, "read");
    i.declare(rb, Role::Trigger)
        .body(move |seen: &mut Arc<Mutex<Vec<(usize, u32)>>>, c| {
            let ctx = ReactionCtx::with_multiports(c, &sh);
            assert_eq!(i.iterate_set().count(), 2);
            assert!(!ctx.is_present(&i[0]));
            let refs: Vec<u32> = i.iterate_values_ref().copied().collect();
            assert_eq!(refs, vec![11, 33]);
            seen.lock().unwrap().extend(i.enumerate_values());
        });
    let mut program = b.build().unwrap();
    Runner::new().fast(true).run(&mut program).unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![(1, 11), (3, 33)]);
    // Outside a body there is no current reaction: nothing is present.
    assert_eq!(ins.iterate_values().count(), 0);
}

#[test]
fn tags_order_and_print() {
    assert!(tag!(T0) < tag!(T0, 1));
    assert!(tag!(T0 + 1 ms, 5) < tag!(T0 + 2 ms));
    assert_eq!(tag!(T0 + 3 sec, 2).microstep(), 2);
    assert_eq!(tag!(T0 + 3 sec).offset_from_t0, delay!(3 s));
    assert_eq!(after!(5 us), After(Duration::from_micros(5)));
    assert_eq!(Asap.to_duration(), Duration::ZERO);
    assert_eq!(
        tag!(T0 + 1 ms, 2).to_string(),
        "(T0 + 1000000 ns = 1 ms, 2)"
    );
}
