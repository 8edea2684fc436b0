//! Recursive Matrix Multiplication as motet actors: a Master that creates W workers and routes
//! every Work to worker `(srC + scC) mod W`.

use std::sync::Arc;

use motet_actor::{Actor, Addr, Context, Spawn};
use motet_runtime::Runtime;

use super::{check, CBlocks, Config, Inputs, Work};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the matrices and the runtime (untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Program::new(Config::from_params(params)?), threads, run)
}

/// The parameters and the read-only inputs every iteration shares.
pub(super) struct Program {
    cfg: Config,
    inputs: Arc<Inputs>,
}

impl Program {
    pub(super) fn new(cfg: Config) -> Program {
        Program {
            cfg,
            inputs: Arc::new(Inputs::new(cfg.n)),
        }
    }
}

/// One timed iteration: computes C with the actors and checks it.
fn run(program: &Program, rt: &Runtime) -> Outcome {
    match multiply(program, rt) {
        Ok(c) => check(&program.cfg, Some(&c)),
        Err(e) => Outcome::failed(e),
    }
}

/// Runs the actors to quiescence and returns C as the workers handed it back.
pub(super) fn multiply(program: &Program, rt: &Runtime) -> Result<CBlocks, String> {
    let result = ResultSlot::new();
    // One message per turn for the Master too: it forwards a Work as the run reaches it, so the
    // leaves run close to the order in which the splits produce them (the floor's first-in,
    // first-out order, in which the eight products of one split, sharing blocks of A and B, run
    // together). With the default batch it forwarded every leaf at once, and the worker actors'
    // turns then went round five mailboxes (Savina's routing sends the leaves to five of the 20
    // workers), so consecutive leaves seldom shared a block.
    //
    // On two workers a batch of one has a cost: the Master receives about 2.3 messages per leaf
    // (a Done for every Work, eight Works per split) but gets a turn about once per leaf on its
    // thread, so it falls behind, the worker actors' mailboxes run dry, and a thread whose actors
    // are idle waits the runtime's 10 µs patience before it takes the Master, queued alone behind
    // a leaf on the other thread (a per-leaf trace: about 65 waits of 14 µs per thread, 1.1 ms of
    // a 29 ms run). A batch of three removes the waits, but the Master then forwards ahead of the
    // workers, and the run ends with one worker actor's backlog on one thread while the other
    // idles (median 0.5 ms, up to 2.4); ten alternating rounds of nine iterations on two workers
    // gave medians of 29.94 ms (batch one) and 29.78 ms (batch three), within the noise.
    let master = Spawn::new(Master {
        cfg: program.cfg,
        inputs: program.inputs.clone(),
        workers: Vec::new(),
        sent: 0,
        done: 0,
        stopped: 0,
        c: Ok(CBlocks::new(&program.cfg)),
        result: result.clone(),
    })
    .batch(1)
    .spawn(rt.handle());
    drop(master);
    rt.wait_quiescent();
    result
        .take()
        .unwrap_or_else(|| Err("the Master did not finish".into()))
}

enum MasterMsg {
    /// A product to route to its worker.
    Work(Work),
    /// A worker processed one Work.
    Done,
    /// A worker's echo of `Stop`, with the blocks of C it owns.
    Stopped(CBlocks),
}

enum WorkerMsg {
    Work(Work),
    Stop,
}

struct Master {
    cfg: Config,
    inputs: Arc<Inputs>,
    workers: Vec<Addr<WorkerMsg>>,
    sent: u64,
    done: u64,
    stopped: usize,
    c: Result<CBlocks, String>,
    result: ResultSlot<Result<CBlocks, String>>,
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
            // One Work per turn: a leaf is a long product (about a millisecond at the defaults),
            // and Savina's routing sends the leaves to a few of the W workers only (the leaves'
            // block coordinates are multiples of the leaf size), so a worker can hold a hundred
            // leaves at once. With the default batch a turn would run them all, and that worker
            // could not move to an idle thread before it ran dry; a turn per leaf lets the pool
            // share the busy workers between its threads.
            let worker = Spawn::new(Worker {
                master: ctx.myself(),
                inputs: self.inputs.clone(),
                threshold: self.cfg.threshold,
                c: CBlocks::new(&self.cfg),
            })
            .batch(1)
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
            MasterMsg::Stopped(blocks) => {
                if let Ok(c) = &mut self.c {
                    if let Err(e) = c.absorb(blocks) {
                        self.c = Err(e);
                    }
                }
                self.stopped += 1;
                if self.stopped == self.workers.len() {
                    let c = std::mem::replace(&mut self.c, Err(String::new()));
                    self.result.set(c);
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
    threshold: usize,
    /// The blocks of C this worker's leaves add into.
    c: CBlocks,
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
                    let block = self.c.block_for(&work);
                    self.inputs.multiply_leaf(&work, block);
                }
                let _ = self.master.tell(MasterMsg::Done);
            }
            WorkerMsg::Stop => {
                let c = std::mem::replace(&mut self.c, CBlocks::empty());
                let _ = self.master.tell(MasterMsg::Stopped(c));
                ctx.stop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{multiply, Program};
    use crate::benchmarks::recmatmul::{Config, BENCHMARK};
    use crate::motet_support::runtime;
    use crate::params::Params;

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

    /// The actors' C equals the direct product at two sizes, on one and two workers.
    #[test]
    fn actor_product_equals_a_direct_product() {
        for (n, t, w) in [(32.0, 64.0, 3.0), (48.0, 200.0, 7.0)] {
            let mut params = Params::small(BENCHMARK.params);
            params.set("n", n).unwrap();
            params.set("t", t).unwrap();
            params.set("w", w).unwrap();
            let cfg = Config::from_params(&params).unwrap();
            let program = Program::new(cfg);
            let want = direct_product(cfg.n);
            for threads in [1, 2] {
                let rt = runtime(threads).unwrap();
                let c = multiply(&program, &rt).unwrap();
                for i in 0..cfg.n {
                    for j in 0..cfg.n {
                        assert_eq!(c.get(i, j), Some(want[i * cfg.n + j]), "n={n} C[{i}][{j}]");
                    }
                }
            }
        }
    }
}
