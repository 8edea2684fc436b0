//! Bank Transaction as reactors, after LF's port.
//!
//! A Teller and a bank of A accounts. At startup the Teller draws the N transactions and queues
//! each at its source account; at every tag (its logical action `next`) it sends the front of every
//! non-empty queue on channel `src` of its `credit` multiport, so each account pays at most one
//! transfer per tag and transfers from one account keep their order. An account's `credit`
//! reaction subtracts the amount and sets channel `dst` of its `debit` multiport; the accounts'
//! debit multiports are fully connected (`accounts.debit -> interleaved(accounts.debit_in)`), and
//! the `debit` reaction adds every amount that arrives. No stash and no reply mode are needed: a
//! transfer completes within its tag. LF's port sends no replies; here each account reports the
//! transfers it received at the tag to the Teller, which counts them as Savina's Teller counts
//! replies.

use std::collections::VecDeque;
use std::time::Duration;

use motet_reactor::{Ports, Program, ProgramBuilder, ReactorId, Startup};

use super::{check, AccountReport, Workload, INITIAL_BALANCE};
use crate::bench::{Iteration, Model, Outcome};
use crate::params::Params;
use crate::reactor_support::{self, Built};

/// The readiness scheduler (model `reactor`).
pub(super) fn prepare(params: &Params, threads: usize) -> Result<Box<dyn Iteration>, String> {
    reactor_support::prepare(
        Workload::from_params(params)?,
        threads,
        Model::Reactor,
        build,
    )
}

/// LF's level scheduler (model `reactor-level`).
pub(super) fn prepare_level(params: &Params, threads: usize) -> Result<Box<dyn Iteration>, String> {
    reactor_support::prepare(
        Workload::from_params(params)?,
        threads,
        Model::ReactorLevel,
        build,
    )
}

/// A transfer as the source account sees it: the destination and the amount.
type Credit = (usize, f64);

/// The Teller's state.
struct Teller {
    /// Per source account, its transfers not yet sent.
    queues: Vec<VecDeque<Credit>>,
    /// Transfers received, as reported by the destination accounts.
    replies: u64,
}

/// The built program, the Teller and the accounts.
pub(super) struct Banking {
    program: Program,
    work: Workload,
    teller: ReactorId<Teller>,
    accounts: Vec<ReactorId<AccountReport>>,
}

/// Builds the program for `work.cfg.accounts` accounts.
pub(super) fn build(work: &Workload) -> Banking {
    let cfg = work.cfg;
    let a = cfg.accounts;
    let mut b = ProgramBuilder::new();
    let teller = b.reactor(
        "teller",
        Teller {
            queues: vec![VecDeque::new(); a],
            replies: 0,
        },
    );
    let credit = b.output_multiport::<Credit, _>(teller, "credit", a);
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
    b.reaction(teller, "count")
        .trigger(replies)
        .body(move |t: &mut Teller, ctx| {
            for (_, &n) in ctx.present(replies) {
                t.replies += u64::from(n);
            }
        });
    let accounts = b.bank(a, |b, i| {
        let r = b.reactor(
            &format!("account[{i}]"),
            AccountReport {
                balance: INITIAL_BALANCE,
                lowest: INITIAL_BALANCE,
            },
        );
        let credit_in = b.input::<Credit, _>(r, "credit");
        let debit_in = b.input_multiport::<f64, _>(r, "debit_in", a);
        let debit = b.output_multiport::<f64, _>(r, "debit", a);
        let reply = b.output::<u32, _>(r, "reply");
        b.reaction(r, "credit")
            .trigger(credit_in)
            .effect(debit)
            .body(move |acc: &mut AccountReport, ctx| {
                if let Some(&(dst, amount)) = ctx.get(credit_in) {
                    acc.balance -= amount;
                    acc.lowest = acc.lowest.min(acc.balance);
                    ctx.set(debit.channel(dst), amount);
                }
            });
        b.reaction(r, "debit").trigger(debit_in).effect(reply).body(
            move |acc: &mut AccountReport, ctx| {
                let mut received = 0;
                for (_, &amount) in ctx.present_sorted(debit_in) {
                    acc.balance += amount;
                    received += 1;
                }
                ctx.set(reply, received);
            },
        );
        (r, credit_in, debit_in, debit, reply)
    });
    b.connect(credit, accounts.iter().map(|x| x.1).collect::<Ports<_>>());
    let debits: Ports<f64> = accounts.iter().map(|x| x.3).collect();
    b.connect(debits, Ports::interleaved(accounts.iter().map(|x| x.2)));
    b.connect(accounts.iter().map(|x| x.4).collect::<Ports<_>>(), replies);
    Banking {
        program: b.build().expect("the banking program is well formed"),
        work: work.clone(),
        teller,
        accounts: accounts.into_iter().map(|x| x.0).collect(),
    }
}

impl Built for Banking {
    fn program(&mut self) -> &mut Program {
        &mut self.program
    }

    fn outcome(&mut self) -> Outcome {
        let replies = self.program.state_mut(self.teller).replies;
        let reports: Vec<AccountReport> = self
            .accounts
            .iter()
            .map(|&r| *self.program.state_mut(r))
            .collect();
        check(&self.work, replies, &reports)
    }
}
