//! N-Queens first K solutions as motet actors: a Master that creates W workers and forwards the
//! Work items they split off, round-robin; generic over the board [`Kernel`] (Savina's in the
//! default program, the vectorised one in `actor-tuned`).

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::ledger::Ledger;
use super::{check, expected_work_items, Board, Config, Counts, Kernel, Plain};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Counts the expected Work items and builds the runtime (untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let program = Program {
        cfg,
        expected_items: expected_work_items(&cfg),
    };
    motet_support::prepare(program, threads, run::<Plain>)
}

/// The tuned program (the vectorised board, `window-board`): as [`prepare`].
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let program = Program {
        cfg,
        expected_items: expected_work_items(&cfg),
    };
    motet_support::prepare(program, threads, run::<Board>)
}

/// The parameters and the Work items a full search sends.
struct Program {
    cfg: Config,
    expected_items: u64,
}

/// One timed iteration: runs the search and checks the counts.
fn run<K: Kernel>(program: &Program, rt: &Runtime) -> Outcome {
    check(
        &program.cfg,
        program.expected_items,
        search::<K>(&program.cfg, rt),
    )
}

/// Runs the Master and the workers to quiescence; what the Master counted.
pub(super) fn search<K: Kernel>(cfg: &Config, rt: &Runtime) -> Option<Counts> {
    let result = ResultSlot::new();
    let master = spawn(
        rt.handle(),
        Master::<K> {
            cfg: *cfg,
            ledger: Ledger::new(cfg.limit),
            result: result.clone(),
        },
    );
    drop(master);
    rt.wait_quiescent();
    result.take()
}

enum MasterMsg<K: Kernel> {
    /// A valid partial board to forward.
    Work(K),
    /// One solution.
    Result,
    /// A worker processed one Work.
    Done,
    /// A worker's echo of `Stop`.
    Stopped,
}

enum WorkerMsg<K: Kernel> {
    Work(K),
    Stop,
}

struct Master<K: Kernel> {
    cfg: Config,
    ledger: Ledger<Addr<WorkerMsg<K>>>,
    result: ResultSlot<Counts>,
}

impl<K: Kernel> Master<K> {
    fn send_work(&mut self, board: K) {
        let _ = self.ledger.send().tell(WorkerMsg::Work(board));
    }

    fn stop_workers(&mut self) {
        for worker in self.ledger.workers() {
            let _ = worker.tell(WorkerMsg::Stop);
        }
    }
}

impl<K: Kernel> Actor for Master<K> {
    type Msg = MasterMsg<K>;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        for _ in 0..self.cfg.workers {
            let worker = ctx.spawn(Worker::<K> {
                master: ctx.myself(),
                n: self.cfg.n,
                threshold: self.cfg.threshold,
            });
            self.ledger.add_worker(worker);
        }
        self.send_work(K::empty());
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: MasterMsg<K>) {
        match msg {
            MasterMsg::Work(board) => self.send_work(board),
            MasterMsg::Result => {
                if self.ledger.solution() {
                    self.stop_workers();
                }
            }
            MasterMsg::Done => {
                if self.ledger.done() {
                    self.stop_workers();
                }
            }
            MasterMsg::Stopped => {
                if let Some(counts) = self.ledger.stopped() {
                    self.result.set(counts);
                    self.ledger.clear_workers();
                    ctx.stop();
                }
            }
        }
    }
}

struct Worker<K: Kernel> {
    master: Addr<MasterMsg<K>>,
    n: usize,
    threshold: usize,
}

impl<K: Kernel> Worker<K> {
    /// Savina's `nqueensKernelPar`.
    fn process(&self, mut board: K) {
        if board.depth() == self.n {
            let _ = self.master.tell(MasterMsg::Result);
        } else if board.depth() >= self.threshold {
            board.search(self.n, &mut || {
                let _ = self.master.tell(MasterMsg::Result);
            });
        } else {
            for c in 0..self.n {
                let next = board.with(c);
                if next.valid() {
                    let _ = self.master.tell(MasterMsg::Work(next));
                }
            }
        }
    }
}

impl<K: Kernel> Actor for Worker<K> {
    type Msg = WorkerMsg<K>;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: WorkerMsg<K>) {
        match msg {
            WorkerMsg::Work(board) => {
                self.process(board);
                let _ = self.master.tell(MasterMsg::Done);
            }
            WorkerMsg::Stop => {
                let _ = self.master.tell(MasterMsg::Stopped);
                ctx.stop();
            }
        }
    }
}
