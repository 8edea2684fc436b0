//! Producer–Consumer with bounded buffer on the sequential floor: the actor program's flow (the
//! Manager creates the producers and the consumers as it starts).

use std::collections::VecDeque;

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, process, Config, Tally};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let mut sys = System::new();
    sys.spawn(Node::Manager(Manager {
        cfg: *cfg,
        producers: Vec::new(),
        consumers: Vec::new(),
        available_producers: VecDeque::new(),
        available_consumers: VecDeque::new(),
        pending: VecDeque::new(),
        exited_producers: 0,
        done: false,
    }));
    sys.run();
    let mut tally = Tally::default();
    let mut done = false;
    for node in sys.actors() {
        match node {
            Node::Manager(m) => done = m.done,
            Node::Producer(p) => tally.producers.push((p.made, p.item)),
            Node::Consumer(c) => tally.consumers.push((c.consumed, c.value)),
        }
    }
    check(cfg, done.then_some(&tally))
}

/// The messages of Producer–Consumer with bounded buffer.
enum Msg {
    /// To the Manager from a producer, and from the Manager to a consumer.
    DataItem { item: f64, producer: ActorId },
    /// To the Manager: this consumer is idle.
    ConsumerAvailable(ActorId),
    /// To the Manager: a producer has stopped.
    ProducerExit,
    /// To a producer: make the next item.
    ProduceData,
    /// To a consumer: stop.
    ConsumerExit,
}

/// The Manager, the producers and the consumers.
enum Node {
    Manager(Manager),
    Producer(Producer),
    Consumer(Consumer),
}

struct Manager {
    cfg: Config,
    producers: Vec<ActorId>,
    consumers: Vec<ActorId>,
    available_producers: VecDeque<ActorId>,
    available_consumers: VecDeque<ActorId>,
    pending: VecDeque<(f64, ActorId)>,
    exited_producers: usize,
    done: bool,
}

struct Producer {
    items: u64,
    cost: u32,
    made: u64,
    item: f64,
    manager: ActorId,
}

struct Consumer {
    cost: u32,
    consumed: u64,
    value: f64,
    manager: ActorId,
}

impl Actor for Node {
    type Msg = Msg;

    fn started(&mut self, cx: &mut Context<Self>) {
        if let Node::Manager(m) = self {
            m.start(cx);
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match self {
            Node::Manager(m) => m.receive(msg, cx),
            Node::Producer(p) => match msg {
                Msg::ProduceData if p.made == p.items => {
                    cx.send(p.manager, Msg::ProducerExit);
                    cx.exit();
                }
                Msg::ProduceData => {
                    p.item = process(p.item, p.cost);
                    let me = cx.me();
                    cx.send(
                        p.manager,
                        Msg::DataItem {
                            item: p.item,
                            producer: me,
                        },
                    );
                    p.made += 1;
                }
                _ => unreachable!("bndbuffer: unexpected message to a producer"),
            },
            Node::Consumer(c) => match msg {
                Msg::DataItem { item, .. } => {
                    c.value = process(c.value + item, c.cost);
                    c.consumed += 1;
                    let me = cx.me();
                    cx.send(c.manager, Msg::ConsumerAvailable(me));
                }
                Msg::ConsumerExit => cx.exit(),
                _ => unreachable!("bndbuffer: unexpected message to a consumer"),
            },
        }
    }
}

impl Manager {
    /// Creates the producers and the consumers, marks every consumer available and asks every
    /// producer for data.
    fn start(&mut self, cx: &mut Context<Node>) {
        let (cfg, manager) = (self.cfg, cx.me());
        self.producers = (0..cfg.producers)
            .map(|_| {
                cx.spawn(Node::Producer(Producer {
                    items: cfg.items,
                    cost: cfg.producer_cost,
                    made: 0,
                    item: 0.0,
                    manager,
                }))
            })
            .collect();
        self.consumers = (0..cfg.consumers)
            .map(|_| {
                cx.spawn(Node::Consumer(Consumer {
                    cost: cfg.consumer_cost,
                    consumed: 0,
                    value: 0.0,
                    manager,
                }))
            })
            .collect();
        self.available_consumers = self.consumers.iter().copied().collect();
        for &producer in &self.producers {
            cx.send(producer, Msg::ProduceData);
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::DataItem { item, producer } => {
                match self.available_consumers.pop_front() {
                    Some(consumer) => cx.send(consumer, Msg::DataItem { item, producer }),
                    None => self.pending.push_back((item, producer)),
                }
                if self.pending.len() >= self.cfg.adjusted_buffer() {
                    self.available_producers.push_back(producer);
                } else {
                    cx.send(producer, Msg::ProduceData);
                }
            }
            Msg::ConsumerAvailable(consumer) => match self.pending.pop_front() {
                None => {
                    self.available_consumers.push_back(consumer);
                    self.try_exit(cx);
                }
                Some((item, producer)) => {
                    cx.send(consumer, Msg::DataItem { item, producer });
                    if let Some(p) = self.available_producers.pop_front() {
                        cx.send(p, Msg::ProduceData);
                    }
                }
            },
            Msg::ProducerExit => {
                self.exited_producers += 1;
                self.try_exit(cx);
            }
            Msg::ProduceData | Msg::ConsumerExit => {
                unreachable!("bndbuffer: unexpected message to the manager")
            }
        }
    }

    /// Stops once every producer has stopped and every consumer is idle; tells the consumers.
    fn try_exit(&mut self, cx: &mut Context<Node>) {
        if self.exited_producers == self.cfg.producers
            && self.available_consumers.len() == self.cfg.consumers
        {
            for &consumer in &self.consumers {
                cx.send(consumer, Msg::ConsumerExit);
            }
            self.done = true;
            cx.exit();
        }
    }
}
