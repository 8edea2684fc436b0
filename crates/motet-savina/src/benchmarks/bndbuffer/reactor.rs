//! Producer–Consumer with bounded buffer as reactors, after LF's port (a Manager, a bank of
//! producers and a bank of consumers joined by multiports).
//!
//! The Manager's `serve` reaction sees, at each tag, the items the producers delivered and the
//! consumers that became available, in bank order: it marks the consumers available, hands each
//! item to an available consumer or appends it to the pending list, tells the producer to make its
//! next item or parks it once `bb − np` items are pending, then hands pending items to available
//! consumers, releasing one parked producer per item. A producer makes its item when told and
//! delivers it one microstep later (its logical action `deliver`); a consumer consumes an item and
//! reports itself available one microstep later (its action `ready`). The actions break the
//! cycles Manager → producer → Manager and Manager → consumer → Manager; the reactions they
//! trigger come first in their reactors, so no reactor order closes the cycles again. LF's port commands
//! producers only when consumers report available; here the Manager follows Savina's flow, so an
//! item never waits while a consumer is idle.

use std::collections::VecDeque;
use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, process, Config, Tally};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Config::from_params(params)?, threads, model, build)
}

/// The Manager's state.
struct Manager {
    pending: VecDeque<f64>,
    /// Consumers waiting for an item, in the order they became available.
    available: VecDeque<usize>,
    /// Producers told to wait until pending items leave.
    parked: VecDeque<usize>,
    /// Items received per producer.
    received: Vec<u64>,
    /// Producers that made all their items.
    finished: usize,
}

/// What reads the result of a built program: the Manager, the producers and the consumers (each state: items made or
/// consumed, and the last value).
pub(super) struct BndBuffer {
    cfg: Config,
    manager: ReactorId<Manager>,
    producers: Vec<ReactorId<(u64, f64)>>,
    consumers: Vec<ReactorId<(u64, f64)>>,
}

/// Builds the program for `cfg.producers` producers and `cfg.consumers` consumers.
pub(super) fn build(cfg: &Config) -> (Program, BndBuffer) {
    let c = *cfg;
    let (np, nc) = (c.producers, c.consumers);
    let mut b = ProgramBuilder::new();
    let manager = b.reactor(
        "manager",
        Manager {
            pending: VecDeque::new(),
            available: (0..nc).collect(),
            parked: VecDeque::new(),
            received: vec![0; np],
            finished: 0,
        },
    );
    let produce = b.output_multiport::<(), _>(manager, "produce", np);
    let items = b.input_multiport::<f64, _>(manager, "items", np);
    let ready = b.input_multiport::<(), _>(manager, "available", nc);
    let deal = b.output_multiport::<f64, _>(manager, "deal", nc);
    b.reaction(manager, "start")
        .trigger(Startup)
        .effect(produce)
        .body(move |m: &mut Manager, ctx| {
            if c.items == 0 {
                m.finished = np;
                return;
            }
            for i in 0..np {
                ctx.set(produce.channel(i), ());
            }
        });
    b.reaction(manager, "serve")
        .trigger(items)
        .trigger(ready)
        .effect(produce)
        .effect(deal)
        .body(move |m: &mut Manager, ctx| {
            for (consumer, _) in ctx.present_sorted(ready) {
                m.available.push_back(consumer);
            }
            for (producer, &item) in ctx.present_sorted(items) {
                match m.available.pop_front() {
                    Some(consumer) => ctx.set(deal.channel(consumer), item),
                    None => m.pending.push_back(item),
                }
                m.received[producer] += 1;
                if m.received[producer] == c.items {
                    m.finished += 1;
                } else if m.pending.len() >= c.adjusted_buffer() {
                    m.parked.push_back(producer);
                } else {
                    ctx.set(produce.channel(producer), ());
                }
            }
            while !m.pending.is_empty() && !m.available.is_empty() {
                let (Some(item), Some(consumer)) = (m.pending.pop_front(), m.available.pop_front())
                else {
                    break;
                };
                ctx.set(deal.channel(consumer), item);
                if let Some(producer) = m.parked.pop_front() {
                    ctx.set(produce.channel(producer), ());
                }
            }
        });
    let producers = b.bank(np, |b, i| {
        let r = b.reactor(&format!("producer[{i}]"), (0u64, 0.0f64));
        let command = b.input::<(), _>(r, "produce");
        let out = b.output::<f64, _>(r, "item");
        let deliver = b.logical_action::<f64, _>(r, "deliver", Duration::ZERO);
        b.reaction(r, "deliver")
            .trigger(deliver)
            .effect(out)
            .body(move |_, ctx| {
                if let Some(&item) = ctx.get(deliver) {
                    ctx.set(out, item);
                }
            });
        b.reaction(r, "produce")
            .trigger(command)
            .effect(deliver)
            .body(move |p: &mut (u64, f64), ctx| {
                p.1 = process(p.1, c.producer_cost);
                p.0 += 1;
                ctx.schedule(deliver, p.1, Duration::ZERO);
            });
        (r, command, out)
    });
    let consumers = b.bank(nc, |b, i| {
        let r = b.reactor(&format!("consumer[{i}]"), (0u64, 0.0f64));
        let data = b.input::<f64, _>(r, "item");
        let out = b.output::<(), _>(r, "available");
        let again = b.logical_action::<(), _>(r, "ready", Duration::ZERO);
        b.reaction(r, "ready")
            .trigger(again)
            .effect(out)
            .body(move |_, ctx| ctx.set(out, ()));
        b.reaction(r, "consume").trigger(data).effect(again).body(
            move |s: &mut (u64, f64), ctx| {
                if let Some(&item) = ctx.get(data) {
                    s.1 = process(s.1 + item, c.consumer_cost);
                    s.0 += 1;
                    ctx.schedule(again, (), Duration::ZERO);
                }
            },
        );
        (r, data, out)
    });
    b.connect(produce, producers.iter().map(|x| x.1).collect::<Ports<_>>());
    b.connect(producers.iter().map(|x| x.2).collect::<Ports<_>>(), items);
    b.connect(deal, consumers.iter().map(|x| x.1).collect::<Ports<_>>());
    b.connect(consumers.iter().map(|x| x.2).collect::<Ports<_>>(), ready);
    (
        b.build().expect("the bndbuffer program is well formed"),
        BndBuffer {
            cfg: c,
            manager,
            producers: producers.into_iter().map(|x| x.0).collect(),
            consumers: consumers.into_iter().map(|x| x.0).collect(),
        },
    )
}

impl Built for BndBuffer {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let m = program.state_mut(self.manager);
        let done = m.finished == self.cfg.producers && m.pending.is_empty();
        let tally = Tally {
            producers: self
                .producers
                .iter()
                .map(|&r| *program.state_mut(r))
                .collect(),
            consumers: self
                .consumers
                .iter()
                .map(|&r| *program.state_mut(r))
                .collect(),
        };
        check(&self.cfg, done.then_some(&tally))
    }
}
