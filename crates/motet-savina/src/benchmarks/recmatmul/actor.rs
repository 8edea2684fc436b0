//! Recursive Matrix Multiplication as motet actors: a Master that creates W workers and routes
//! every Work to worker `(srC + scC) mod W`; the workers add their leaves into the shared C.
//!
//! By default the actors have the runtime's default batch and the leaves run SPEC.md's i-j-k
//! loop. Under `actor-tuned` the Master and the workers handle one message per turn (deviation
//! `batch`) and the leaves run the tiled kernel (deviation `tiled-matmul`); the program carries
//! both settings.

use std::sync::Arc;

use motet_actor::{Actor, Addr, Context, Spawn, DEFAULT_BATCH};
use motet_runtime::Runtime;

use super::{check, Config, Inputs, Leaf, SharedC, Work};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the matrices and the runtime (untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let program = Program::new(Config::from_params(params)?, Leaf::Plain, DEFAULT_BATCH);
    motet_support::prepare_validated(program, threads, multiply, validate)
}

/// [`prepare`] with the tiled kernel and a batch of one (deviations `tiled-matmul`, `batch`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    let program = Program::new(Config::from_params(params)?, Leaf::Tiled, TUNED_BATCH);
    motet_support::prepare_validated(program, threads, multiply, validate)
}

/// The Master's and the workers' batch under `actor-tuned`: one message per turn.
///
/// The Master then forwards a Work as the run reaches it, so the leaves run close to the order in
/// which the splits produce them (the floor's first-in, first-out order, in which the eight
/// products of one split, sharing blocks of A and B, run together). With a larger batch it
/// forwards every leaf at once, and the worker actors' turns go round the few mailboxes Savina's
/// routing sends the leaves to, so consecutive leaves seldom share a block. On two threads the
/// Master, getting a turn about once per leaf while it receives more than two messages per leaf,
/// can fall behind and leave a thread idle; a larger Master batch instead lets it forward ahead
/// and can end the run with one worker's backlog on one thread.
///
/// A worker takes one Work per turn for another reason: a leaf is a long product, and Savina's
/// routing sends the leaves to a few of the W workers only (the leaves' block coordinates are
/// multiples of the leaf size), so a worker can hold many leaves at once. With a larger batch a
/// turn would run them all, and that worker could not move to an idle thread before it ran dry;
/// a turn per leaf lets the pool share the busy workers between its threads.
const TUNED_BATCH: u32 = 1;

/// The parameters, the matrices every iteration shares, and the program's settings.
pub(super) struct Program {
    cfg: Config,
    inputs: Arc<Inputs>,
    c: Arc<SharedC>,
    /// The workers' leaf kernel.
    kernel: Leaf,
    /// The Master's and the workers' mailbox batch.
    batch: u32,
}

impl Program {
    pub(super) fn new(cfg: Config, kernel: Leaf, batch: u32) -> Program {
        Program {
            cfg,
            inputs: Arc::new(Inputs::new(cfg.n)),
            c: Arc::new(SharedC::new(&cfg)),
            kernel,
            batch,
        }
    }
}

/// Checks C after the run (untimed, as Savina's `cleanupIteration`).
fn validate(program: &Program, multiplied: Result<(), String>) -> Outcome {
    match multiplied {
        Ok(()) => check(&program.cfg, Some(&program.c)),
        Err(e) => Outcome::failed(e),
    }
}

/// One timed iteration: zeroes C and runs the actors to quiescence; C then holds the product.
pub(super) fn multiply(program: &Program, rt: &Runtime) -> Result<(), String> {
    program.c.clear();
    let result = ResultSlot::new();
    let master = Spawn::new(Master {
        cfg: program.cfg,
        inputs: program.inputs.clone(),
        c: program.c.clone(),
        kernel: program.kernel,
        batch: program.batch,
        workers: Vec::new(),
        sent: 0,
        done: 0,
        stopped: 0,
        result: result.clone(),
    })
    .batch(program.batch)
    .spawn(rt.handle());
    drop(master);
    rt.wait_quiescent();
    result
        .take()
        .ok_or_else(|| "the Master did not finish".to_string())
}

enum MasterMsg {
    /// A product to route to its worker.
    Work(Work),
    /// A worker processed one Work.
    Done,
    /// A worker's echo of `Stop`.
    Stopped,
}

