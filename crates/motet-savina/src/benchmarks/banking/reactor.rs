//! Bank Transaction as reactors, after LF's port.
//!
//! A Teller and a bank of A accounts. At startup the Teller draws the N transactions and queues
//! each at its source account; at every tag (its logical action `next`) it sends the front of every
//! non-empty queue on channel `src` of its `credit` multiport, so each account pays at most one
//! transfer per tag and transfers from one account keep their order. An account's `credit`
//! reaction subtracts the amount and sends the debit (destination, amount) on its `debit` output to
//! the Teller's `route` reaction, which hands each destination the debits of the tag, in ascending
//! order of their source accounts, on channel `dst` of its `deliver` multiport; the account's
//! `debit` reaction adds every amount that arrives and reports how many to the Teller, which
//! counts them as Savina's Teller counts replies. No stash and no reply mode are needed: a
//! transfer completes within its tag.
//!
//! Why the Teller routes the debits instead of the accounts' debit multiports being fully connected
//! (`accounts.debit -> interleaved(accounts.debit_in)`): that mesh has A² channels (a million at
//! the default A = 1000, each a port with its own value slot), and touching and freeing that
//! structure costs far more than the transfers themselves (it made the reactor program several
//! times slower than the actor version). Routed, the program has O(A) ports, and every transfer
//! still goes from its source account's reaction to its destination account's within one tag.

use std::collections::VecDeque;
use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, AccountReport, Workload};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    reactor_support::prepare(Workload::from_params(params)?, threads, model, build)
}

/// A transfer as the source account sees it (and the Teller routes it): the destination and the
/// amount.
type Credit = (usize, f64);

/// The Teller's state.
struct Teller {
    /// Per source account, its transfers not yet sent.
    queues: Vec<VecDeque<Credit>>,
    /// Per destination account, the amounts routed to it at this tag (empty between tags).
    inbound: Vec<Vec<f64>>,
    /// The destinations with routed amounts at this tag, in the order first routed to.
    touched: Vec<usize>,
    /// Transfers received, as reported by the destination accounts.
    replies: u64,
}

/// What reads the result of a built program: the Teller and the accounts.
pub(super) struct Banking {
    work: Workload,
    teller: ReactorId<Teller>,
    accounts: Vec<ReactorId<AccountReport>>,
}

/// Builds the program for `work.cfg.accounts` accounts.
pub(super) fn build(work: &Workload) -> (Program, Banking) {
    let cfg = work.cfg;
    let a = cfg.accounts;
    let mut b = ProgramBuilder::new();
    let teller = b.reactor(
        "teller",
        Teller {
            queues: vec![VecDeque::new(); a],
            inbound: vec![Vec::new(); a],
            touched: Vec::new(),
            replies: 0,
        },
    );
    let credit = b.output_multiport::<Credit, _>(teller, "credit", a);
    let debits = b.input_multiport::<Credit, _>(teller, "debits", a);
    let deliver = b.output_multiport::<Vec<f64>, _>(teller, "deliver", a);
    let replies = b.input_multiport::<u32, _>(teller, "replies", a);
    let next = b.logical_action::<(), _>(teller, "next", Duration::ZERO);
    b.reaction(teller, "generate")
        .trigger(Startup)
        .effect(next)
        .body(move |t: &mut Teller, ctx| {
            for tr in cfg.transactions() {
                t.queues[tr.src].push_back((tr.dst, tr.amount));
            }
            ctx.schedule(next, (), Duration::ZERO);
        });
    b.reaction(teller, "send")
        .trigger(next)
        .effect(credit)
        .effect(next)
        .body(move |t: &mut Teller, ctx| {
            let mut more = false;
            for (src, queue) in t.queues.iter_mut().enumerate() {
                if let Some(c) = queue.pop_front() {
                    ctx.set(credit.channel(src), c);
                    more |= !queue.is_empty();
                }
            }
            if more {
                ctx.schedule(next, (), Duration::ZERO);
            }
        });
    b.reaction(teller, "route")
        .trigger(debits)
        .effect(deliver)
        .body(move |t: &mut Teller, ctx| {
            // Sources in ascending order, so each destination adds its amounts in that order.
            for (_, &(dst, amount)) in ctx.present_sorted(debits) {
                let inbound = &mut t.inbound[dst];
                if inbound.is_empty() {
                    t.touched.push(dst);
                }
                inbound.push(amount);
            }
            for dst in t.touched.drain(..) {
                ctx.set(deliver.channel(dst), std::mem::take(&mut t.inbound[dst]));
            }
        });
    b.reaction(teller, "count")
        .trigger(replies)
        .body(move |t: &mut Teller, ctx| {
            for (_, &n) in ctx.present_unordered(replies) {
                t.replies += u64::from(n);
            }
        });
    let accounts = b.bank(a, |b, i| {
        let r = b.reactor(
            &format!("account[{i}]"),
            AccountReport::new(work.cfg.initial_balance()),
        );
        let credit_in = b.input::<Credit, _>(r, "credit");
        let debit = b.output::<Credit, _>(r, "debit");
        let debit_in = b.input::<Vec<f64>, _>(r, "debit_in");
        let reply = b.output::<u32, _>(r, "reply");
        b.reaction(r, "credit")
            .trigger(credit_in)
            .effect(debit)
            .body(move |acc: &mut AccountReport, ctx| {
                if let Some(&(dst, amount)) = ctx.get(credit_in) {
                    acc.pay(amount);
                    ctx.set(debit, (dst, amount));
                }
            });
        b.reaction(r, "debit").trigger(debit_in).effect(reply).body(
            move |acc: &mut AccountReport, ctx| {
                if let Some(amounts) = ctx.get(debit_in) {
                    for &amount in amounts {
                        acc.receive(amount);
                    }
                    ctx.set(reply, amounts.len() as u32);
                }
            },
        );
        (r, credit_in, debit, debit_in, reply)
    });
    b.connect(credit, accounts.iter().map(|x| x.1).collect::<Ports<_>>());
    b.connect(accounts.iter().map(|x| x.2).collect::<Ports<_>>(), debits);
    b.connect(deliver, accounts.iter().map(|x| x.3).collect::<Ports<_>>());
    b.connect(accounts.iter().map(|x| x.4).collect::<Ports<_>>(), replies);
    (
        b.build().expect("the banking program is well formed"),
        Banking {
            work: work.clone(),
            teller,
            accounts: accounts.into_iter().map(|x| x.0).collect(),
        },
    )
}

impl Built for Banking {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let replies = program.state_mut(self.teller).replies;
        let reports: Vec<AccountReport> = self
            .accounts
            .iter()
            .map(|&r| *program.state_mut(r))
            .collect();
        check(&self.work, replies, &reports)
    }
}
