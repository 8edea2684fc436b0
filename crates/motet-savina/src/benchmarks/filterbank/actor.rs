//! Filter Bank as motet actors. Branches creates the banks and each bank its sub-pipeline when it
//! starts, as in Savina. The FIRs add in slot order; under `actor-tuned` in lanes (deviation
//! `lanes-fir`): the program's coefficients carry which.

use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{
    check, combine, expected, Coefficients, Config, Delay, Fir, FirSum, Integrator, Sample,
    SinkTotals,
};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime, the coefficients and the expected totals (all untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    prepare_with(params, threads, FirSum::InIndexOrder)
}

/// [`prepare`] with FIRs that add in lanes (deviation `lanes-fir`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    prepare_with(params, threads, FirSum::InLanes)
}

/// [`prepare`] with FIRs that add as `sum` says.
fn prepare_with(params: &Params, threads: usize, sum: FirSum) -> Prepared {
    let cfg = Config::from_params(params)?;
    let coef = Coefficients::new(&cfg, sum);
    let expected = expected(&cfg, &coef);
    motet_support::prepare((cfg, coef, expected), threads, run)
}

/// A value on its way down a path, or the end of the values.
enum Msg {
    Value(f64),
    Exit,
}

enum ProducerMsg {
    Start(Addr<SourceMsg>),
    Next,
}

enum SourceMsg {
    Boot,
    Exit,
}

enum IntegratorMsg {
    Sourced(usize, f64),
    Exit,
}

enum CombineMsg {
    Collection(Vec<f64>),
    Exit,
}

/// Runs the handshake with the Source `sim` times, then tells it to exit.
struct Producer {
    sim: u64,
    sent: u64,
    source: Option<Addr<SourceMsg>>,
}

impl Producer {
    fn next(&mut self, ctx: &mut Context<'_, Self>) {
        if self.sent == self.sim {
            if let Some(source) = self.source.take() {
                let _ = source.send(SourceMsg::Exit);
            }
            ctx.stop();
        } else if let Some(source) = &self.source {
            let _ = source.tell(SourceMsg::Boot);
            self.sent += 1;
        }
    }
}

impl Actor for Producer {
    type Msg = ProducerMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: ProducerMsg) {
        if let ProducerMsg::Start(source) = msg {
            self.source = Some(source);
        }
        self.next(ctx);
    }
}

/// Sends the next input value for each `Boot`.
struct Source {
    k: u64,
    next: Addr<Msg>,
    producer: Addr<ProducerMsg>,
}

impl Actor for Source {
    type Msg = SourceMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: SourceMsg) {
        match msg {
            SourceMsg::Boot => {
                let _ = self.next.tell(Msg::Value(Config::input(self.k)));
                self.k += 1;
                let _ = self.producer.tell(ProducerMsg::Next);
            }
            SourceMsg::Exit => {
                let _ = self.next.tell(Msg::Exit);
                ctx.stop();
            }
        }
    }
}

/// Copies each value to every bank; creates the banks when it starts.
struct Branches {
    cfg: Config,
    coef: Arc<Coefficients>,
    integrator: Addr<IntegratorMsg>,
    banks: Vec<Addr<Msg>>,
}

impl Actor for Branches {
    type Msg = Msg;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        self.banks = (0..self.cfg.chan)
            .map(|j| {
                ctx.spawn(Bank {
                    j,
                    cfg: self.cfg,
                    coef: self.coef.clone(),
                    integrator: Some(self.integrator.clone()),
                    first: None,
                })
            })
            .collect();
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Value(v) => {
                for bank in &self.banks {
                    let _ = bank.tell(Msg::Value(v));
                }
            }
            Msg::Exit => {
                for bank in self.banks.drain(..) {
                    let _ = bank.send(Msg::Exit);
                }
                ctx.stop();
            }
        }
    }
}

/// Feeds its sub-pipeline, which it builds when it starts.
struct Bank {
    j: usize,
    cfg: Config,
    coef: Arc<Coefficients>,
    integrator: Option<Addr<IntegratorMsg>>,
    first: Option<Addr<Msg>>,
}

