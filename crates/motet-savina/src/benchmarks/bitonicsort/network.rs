//! The actors of Savina's bitonic sorting network, written once for the motet actors and the
//! floor: each kind's state and handler, over a [`Net`] that spawns actors and sends messages.
//!
//! Composite kinds (the kernel, the merge stages, their steps and the bitonic partitions) create
//! their parts when they start, as Savina's create theirs in their constructors; so the network
//! is built by the actors themselves, during the timed run, and in parallel on a runtime with
//! several workers.

use std::collections::VecDeque;

use crate::random::PseudoRandom;

/// Savina's source value: `|next_long()| mod m`.
pub(crate) fn draw(random: &mut PseudoRandom, m: i64) -> i64 {
    random.next_long().abs() % m
}

/// The messages of the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Msg {
    /// To the source: send the values.
    Start,
    /// A value.
    Value(i64),
    /// A value tagged with the index of the branch that produced it, for a joiner.
    Data { order: u32, value: i64 },
    /// End of the stream; every actor passes it on and exits.
    Exit,
}

/// What an actor does after a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum After {
    Continue,
    Exit,
    /// The validation actor's report; it exits.
    Report(Report),
}

/// What the validation actor saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Report {
    /// Values received.
    pub(crate) count: u64,
    /// The position of the first value smaller than the one before it, if any.
    pub(crate) out_of_order: Option<u64>,
    /// The sum of the values.
    pub(crate) sum: i64,
    /// `Σ (i + 1)·v_i` over the values in arrival order.
    pub(crate) checksum: u64,
}

/// Spawning and sending, as the actor system running the network provides them.
pub(crate) trait Net {
    /// An actor's address.
    type Addr: Clone;
    /// Creates an actor of `kind` and returns its address.
    fn spawn(&mut self, kind: Kind<Self::Addr>) -> Self::Addr;
    /// Sends `msg` to `to`.
    fn send(&mut self, to: &Self::Addr, msg: Msg);
}

/// Every kind of actor in the network, with its state.
pub(crate) enum Kind<A> {
    /// On `Start`, sends `n` values `|next_long()| mod m` drawn from the suite's LCG seeded with
    /// `seed`, then `Exit`.
    Source {
        n: usize,
        m: i64,
        seed: i64,
        next: A,
    },
    /// Checks and sums the sorted output.
    Validation { report: Report, last: i64 },
    /// Passes values on; turns `Data` into `Value`.
    DataValueAdapter { next: A },
    /// Tags values with `order`; passes `Data` on.
    ValueDataAdapter { order: u32, next: A },
    /// Deals runs of `length` values to its receivers in turn.
    Splitter {
        length: usize,
        receivers: Vec<A>,
        index: usize,
        run: usize,
    },
    /// Collects `Data` by branch and forwards runs of `length` values from each branch in turn.
    Joiner {
        length: usize,
        branches: Vec<VecDeque<i64>>,
        index: usize,
        run: usize,
        exits: usize,
        next: A,
    },
    /// Orders a pair of values (ascending if `up`) and sends both tagged with `order`.
    CompareExchange {
        order: u32,
        up: bool,
        first: Option<i64>,
        next: A,
    },
    /// Splits a bitonic sequence of `length` into two: splitter → `length/2` compare-exchanges →
    /// joiner → adapter tagging with `order`.
    PartitionBitonicSequence {
        order: u32,
        length: usize,
        up: bool,
        next: A,
        entry: Option<A>,
    },
    /// One step of a merge stage: partitions of `length` whose direction follows
    /// `(index / direction_counter)` parity.
    StepOfMerge {
        length: usize,
        partitions: usize,
        direction_counter: usize,
        next: A,
        entry: Option<A>,
    },
    /// One step of the last merge stage: partitions of `length`, all in direction `up`.
    StepOfLastMerge {
        length: usize,
        partitions: usize,
        up: bool,
        next: A,
        entry: Option<A>,
    },
    /// Sorts runs of `p` of the `n` values, alternately up and down, in log p steps.
    MergeStage {
        p: usize,
        n: usize,
        next: A,
        entry: Option<A>,
    },
    /// Merges the bitonic sequence of `n` in direction `up`, in log n steps.
    LastMergeStage {
        n: usize,
        up: bool,
        next: A,
        entry: Option<A>,
    },
    /// The merge stages 2, 4, …, n/2 and the last merge stage.
    Kernel {
        n: usize,
        up: bool,
        next: A,
        entry: Option<A>,
    },
}

