//! Filter Bank on the sequential floor: the same actors and messages. The FIRs add in slot order;
//! under `floor-tuned` in lanes (deviation `lanes-fir`), as `actor-tuned`'s.

use std::sync::Arc;

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{
    check, combine, expected, Coefficients, Config, Delay, Fir, FirSum, Integrator, Sample,
    SinkTotals,
};

/// Builds the coefficients and the expected totals (untimed); `threads` is ignored.
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    prepare_with(params, FirSum::InIndexOrder)
}

/// [`prepare`] with FIRs that add in lanes (deviation `lanes-fir`).
pub(super) fn prepare_tuned(params: &Params, _threads: usize) -> Prepared {
    prepare_with(params, FirSum::InLanes)
}

/// [`prepare`] with FIRs that add as `sum` says.
fn prepare_with(params: &Params, sum: FirSum) -> Prepared {
    let cfg = Config::from_params(params)?;
    let coef = Coefficients::new(&cfg, sum);
    let expected = expected(&cfg, &coef);
    crate::floor::program(
        FilterBankFloor {
            cfg,
            coef,
            expected,
        },
        FilterBankFloor::run,
    )
}

/// What every iteration reads, made once, untimed.
struct FilterBankFloor {
    cfg: Config,
    coef: Arc<Coefficients>,
    expected: SinkTotals,
}

impl FilterBankFloor {
    /// One timed iteration: runs the program on a fresh system and checks the result.
    fn run(&self) -> Outcome {
        let cfg = self.cfg;
        let mut sys = System::new();
        let sink = sys.spawn(Node::Sink {
            totals: SinkTotals::default(),
            done: false,
        });
        let combine = sys.spawn(Node::Combine { next: sink });
        let integrator = sys.spawn(Node::Integrator {
            integrator: Integrator::new(cfg.chan),
            chan: cfg.chan,
            exits: 0,
            next: combine,
        });
        let branches = sys.spawn(Node::Branches(Branches {
            cfg,
            coef: self.coef.clone(),
            integrator,
            banks: Vec::new(),
        }));
        let producer = sys.spawn(Node::Producer {
            sim: cfg.sim,
            sent: 0,
            source: None,
        });
        let source = sys.spawn(Node::Source {
            k: 0,
            next: branches,
            producer,
        });
        sys.send(producer, Msg::Start(source));
        sys.run();
        let Node::Sink { totals, done } = sys.actor(sink) else {
            unreachable!("actor 0 is the sink")
        };
        check(&self.expected, done.then_some(*totals), self.coef.sum)
    }
}

/// The messages of Filter Bank.
enum Msg {
    /// To the Producer: the Source to drive.
    Start(ActorId),
    /// To the Producer: the Source sent a value.
    Next,
    /// To the Source: send the next value.
    Boot,
    /// A value on its way down a path.
    Value(f64),
    /// A value tagged with its bank, to the Integrator.
    Sourced(usize, f64),
    /// A group of one value per bank, to Combine.
    Collection(Vec<f64>),
    /// The end of the values.
    Exit,
}

/// The actors of Filter Bank.
enum Node {
    Producer {
        sim: u64,
        sent: u64,
        source: Option<ActorId>,
    },
    Source {
        k: u64,
        next: ActorId,
        producer: ActorId,
    },
    Branches(Branches),
    Bank(Bank),
    Stage {
        filter: Filter,
        next: ActorId,
    },
    Tagged {
        j: usize,
        next: ActorId,
    },
    Integrator {
        integrator: Integrator,
        chan: usize,
        exits: usize,
        next: ActorId,
    },
    Combine {
        next: ActorId,
    },
    Sink {
        totals: SinkTotals,
        done: bool,
    },
}

/// Copies each value to every bank; creates the banks when it starts.
struct Branches {
    cfg: Config,
    coef: Arc<Coefficients>,
    integrator: ActorId,
    banks: Vec<ActorId>,
}

/// Feeds its sub-pipeline, which it builds when it starts.
struct Bank {
    j: usize,
    cfg: Config,
    coef: Arc<Coefficients>,
    integrator: ActorId,
    first: Option<ActorId>,
}

