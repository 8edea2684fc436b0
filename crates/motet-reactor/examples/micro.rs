//! Per-reaction cost on LF's micro benchmarks shapes: ping-pong (a round trip per tag through a
//! logical action) and a thread ring, in fast mode, on the calling thread and on a pool with both
//! schedulers. Prints LF's "time per reaction".
//!
//! `cargo run --release -p motet-reactor --example micro -- [rounds] [workers] [program...]`
//!
//! Programs: `actor`, `pingpong`, `threadring`, `count` (default: all of them).

use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, Runner, SchedulerKind, Startup};
use motet_runtime::Runtime;

fn pingpong(n: u64) -> Program {
    let mut b = ProgramBuilder::new();
    let ping = b.reactor("ping", n);
    let serve = b.logical_action::<(), _>(ping, "serve", Duration::ZERO);
    let send = b.output::<u64, _>(ping, "ping");
    let recv = b.input::<u64, _>(ping, "pong");
    b.reaction(ping, "start")
        .trigger(Startup)
        .effect(serve)
        .body(move |_, ctx| ctx.schedule(serve, (), Duration::ZERO));
    b.reaction(ping, "send")
        .trigger(serve)
        .effect(send)
        .body(move |left, ctx| {
            ctx.set(send, *left);
            *left -= 1;
        });
    b.reaction(ping, "recv")
        .trigger(recv)
        .effect(serve)
        .body(move |left, ctx| {
            if *left > 0 {
                ctx.schedule(serve, (), Duration::ZERO);
            }
        });
    let pong = b.reactor("pong", 0u64);
    let pin = b.input::<u64, _>(pong, "ping");
    let pout = b.output::<u64, _>(pong, "pong");
    b.reaction(pong, "reply")
        .trigger(pin)
        .effect(pout)
        .body(move |count, ctx| {
            *count += 1;
            let v = *ctx.get(pin).unwrap();
            ctx.set(pout, v);
        });
    b.connect(send, pin);
    b.connect(pout, recv);
    b.build().unwrap()
}

/// A ring of `n` nodes passing a token `hops` times; each hop is one tag (a logical action breaks
/// the cycle in every node, as LF's port does; `send` is declared before `recv` so that the order
/// within a node does not close the cycle again).
fn ring(n: usize, hops: u64) -> Program {
    let mut b = ProgramBuilder::new();
    let nodes = b.bank(n, |b, i| {
        let r = b.reactor(&format!("node[{i}]"), i);
        let inp = b.input::<u64, _>(r, "in");
        let out = b.output::<u64, _>(r, "out");
        let fwd = b.logical_action::<u64, _>(r, "fwd", Duration::ZERO);
        b.reaction(r, "start")
            .trigger(Startup)
            .effect(out)
            .body(move |me, ctx| {
                if *me == 0 {
                    ctx.set(out, hops);
                }
            });
        b.reaction(r, "send")
            .trigger(fwd)
            .effect(out)
            .body(move |_, ctx| {
                let v = *ctx.get(fwd).unwrap();
                ctx.set(out, v);
            });
        b.reaction(r, "recv")
            .trigger(inp)
            .effect(fwd)
            .body(move |_, ctx| {
                let left = *ctx.get(inp).unwrap();
                if left > 0 {
                    ctx.schedule(fwd, left - 1, Duration::ZERO);
                }
            });
        (inp, out)
    });
    let outs: Ports<u64> = nodes.iter().map(|x| x.1).collect();
    let ins: Ports<u64> = nodes.iter().cycle().skip(1).take(n).map(|x| x.0).collect();
    b.connect(outs, ins);
    b.build().unwrap()
}