impl<A> Kind<A> {
    /// A validation actor that has seen no value yet.
    pub(crate) fn validation() -> Kind<A> {
        Kind::Validation {
            report: Report::default(),
            last: i64::MIN,
        }
    }
}

impl<A: Clone> Kind<A> {
    /// The new actor's start: composite kinds create their parts and remember where values enter.
    pub(crate) fn started(&mut self, net: &mut impl Net<Addr = A>) {
        let entry = match self {
            Kind::PartitionBitonicSequence {
                order,
                length,
                up,
                next,
                ..
            } => {
                let half = *length / 2;
                let forward = net.spawn(Kind::ValueDataAdapter {
                    order: *order,
                    next: next.clone(),
                });
                let joiner = net.spawn(Kind::joiner(1, half, forward));
                let workers = (0..half)
                    .map(|i| net.spawn(Kind::compare_exchange(i, *up, joiner.clone())))
                    .collect();
                net.spawn(Kind::splitter(1, workers))
            }
            Kind::StepOfMerge {
                length,
                partitions,
                direction_counter,
                next,
                ..
            } => {
                let forward = net.spawn(Kind::DataValueAdapter { next: next.clone() });
                let joiner = net.spawn(Kind::joiner(*length, *partitions, forward));
                let workers = (0..*partitions)
                    .map(|i| {
                        let up = (i / *direction_counter) % 2 == 0;
                        net.spawn(Kind::partition(i, *length, up, joiner.clone()))
                    })
                    .collect();
                net.spawn(Kind::splitter(*length, workers))
            }
            Kind::StepOfLastMerge {
                length,
                partitions,
                up,
                next,
                ..
            } => {
                let joiner = net.spawn(Kind::joiner(*length, *partitions, next.clone()));
                let workers = (0..*partitions)
                    .map(|i| net.spawn(Kind::partition(i, *length, *up, joiner.clone())))
                    .collect();
                net.spawn(Kind::splitter(*length, workers))
            }
            Kind::MergeStage { p, n, next, .. } => {
                let mut entry = next.clone();
                let mut i = *p / 2;
                while i >= 1 {
                    entry = net.spawn(Kind::StepOfMerge {
                        length: *p / i,
                        partitions: (*n / *p) * i,
                        direction_counter: i,
                        next: entry,
                        entry: None,
                    });
                    i /= 2;
                }
                entry
            }
            Kind::LastMergeStage { n, up, next, .. } => {
                let mut entry = next.clone();
                let mut i = *n / 2;
                while i >= 1 {
                    entry = net.spawn(Kind::StepOfLastMerge {
                        length: *n / i,
                        partitions: i,
                        up: *up,
                        next: entry,
                        entry: None,
                    });
                    i /= 2;
                }
                entry
            }
            Kind::Kernel { n, up, next, .. } => {
                let mut entry = net.spawn(Kind::LastMergeStage {
                    n: *n,
                    up: *up,
                    next: next.clone(),
                    entry: None,
                });
                let mut i = *n / 2;
                while i >= 2 {
                    entry = net.spawn(Kind::MergeStage {
                        p: i,
                        n: *n,
                        next: entry,
                        entry: None,
                    });
                    i /= 2;
                }
                entry
            }
            _ => return,
        };
        self.set_entry(entry);
    }

    fn set_entry(&mut self, address: A) {
        match self {
            Kind::PartitionBitonicSequence { entry, .. }
            | Kind::StepOfMerge { entry, .. }
            | Kind::StepOfLastMerge { entry, .. }
            | Kind::MergeStage { entry, .. }
            | Kind::LastMergeStage { entry, .. }
            | Kind::Kernel { entry, .. } => *entry = Some(address),
            _ => unreachable!("only composite kinds have an entry"),
        }
    }

    fn joiner(length: usize, branches: usize, next: A) -> Kind<A> {
        Kind::Joiner {
            length,
            branches: vec![VecDeque::new(); branches],
            index: 0,
            run: 0,
            exits: 0,
            next,
        }
    }

    fn splitter(length: usize, receivers: Vec<A>) -> Kind<A> {
        Kind::Splitter {
            length,
            receivers,
            index: 0,
            run: 0,
        }
    }

    fn compare_exchange(order: usize, up: bool, next: A) -> Kind<A> {
        Kind::CompareExchange {
            order: order as u32,
            up,
            first: None,
            next,
        }
    }

