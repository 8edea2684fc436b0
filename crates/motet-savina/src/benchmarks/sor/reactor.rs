//! Successive Over-Relaxation as reactors: the runner, the peer and a bank of `s × s` cells,
//! assembled before the run (LF has no port; the cells are a fixed grid, so the program is
//! static, as LF ports its other fixed-size networks).
//!
//! Each cell has an output `value`, connected to one channel of each neighbour's input multiport
//! `from` (channel k of a cell is its k-th neighbour in [`neighbours`] order), and an output
//! `result` to a channel of its half's owner: the runner's multiport `results` for the left
//! half (plus a last channel for the peer's total), the peer's for the right. What the actor
//! program does with messages the cells do with tags: at the start tag colour-1 cells send their
//! value (Savina's `Start`, which here needs no addresses: the halves' creation and the `Border`
//! exchange are the program's connections); a cell's `receive` reaction takes the values of its
//! neighbours and runs [`CellState::receive`] on each, and an update goes out through the cell's
//! logical action `next` one microstep later (its `send` reaction), which breaks the cycle
//! through the neighbours. The two colours update in lockstep, so the values of one half-sweep
//! reach a cell together, at one tag: LF's one value per port and tag holds, a half-sweep is one
//! microstep (199 half-sweeps over 200 tags), and a cell updates in one reaction where the actor
//! takes one message per neighbour. A cell adds its neighbours' values in neighbour order (the
//! actor in arrival order), and the owners add results in channel order, so the total is the
//! same on every run, scheduler and worker count; it is checked as the actors' is.

use std::sync::Arc;
use std::time::Duration;

use motet_reactor::{InputMultiport, Output, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, neighbours, CellState, Config, Grid, Update};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
/// The grid and the reference total are made once, untimed, for every iteration's program.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    reactor_support::prepare((cfg, Arc::new(Grid::new(&cfg))), threads, model, build)
}

/// A final value (or the peer's total) and how many cells it covers.
type Reported = (f64, usize);

/// The state of the runner and of the peer: the results added so far.
#[derive(Default)]
struct Owner {
    total: f64,
    cells_reported: usize,
    results: usize,
    /// Every result is in (the runner), or the total has been sent (the peer).
    done: bool,
}

impl Owner {
    fn add(&mut self, &(value, cells): &Reported) {
        self.total += value;
        self.cells_reported += cells;
        self.results += 1;
    }
}

/// What reads the result of a built program: the runner.
pub(super) struct Sor {
    cfg: Config,
    reference: f64,
    runner: ReactorId<Owner>,
}

/// A cell's handles: its `value` output, its `from` multiport and its `result` output.
type CellPorts = (Output<f64>, InputMultiport<f64>, Output<Reported>);

/// Builds the program for the `s × s` grid.
fn build(&(cfg, ref grid): &(Config, Arc<Grid>)) -> (Program, Sor) {
    let (s, part) = (cfg.s, cfg.part());
    let (left, right) = (s * part, s * (s - part));
    let mut b = ProgramBuilder::new();
    let runner = b.reactor("runner", Owner::default());
    let runner_results = b.input_multiport::<Reported, _>(runner, "results", left + 1);
    b.reaction(runner, "result")
        .trigger(runner_results)
        .body(move |o: &mut Owner, ctx| {
            for (_, r) in ctx.present(runner_results) {
                o.add(r);
            }
            o.done = o.results == left + 1;
        });
    let peer = b.reactor("peer", Owner::default());
    let peer_results = b.input_multiport::<Reported, _>(peer, "results", right);
    let peer_total = b.output::<Reported, _>(peer, "total");
    b.reaction(peer, "result")
        .trigger(peer_results)
        .effect(peer_total)
        .body(move |o: &mut Owner, ctx| {
            for (_, r) in ctx.present(peer_results) {
                o.add(r);
            }
            if o.cells_reported == right && !o.done {
                o.done = true;
                ctx.set(peer_total, (o.total, o.cells_reported));
            }
        });
    b.connect(peer_total, runner_results.channel(left));
    let cells: Vec<CellPorts> = b.bank(s * s, |b, p| {
        let (i, j) = (p / s, p % s);
        let degree = neighbours(p, s, s).len();
        let state = CellState::new(grid.values[p], i, j, degree, cfg.iterations);
        cell(b, &format!("cell[{i}][{j}]"), state, degree)
    });
    for (p, &(_, from, result)) in cells.iter().enumerate() {
        for (k, &q) in neighbours(p, s, s).iter().enumerate() {
            b.connect(cells[q].0, from.channel(k));
        }
        let (i, j) = (p / s, p % s);
        if j < part {
            b.connect(result, runner_results.channel(i * part + j));
        } else {
            b.connect(result, peer_results.channel(i * (s - part) + j - part));
        }
    }
    (
        b.build().expect("the sor program is well formed"),
        Sor {
            cfg,
            reference: grid.reference,
            runner,
        },
    )
}

