//! ReasonableBanking on the sequential floor: the actor program's message flow (the protocol of
//! the BoC paper's Fig. 4b; see the `actor` module) on one thread. Tellers acquire both accounts
//! in account order, a Manager per transfer collects the accounts' votes and sends the decision,
//! and accounts stash the operations that arrive while they wait for a decision.
//!
//! The addresses are shared through an `Rc` where the actors share an `Arc`; the Tellers at work
//! are counted in an `Rc<Cell>` where the actors count them atomically (the last one stops the
//! accounts). Each Teller keeps its counts and each account the ledger it recorded on `Stop`, for
//! the harness to read once the system has run.

use std::cell::Cell;
use std::collections::VecDeque;
use std::rc::Rc;

use super::{check, Config, Ledger, Transfer, Transfers};
use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: creates the actors, runs them to quiescence on a fresh system and checks
/// the ledgers. The harness reads only the accounts and the Tellers, which it spawned, so an
/// exited Manager's slot goes to the next Manager, as the runtime frees a stopped actor.
fn run(cfg: &Config) -> Outcome {
    let mut sys = System::reclaiming();
    let bank = start(cfg, &mut sys);
    sys.run();
    let ledgers: Option<Vec<Ledger>> = bank
        .accounts
        .iter()
        .map(|&a| match sys.actor_mut(a) {
            Node::Account(a) => a.recorded.take(),
            _ => unreachable!("accounts are spawned first"),
        })
        .collect();
    let Some(ledgers) = ledgers else {
        return Outcome::failed("an account did not record its ledger");
    };
    let (mut committed, mut refused) = (0, 0);
    for &t in &bank.tellers {
        let Node::Teller(t) = sys.actor(t) else {
            unreachable!("the Tellers are spawned after the accounts")
        };
        committed += t.committed;
        refused += t.refused;
    }
    check(cfg, committed, refused, &ledgers)
}

/// Spawns the accounts, then the Tellers, and sends each the addresses (`Init`, `Start`), as the
/// actor program does; returns the addresses.
fn start(cfg: &Config, sys: &mut System<Node>) -> Rc<Bank> {
    let accounts: Vec<ActorId> = (0..cfg.accounts)
        .map(|id| {
            sys.spawn(Node::Account(Box::new(Account {
                id,
                ledger: Ledger::new(cfg.tellers),
                bank: None,
                acquired: false,
                waiting: VecDeque::new(),
                voted: None,
                stash: VecDeque::new(),
                recorded: None,
            })))
        })
        .collect();
    let working = Rc::new(Cell::new(cfg.tellers));
    let tellers: Vec<ActorId> = (0..cfg.tellers)
        .map(|k| {
            sys.spawn(Node::Teller(Box::new(Teller {
                id: k as u32,
                transfers: cfg.transfers_of(k),
                current: None,
                bank: None,
                committed: 0,
                refused: 0,
                working: Rc::clone(&working),
            })))
        })
        .collect();
    let bank = Rc::new(Bank { accounts, tellers });
    for &account in &bank.accounts {
        sys.send(account, Msg::Init(Rc::clone(&bank)));
    }
    for &teller in &bank.tellers {
        sys.send(teller, Msg::Start(Rc::clone(&bank)));
    }
    bank
}

/// Every account's and every Teller's address, shared by all the actors.
struct Bank {
    accounts: Vec<ActorId>,
    tellers: Vec<ActorId>,
}

/// Every message of the program.
enum Msg {
    /// To a Teller: the addresses; then start the first transfer.
    Start(Rc<Bank>),
    /// To a Teller: account `account` is now held for its current transfer.
    Acquired { account: u32 },
    /// To a Teller: the current transfer is decided.
    Done { committed: bool },
    /// To an account: the addresses.
    Init(Rc<Bank>),
    /// To an account: Teller `teller` asks to hold it.
    Acquire { teller: u32 },
    /// To an account: an operation of a held transfer.
    Operation(Operation),
    /// To an account: the decision of the transfer it voted on.
    Decision { commit: bool },
    /// To an account: record the ledger and stop.
    Stop,
    /// To a Manager: an account's vote, whether it can apply its side.
    Vote { yes: bool },
}

/// One side of a transfer: `delta` to apply if it commits.
struct Operation {
    teller: u32,
    seq: u64,
    delta: i64,
    manager: ActorId,
}

/// The Tellers, the accounts and the Managers. Managers are many (one per transfer) and small, so
/// the few large Tellers and accounts are boxed: a Manager's slot then takes a few words rather
/// than an account's size.
enum Node {
    Teller(Box<Teller>),
    Account(Box<Account>),
    Manager(Manager),
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match self {
            Node::Teller(t) => t.receive(msg, cx),
            Node::Account(a) => a.receive(msg, cx),
            Node::Manager(m) => m.receive(msg, cx),
        }
    }
}

/// Issues its transfers one at a time.
struct Teller {
    id: u32,
    transfers: Transfers,
    current: Option<Transfer>,
    bank: Option<Rc<Bank>>,
    committed: u64,
    refused: u64,
    /// How many Tellers are still at work (the last one stops the accounts).
    working: Rc<Cell<usize>>,
}