enum WorkerMsg {
    Work(Work),
    Stop,
}

struct Master {
    cfg: Config,
    inputs: Arc<Inputs>,
    c: Arc<SharedC>,
    kernel: Leaf,
    batch: u32,
    workers: Vec<Addr<WorkerMsg>>,
    sent: u64,
    done: u64,
    stopped: usize,
    /// Set when every worker has echoed `Stop`.
    result: ResultSlot<()>,
}

impl Master {
    fn send_work(&mut self, work: Work) {
        let _ = self.workers[self.cfg.worker_of(&work)].tell(WorkerMsg::Work(work));
        self.sent += 1;
    }
}

impl Actor for Master {
    type Msg = MasterMsg;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        for _ in 0..self.cfg.workers {
            let worker = Spawn::new(Worker {
                master: ctx.myself(),
                inputs: self.inputs.clone(),
                c: self.c.clone(),
                kernel: self.kernel,
                threshold: self.cfg.threshold,
            })
            .batch(self.batch)
            .spawn(ctx.runtime());
            self.workers.push(worker);
        }
        self.send_work(self.cfg.root_work());
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: MasterMsg) {
        match msg {
            MasterMsg::Work(work) => self.send_work(work),
            MasterMsg::Done => {
                self.done += 1;
                if self.done == self.sent {
                    for worker in &self.workers {
                        let _ = worker.tell(WorkerMsg::Stop);
                    }
                }
            }
            MasterMsg::Stopped => {
                self.stopped += 1;
                if self.stopped == self.workers.len() {
                    self.result.set(());
                    self.workers.clear();
                    ctx.stop();
                }
            }
        }
    }
}

struct Worker {
    master: Addr<MasterMsg>,
    inputs: Arc<Inputs>,
    c: Arc<SharedC>,
    kernel: Leaf,
    threshold: usize,
}

impl Actor for Worker {
    type Msg = WorkerMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: WorkerMsg) {
        match msg {
            WorkerMsg::Work(work) => {
                if work.num_blocks > self.threshold {
                    for part in work.split() {
                        let _ = self.master.tell(MasterMsg::Work(part));
                    }
                } else {
                    let mut block = self.c.block_for(&work);
                    self.inputs.multiply_leaf(self.kernel, &work, &mut block);
                }
                let _ = self.master.tell(MasterMsg::Done);
            }
            WorkerMsg::Stop => {
                let _ = self.master.tell(MasterMsg::Stopped);
                ctx.stop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{multiply, Program, TUNED_BATCH};
    use crate::benchmarks::recmatmul::{Config, Leaf, BENCHMARK};
    use crate::motet_support::runtime;
    use crate::params::Params;
    use motet_actor::DEFAULT_BATCH;

    /// `A·B` computed directly: the textbook triple loop over A and B as Savina defines them.
    fn direct_product(n: usize) -> Vec<f64> {
        let a = |i: usize, _k: usize| i as f64;
        let b = |_k: usize, j: usize| j as f64;
        let mut c = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                c[i * n + j] = (0..n).map(|k| a(i, k) * b(k, j)).sum();
            }
        }
        c
    }

    /// The actors' C equals the direct product at two sizes, on one and two workers, with the
    /// default program's settings and the tuned one's.
    #[test]
    fn actor_product_equals_a_direct_product() {
        for (n, t, w) in [(32.0, 64.0, 3.0), (48.0, 200.0, 7.0)] {
            let mut params = Params::small(BENCHMARK.params);
            params.set("n", n).unwrap();
            params.set("t", t).unwrap();
            params.set("w", w).unwrap();
            let cfg = Config::from_params(&params).unwrap();
            let want = direct_product(cfg.n);
            for (kernel, batch) in [(Leaf::Plain, DEFAULT_BATCH), (Leaf::Tiled, TUNED_BATCH)] {
                let program = Program::new(cfg, kernel, batch);
                for threads in [1, 2] {
                    let rt = runtime(threads).unwrap();
                    multiply(&program, &rt).unwrap();
                    for i in 0..cfg.n {
                        for j in 0..cfg.n {
                            assert_eq!(
                                program.c.get(i, j),
                                want[i * cfg.n + j],
                                "n={n} {kernel:?} C[{i}][{j}]"
                            );
                        }
                    }
                }
            }
        }
    }
}
