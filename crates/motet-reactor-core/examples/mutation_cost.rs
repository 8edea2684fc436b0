//! The cost of a mutation against assembling the whole program again.
//!
//! A program of `N` reactors (default 10,000): a hub whose output feeds a pipeline of cells,
//! `cell[i].out -> cell[i + 1].in`, each cell also with an unconnected input `aux` that triggers
//! its reaction. A timer on the hub fires `K` times (default 200); each time the hub's reaction
//! requests a mutation that adds one reactor. Two shapes:
//!
//! - `leaf`: the new reactor reads the hub's output (the common case: a reactor joins beside the
//!   others and listens);
//! - `head`: the new reactor's output feeds `aux` of a cell near the start of the pipeline, so
//!   the levels of every cell after it are visited (the worst case of the incremental update).
//!
//! The example drives the engine itself and times, with the platform clock, each
//! `Engine::apply_mutations` (the first one apart: it makes the mutation indices) and each
//! `ProgramBuilder::build` of the whole program; it prints the medians and their ratio.
//!
//! ```text
//! cargo run --release -p motet-reactor-core --example mutation_cost -- [N] [K]
//! ```

use std::time::{Duration, Instant};

use motet_reactor_core::{
    Clock, Engine, Input, LevelQueue, Next, Output, Program, ProgramBuilder, RunOptions, Startup,
};

struct Zero;
impl Clock for Zero {
    fn now(&self) -> u64 {
        0
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Leaf,
    Head,
}

fn program(n: usize, k: usize, shape: Shape) -> Program {
    let mut b = ProgramBuilder::new();
    let hub = b.reactor("hub", 0u32);
    let out: Output<u64> = b.output(hub, "out");
    let tick = b.timer(hub, "tick", Duration::ZERO, Duration::from_millis(1));
    let mut first_aux: Vec<Input<u64>> = Vec::new();
    let mut prev = out;
    for i in 0..n.saturating_sub(1) {
        let c = b.reactor(&format!("cell[{i}]"), 0u64);
        let inp: Input<u64> = b.input(c, "in");
        let aux: Input<u64> = b.input(c, "aux");
        let o: Output<u64> = b.output(c, "out");
        b.reaction(c, "step")
            .trigger(inp)
            .trigger(aux)
            .effect(o)
            .body(move |s, ctx| {
                if let Some(v) = ctx.get(inp) {
                    *s += v;
                    ctx.set(o, *v);
                }
            });
        b.connect(prev, inp);
        prev = o;
        if first_aux.len() < k {
            first_aux.push(aux);
        }
    }
    b.reaction(hub, "start")
        .trigger(Startup)
        .effect(out)
        .body(move |_, ctx| ctx.set(out, 1));
    b.reaction(hub, "grow")
        .trigger(tick)
        .mutates()
        .body(move |made: &mut u32, ctx| {
            let i = *made as usize;
            *made += 1;
            let target = first_aux.get(i).copied();
            ctx.mutate(move |m| {
                let r = m.reactor(&format!("new[{i}]"), 0u64);
                let inp: Input<u64> = m.input(r, "in");
                let o: Output<u64> = m.output(r, "out");
                m.reaction(r, "on")
                    .trigger(inp)
                    .effect(o)
                    .body(move |s, ctx| {
                        if let Some(v) = ctx.get(inp) {
                            *s += v;
                            ctx.set(o, *v);
                        }
                    });
                match (shape, target) {
                    (Shape::Head, Some(aux)) => m.connect(o, aux),
                    _ => m.connect(out, inp),
                }
            });
        });
    b.build().expect("the program is well formed")
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `k` ticks, timing each application of the mutations: (first, the others).
fn mutate(n: usize, k: usize, shape: Shape) -> (Duration, Vec<Duration>) {
    let mut prog = program(n, k, shape);
    let options = RunOptions {
        fast: true,
        timeout: Some(Duration::from_millis(k as u64)),
    };
    let mut engine = Engine::new(&prog, 0, &options);
    let mut ready = LevelQueue::new(&prog);
    let mut times = Vec::new();
    loop {
        if engine.mutation_pending() {
            let t = Instant::now();
            // The last tick's request comes at the stop tag, where it is not applied.
            if engine.apply_mutations(&mut prog) {
                times.push(t.elapsed());
                ready.fit(&prog);
            }
        }
        match engine.next(&prog, &Zero) {
            Next::Tag(tag) => {
                engine.enter_tag(&prog, tag, &mut |r| ready.push(&prog, r));
                engine.run_ready(&prog, &mut ready, |r| {
                    // SAFETY: one reaction at a time, in level order.
                    unsafe { prog.execute(r as usize, &Zero) }
                });
                engine.finish_tag(&prog);
            }
            Next::Done => break,
            other => panic!("fast mode does not wait: {other:?}"),
        }
    }
    let metrics = engine.finish().expect("the run succeeds");
    assert_eq!(metrics.reactors_created as usize, times.len());
    let first = times.remove(0);
    (first, times)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let k: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let builds: Vec<Duration> = (0..21)
        .map(|_| {
            let t = Instant::now();
            let p = program(n, k, Shape::Leaf);
            let d = t.elapsed();
            drop(p);
            d
        })
        .collect();
    let build = median(builds);
    println!("program of {n} reactors; {k} mutations adding one reactor each");
    println!("build and assemble the whole program: median {build:?}");
    for (name, shape) in [("leaf", Shape::Leaf), ("head", Shape::Head)] {
        let (first, rest) = mutate(n, k, shape);
        let m = median(rest);
        println!(
            "{name}: first mutation {first:?} ({:.2}% of a build), then median {m:?} ({:.3}% of a build)",
            100.0 * first.as_secs_f64() / build.as_secs_f64(),
            100.0 * m.as_secs_f64() / build.as_secs_f64(),
        );
    }
}
