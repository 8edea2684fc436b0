//! ReasonableBanking as motet actors, with the protocol of the BoC paper's Fig. 4b (see the
//! module above for the whole flow): Tellers acquire both accounts in account order, a Manager per
//! transfer collects the accounts' votes and sends the decision, and accounts stash the operations
//! that arrive while they wait for a decision.
//!
//! Per transfer: 2 `Acquire`, 2 `Acquired`, the Manager's spawn, 2 operations, 2 votes, 2
//! decisions and the Teller's `Done`: 11 messages and one actor, plus the stash's re-deliveries.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::{check, Config, Ledger, Transfers};
use crate::bench::{Outcome, Prepared};
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// Every account's and every Teller's address, shared by all the actors; each drops its share
/// when it stops, which breaks the cycle of addresses.
struct Bank {
    accounts: Vec<Addr<AccountMsg>>,
    tellers: Vec<Addr<TellerMsg>>,
}

enum TellerMsg {
    /// The addresses; then start the first transfer.
    Start(Arc<Bank>),
    /// Account `account` is now held for this Teller's current transfer.
    Acquired { account: u32 },
    /// The current transfer is decided.
    Done { committed: bool },
}

enum AccountMsg {
    /// The addresses.
    Init(Arc<Bank>),
    /// Teller `teller` asks to hold this account.
    Acquire { teller: u32 },
    /// An operation of a held transfer: `delta` to apply if it commits.
    Operation(Operation),
    /// The decision of the transfer this account voted on.
    Decision { commit: bool },
    /// Record the ledger and stop.
    Stop,
}

/// One side of a transfer.
struct Operation {
    teller: u32,
    seq: u64,
    delta: i64,
    manager: Addr<ManagerMsg>,
}

enum ManagerMsg {
    /// An account's vote: whether it can apply its side.
    Vote { yes: bool },
}

/// Issues its transfers one at a time.
struct Teller {
    id: u32,
    transfers: Transfers,
    current: Option<super::Transfer>,
    bank: Option<Arc<Bank>>,
    committed: u64,
    refused: u64,
    /// Where every Teller adds its counts when it is done.
    totals: Arc<Totals>,
}

/// The Tellers' counts, and how many are still at work (the last one stops the accounts).
struct Totals {
    committed: AtomicU64,
    refused: AtomicU64,
    working: AtomicUsize,
}

impl Teller {
    /// Starts the next transfer (acquiring its lower account), or finishes.
    fn next(&mut self, ctx: &mut Context<'_, Self>) {
        self.current = self.transfers.next();
        let Some(bank) = self.bank.clone() else {
            return;
        };
        match self.current {
            Some(t) => {
                let _ =
                    bank.accounts[t.src.min(t.dst)].tell(AccountMsg::Acquire { teller: self.id });
            }
            None => {
                self.totals
                    .committed
                    .fetch_add(self.committed, Ordering::Relaxed);
                self.totals
                    .refused
                    .fetch_add(self.refused, Ordering::Relaxed);
                if self.totals.working.fetch_sub(1, Ordering::AcqRel) == 1 {
                    for account in &bank.accounts {
                        let _ = account.tell(AccountMsg::Stop);
                    }
                }
                self.bank = None;
                ctx.stop();
            }
        }
    }
}

impl Actor for Teller {
    type Msg = TellerMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: TellerMsg) {
        match msg {
            TellerMsg::Start(bank) => {
                self.bank = Some(bank);
                self.next(ctx);
            }
            TellerMsg::Acquired { account } => {
                let (Some(t), Some(bank)) = (self.current, &self.bank) else {
                    return;
                };
                let (low, high) = (t.src.min(t.dst), t.src.max(t.dst));
                if account as usize == low {
                    let _ = bank.accounts[high].tell(AccountMsg::Acquire { teller: self.id });
                    return;
                }
                let manager = ctx.spawn(Manager {
                    src: t.src as u32,
                    dst: t.dst as u32,
                    teller: self.id,
                    votes: 0,
                    yes: true,
                    bank: bank.clone(),
                });
                let operation = |delta| {
                    AccountMsg::Operation(Operation {
                        teller: self.id,
                        seq: t.seq,
                        delta,
                        manager: manager.clone(),
                    })
                };
                let _ = bank.accounts[t.src].tell(operation(-t.amount));
                let _ = bank.accounts[t.dst].tell(operation(t.amount));
            }
            TellerMsg::Done { committed } => {
                if committed {
                    self.committed += 1;
                } else {
                    self.refused += 1;
                }
                self.next(ctx);
            }
        }
    }
}

/// Collects the two votes of one transfer and sends the decision.
struct Manager {
    src: u32,
    dst: u32,
    teller: u32,
    votes: u8,
    yes: bool,
    bank: Arc<Bank>,
}

