//! Physical connections inside a mode: the reactor generated for the connection lies in the
//! mode, so a value in flight when the mode is left is held and delivered after a history entry
//! (before, it reached the consumer while its mode was inactive and was lost). Tags come from the
//! clock here, so the test checks properties, never times.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{configs, runner};
use motet_reactor::{ProgramBuilder, Startup, Tag, Transition};

#[test]
fn a_value_in_flight_waits_for_its_mode() {
    for cfg in configs(&[1, 2]) {
        let mut b = ProgramBuilder::new();
        let m = b.reactor("m", ());
        let one = b.mode(m, "One");
        let two = b.mode(m, "Two");
        let p = b.child(one, "p", ());
        let out = b.output::<u32, _>(p, "out");
        b.reaction(p, "send")
            .trigger(Startup)
            .effect(out)
            .body(move |_, ctx| ctx.set(out, 7));
        let c = b.child(one, "c", ());
        let input = b.input::<u32, _>(c, "in");
        let got: Arc<Mutex<Vec<(Tag, u32)>>> = Arc::default();
        let seen = got.clone();
        b.reaction(c, "recv").trigger(input).body(move |_, ctx| {
            seen.lock()
                .unwrap()
                .push((ctx.tag(), *ctx.get(input).unwrap()));
        });
        b.connect_physical(out, input);
        // Leave One at once (the value is then in flight), come back by history at 20 ms.
        b.reaction(one, "leave")
            .trigger(Startup)
            .effect(two)
            .body(move |_, ctx| ctx.set_mode(two, Transition::History));
        let back = b.timer(two, "back", Duration::from_millis(20), Duration::ZERO);
        b.reaction(two, "back")
            .trigger(back)
            .effect(one)
            .body(move |_, ctx| ctx.set_mode(one, Transition::History));
        let mut program = b.build().unwrap();
        let g = program.graph();
        let delay = g
            .reactors
            .iter()
            .find(|r| r.hidden)
            .expect("the connection's reactor");
        assert_eq!(delay.enclosing_mode, Some(0), "placed in mode One");
        runner(cfg, false, Some(Duration::from_millis(60)))
            .run(&mut program)
            .unwrap();
        let got = got.lock().unwrap();
        assert_eq!(got.len(), 1, "{cfg:?}: the value is delivered once");
        assert_eq!(got[0].1, 7);
        assert!(
            got[0].0 >= Tag::from_nanos(20_000_000, 1),
            "{cfg:?}: delivered only once One is active again, at {}",
            got[0].0
        );
    }
}
