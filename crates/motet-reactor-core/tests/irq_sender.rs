//! Interrupt-safe physical actions through a whole program: values from an `IrqSender` reach the
//! action's reaction in order, and a full ring fails the run with `RunError::PhysicalOverflow`.

mod common;

use core::time::Duration;

use common::Virtual;
use motet_reactor_core::{run_sequential, ProgramBuilder, RunError, RunOptions, Startup};

#[test]
fn values_arrive_in_order_and_the_sender_keeps_the_program_alive() {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", Vec::<u32>::new());
    let a = b.physical_action::<u32, _>(r, "a", Duration::ZERO);
    b.reaction(r, "got")
        .trigger(a)
        .body(move |seen: &mut Vec<u32>, ctx| {
            seen.push(*ctx.get(a).unwrap());
            if seen.len() == 3 {
                ctx.request_stop();
            }
        });
    let s = b.irq_sender(a, 4);
    assert_eq!(s.capacity(), 4);
    for (i, v) in [7, 8, 9].into_iter().enumerate() {
        s.send_at(v, i as u64 * 1_000).unwrap();
    }
    let mut p = b.build().unwrap();
    run_sequential(&mut p, &mut Virtual(0), &RunOptions::default(), &mut ()).unwrap();
    assert_eq!(*p.state_mut(r), [7, 8, 9]);
    assert_eq!(s.overflows(), 0);
}

#[test]
fn a_full_ring_is_a_reported_fault() {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", 0u32);
    let a = b.physical_action::<u32, _>(r, "a", Duration::ZERO);
    b.reaction(r, "start").trigger(Startup).body(|_, _| {});
    b.reaction(r, "got")
        .trigger(a)
        .body(|n: &mut u32, _| *n += 1);
    let s = b.irq_sender(a, 2);
    s.send_at(1, 0).unwrap();
    s.send_at(2, 0).unwrap();
    assert_eq!(s.send_at(3, 0), Err(3));
    assert_eq!(s.overflows(), 1);
    drop(s);
    let mut p = b.build().unwrap();
    let run = run_sequential(&mut p, &mut Virtual(0), &RunOptions::default(), &mut ());
    match run {
        Err(RunError::PhysicalOverflow { action, lost }) => {
            assert_eq!(action, "r.a");
            assert_eq!(lost, 1);
        }
        other => panic!("expected an overflow, got {other:?}"),
    }
}
