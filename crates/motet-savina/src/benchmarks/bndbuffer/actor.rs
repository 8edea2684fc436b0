//! Producer–Consumer with bounded buffer as motet actors.
//!
//! The Manager creates the producers and the consumers as it starts (Savina's flow) and keeps
//! their addresses in tables; `DataItem` and `ConsumerAvailable` carry the sender's place in them.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, process, Config, Tally};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

enum ManagerMsg {
    DataItem { item: f64, producer: u32 },
    ConsumerAvailable(u32),
    ProducerExit,
}

/// To a producer: make the next item.
struct ProduceData;

enum ConsumerMsg {
    DataItem(f64),
    Exit,
}

/// Each producer's and consumer's report, by id, written when it stops.
type Reports = Arc<Mutex<Tally>>;

struct Manager {
    cfg: Config,
    reports: Reports,
    producers: Vec<Addr<ProduceData>>,
    consumers: Vec<Addr<ConsumerMsg>>,
    available_producers: VecDeque<u32>,
    available_consumers: VecDeque<u32>,
    pending: VecDeque<f64>,
    exited_producers: usize,
    done: ResultSlot<()>,
}

impl Manager {
    /// Stops once every producer has stopped and every consumer is idle; tells the consumers.
    fn try_exit(&mut self, ctx: &mut Context<'_, Self>) {
        if self.exited_producers == self.cfg.producers
            && self.available_consumers.len() == self.cfg.consumers
        {
            for consumer in self.consumers.drain(..) {
                let _ = consumer.send(ConsumerMsg::Exit);
            }
            self.producers.clear();
            self.done.set(());
            ctx.stop();
        }
    }
}

impl Actor for Manager {
    type Msg = ManagerMsg;

    /// Creates the producers and the consumers, marks every consumer available and asks every
    /// producer for data.
    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        let cfg = self.cfg;
        self.producers = (0..cfg.producers)
            .map(|id| {
                ctx.spawn(Producer {
                    id: id as u32,
                    items: cfg.items,
                    cost: cfg.producer_cost,
                    made: 0,
                    item: 0.0,
                    manager: ctx.myself(),
                    reports: self.reports.clone(),
                })
            })
            .collect();
        self.consumers = (0..cfg.consumers)
            .map(|id| {
                ctx.spawn(Consumer {
                    id: id as u32,
                    cost: cfg.consumer_cost,
                    consumed: 0,
                    value: 0.0,
                    manager: ctx.myself(),
                    reports: self.reports.clone(),
                })
            })
            .collect();
        self.available_consumers = (0..cfg.consumers as u32).collect();
        for producer in &self.producers {
            let _ = producer.tell(ProduceData);
        }
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: ManagerMsg) {
        match msg {
            ManagerMsg::DataItem { item, producer } => {
                match self.available_consumers.pop_front() {
                    Some(c) => {
                        let _ = self.consumers[c as usize].tell(ConsumerMsg::DataItem(item));
                    }
                    None => self.pending.push_back(item),
                }
                if self.pending.len() >= self.cfg.adjusted_buffer() {
                    self.available_producers.push_back(producer);
                } else {
                    let _ = self.producers[producer as usize].tell(ProduceData);
                }
            }
            ManagerMsg::ConsumerAvailable(c) => match self.pending.pop_front() {
                None => {
                    self.available_consumers.push_back(c);
                    self.try_exit(ctx);
                }
                Some(item) => {
                    let _ = self.consumers[c as usize].tell(ConsumerMsg::DataItem(item));
                    if let Some(p) = self.available_producers.pop_front() {
                        let _ = self.producers[p as usize].tell(ProduceData);
                    }
                }
            },
            ManagerMsg::ProducerExit => {
                self.exited_producers += 1;
                self.try_exit(ctx);
            }
        }
    }
}

struct Producer {
    id: u32,
    items: u64,
    cost: u32,
    made: u64,
    item: f64,
    manager: Addr<ManagerMsg>,
    reports: Reports,
}

impl Actor for Producer {
    type Msg = ProduceData;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, ProduceData: ProduceData) {
        if self.made == self.items {
            let _ = self.manager.tell(ManagerMsg::ProducerExit);
            let mut reports = self.reports.lock().unwrap_or_else(|e| e.into_inner());
            reports.producers[self.id as usize] = (self.made, self.item);
            ctx.stop();
        } else {
            self.item = process(self.item, self.cost);
            let _ = self.manager.tell(ManagerMsg::DataItem {
                item: self.item,
                producer: self.id,
            });
            self.made += 1;
        }
    }
}

struct Consumer {
    id: u32,
    cost: u32,
    consumed: u64,
    value: f64,
    manager: Addr<ManagerMsg>,
    reports: Reports,
}

impl Actor for Consumer {
    type Msg = ConsumerMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: ConsumerMsg) {
        match msg {
            ConsumerMsg::DataItem(item) => {
                self.value = process(self.value + item, self.cost);
                self.consumed += 1;
                let _ = self.manager.tell(ManagerMsg::ConsumerAvailable(self.id));
            }
            ConsumerMsg::Exit => {
                let mut reports = self.reports.lock().unwrap_or_else(|e| e.into_inner());
                reports.consumers[self.id as usize] = (self.consumed, self.value);
                ctx.stop();
            }
        }
    }
}

/// One timed iteration: creates the Manager (which creates the other actors), runs them to quiescence and checks the result.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let done = ResultSlot::new();
    let reports: Reports = Arc::new(Mutex::new(Tally {
        producers: vec![(0, f64::NAN); cfg.producers],
        consumers: vec![(0, f64::NAN); cfg.consumers],
    }));
    let manager = spawn(
        h,
        Manager {
            cfg: *cfg,
            reports: reports.clone(),
            producers: Vec::new(),
            consumers: Vec::new(),
            available_producers: VecDeque::new(),
            available_consumers: VecDeque::new(),
            pending: VecDeque::new(),
            exited_producers: 0,
            done: done.clone(),
        },
    );
    drop(manager);
    rt.wait_quiescent();
    let tally = std::mem::take(&mut *reports.lock().unwrap_or_else(|e| e.into_inner()));
    check(cfg, done.take().map(|()| &tally))
}
