//! The program of the federated chain example and the multi-process tests: two sensors (timers
//! of different periods) in federate `sensors`, a filter with fan-in from both in federate
//! `filter`, and an actuator in federate `actuator` that takes the filter's output `after 3 ms`
//! and the first sensor's directly. The actuator acknowledges even raw samples at once to a
//! monitor in federate `sensors`: `sensors` and `actuator` form a zero-delay cycle, which they
//! run with provisional tags and port-absent messages. Every reaction logs (tag, reactor, value).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use motet_federated::{FederatedBuilder, FederatedProgram, Role};
use motet_reactor_core::RunOptions;

/// One logged event: time (ns), microstep, reactor, value.
pub type Entry = (u64, u32, String, i64);

/// The shared event log of one process.
pub type Log = Arc<Mutex<Vec<Entry>>>;

/// The federates, in declaration order.
pub const FEDERATES: [&str; 3] = ["sensors", "filter", "actuator"];

/// The run's options: logical time only, 60 ms of it.
pub fn options() -> RunOptions {
    RunOptions {
        fast: true,
        timeout: Some(Duration::from_millis(60)),
    }
}

fn log(l: &Log, echo: bool, ctx: &motet_reactor_core::Ctx<'_>, v: i64) {
    let t = ctx.tag();
    let e = (t.nanos(), t.microstep(), ctx.reactor_name().to_string(), v);
    if echo {
        println!("{}", line(&e));
    }
    if let Ok(mut g) = l.lock() {
        g.push(e);
    }
}

/// Builds the program for `role`, logging into a new log (and printing each entry as it is
/// logged when `echo` is set: what a federate's process does).
pub fn build(role: Role, echo: bool) -> (FederatedProgram, Log) {
    let l: Log = Arc::default();
    let mut b = FederatedBuilder::new(role);
    let [f_sensors, f_filter, f_actuator] = FEDERATES.map(|f| b.federate(f));

    let sensor = |b: &mut FederatedBuilder, name: &str, offset: u64, period: u64, scale: i64| {
        let r = b.reactor(name, 0i64);
        let t = b.timer(
            r,
            "tick",
            Duration::from_millis(offset),
            Duration::from_millis(period),
        );
        let out = b.output::<i64, _>(r, "out");
        let l = l.clone();
        b.reaction(r, "sample")
            .trigger(t)
            .effect(out)
            .body(move |n: &mut i64, ctx| {
                *n += 1;
                let v = *n * scale;
                log(&l, echo, ctx, v);
                ctx.set(out, v);
            });
        b.assign(r, f_sensors);
        out
    };
    let s1 = sensor(&mut b, "s1", 0, 5, 1);
    let s2 = sensor(&mut b, "s2", 1, 7, 10);

    // The filter: fan-in from both sensors; passes on the running sum when it is even, and
    // schedules a logical action that reports the odd ones one microstep later.
    let filter = b.reactor("filter", 0i64);
    let a = b.input::<i64, _>(filter, "a");
    let bb = b.input::<i64, _>(filter, "b");
    let out = b.output::<i64, _>(filter, "out");
    let odd = b.logical_action::<i64, _>(filter, "odd", Duration::ZERO);
    {
        let l = l.clone();
        b.reaction(filter, "sum")
            .trigger(a)
            .trigger(bb)
            .effect(out)
            .effect(odd)
            .body(move |sum: &mut i64, ctx| {
                *sum += ctx.get(a).copied().unwrap_or(0) + ctx.get(bb).copied().unwrap_or(0);
                log(&l, echo, ctx, *sum);
                if *sum % 2 == 0 {
                    ctx.set(out, *sum);
                } else {
                    ctx.schedule(odd, -*sum, Duration::ZERO);
                }
            });
    }
    {
        let l = l.clone();
        b.reaction(filter, "odd")
            .trigger(odd)
            .effect(out)
            .body(move |_, ctx| {
                let v = ctx.get(odd).copied().unwrap_or(0);
                log(&l, echo, ctx, v);
                ctx.set(out, v);
            });
    }
    b.assign(filter, f_filter);

    let actuator = b.reactor("actuator", ());
    let cmd = b.input::<i64, _>(actuator, "cmd");
    let raw = b.input::<i64, _>(actuator, "raw");
    let ack = b.output::<i64, _>(actuator, "ack");
    {
        let l = l.clone();
        b.reaction(actuator, "act")
            .trigger(cmd)
            .trigger(raw)
            .effect(ack)
            .body(move |_, ctx| {
                let v =
                    ctx.get(cmd).copied().unwrap_or(0) * 1000 + ctx.get(raw).copied().unwrap_or(0);
                log(&l, echo, ctx, v);
                if let Some(r) = ctx.get(raw).filter(|r| *r % 2 == 0) {
                    ctx.set(ack, *r);
                }
            });
    }
    b.assign(actuator, f_actuator);

    // The monitor, beside the sensors: logs the actuator's acknowledgments at their tag.
    let monitor = b.reactor("monitor", ());
    let acked = b.input::<i64, _>(monitor, "acked");
    {
        let l = l.clone();
        b.reaction(monitor, "seen")
            .trigger(acked)
            .body(move |_, ctx| log(&l, echo, ctx, *ctx.get(acked).unwrap_or(&0)));
    }
    b.assign(monitor, f_sensors);

    b.connect_federated(s1, a);
    b.connect_federated(s2, bb);
    b.connect_federated_after(out, cmd, Duration::from_millis(3));
    b.connect_federated(s1, raw);
    b.connect_federated(ack, acked);
    let program = b.build().expect("the chain program builds");
    (program, l)
}

/// The log in tag order (time, microstep, then reactor and value: reactions of different
/// reactors at one tag have no order between federates).
pub fn sorted(mut log: Vec<Entry>) -> Vec<Entry> {
    log.sort();
    log
}

/// One log line as a federate prints it.
pub fn line(e: &Entry) -> String {
    format!("LOG {} {} {} {}", e.0, e.1, e.2, e.3)
}

/// Parses [`line`]'s output.
pub fn parse(line: &str) -> Option<Entry> {
    let mut it = line.strip_prefix("LOG ")?.split(' ');
    Some((
        it.next()?.parse().ok()?,
        it.next()?.parse().ok()?,
        it.next()?.to_string(),
        it.next()?.parse().ok()?,
    ))
}