impl Teller {
    /// Starts the next transfer (acquiring its lower account), or finishes.
    fn next(&mut self, cx: &mut Context<Node>) {
        self.current = self.transfers.next();
        let Some(bank) = self.bank.clone() else {
            return;
        };
        match self.current {
            Some(t) => {
                cx.send(
                    bank.accounts[t.src.min(t.dst)],
                    Msg::Acquire { teller: self.id },
                );
            }
            None => {
                let working = self.working.get() - 1;
                self.working.set(working);
                if working == 0 {
                    for &account in &bank.accounts {
                        cx.send(account, Msg::Stop);
                    }
                }
                self.bank = None;
                cx.exit();
            }
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Start(bank) => {
                self.bank = Some(bank);
                self.next(cx);
            }
            Msg::Acquired { account } => {
                let (Some(t), Some(bank)) = (self.current, &self.bank) else {
                    return;
                };
                let (low, high) = (t.src.min(t.dst), t.src.max(t.dst));
                if account as usize == low {
                    cx.send(bank.accounts[high], Msg::Acquire { teller: self.id });
                    return;
                }
                let manager = cx.spawn(Node::Manager(Manager {
                    src: t.src as u32,
                    dst: t.dst as u32,
                    teller: self.id,
                    votes: 0,
                    yes: true,
                    bank: Rc::clone(bank),
                }));
                let operation = |delta| {
                    Msg::Operation(Operation {
                        teller: self.id,
                        seq: t.seq,
                        delta,
                        manager,
                    })
                };
                cx.send(bank.accounts[t.src], operation(-t.amount));
                cx.send(bank.accounts[t.dst], operation(t.amount));
            }
            Msg::Done { committed } => {
                if committed {
                    self.committed += 1;
                } else {
                    self.refused += 1;
                }
                self.next(cx);
            }
            _ => unreachable!("reasonablebanking: a message for an account or a Manager"),
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
    bank: Rc<Bank>,
}

impl Manager {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        let Msg::Vote { yes } = msg else {
            unreachable!("reasonablebanking: a Manager only gets votes")
        };
        self.votes += 1;
        self.yes &= yes;
        if self.votes < 2 {
            return;
        }
        for account in [self.src, self.dst] {
            cx.send(
                self.bank.accounts[account as usize],
                Msg::Decision { commit: self.yes },
            );
        }
        cx.send(
            self.bank.tellers[self.teller as usize],
            Msg::Done {
                committed: self.yes,
            },
        );
        cx.exit();
    }
}

/// An account: its ledger, the Tellers waiting to hold it, and the transfer it voted on.
struct Account {
    id: usize,
    ledger: Ledger,
    bank: Option<Rc<Bank>>,
    /// Held by a Teller whose operation has not arrived yet.
    acquired: bool,
    /// Tellers waiting to hold this account, in the order they asked.
    waiting: VecDeque<u32>,
    /// The operation voted on and waiting for its decision (the paper's stashing flag).
    voted: Option<(u32, u64, i64)>,
    /// Operations that arrived while waiting for a decision.
    stash: VecDeque<Operation>,
    /// The ledger as it was on `Stop`: `None` until then.
    recorded: Option<Ledger>,
}

impl Account {
    /// Votes on `op`: the source votes no if it cannot pay. Then lets the next waiting Teller
    /// hold the account.
    fn vote(&mut self, op: Operation, cx: &mut Context<Node>) {
        let yes = op.delta >= 0 || self.ledger.covers(-op.delta);
        cx.send(op.manager, Msg::Vote { yes });
        self.voted = Some((op.teller, op.seq, op.delta));
        self.acquired = false;
        self.grant_next(cx);
    }

    /// Lets the longest-waiting Teller hold the account, if it is free.
    fn grant_next(&mut self, cx: &mut Context<Node>) {
        if self.acquired {
            return;
        }
        if let (Some(teller), Some(bank)) = (self.waiting.pop_front(), &self.bank) {
            self.acquired = true;
            cx.send(
                bank.tellers[teller as usize],
                Msg::Acquired {
                    account: self.id as u32,
                },
            );
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Init(bank) => self.bank = Some(bank),
            Msg::Acquire { teller } => {
                self.waiting.push_back(teller);
                self.grant_next(cx);
            }
            Msg::Operation(op) => {
                if self.voted.is_some() {
                    self.stash.push_back(op);
                } else {
                    self.vote(op, cx);
                }
            }
            Msg::Decision { commit } => {
                if let Some((teller, seq, delta)) = self.voted.take() {
                    self.ledger
                        .decide(teller as usize, seq, commit.then_some(delta));
                }
                if let Some(op) = self.stash.pop_front() {
                    self.vote(op, cx);
                }
            }
            Msg::Stop => {
                self.recorded = Some(self.ledger.clone());
                self.bank = None;
                cx.exit();
            }
            _ => unreachable!("reasonablebanking: a message for a Teller or a Manager"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{start, System};
    use crate::benchmarks::reasonablebanking::Config;

    /// 11 messages and one Manager per transfer (see the `actor` module), and each account's
    /// `Init` and `Stop` and each Teller's `Start`; every actor exits and nothing is dropped.
    #[test]
    fn eleven_messages_and_a_manager_per_transfer() {
        for (accounts, tellers, transfers) in [(20, 3, 500), (2, 1, 40), (7, 4, 0)] {
            let cfg = Config {
                accounts,
                tellers,
                transfers,
            };
            let mut sys = System::new();
            start(&cfg, &mut sys);
            sys.run();
            let messages = 11 * transfers + 2 * accounts as u64 + tellers as u64;
            assert_eq!((sys.delivered(), sys.dropped()), (messages, 0), "{cfg:?}");
            let actors = accounts + tellers + transfers as usize;
            assert_eq!((sys.actors().len(), sys.exited()), (actors, actors));
        }
    }
}
