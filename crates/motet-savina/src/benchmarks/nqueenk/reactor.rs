//! N-Queens first K solutions as reactors, after LF's port.
//!
//! A Manager and a bank of W workers. The Manager keeps a queue of Work items (partial boards); at
//! each tag (its logical action `next`) it sends the front item to each worker on its `work`
//! multiport, one per worker. A worker with a full board reports one solution; at the threshold
//! depth it searches the rest sequentially and reports the solutions found; below it, it returns
//! its valid extensions as new Work items. The Manager adds the solutions and appends the new items
//! in worker order (so the run is the same on every run), and stops when a tag leaves the queue
//! empty. As in LF's port and on the floor, the search is not cut short at the limit `s`.

use std::collections::VecDeque;
use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, expected_work_items, Config, Counts, Kernel, Plain as Board};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
/// The parameters and the expected count of Work items are made once, untimed, for every iteration's program.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    reactor_support::prepare((cfg, expected_work_items(&cfg)), threads, model, build)
}

/// The Manager's state.
struct Manager {
    queue: VecDeque<Board>,
    counts: Counts,
}

/// What a worker reports for one Work item: solutions found and new Work items.
type Report = (u64, Vec<Board>);

/// What reads the result of a built program: the Manager.
pub(super) struct NQueens {
    cfg: Config,
    expected_items: u64,
    manager: ReactorId<Manager>,
}

/// Builds the program for `cfg.workers` workers.
fn build(&(cfg, expected_items): &(Config, u64)) -> (Program, NQueens) {
    let w = cfg.workers;
    let mut b = ProgramBuilder::new();
    let manager = b.reactor(
        "manager",
        Manager {
            queue: VecDeque::new(),
            counts: Counts {
                solutions: 0,
                work_items: 0,
            },
        },
    );
    let work = b.output_multiport::<Board, _>(manager, "work", w);
    let reports = b.input_multiport::<Report, _>(manager, "reports", w);
    let next = b.logical_action::<(), _>(manager, "next", Duration::ZERO);
    b.reaction(manager, "start")
        .trigger(Startup)
        .effect(next)
        .body(move |m: &mut Manager, ctx| {
            m.queue.push_back(Board::empty());
            ctx.schedule(next, (), Duration::ZERO);
        });
    b.reaction(manager, "send")
        .trigger(next)
        .effect(work)
        .body(move |m: &mut Manager, ctx| {
            for i in 0..w {
                let Some(board) = m.queue.pop_front() else {
                    break;
                };
                m.counts.work_items += 1;
                ctx.set(work.channel(i), board);
            }
        });
    b.reaction(manager, "collect")
        .trigger(reports)
        .effect(next)
        .body(move |m: &mut Manager, ctx| {
            for (_, (solutions, more)) in ctx.present_sorted(reports) {
                m.counts.solutions += solutions;
                m.queue.extend(more.iter().cloned());
            }
            if !m.queue.is_empty() {
                ctx.schedule(next, (), Duration::ZERO);
            }
        });
    let workers = b.bank(w, |b, i| {
        let r = b.reactor(&format!("worker[{i}]"), ());
        let input = b.input::<Board, _>(r, "work");
        let output = b.output::<Report, _>(r, "report");
        b.reaction(r, "explore")
            .trigger(input)
            .effect(output)
            .body(move |_, ctx| {
                let Some(board) = ctx.get(input).cloned() else {
                    return;
                };
                ctx.set(output, explore(&cfg, board));
            });
        (input, output)
    });
    b.connect(work, workers.iter().map(|x| x.0).collect::<Ports<_>>());
    b.connect(workers.iter().map(|x| x.1).collect::<Ports<_>>(), reports);
    (
        b.build().expect("the nqueenk program is well formed"),
        NQueens {
            cfg,
            expected_items,
            manager,
        },
    )
}

/// A worker's answer to one Work item.
fn explore(cfg: &Config, mut board: Board) -> Report {
    if board.depth() == cfg.n {
        return (1, Vec::new());
    }
    if board.depth() >= cfg.threshold {
        let mut solutions = 0;
        board.search(cfg.n, &mut || solutions += 1);
        return (solutions, Vec::new());
    }
    let more = (0..cfg.n)
        .map(|c| board.with(c))
        .filter(Board::valid)
        .collect();
    (0, more)
}

impl Built for NQueens {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let counts = program.state_mut(self.manager).counts;
        check(&self.cfg, self.expected_items, Some(counts))
    }
}
