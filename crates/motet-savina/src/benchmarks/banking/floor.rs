//! Bank Transaction on the sequential floor: the actor program's message flow (Savina's: the
//! Teller creates the accounts as it starts, a `Credit` names the Teller and the destination, a
//! `Debit` the source) on one thread.

use std::collections::VecDeque;

pub(super) use super::floor_tuned::prepare as prepare_tuned;
use super::{check, AccountReport, Workload};
use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Workload::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(work: &Workload) -> Outcome {
    let mut sys = System::new();
    let teller = sys.spawn(Node::Teller(Teller {
        work: work.clone(),
        accounts: Vec::new(),
        replies: 0,
    }));
    sys.send(teller, Msg::Start);
    sys.run();
    let Node::Teller(t) = sys.actor(teller) else {
        unreachable!("the Teller is spawned first")
    };
    let replies = t.replies;
    let reports: Vec<AccountReport> = sys
        .actors()
        .iter()
        .skip(1)
        .map(|node| match node {
            Node::Account(a) => a.book,
            Node::Teller(_) => unreachable!("the Teller spawns only accounts"),
        })
        .collect();
    check(work, replies, &reports)
}

/// The messages of Bank Transaction.
enum Msg {
    /// To the Teller: send the transactions.
    Start,
    /// To an account, from the Teller: pay `amount` to `dst`.
    Credit {
        teller: ActorId,
        amount: f64,
        dst: ActorId,
    },
    /// To an account, from `from`: receive `amount` and answer `Reply`.
    Debit { from: ActorId, amount: f64 },
    /// To the creditor from the debited account, and from the creditor to the Teller.
    Reply,
    /// To an account: stop.
    Stop,
}

/// The Teller and the accounts.
enum Node {
    Teller(Teller),
    Account(Account),
}

struct Teller {
    work: Workload,
    accounts: Vec<ActorId>,
    replies: u64,
}

struct Account {
    book: AccountReport,
    /// The Teller, as the last `Credit` named it.
    teller: Option<ActorId>,
    in_reply_mode: bool,
    stash: VecDeque<Msg>,
}

impl Actor for Node {
    type Msg = Msg;

    /// The Teller creates the accounts, as Savina's does in its constructor.
    fn started(&mut self, cx: &mut Context<Self>) {
        if let Node::Teller(teller) = self {
            let initial = teller.work.cfg.initial_balance();
            teller.accounts = (0..teller.work.cfg.accounts)
                .map(|_| {
                    cx.spawn(Node::Account(Account {
                        book: AccountReport::new(initial),
                        teller: None,
                        in_reply_mode: false,
                        stash: VecDeque::new(),
                    }))
                })
                .collect();
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match self {
            Node::Teller(teller) => teller.receive(msg, cx),
            Node::Account(account) => account.receive(msg, cx),
        }
    }
}

impl Teller {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Start => {
                let me = cx.me();
                for t in self.work.cfg.transactions() {
                    cx.send(
                        self.accounts[t.src],
                        Msg::Credit {
                            teller: me,
                            amount: t.amount,
                            dst: self.accounts[t.dst],
                        },
                    );
                }
                if self.work.cfg.transactions == 0 {
                    self.finish(cx);
                }
            }
            Msg::Reply => {
                self.replies += 1;
                if self.replies == self.work.cfg.transactions {
                    self.finish(cx);
                }
            }
            _ => unreachable!("banking: account message sent to the teller"),
        }
    }

    fn finish(&mut self, cx: &mut Context<Node>) {
        for &account in &self.accounts {
            cx.send(account, Msg::Stop);
        }
        cx.exit();
    }
}

impl Account {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        if self.in_reply_mode {
            match msg {
                Msg::Reply => {
                    self.in_reply_mode = false;
                    if let Some(teller) = self.teller {
                        cx.send(teller, Msg::Reply);
                    }
                    self.unstash_one(cx);
                }
                other => self.stash.push_back(other),
            }
        } else {
            self.serve(msg, cx);
            if !self.in_reply_mode {
                self.unstash_one(cx);
            }
        }
    }

    /// Handles a message out of reply mode.
    fn serve(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Credit {
                teller,
                amount,
                dst,
            } => {
                self.book.pay(amount);
                let me = cx.me();
                cx.send(dst, Msg::Debit { from: me, amount });
                self.teller = Some(teller);
                self.in_reply_mode = true;
            }
            Msg::Debit { from, amount } => {
                self.book.receive(amount);
                cx.send(from, Msg::Reply);
            }
            Msg::Stop => cx.exit(),
            Msg::Reply | Msg::Start => unreachable!("banking: unexpected message to an account"),
        }
    }

    /// Re-sends the oldest stashed message to this account's own mailbox.
    fn unstash_one(&mut self, cx: &mut Context<Node>) {
        if let Some(msg) = self.stash.pop_front() {
            let me = cx.me();
            cx.send(me, msg);
        }
    }
}