/// The filter a stage applies.
enum Filter {
    Delay(Delay),
    Fir(Fir),
    Sample(Sample),
}

impl Actor for Node {
    type Msg = Msg;

    fn started(&mut self, cx: &mut Context<Self>) {
        match self {
            Node::Branches(b) => {
                b.banks = (0..b.cfg.chan)
                    .map(|j| {
                        cx.spawn(Node::Bank(Bank {
                            j,
                            cfg: b.cfg,
                            coef: b.coef.clone(),
                            integrator: b.integrator,
                            first: None,
                        }))
                    })
                    .collect();
            }
            Node::Bank(bank) => {
                let (col, j) = (bank.cfg.col, bank.j);
                let tagged = cx.spawn(Node::Tagged {
                    j,
                    next: bank.integrator,
                });
                let mut next = tagged;
                for filter in [
                    Filter::Fir(Fir::new(bank.coef.f[j].clone(), bank.coef.sum)),
                    Filter::Delay(Delay::new(col - 1)),
                    Filter::Sample(Sample::new(col)),
                    Filter::Fir(Fir::new(bank.coef.h[j].clone(), bank.coef.sum)),
                    Filter::Delay(Delay::new(col - 1)),
                ] {
                    next = cx.spawn(Node::Stage { filter, next });
                }
                bank.first = Some(next);
            }
            _ => {}
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (Node::Producer { sim, sent, source }, msg) => {
                if let Msg::Start(s) = msg {
                    *source = Some(s);
                }
                let source = source.expect("Start comes first");
                if sent == sim {
                    cx.send(source, Msg::Exit);
                    cx.exit();
                } else {
                    cx.send(source, Msg::Boot);
                    *sent += 1;
                }
            }
            (Node::Source { k, next, producer }, Msg::Boot) => {
                cx.send(*next, Msg::Value(Config::input(*k)));
                *k += 1;
                cx.send(*producer, Msg::Next);
            }
            (Node::Source { next, .. }, Msg::Exit) => {
                cx.send(*next, Msg::Exit);
                cx.exit();
            }
            (Node::Branches(b), Msg::Value(v)) => {
                for &bank in &b.banks {
                    cx.send(bank, Msg::Value(v));
                }
            }
            (Node::Branches(b), Msg::Exit) => {
                for &bank in &b.banks {
                    cx.send(bank, Msg::Exit);
                }
                cx.exit();
            }
            (Node::Bank(bank), msg @ (Msg::Value(_) | Msg::Exit)) => {
                let exit = matches!(msg, Msg::Exit);
                cx.send(bank.first.expect("built when started"), msg);
                if exit {
                    cx.exit();
                }
            }
            (Node::Stage { filter, next }, Msg::Value(v)) => {
                let out = match filter {
                    Filter::Delay(d) => Some(d.push(v)),
                    Filter::Fir(f) => f.push(v),
                    Filter::Sample(s) => Some(s.push(v)),
                };
                if let Some(out) = out {
                    cx.send(*next, Msg::Value(out));
                }
            }
            (Node::Tagged { j, next }, Msg::Value(v)) => cx.send(*next, Msg::Sourced(*j, v)),
            (
                Node::Integrator {
                    integrator, next, ..
                },
                Msg::Sourced(j, v),
            ) => {
                let next = *next;
                integrator.push(j, v, |group| cx.send(next, Msg::Collection(group)));
            }
            (
                Node::Integrator {
                    chan, exits, next, ..
                },
                Msg::Exit,
            ) => {
                *exits += 1;
                if exits == chan {
                    cx.send(*next, Msg::Exit);
                    cx.exit();
                }
            }
            (Node::Combine { next }, Msg::Collection(values)) => {
                cx.send(*next, Msg::Value(combine(&values)));
            }
            (
                Node::Stage { next, .. } | Node::Tagged { next, .. } | Node::Combine { next },
                Msg::Exit,
            ) => {
                cx.send(*next, Msg::Exit);
                cx.exit();
            }
            (Node::Sink { totals, .. }, Msg::Value(v)) => totals.push(v),
            (Node::Sink { done, .. }, Msg::Exit) => {
                *done = true;
                cx.exit();
            }
            _ => unreachable!("filterbank: message sent to the wrong actor"),
        }
    }
}
