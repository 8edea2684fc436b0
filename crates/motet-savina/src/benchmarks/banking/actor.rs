//! Bank Transaction as motet actors, Savina's flow: the Teller creates the accounts as it starts;
//! a `Credit` carries the Teller's and the destination's addresses, a `Debit` the source's.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

pub(super) use super::actor_tuned::prepare as prepare_tuned;
use super::{check, AccountReport, Workload};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Workload::from_params(params)?, threads, run)
}

/// What each account ends with, by id, written as it stops.
type Reports = Arc<Mutex<Vec<AccountReport>>>;

enum TellerMsg {
    Start,
    Reply,
}

enum AccountMsg {
    /// From the Teller: pay `amount` to `dst`.
    Credit {
        teller: Addr<TellerMsg>,
        amount: f64,
        dst: Addr<AccountMsg>,
    },
    /// From account `from`: receive `amount`, then answer `Reply`.
    Debit {
        from: Addr<AccountMsg>,
        amount: f64,
    },
    /// From the debited account: the transfer is complete.
    Reply,
    Stop,
}

struct Teller {
    work: Workload,
    accounts: Vec<Addr<AccountMsg>>,
    replies: u64,
    reports: Reports,
    result: ResultSlot<u64>,
}

impl Actor for Teller {
    type Msg = TellerMsg;

    /// Creates the accounts, as Savina's Teller does in its constructor.
    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        let initial = self.work.cfg.initial_balance();
        self.accounts = (0..self.work.cfg.accounts)
            .map(|id| {
                ctx.spawn(Account {
                    id,
                    book: AccountReport::new(initial),
                    teller: None,
                    in_reply_mode: false,
                    stash: VecDeque::new(),
                    reports: self.reports.clone(),
                })
            })
            .collect();
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: TellerMsg) {
        match msg {
            TellerMsg::Start => {
                let me = ctx.myself();
                for t in self.work.cfg.transactions() {
                    let _ = self.accounts[t.src].tell(AccountMsg::Credit {
                        teller: me.clone(),
                        amount: t.amount,
                        dst: self.accounts[t.dst].clone(),
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
        for account in self.accounts.drain(..) {
            let _ = account.tell(AccountMsg::Stop);
        }
        self.result.set(self.replies);
        ctx.stop();
    }
}

struct Account {
    id: usize,
    book: AccountReport,
    /// The Teller, as the last `Credit` named it.
    teller: Option<Addr<TellerMsg>>,
    in_reply_mode: bool,
    stash: VecDeque<AccountMsg>,
    reports: Reports,
}

impl Account {
    /// Handles a message out of reply mode.
    fn serve(&mut self, ctx: &mut Context<'_, Self>, msg: AccountMsg) {
        match msg {
            AccountMsg::Credit {
                teller,
                amount,
                dst,
            } => {
                self.book.pay(amount);
                let _ = dst.tell(AccountMsg::Debit {
                    from: ctx.myself(),
                    amount,
                });
                self.teller = Some(teller);
                self.in_reply_mode = true;
            }
            AccountMsg::Debit { from, amount } => {
                self.book.receive(amount);
                let _ = from.tell(AccountMsg::Reply);
            }
            AccountMsg::Stop => {
                self.reports.lock().unwrap_or_else(|e| e.into_inner())[self.id] = self.book;
                self.teller = None;
                ctx.stop();
            }
            // A Reply is only ever sent to an account waiting for one.
            AccountMsg::Reply => {}
        }
    }

    /// Re-sends the oldest stashed message to this account's own mailbox.
    fn unstash_one(&mut self, ctx: &mut Context<'_, Self>) {
        if let Some(msg) = self.stash.pop_front() {
            let _ = ctx.myself().tell(msg);
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
                    if let Some(teller) = &self.teller {
                        let _ = teller.tell(TellerMsg::Reply);
                    }
                    self.unstash_one(ctx);
                }
                other => self.stash.push_back(other),
            }
        } else {
            self.serve(ctx, msg);
            if !self.in_reply_mode {
                self.unstash_one(ctx);
            }
        }
    }
}

/// One timed iteration: creates the Teller (which creates the accounts), runs to quiescence and
/// checks the result.
fn run(work: &Workload, rt: &Runtime) -> Outcome {
    let result = ResultSlot::new();
    let reports: Reports = Arc::new(Mutex::new(vec![
        AccountReport::default();
        work.cfg.accounts
    ]));
    let teller = spawn(
        rt.handle(),
        Teller {
            work: work.clone(),
            accounts: Vec::new(),
            replies: 0,
            reports: reports.clone(),
            result: result.clone(),
        },
    );
    let _ = teller.send(TellerMsg::Start);
    rt.wait_quiescent();
    let reports = std::mem::take(&mut *reports.lock().unwrap_or_else(|e| e.into_inner()));
    check(work, result.take().unwrap_or(0), &reports)
}
