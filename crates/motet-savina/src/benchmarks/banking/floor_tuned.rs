//! Bank Transaction on the sequential floor, the tuned actor program's flow (deviation
//! `init-message`: every account gets the Teller's address in an `Init`).

use std::collections::VecDeque;
use std::rc::Rc;

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, AccountReport, Workload};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Workload::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(work: &Workload) -> Outcome {
    let mut sys = System::new();
    let accounts: Rc<[ActorId]> = (0..work.cfg.accounts)
        .map(|_| {
            sys.spawn(Node::Account(Account {
                book: AccountReport::new(work.cfg.initial_balance()),
                teller: None,
                in_reply_mode: false,
                stash: VecDeque::new(),
            }))
        })
        .collect();
    let teller = sys.spawn(Node::Teller(Teller {
        work: work.clone(),
        accounts: accounts.clone(),
        replies: 0,
    }));
    for &account in accounts.iter() {
        sys.send(account, Msg::Init(teller));
    }
    sys.send(teller, Msg::Start);
    sys.run();
    let Node::Teller(Teller { replies, .. }) = *sys.actor(teller) else {
        unreachable!("the teller is spawned last")
    };
    let reports: Vec<AccountReport> = accounts
        .iter()
        .map(|&id| match sys.actor(id) {
            Node::Account(a) => a.book,
            Node::Teller(_) => unreachable!("accounts are spawned first"),
        })
        .collect();
    check(work, replies, &reports)
}

/// The messages of Bank Transaction.
enum Msg {
    /// To an account: the Teller's address.
    Init(ActorId),
    /// To the Teller: generate the transactions.
    Start,
    /// To an account, from the Teller: pay `amount` to `dst`.
    Credit { amount: f64, dst: ActorId },
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
    accounts: Rc<[ActorId]>,
    replies: u64,
}

struct Account {
    book: AccountReport,
    teller: Option<ActorId>,
    in_reply_mode: bool,
    stash: VecDeque<Msg>,
}

impl Actor for Node {
    type Msg = Msg;

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
                for t in self.work.cfg.transactions() {
                    let dst = self.accounts[t.dst];
                    cx.send(
                        self.accounts[t.src],
                        Msg::Credit {
                            amount: t.amount,
                            dst,
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
        for &account in self.accounts.iter() {
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
                    let teller = self.teller.expect("Init comes first");
                    cx.send(teller, Msg::Reply);
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
            Msg::Init(teller) => self.teller = Some(teller),
            Msg::Credit { amount, dst } => {
                self.book.pay(amount);
                let me = cx.me();
                cx.send(dst, Msg::Debit { from: me, amount });
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