impl Actor for Manager {
    type Msg = ManagerMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: ManagerMsg) {
        let ManagerMsg::Vote { yes } = msg;
        self.votes += 1;
        self.yes &= yes;
        if self.votes < 2 {
            return;
        }
        for account in [self.src, self.dst] {
            let _ = self.bank.accounts[account as usize]
                .tell(AccountMsg::Decision { commit: self.yes });
        }
        let _ = self.bank.tellers[self.teller as usize].tell(TellerMsg::Done {
            committed: self.yes,
        });
        ctx.stop();
    }
}

/// Where each account leaves its ledger when it stops.
type Ledgers = Arc<Mutex<Vec<Option<Ledger>>>>;

/// An account: its ledger, the Tellers waiting to hold it, and the transfer it voted on.
struct Account {
    id: usize,
    ledger: Ledger,
    bank: Option<Arc<Bank>>,
    /// Held by a Teller whose operation has not arrived yet.
    acquired: bool,
    /// Tellers waiting to hold this account, in the order they asked.
    waiting: VecDeque<u32>,
    /// The operation voted on and waiting for its decision (the paper's stashing flag).
    voted: Option<(u32, u64, i64)>,
    /// Operations that arrived while waiting for a decision.
    stash: VecDeque<Operation>,
    ledgers: Ledgers,
}

impl Account {
    /// Votes on `op`: the source votes no if it cannot pay. Then lets the next waiting Teller
    /// hold the account.
    fn vote(&mut self, op: Operation) {
        let yes = op.delta >= 0 || self.ledger.covers(-op.delta);
        let _ = op.manager.tell(ManagerMsg::Vote { yes });
        self.voted = Some((op.teller, op.seq, op.delta));
        self.acquired = false;
        self.grant_next();
    }

    /// Lets the longest-waiting Teller hold the account, if it is free.
    fn grant_next(&mut self) {
        if self.acquired {
            return;
        }
        if let (Some(teller), Some(bank)) = (self.waiting.pop_front(), &self.bank) {
            self.acquired = true;
            let _ = bank.tellers[teller as usize].tell(TellerMsg::Acquired {
                account: self.id as u32,
            });
        }
    }
}

impl Actor for Account {
    type Msg = AccountMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: AccountMsg) {
        match msg {
            AccountMsg::Init(bank) => self.bank = Some(bank),
            AccountMsg::Acquire { teller } => {
                self.waiting.push_back(teller);
                self.grant_next();
            }
            AccountMsg::Operation(op) => {
                if self.voted.is_some() {
                    self.stash.push_back(op);
                } else {
                    self.vote(op);
                }
            }
            AccountMsg::Decision { commit } => {
                if let Some((teller, seq, delta)) = self.voted.take() {
                    self.ledger
                        .decide(teller as usize, seq, commit.then_some(delta));
                }
                if let Some(op) = self.stash.pop_front() {
                    self.vote(op);
                }
            }
            AccountMsg::Stop => {
                if let Ok(mut ledgers) = self.ledgers.lock() {
                    ledgers[self.id] = Some(self.ledger.clone());
                }
                self.bank = None;
                ctx.stop();
            }
        }
    }
}

/// One timed iteration: creates the actors, runs them to quiescence and checks the ledgers.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let ledgers: Ledgers = Arc::new(Mutex::new(vec![None; cfg.accounts]));
    let totals = Arc::new(Totals {
        committed: AtomicU64::new(0),
        refused: AtomicU64::new(0),
        working: AtomicUsize::new(cfg.tellers),
    });
    let accounts: Vec<Addr<AccountMsg>> = (0..cfg.accounts)
        .map(|id| {
            spawn(
                h,
                Account {
                    id,
                    ledger: Ledger::new(cfg.tellers),
                    bank: None,
                    acquired: false,
                    waiting: VecDeque::new(),
                    voted: None,
                    stash: VecDeque::new(),
                    ledgers: ledgers.clone(),
                },
            )
        })
        .collect();
    let tellers: Vec<Addr<TellerMsg>> = (0..cfg.tellers)
        .map(|k| {
            spawn(
                h,
                Teller {
                    id: k as u32,
                    transfers: cfg.transfers_of(k),
                    current: None,
                    bank: None,
                    committed: 0,
                    refused: 0,
                    totals: totals.clone(),
                },
            )
        })
        .collect();
    let bank = Arc::new(Bank { accounts, tellers });
    for account in &bank.accounts {
        let _ = account.tell(AccountMsg::Init(bank.clone()));
    }
    for teller in &bank.tellers {
        let _ = teller.tell(TellerMsg::Start(bank.clone()));
    }
    drop(bank);
    rt.wait_quiescent();
    let ledgers: Option<Vec<Ledger>> = match ledgers.lock() {
        Ok(mut ledgers) => ledgers.drain(..).collect(),
        Err(_) => return Outcome::failed("an account panicked while recording its ledger"),
    };
    let Some(ledgers) = ledgers else {
        return Outcome::failed("an account did not record its ledger");
    };
    check(
        cfg,
        totals.committed.load(Ordering::Relaxed),
        totals.refused.load(Ordering::Relaxed),
        &ledgers,
    )
}
