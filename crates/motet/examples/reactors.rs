//! Deterministic reactors: the bank account of the Lingua Franca paper (figure 7), scaled with a
//! bank of users and a multiport, plus a delayed user through an `after` connection. Whatever the
//! number of workers, the account sees the requests in tag order and gives the same answers.
//!
//! `cargo run -p motet --features reactor --example reactors [-- --dot | --mermaid | --trace FILE]`

use std::sync::{Arc, Mutex};
use std::time::Duration;

use motet::reactor::diagram::{to_dot, to_mermaid};
use motet::reactor::{Ports, Program, ProgramBuilder, Runner, SchedulerKind, Startup};
use motet::Runtime;

/// What the account decided, in order.
type Journal = Arc<Mutex<Vec<String>>>;

fn program(users: usize, journal: &Journal) -> Program {
    let mut b = ProgramBuilder::new();
    // A bank of users; user i asks for 15 - 10 i at startup.
    let requests = b.bank(users, |b, i| {
        let user = b.reactor(&format!("user[{i}]"), i as f64);
        let req = b.output::<f64, _>(user, "req");
        b.reaction(user, "ask")
            .trigger(Startup)
            .effect(req)
            .body(move |index, ctx| ctx.set(req, 15.0 - 10.0 * *index));
        req
    });
    // A late user whose request goes through a 1 s logical delay.
    let late = b.reactor("late", ());
    let late_req = b.output::<f64, _>(late, "req");
    b.reaction(late, "ask")
        .trigger(Startup)
        .effect(late_req)
        .body(move |_, ctx| ctx.set(late_req, -4.0));

    let account = b.reactor("account", (0.0f64, journal.clone()));
    let req = b.input_multiport::<f64, _>(account, "req", users);
    let late_in = b.input::<f64, _>(account, "late");
    b.reaction(account, "apply")
        .trigger(req)
        .trigger(late_in)
        .body(move |(balance, journal): &mut (f64, Journal), ctx| {
            let mut asks: Vec<(String, f64)> = ctx
                .present_sorted(req)
                .map(|(i, v)| (format!("user[{i}]"), *v))
                .collect();
            if let Some(v) = ctx.get(late_in) {
                asks.push(("late".into(), *v));
            }
            for (who, v) in asks {
                let verdict = if *balance + v >= 0.0 {
                    *balance += v;
                    "accepted"
                } else {
                    "denied"
                };
                journal.lock().unwrap().push(format!(
                    "{} {who} asks {v:+}: {verdict}, balance {balance}",
                    ctx.tag()
                ));
            }
        });
    b.connect(requests.into_iter().collect::<Ports<f64>>(), req);
    b.connect_after(late_req, late_in, Duration::from_secs(1));
    b.build().expect("a valid program")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let journal: Journal = Arc::default();
    let mut p = program(4, &journal);
    if args.iter().any(|a| a == "--dot") {
        print!("{}", to_dot(&p));
        return;
    }
    if args.iter().any(|a| a == "--mermaid") {
        print!("{}", to_mermaid(&p));
        return;
    }
    let rt = Runtime::builder().workers(2).build().expect("runtime");
    let trace_file = args
        .iter()
        .position(|a| a == "--trace")
        .and_then(|i| args.get(i + 1));
    let report = Runner::on(rt.handle())
        .scheduler(SchedulerKind::Readiness)
        .fast(true)
        .trace(trace_file.is_some())
        .run(&mut p)
        .expect("the run");
    for line in journal.lock().unwrap().iter() {
        println!("{line}");
    }
    let m = report.metrics;
    println!(
        "{} reactors, {} reactions, {} tags, {} reactions executed in {:?}",
        m.reactors, m.reactions, m.tags, m.reactions_executed, report.elapsed
    );
    if let (Some(file), Some(trace)) = (trace_file, report.trace) {
        std::fs::write(file, trace.to_chrome_json()).expect("write the trace");
        println!("trace written to {file} (open it in ui.perfetto.dev)");
    }
}