/// LF's counting actor: a producer sends `n` increments to a counter, one per tag (a logical action
/// per increment, as LF's port does), then asks for the count.
fn count(n: u64) -> Program {
    let mut b = ProgramBuilder::new();
    let producer = b.reactor("producer", 0u64);
    let next = b.logical_action::<(), _>(producer, "next", Duration::ZERO);
    let inc = b.output::<(), _>(producer, "increment");
    let ask = b.output::<(), _>(producer, "retrieve");
    let result = b.input::<u64, _>(producer, "result");
    b.reaction(producer, "start")
        .trigger(Startup)
        .effect(next)
        .body(move |_, ctx| ctx.schedule(next, (), Duration::ZERO));
    b.reaction(producer, "send")
        .trigger(next)
        .effect(inc)
        .effect(ask)
        .effect(next)
        .body(move |sent, ctx| {
            if *sent < n {
                ctx.set(inc, ());
                *sent += 1;
                ctx.schedule(next, (), Duration::ZERO);
            } else {
                ctx.set(ask, ());
            }
        });
    b.reaction(producer, "check")
        .trigger(result)
        .body(move |_, ctx| assert_eq!(*ctx.get(result).unwrap(), n));
    let counter = b.reactor("counter", 0u64);
    let cin = b.input::<(), _>(counter, "increment");
    let cask = b.input::<(), _>(counter, "retrieve");
    let cout = b.output::<u64, _>(counter, "result");
    b.reaction(counter, "count")
        .trigger(cin)
        .body(move |c, _| *c += 1);
    b.reaction(counter, "reply")
        .trigger(cask)
        .effect(cout)
        .body(move |c, ctx| ctx.set(cout, *c));
    b.connect(inc, cin);
    b.connect(ask, cask);
    b.connect(cout, result);
    b.build().unwrap()
}

/// motet's actor ping-pong (2 messages per round trip) on a one-worker runtime, for the ratio:
/// nanoseconds per message, best of 5.
fn actor_pingpong(rounds: u64) -> f64 {
    use motet_actor::{spawn, Actor, Addr, Context};
    struct Pinger {
        left: u64,
        pong: Option<Addr<Addr<()>>>,
    }
    impl Actor for Pinger {
        type Msg = ();
        fn handle(&mut self, ctx: &mut Context<'_, Self>, _: ()) {
            if self.left == 0 {
                self.pong = None;
                ctx.stop();
                return;
            }
            self.left -= 1;
            if let Some(p) = &self.pong {
                let _ = p.tell(ctx.myself());
            }
        }
    }
    struct Ponger;
    impl Actor for Ponger {
        type Msg = Addr<()>;
        fn handle(&mut self, _: &mut Context<'_, Self>, from: Addr<()>) {
            let _ = from.send(());
        }
    }
    let rt = Runtime::builder().workers(1).build().expect("runtime");
    let mut best = f64::MAX;
    for _ in 0..5 {
        let start = std::time::Instant::now();
        let pong = spawn(rt.handle(), Ponger);
        let ping = spawn(
            rt.handle(),
            Pinger {
                left: rounds,
                pong: Some(pong),
            },
        );
        let _ = ping.tell(());
        drop(ping);
        rt.wait_quiescent();
        best = best.min(start.elapsed().as_nanos() as f64 / (2 * rounds) as f64);
    }
    best
}

fn measure(name: &str, runner: &Runner, build: &dyn Fn() -> Program) {
    let mut best = f64::MAX;
    let mut reactions = 0;
    for _ in 0..5 {
        let mut p = build();
        let report = runner.run(&mut p).expect("run");
        best = best.min(report.ns_per_reaction());
        reactions = report.metrics.reactions_executed;
    }
    println!("{name:<40} {reactions:>9} reactions  {best:>8.1} ns/reaction (best of 5)");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: u64 = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let workers: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2);
    let only: Vec<&str> = args.iter().skip(3).map(String::as_str).collect();
    let wanted = |name: &str| only.is_empty() || only.contains(&name);
    let rt = Runtime::builder()
        .workers(workers)
        .build()
        .expect("runtime");
    let here = Runner::new().fast(true);
    let ready = Runner::on(rt.handle())
        .fast(true)
        .scheduler(SchedulerKind::Readiness);
    let level = Runner::on(rt.handle())
        .fast(true)
        .scheduler(SchedulerKind::Level);
    if wanted("actor") {
        println!(
            "{:<40} {:>9} messages   {:>8.1} ns/message (best of 5)",
            format!("actor pingpong {rounds} (1 worker)"),
            2 * rounds,
            actor_pingpong(rounds)
        );
    }
    let runners: Vec<(&str, &Runner)> = if workers == 1 {
        vec![("1 worker", &here)]
    } else {
        vec![
            ("1 worker", &here),
            ("readiness", &ready),
            ("level", &level),
        ]
    };
    for (label, runner) in runners {
        if wanted("pingpong") {
            measure(&format!("pingpong {rounds} ({label})"), runner, &|| {
                pingpong(rounds)
            });
        }
        if wanted("threadring") {
            measure(
                &format!("threadring 100 x {} ({label})", rounds / 10),
                runner,
                &|| ring(100, rounds / 10),
            );
        }
        if wanted("count") {
            measure(&format!("count {rounds} ({label})"), runner, &|| {
                count(rounds)
            });
        }
    }
}