/// Declares a cell with `degree` neighbours and its three reactions. `send` comes before
/// `receive` (reactions of a reactor run in declaration order), so that a value goes from one
/// cell's `send` to its neighbours' `receive` without a path back at the same tag.
fn cell(b: &mut ProgramBuilder, name: &str, state: CellState, degree: usize) -> CellPorts {
    let r = b.reactor(name, state);
    let value = b.output::<f64, _>(r, "value");
    let from = b.input_multiport::<f64, _>(r, "from", degree);
    let result = b.output::<Reported, _>(r, "result");
    let next = b.logical_action::<Update, _>(r, "next", Duration::ZERO);
    b.reaction(r, "start")
        .trigger(Startup)
        .effect(value)
        .body(move |c: &mut CellState, ctx| {
            if let Some(v) = c.start() {
                ctx.set(value, v);
            }
        });
    b.reaction(r, "send")
        .trigger(next)
        .effect(value)
        .effect(result)
        .body(move |_, ctx| match ctx.get(next) {
            Some(&Update::Send(v)) => ctx.set(value, v),
            Some(&Update::SendAndFinish(v)) => {
                ctx.set(value, v);
                ctx.set(result, (v, 1));
            }
            Some(Update::Wait) | None => {}
        });
    b.reaction(r, "receive")
        .trigger(from)
        .effect(next)
        .body(move |c: &mut CellState, ctx| {
            // Every channel is present at an update: reading them in channel order spares the
            // sort that `present` would make of the order in which the neighbours sent.
            for v in (0..degree).filter_map(|k| ctx.get(from.channel(k))) {
                let update = c.receive(*v);
                if update != Update::Wait {
                    ctx.schedule(next, update, Duration::ZERO);
                }
            }
        });
    (value, from, result)
}

impl Built for Sor {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let o = program.state_mut(self.runner);
        let total = o.done.then_some((o.total, o.cells_reported));
        check(&self.cfg, self.reference, total)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use motet_reactor::{Runner, SchedulerKind};

    use super::{build, Built};
    use crate::bench::Model;
    use crate::benchmarks::sor::{Config, Grid, BENCHMARK};
    use crate::benchmarks::testing;
    use crate::motet_support::runtime;

    /// Both schedulers, on one worker and on two, validate at the small size and give the same
    /// total to the last bit (the cells and the owners add in a fixed order).
    #[test]
    fn validates_with_the_same_total_on_every_scheduler_and_worker_count() {
        let cells = testing::on_one_and_two(&[Model::Reactor, Model::ReactorLevel], 2);
        let outcomes = testing::cells(&BENCHMARK, &cells, &[]);
        for o in &outcomes {
            assert_eq!(o.result, outcomes[0].result);
        }
    }

    /// On an 80×80 grid with 6 iterations, a half-sweep a tag: the total is the direct
    /// computation's but for the order of the last additions (far inside the check's tolerance),
    /// over 2·6 tags (and the shutdown tag, which the figures count).
    #[test]
    fn a_larger_grid_relaxes_as_the_direct_computation() {
        let cfg = Config {
            s: 80,
            iterations: 6,
        };
        let grid = Arc::new(Grid::new(&cfg));
        for (threads, kind) in [
            (1, SchedulerKind::Readiness),
            (2, SchedulerKind::Readiness),
            (2, SchedulerKind::Level),
        ] {
            let rt = runtime(threads).unwrap();
            let (mut program, mut sor) = build(&(cfg, grid.clone()));
            let runner = Runner::on(rt.handle()).scheduler(kind).fast(true);
            let report = runner.run(&mut program).unwrap();
            assert_eq!(report.metrics.tags, 13, "{kind:?} t={threads}");
            let outcome = sor.outcome(&mut program);
            assert_eq!(outcome.check, Ok(()), "{kind:?} t={threads}");
            let total = outcome.result.as_f64().unwrap();
            let want = grid.reference;
            assert!(
                (total - want).abs() <= 1e-12 * want.abs(),
                "{total:e} vs {want:e}"
            );
        }
    }
}
