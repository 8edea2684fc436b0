//! The actors of remote_savina's programs: the same in both placements.

use super::*;

/// Forwards reports to the main thread.
pub(crate) struct Collector(pub(crate) Sender<Report>);

impl Actor for Collector {
    type Msg = Report;
    fn handle(&mut self, _: &mut Context<'_, Self>, report: Report) {
        let _ = self.0.send(report);
    }
}

/// Savina's fork-join work unit: `sin(37.2)²`, which must be positive.
pub(crate) fn perform_computation() -> f64 {
    let sint = std::hint::black_box(37.2f64).sin();
    let res = sint * sint;
    assert!(res > 0.0, "fork-join computation: {res} is not positive");
    res
}

/// A fjthrput worker.
pub(crate) struct Worker {
    index: u32,
    n: u64,
    processed: u64,
    report: Addr<Report>,
}

impl Actor for Worker {
    type Msg = FjMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: FjMsg) {
        match msg {
            FjMsg::Work => {
                perform_computation();
                self.processed += 1;
                if self.processed == self.n {
                    let _ = self.report.tell(Report::Fj {
                        index: self.index,
                        processed: self.processed,
                    });
                }
            }
            FjMsg::Finish(reply) => {
                let _ = reply.send(self.processed);
                ctx.stop();
            }
        }
    }
}

pub(crate) fn spawn_worker(h: &Handle, index: u32, n: u64, report: &Addr<Report>) -> Addr<FjMsg> {
    spawn(
        h,
        Worker {
            index,
            n,
            processed: 0,
            report: report.clone(),
        },
    )
}

/// Savina's 16-bit LCG (SPEC.md section 2), as Big draws its targets.
pub(crate) struct PseudoRandom(pub(crate) i64);

impl PseudoRandom {
    fn next_int_below(&mut self, bound: i32) -> i32 {
        self.0 = self.0.wrapping_mul(1309).wrapping_add(13849) & 0xFFFF;
        self.0 as i32 % bound
    }
}

/// Big's Sink: counts exits; with W of them, tells every Big actor to exit.
pub(crate) struct Sink {
    pub(crate) w: usize,
    pub(crate) exits: u64,
    pub(crate) neighbors: Option<Neighbors>,
    pub(crate) report: Addr<Report>,
}

impl Actor for Sink {
    type Msg = SinkMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: SinkMsg) {
        match msg {
            SinkMsg::Neighbors(all) => self.neighbors = Some(all),
            SinkMsg::Exit => {
                self.exits += 1;
                if self.exits == self.w as u64 {
                    if let Some(all) = self.neighbors.take() {
                        for big in all.0.iter() {
                            let _ = big.tell(BigMsg::Exit);
                        }
                    }
                    let _ = self.report.tell(Report::Sink { exits: self.exits });
                    ctx.stop();
                }
            }
        }
    }
}

/// A Big actor.
pub(crate) struct Big {
    id: i32,
    n: u64,
    pings: u64,
    exp_pinger: i32,
    rng: PseudoRandom,
    sink: Addr<SinkMsg>,
    neighbors: Option<Neighbors>,
    pings_handled: u64,
    unexpected: u64,
    report: Addr<Report>,
}

impl Actor for Big {
    type Msg = BigMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: BigMsg) {
        match msg {
            BigMsg::Neighbors(all) => self.neighbors = Some(all),
            BigMsg::Ping(sender) => {
                self.pings_handled += 1;
                if let Some(all) = &self.neighbors {
                    let _ = all.0[sender as usize].tell(BigMsg::Pong(self.id));
                }
            }
            BigMsg::Pong(sender) => {
                if sender != self.exp_pinger {
                    self.unexpected += 1;
                }
                if self.pings == self.n {
                    let _ = self.sink.tell(SinkMsg::Exit);
                } else if let Some(all) = &self.neighbors {
                    let target = self.rng.next_int_below(all.0.len() as i32);
                    self.exp_pinger = target;
                    let _ = all.0[target as usize].tell(BigMsg::Ping(self.id));
                    self.pings += 1;
                }
            }
            BigMsg::Exit => {
                let _ = self.report.tell(Report::Big {
                    id: self.id,
                    pings_handled: self.pings_handled,
                    unexpected: self.unexpected,
                });
                self.neighbors = None;
                ctx.stop();
            }
        }
    }
}

pub(crate) fn spawn_big(
    h: &Handle,
    id: i32,
    n: u64,
    sink: &Addr<SinkMsg>,
    report: &Addr<Report>,
) -> Addr<BigMsg> {
    spawn(
        h,
        Big {
            id,
            n,
            pings: 0,
            exp_pinger: -1,
            rng: PseudoRandom(i64::from(id)),
            sink: sink.clone(),
            neighbors: None,
            pings_handled: 0,
            unexpected: 0,
            report: report.clone(),
        },
    )
}

/// The child's factory actor.
pub(crate) struct Factory {
    pub(crate) bigs: Vec<Addr<BigMsg>>,
}

impl Actor for Factory {
    type Msg = Setup;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Setup) {
        let h = ctx.runtime();
        match msg {
            Setup::Fj {
                n,
                indices,
                report,
                reply,
            } => {
                let workers = indices
                    .into_iter()
                    .map(|i| Remote(spawn_worker(h, i, n, &report.0)))
                    .collect();
                let _ = reply.send(Spawned(workers));
            }
            Setup::Big {
                n,
                ids,
                sink,
                report,
                reply,
            } => {
                self.bigs = ids
                    .into_iter()
                    .map(|id| spawn_big(h, id, n, &sink.0, &report.0))
                    .collect();
                let _ = reply.send(Spawned(
                    self.bigs.iter().map(|b| Remote(b.clone())).collect(),
                ));
            }
            Setup::BigNeighbors { all, reply } => {
                let told = self.bigs.len() as u64;
                for big in self.bigs.drain(..) {
                    let _ = big.tell(BigMsg::Neighbors(all.clone()));
                }
                let _ = reply.send(told);
            }
        }
    }
}
