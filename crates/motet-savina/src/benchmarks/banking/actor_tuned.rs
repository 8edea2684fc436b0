//! Bank Transaction as motet actors, tuned (deviation `init-message`).
//!
//! Accounts reach each other through one shared table of addresses (`Arc<[Addr]>`, handed to each
//! account in `Init`), so a `Credit` names its destination and a `Debit` its creditor by index, as
//! Big's neighbours do: no address is cloned per message.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, AccountReport, Workload};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Workload::from_params(params)?, threads, run)
}

type Accounts = Arc<[Addr<AccountMsg>]>;

enum TellerMsg {
    Start,
    Reply,
}

enum AccountMsg {
    /// Every account's address, and the Teller's (boxed: the other messages are 16 bytes).
    Init(Box<(Accounts, Addr<TellerMsg>)>),
    /// From the Teller: pay `amount` to account `dst`.
    Credit {
        amount: f64,
        dst: u32,
    },
    /// From account `from`: receive `amount`, then answer `Reply`.
    Debit {
        from: u32,
        amount: f64,
    },
    /// From the debited account: the transfer is complete.
    Reply,
    Stop,
}

struct Teller {
    work: Workload,
    accounts: Option<Accounts>,
    replies: u64,
    result: ResultSlot<u64>,
}

impl Actor for Teller {
    type Msg = TellerMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: TellerMsg) {
        match msg {
            TellerMsg::Start => {
                let Some(accounts) = &self.accounts else {
                    return;
                };
                for t in self.work.cfg.transactions() {
                    let _ = accounts[t.src].tell(AccountMsg::Credit {
                        amount: t.amount,
                        dst: t.dst as u32,
                    });
                }
                if self.work.cfg.transactions == 0 {
                    self.finish(ctx);
                }
            }
            TellerMsg::Reply => {
                self.replies += 1;
                if self.replies == self.work.cfg.transactions {
                    self.finish(ctx);
                }
            }
        }
    }
}

impl Teller {
    /// Stops every account, records the reply count and stops.
    fn finish(&mut self, ctx: &mut Context<'_, Self>) {
        for account in self.accounts.take().iter().flat_map(|a| a.iter()) {
            let _ = account.tell(AccountMsg::Stop);
        }
        self.result.set(self.replies);
        ctx.stop();
    }
}

/// The final balances and lowest balances, as `f64` bits, and the transfers, written by each
/// account when it stops.
type Reports = Arc<[[AtomicU64; 3]]>;

struct Account {
    id: u32,
    book: AccountReport,
    links: Option<(Accounts, Addr<TellerMsg>)>,
    in_reply_mode: bool,
    stash: VecDeque<AccountMsg>,
    reports: Reports,
}

impl Account {
    /// Handles a message out of reply mode.
    fn serve(&mut self, ctx: &mut Context<'_, Self>, msg: AccountMsg) {
        match msg {
            AccountMsg::Init(links) => self.links = Some(*links),
            AccountMsg::Credit { amount, dst } => {
                self.book.pay(amount);
                if let Some((all, _)) = &self.links {
                    let _ = all[dst as usize].tell(AccountMsg::Debit {
                        from: self.id,
                        amount,
                    });
                }
                self.in_reply_mode = true;
            }
            AccountMsg::Debit { from, amount } => {
                self.book.receive(amount);
                if let Some((all, _)) = &self.links {
                    let _ = all[from as usize].tell(AccountMsg::Reply);
                }
            }
            AccountMsg::Stop => {
                let report = &self.reports[self.id as usize];
                report[0].store(self.book.balance.to_bits(), Ordering::Relaxed);
                report[1].store(self.book.lowest.to_bits(), Ordering::Relaxed);
                report[2].store(self.book.transfers, Ordering::Relaxed);
                self.links = None;
                ctx.stop();
            }
            // A Reply is only ever sent to an account waiting for one.
            AccountMsg::Reply => {}
        }
    }

    /// Re-sends the oldest stashed message to this account's own mailbox.
    fn unstash_one(&mut self) {
        if let (Some(msg), Some((all, _))) = (self.stash.pop_front(), &self.links) {
            let _ = all[self.id as usize].tell(msg);
        }
    }
}

impl Actor for Account {
    type Msg = AccountMsg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: AccountMsg) {
        if self.in_reply_mode {
            match msg {
                AccountMsg::Reply => {
                    self.in_reply_mode = false;
                    if let Some((_, teller)) = &self.links {
                        let _ = teller.tell(TellerMsg::Reply);
                    }
                    self.unstash_one();
                }
                other => self.stash.push_back(other),
            }
        } else {
            self.serve(ctx, msg);
            if !self.in_reply_mode {
                self.unstash_one();
            }
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the result.
fn run(work: &Workload, rt: &Runtime) -> Outcome {
    let n = work.cfg.accounts;
    let h = rt.handle();
    let result = ResultSlot::new();
    let reports: Reports = (0..n)
        .map(|_| [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)])
        .collect();
    let accounts: Accounts = (0..n)
        .map(|id| {
            spawn(
                h,
                Account {
                    id: id as u32,
                    book: AccountReport::new(work.cfg.initial_balance()),
                    links: None,
                    in_reply_mode: false,
                    stash: VecDeque::new(),
                    reports: reports.clone(),
                },
            )
        })
        .collect();
    let teller = spawn(
        h,
        Teller {
            work: work.clone(),
            accounts: Some(accounts.clone()),
            replies: 0,
            result: result.clone(),
        },
    );
    for account in accounts.iter() {
        let _ = account.tell(AccountMsg::Init(Box::new((
            accounts.clone(),
            teller.clone(),
        ))));
    }
    let _ = teller.send(TellerMsg::Start);
    drop(accounts);
    rt.wait_quiescent();
    let reports: Vec<AccountReport> = reports
        .iter()
        .map(|[balance, lowest, transfers]| AccountReport {
            balance: f64::from_bits(balance.load(Ordering::Relaxed)),
            lowest: f64::from_bits(lowest.load(Ordering::Relaxed)),
            transfers: transfers.load(Ordering::Relaxed),
        })
        .collect();
    check(work, result.take().unwrap_or(0), &reports)
}
