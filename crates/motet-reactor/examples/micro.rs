//! Per-reaction cost on LF's micro benchmarks shapes: ping-pong (a round trip per tag through a
//! logical action) and a thread ring, in fast mode, on the calling thread and on a pool with both
//! schedulers. Prints LF's "time per reaction".
//!
//! `cargo run --release -p motet-reactor --example micro -- [rounds] [workers] [program...]`
//!
//! Programs: `actor`, `pingpong`, `threadring`, `count` (default: all of them).

use motet_reactor::{Program, Runner, SchedulerKind};
use motet_runtime::Runtime;

#[path = "../tests/common/micro.rs"]
mod programs;
use programs::{count, pingpong, ring};

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
                pingpong(rounds).0
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
