//! Watchdogs on the physical clock: input that stops arriving lets the watchdog expire one
//! timeout after the last restart, and a program that lags behind physical time sees expiries a
//! fast (virtual-time) run of the same program never has. The exact logs of virtual-time runs
//! are conformance scenarios (`common/scenarios/watchdog.rs`). These runs read the clock, so they
//! check properties, never times.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{configs, runner};
use motet_reactor::{ProgramBuilder, Tag};

const ZERO: Duration = Duration::ZERO;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A sensor sends three values 5 ms apart, then falls silent; every value restarts a 100 ms
/// watchdog; the watchdog expires once, exactly one timeout (in logical time) after the last
/// value's tag, when physical time has passed it, and its reaction stops the program.
#[test]
fn silence_after_the_last_input_expires_the_watchdog() {
    for cfg in configs(&[1, 2]) {
        let mut b = ProgramBuilder::new();
        let r = b.reactor("r", ());
        let input = b.physical_action::<u32, _>(r, "input", ZERO);
        let dog = b.watchdog(r, "dog", ms(100));
        let arrivals: Arc<Mutex<Vec<Tag>>> = Arc::default();
        let expiries: Arc<Mutex<Vec<(Tag, bool)>>> = Arc::default();
        let seen = arrivals.clone();
        b.reaction(r, "feed")
            .trigger(input)
            .effect(dog)
            .body(move |_, ctx| {
                seen.lock().unwrap().push(ctx.tag());
                ctx.start_watchdog(dog, ZERO);
            });
        let fired = expiries.clone();
        b.reaction(r, "silence").trigger(dog).body(move |_, ctx| {
            let caught_up = ctx.physical_time() >= ctx.time();
            fired.lock().unwrap().push((ctx.tag(), caught_up));
            ctx.request_stop();
        });
        let mut program = b.build().unwrap();
        let tx = program.sender(input);
        let sensor = std::thread::spawn(move || {
            for v in 0..3 {
                std::thread::sleep(ms(5));
                tx.send(v);
            }
            // The sender stays alive past the expiry: only the watchdog ends the run.
            std::thread::sleep(ms(400));
        });
        runner(cfg, false, None).run(&mut program).unwrap();
        sensor.join().unwrap();
        let arrivals = arrivals.lock().unwrap();
        let expiries = expiries.lock().unwrap();
        assert_eq!(arrivals.len(), 3, "{cfg:?}");
        assert_eq!(expiries.len(), 1, "{cfg:?}: one expiry");
        let (tag, caught_up) = expiries[0];
        let last = arrivals[2];
        assert_eq!(
            tag,
            Tag::from_nanos(last.nanos() + 100_000_000, 0),
            "{cfg:?}"
        );
        assert!(
            caught_up,
            "{cfg:?}: the expiry ran before physical time reached it"
        );
    }
}

/// A 10 ms timer restarts a 15 ms watchdog, so in virtual time it never expires; in a real-time
/// run, one tick takes 40 ms of physical time, which passes the expiry before the next restart:
/// the expiry stands and its reaction runs at its tag (as LF's watchdog thread would fire).
#[test]
fn physical_lag_expires_what_virtual_time_does_not() {
    let build = |sleep: bool, expired: Arc<Mutex<Vec<Tag>>>| {
        let mut b = ProgramBuilder::new();
        let r = b.reactor("r", 0u32);
        let t = b.timer(r, "t", ZERO, ms(10));
        let dog = b.watchdog(r, "dog", ms(15));
        b.reaction(r, "tick")
            .trigger(t)
            .effect(dog)
            .body(move |n, ctx| {
                ctx.start_watchdog(dog, ZERO);
                *n += 1;
                if sleep && *n == 3 {
                    std::thread::sleep(ms(40));
                }
            });
        b.reaction(r, "expired").trigger(dog).body(move |_, ctx| {
            expired.lock().unwrap().push(ctx.tag());
        });
        b.build().unwrap()
    };
    for cfg in configs(&[1, 2]) {
        let virtual_time: Arc<Mutex<Vec<Tag>>> = Arc::default();
        let mut program = build(true, virtual_time.clone());
        runner(cfg, true, Some(ms(60))).run(&mut program).unwrap();
        assert!(
            virtual_time.lock().unwrap().is_empty(),
            "{cfg:?}: restarted every 10 ms, a 15 ms watchdog never expires in virtual time"
        );

        let physical: Arc<Mutex<Vec<Tag>>> = Arc::default();
        let mut program = build(true, physical.clone());
        runner(cfg, false, Some(ms(60))).run(&mut program).unwrap();
        let physical = physical.lock().unwrap();
        assert!(
            !physical.is_empty(),
            "{cfg:?}: 40 ms of physical time in one tick passes the 15 ms expiry"
        );
        // Among them, the one armed by the tick that slept (at 20 ms): physical time passed it
        // during that tick, before the next tick could restart the watchdog.
        assert!(
            physical.contains(&Tag::from_nanos(35_000_000, 0)),
            "{cfg:?}: {physical:?}"
        );
    }
}