    /// A bitonic partition, or a lone compare-exchange when `length` is 2 (Savina avoids
    /// split-joins with one branch).
    fn partition(order: usize, length: usize, up: bool, next: A) -> Kind<A> {
        if length > 2 {
            Kind::PartitionBitonicSequence {
                order: order as u32,
                length,
                up,
                next,
                entry: None,
            }
        } else {
            Kind::compare_exchange(order, up, next)
        }
    }

    /// Handles one message.
    pub(crate) fn receive(&mut self, msg: Msg, net: &mut impl Net<Addr = A>) -> After {
        match self {
            Kind::Source { n, m, seed, next } => {
                if msg == Msg::Start {
                    let mut random = PseudoRandom::new(*seed);
                    for _ in 0..*n {
                        net.send(next, Msg::Value(draw(&mut random, *m)));
                    }
                    net.send(next, Msg::Exit);
                    return After::Exit;
                }
                After::Continue
            }
            Kind::Validation { report, last } => match msg {
                Msg::Value(v) | Msg::Data { value: v, .. } => {
                    if v < *last && report.out_of_order.is_none() {
                        report.out_of_order = Some(report.count);
                    }
                    report.count += 1;
                    report.sum = report.sum.wrapping_add(v);
                    report.checksum = report
                        .checksum
                        .wrapping_add(report.count.wrapping_mul(v as u64));
                    *last = v;
                    After::Continue
                }
                Msg::Exit => After::Report(*report),
                Msg::Start => After::Continue,
            },
            Kind::DataValueAdapter { next } => match msg {
                Msg::Data { value, .. } => {
                    net.send(next, Msg::Value(value));
                    After::Continue
                }
                other => forward(net, next, other),
            },
            Kind::ValueDataAdapter { order, next } => match msg {
                Msg::Value(value) => {
                    net.send(
                        next,
                        Msg::Data {
                            order: *order,
                            value,
                        },
                    );
                    After::Continue
                }
                other => forward(net, next, other),
            },
            Kind::Splitter {
                length,
                receivers,
                index,
                run,
            } => match msg {
                Msg::Exit => {
                    for r in receivers.iter() {
                        net.send(r, Msg::Exit);
                    }
                    After::Exit
                }
                value => {
                    net.send(&receivers[*index], value);
                    *run += 1;
                    if *run == *length {
                        *index = (*index + 1) % receivers.len();
                        *run = 0;
                    }
                    After::Continue
                }
            },
            Kind::Joiner {
                length,
                branches,
                index,
                run,
                exits,
                next,
            } => match msg {
                Msg::Data { order, value } => {
                    branches[order as usize].push_back(value);
                    while let Some(v) = branches[*index].pop_front() {
                        net.send(next, Msg::Value(v));
                        *run += 1;
                        if *run == *length {
                            *index = (*index + 1) % branches.len();
                            *run = 0;
                        }
                    }
                    After::Continue
                }
                Msg::Exit => {
                    *exits += 1;
                    if *exits == branches.len() {
                        net.send(next, Msg::Exit);
                        return After::Exit;
                    }
                    After::Continue
                }
                Msg::Value(_) | Msg::Start => After::Continue,
            },
            Kind::CompareExchange {
                order,
                up,
                first,
                next,
            } => match msg {
                Msg::Value(v) | Msg::Data { value: v, .. } => {
                    if let Some(k1) = first.take() {
                        let (lo, hi) = if k1 <= v { (k1, v) } else { (v, k1) };
                        let (a, b) = if *up { (lo, hi) } else { (hi, lo) };
                        net.send(
                            next,
                            Msg::Data {
                                order: *order,
                                value: a,
                            },
                        );
                        net.send(
                            next,
                            Msg::Data {
                                order: *order,
                                value: b,
                            },
                        );
                    } else {
                        *first = Some(v);
                    }
                    After::Continue
                }
                other => forward(net, next, other),
            },
            Kind::PartitionBitonicSequence { entry, .. }
            | Kind::StepOfMerge { entry, .. }
            | Kind::StepOfLastMerge { entry, .. }
            | Kind::MergeStage { entry, .. }
            | Kind::LastMergeStage { entry, .. }
            | Kind::Kernel { entry, .. } => {
                let entry = entry
                    .as_ref()
                    .expect("a composite starts before its first message");
                forward(net, entry, msg)
            }
        }
    }
}

/// Passes `msg` on to `next`; exits after passing on `Exit`.
fn forward<N: Net>(net: &mut N, next: &N::Addr, msg: Msg) -> After {
    net.send(next, msg);
    if msg == Msg::Exit {
        After::Exit
    } else {
        After::Continue
    }
}
