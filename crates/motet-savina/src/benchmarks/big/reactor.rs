//! Big as reactors, after LF's port.
//!
//! A bank of W workers, fully connected twice (`workers.out_ping -> interleaved(workers.in_ping)`,
//! the same for pongs: worker i's channel j reaches worker j's channel i), and a Sink counting the
//! workers that are done. Each worker's logical action `next` sends its next ping to a neighbor
//! drawn from its own Savina generator (seeded with its index); a worker answers every ping that
//! arrives at a tag with a pong on the same channel; a pong from the expected neighbor schedules the
//! next ping, until N are sent. Every worker pings once per tag, so a run is about N tags of 3W
//! reactions each. The multiports are sparse (one ping and one pong per worker and tag out of W
//! channels each), so the workers visit only the channels present (LF's sparse multiports).

use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, Config};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::random::PseudoRandom;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// A worker's state.
struct Worker {
    pings: u64,
    random: PseudoRandom,
    /// The neighbor pinged last, whose pong is expected.
    expected: usize,
    /// Pongs from any other neighbor.
    unexpected: u64,
    /// Pings answered.
    pings_handled: u64,
}

/// What reads the result of a built program: the Sink (its state counts finished workers) and the workers.
pub(super) struct Big {
    cfg: Config,
    sink: ReactorId<u64>,
    workers: Vec<ReactorId<Worker>>,
}

/// Builds the program for `cfg.w` workers of `cfg.n` pings each.
pub(super) fn build(cfg: &Config) -> (Program, Big) {
    let Config { n, w } = *cfg;
    let mut b = ProgramBuilder::new();
    let sink = b.reactor("sink", 0u64);
    let finished_in = b.input_multiport::<(), _>(sink, "finished", w);
    b.reaction(sink, "count")
        .trigger(finished_in)
        .body(move |exits, ctx| *exits += ctx.present_count(finished_in) as u64);
    let workers = b.bank(w, |b, i| {
        let r = b.reactor(
            &format!("worker[{i}]"),
            Worker {
                pings: 0,
                random: PseudoRandom::new(i as i64),
                expected: usize::MAX,
                unexpected: 0,
                pings_handled: 0,
            },
        );
        let in_ping = b.input_multiport::<(), _>(r, "in_ping", w);
        let in_pong = b.input_multiport::<(), _>(r, "in_pong", w);
        let out_ping = b.output_multiport::<(), _>(r, "out_ping", w);
        let out_pong = b.output_multiport::<(), _>(r, "out_pong", w);
        let finished = b.output::<(), _>(r, "finished");
        let next = b.logical_action::<(), _>(r, "next", Duration::ZERO);
        b.reaction(r, "ping")
            .trigger(next)
            .effect(out_ping)
            .body(move |me: &mut Worker, ctx| {
                me.pings += 1;
                let to = me.random.next_int_below(w as i32) as usize;
                me.expected = to;
                ctx.set(out_ping.channel(to), ());
            });
        b.reaction(r, "pong")
            .trigger(in_ping)
            .effect(out_pong)
            .body(move |me: &mut Worker, ctx| {
                for (from, _) in ctx.present_unordered(in_ping) {
                    me.pings_handled += 1;
                    ctx.set(out_pong.channel(from), ());
                }
            });
        b.reaction(r, "next")
            .trigger(in_pong)
            .effect(next)
            .effect(finished)
            .body(move |me: &mut Worker, ctx| {
                for (from, _) in ctx.present_unordered(in_pong) {
                    if from != me.expected {
                        me.unexpected += 1;
                    }
                }
                if me.pings == n {
                    ctx.set(finished, ());
                } else {
                    ctx.schedule(next, (), Duration::ZERO);
                }
            });
        b.reaction(r, "start")
            .trigger(Startup)
            .effect(next)
            .effect(finished)
            .body(move |_, ctx| {
                if n == 0 {
                    ctx.set(finished, ());
                } else {
                    ctx.schedule(next, (), Duration::ZERO);
                }
            });
        (r, in_ping, in_pong, out_ping, out_pong, finished)
    });
    let out_pings: Ports<()> = workers.iter().map(|x| x.3).collect();
    let out_pongs: Ports<()> = workers.iter().map(|x| x.4).collect();
    b.connect(out_pings, Ports::interleaved(workers.iter().map(|x| x.1)));
    b.connect(out_pongs, Ports::interleaved(workers.iter().map(|x| x.2)));
    let finished: Ports<()> = workers.iter().map(|x| x.5).collect();
    b.connect(finished, finished_in);
    (
        b.build().expect("the big program is well formed"),
        Big {
            cfg: *cfg,
            sink,
            workers: workers.into_iter().map(|x| x.0).collect(),
        },
    )
}

impl Built for Big {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let exits = *program.state_mut(self.sink);
        let (mut pings_handled, mut unexpected) = (0, 0);
        for &r in &self.workers {
            let worker = program.state_mut(r);
            pings_handled += worker.pings_handled;
            unexpected += worker.unexpected;
        }
        check(self.cfg, exits, pings_handled, unexpected)
    }
}