impl Actor for Bank {
    type Msg = Msg;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        let Some(integrator) = self.integrator.take() else {
            return;
        };
        let col = self.cfg.col;
        let tagged = ctx.spawn(Tagged {
            j: self.j,
            next: integrator,
        });
        let fir2 = ctx.spawn(Stage {
            filter: Filter::Fir(Fir::new(self.coef.f[self.j].clone(), self.coef.sum)),
            next: tagged,
        });
        let delay2 = ctx.spawn(Stage {
            filter: Filter::Delay(Delay::new(col - 1)),
            next: fir2,
        });
        let sample = ctx.spawn(Stage {
            filter: Filter::Sample(Sample::new(col)),
            next: delay2,
        });
        let fir1 = ctx.spawn(Stage {
            filter: Filter::Fir(Fir::new(self.coef.h[self.j].clone(), self.coef.sum)),
            next: sample,
        });
        self.first = Some(ctx.spawn(Stage {
            filter: Filter::Delay(Delay::new(col - 1)),
            next: fir1,
        }));
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Value(v) => {
                if let Some(first) = &self.first {
                    let _ = first.tell(Msg::Value(v));
                }
            }
            Msg::Exit => {
                if let Some(first) = self.first.take() {
                    let _ = first.send(Msg::Exit);
                }
                ctx.stop();
            }
        }
    }
}

/// The filter a stage applies.
enum Filter {
    Delay(Delay),
    Fir(Fir),
    Sample(Sample),
}

/// One stage of a bank's sub-pipeline.
struct Stage {
    filter: Filter,
    next: Addr<Msg>,
}

impl Actor for Stage {
    type Msg = Msg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Value(v) => {
                let out = match &mut self.filter {
                    Filter::Delay(d) => Some(d.push(v)),
                    Filter::Fir(f) => f.push(v),
                    Filter::Sample(s) => Some(s.push(v)),
                };
                if let Some(out) = out {
                    let _ = self.next.tell(Msg::Value(out));
                }
            }
            Msg::Exit => {
                let _ = self.next.tell(Msg::Exit);
                ctx.stop();
            }
        }
    }
}

/// Tags each value with its bank for the Integrator.
struct Tagged {
    j: usize,
    next: Addr<IntegratorMsg>,
}

impl Actor for Tagged {
    type Msg = Msg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Value(v) => {
                let _ = self.next.tell(IntegratorMsg::Sourced(self.j, v));
            }
            Msg::Exit => {
                let _ = self.next.tell(IntegratorMsg::Exit);
                ctx.stop();
            }
        }
    }
}

/// Groups one value per bank; exits after every bank's `Exit`.
struct IntegratorActor {
    integrator: Integrator,
    chan: usize,
    exits: usize,
    next: Addr<CombineMsg>,
}

impl Actor for IntegratorActor {
    type Msg = IntegratorMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: IntegratorMsg) {
        match msg {
            IntegratorMsg::Sourced(j, v) => {
                let next = &self.next;
                self.integrator.push(j, v, |group| {
                    let _ = next.tell(CombineMsg::Collection(group));
                });
            }
            IntegratorMsg::Exit => {
                self.exits += 1;
                if self.exits == self.chan {
                    let _ = self.next.tell(CombineMsg::Exit);
                    ctx.stop();
                }
            }
        }
    }
}

/// Sums each group.
struct Combine {
    next: Addr<Msg>,
}

impl Actor for Combine {
    type Msg = CombineMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: CombineMsg) {
        match msg {
            CombineMsg::Collection(values) => {
                let _ = self.next.tell(Msg::Value(combine(&values)));
            }
            CombineMsg::Exit => {
                let _ = self.next.tell(Msg::Exit);
                ctx.stop();
            }
        }
    }
}

/// Totals what arrives; hands the totals to the harness on `Exit`.
struct Sink {
    totals: SinkTotals,
    result: ResultSlot<SinkTotals>,
}

impl Actor for Sink {
    type Msg = Msg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Value(v) => self.totals.push(v),
            Msg::Exit => {
                self.result.set(self.totals);
                ctx.stop();
            }
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the Sink's totals.
fn run((cfg, coef, expected): &(Config, Arc<Coefficients>, SinkTotals), rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let h = rt.handle();
    let sink = spawn(
        h,
        Sink {
            totals: SinkTotals::default(),
            result: result.clone(),
        },
    );
    let combine = spawn(h, Combine { next: sink });
    let integrator = spawn(
        h,
        IntegratorActor {
            integrator: Integrator::new(cfg.chan),
            chan: cfg.chan,
            exits: 0,
            next: combine,
        },
    );
    let branches = spawn(
        h,
        Branches {
            cfg: *cfg,
            coef: coef.clone(),
            integrator,
            banks: Vec::new(),
        },
    );
    let producer = spawn(
        h,
        Producer {
            sim: cfg.sim,
            sent: 0,
            source: None,
        },
    );
    let source = spawn(
        h,
        Source {
            k: 0,
            next: branches,
            producer: producer.clone(),
        },
    );
    let _ = producer.send(ProducerMsg::Start(source));
    rt.wait_quiescent();
    check(expected, result.take(), coef.sum)
}
