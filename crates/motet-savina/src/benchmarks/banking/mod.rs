//! 15. Bank Transaction (concurrency): a teller sends `n` two-phase transfers between `a` accounts.
//!
//! Flow (SPEC.md section 3.15, Savina's ManualStash variant): on `Start` the Teller draws all N
//! transactions from its [`PseudoRandom`] (seed 123456) in one handler: `src = next_int(A/10 · 8)`,
//! `d = next_int(A − src)` (1 if 0), `dst = src + d`, `amount = next_double() · 1000`, and sends
//! `Credit(amount, dst)` to account src. The source account subtracts the amount, sends
//! `Debit(self, amount)` to dst and enters reply mode; dst adds the amount and answers `Reply`; the
//! source then leaves reply mode and forwards `Reply` to the Teller. In reply mode an account stashes
//! every other message (Debits included); whenever it is out of reply mode after a message it re-sends
//! the oldest stashed message to itself. As src < dst, no cycle of waiting accounts can form. After N
//! replies the Teller sends `Stop` to every account. 4N + A + 1 messages plus the stash re-sends.
//!
//! The Teller creates the accounts as it starts; a `Credit` carries the Teller's and the
//! destination's addresses, a `Debit` the source's, as Savina's messages carry `ActorRef`s. The
//! tuned programs (`actor-tuned`, `floor-tuned`; deviation `init-message`) hand every account a
//! shared table of addresses in one `Init` message instead, and name accounts by index.
//!
//! Balances: Savina's, `((DBL_MAX / (A·N)) / 1000) · 1000` (about 3.6e300 at the defaults), where
//! adding at most 1000 leaves a balance unchanged (SPEC.md's known problem).
//!
//! Validation: the Teller receives N replies (the result); every account took part in as many
//! transfers (paid or received) as a sequential replay of the same transactions gives it; its
//! final balance equals the replay's (up to rounding, as concurrent accounts apply their transfers
//! in another order), so the total money is conserved; and, where the initial balance covers
//! everything an account ever pays, no account was ever overdrawn. The counts are what tells a
//! wrong flow at Savina's balances, which no amount changes.
//!
//! [`PseudoRandom`]: crate::random::PseudoRandom

mod actor;
mod actor_tuned;
mod boc;
mod floor;
mod floor_tuned;
mod reactor;

use std::sync::Arc;

use crate::bench::{Benchmark, Outcome};
use crate::params::Params;
use crate::random::PseudoRandom;

/// Bank Transaction (Savina 15).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "banking",
    id: 15,
    title: "Bank Transaction: a teller sends N two-phase transfers between A accounts",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-a` accounts and `-n` transactions; "small" is LF's small size (12,000 transactions).
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        /// Savina draws sources below `A/10 · 8`, and holds `A` in an `int`.
        #[param("a", default = 1_000.0, small = 1_000.0, min = 10, fits = i32,
            help = "accounts (at least 10)")]
        accounts: usize,
        #[param("n", default = 50_000.0, small = 12_000.0, min = 0, help = "transactions")]
        transactions: u64,
    }
}

/// Savina's seed for the Teller's generator.
const TELLER_SEED: i64 = 123_456;

variants!(
    actor,
    actor_tuned["init-message"],
    boc(own_protocol),
    reactor(own_protocol),
    floor,
    floor_tuned["init-message"],
);

impl Config {
    /// Savina's starting balance of every account: `((DBL_MAX / (A·N)) / 1000) · 1000` (`A·N`
    /// taken as 1 when there are no transactions).
    pub(crate) fn initial_balance(&self) -> f64 {
        let product = (self.accounts as f64 * self.transactions as f64).max(1.0);
        ((f64::MAX / product) / 1000.0) * 1000.0
    }

    /// The Teller's transactions, in the order it sends them.
    pub(crate) fn transactions(&self) -> Transactions {
        Transactions {
            rng: PseudoRandom::new(TELLER_SEED),
            accounts: self.accounts as i32,
            left: self.transactions,
        }
    }
}

/// One transfer: `amount` from account `src` to account `dst` (`src < dst`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Transaction {
    pub(crate) src: usize,
    pub(crate) dst: usize,
    pub(crate) amount: f64,
}

/// Savina's `generateWork`, one transaction per step.
pub(crate) struct Transactions {
    rng: PseudoRandom,
    accounts: i32,
    left: u64,
}

impl Iterator for Transactions {
    type Item = Transaction;

    fn next(&mut self) -> Option<Transaction> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let src = self.rng.next_int_below((self.accounts / 10) * 8);
        let step = self.rng.next_int_below(self.accounts - src).max(1);
        let amount = self.rng.next_double().abs() * 1000.0;
        Some(Transaction {
            src: src as usize,
            dst: (src + step) as usize,
            amount,
        })
    }
}

/// What a correct run must end with, derived once per prepared program (untimed) by replaying the
/// transactions sequentially.
#[derive(Debug)]
pub(crate) struct Expected {
    /// Every account's starting balance.
    initial: f64,
    /// Each account's final balance.
    balances: Vec<f64>,
    /// How many transfers each account pays or receives.
    transfers: Vec<u64>,
    /// Per account, the initial balance plus every amount it received or paid: the scale of its
    /// rounding error.
    scale: Vec<f64>,
    /// Whether the initial balance covers everything each account pays, so that no order of the
    /// transfers can overdraw one.
    overdraft_impossible: bool,
}

impl Expected {
    /// Replays `cfg`'s transactions from Savina's balances.
    pub(crate) fn derive(cfg: &Config) -> Expected {
        Expected::derive_from(cfg, cfg.initial_balance())
    }

    /// Replays `cfg`'s transactions from `initial` in every account.
    fn derive_from(cfg: &Config, initial: f64) -> Expected {
        let mut balances = vec![initial; cfg.accounts];
        let mut scale = vec![initial; cfg.accounts];
        let mut paid = vec![0.0; cfg.accounts];
        let mut transfers = vec![0; cfg.accounts];
        for t in cfg.transactions() {
            balances[t.src] -= t.amount;
            balances[t.dst] += t.amount;
            transfers[t.src] += 1;
            transfers[t.dst] += 1;
            scale[t.src] += t.amount;
            scale[t.dst] += t.amount;
            paid[t.src] += t.amount;
        }
        Expected {
            initial,
            balances,
            transfers,
            scale,
            overdraft_impossible: paid.iter().all(|&p| p <= initial),
        }
    }
}

/// The parameters and the expected end state: what every variant's iterations share.
#[derive(Clone, Debug)]
pub(crate) struct Workload {
    pub(crate) cfg: Config,
    pub(crate) expected: Arc<Expected>,
}

impl Workload {
    /// Decodes the parameters and derives the expected end state.
    pub(crate) fn from_params(params: &Params) -> Result<Workload, String> {
        let cfg = Config::from_params(params)?;
        Ok(Workload {
            expected: Arc::new(Expected::derive(&cfg)),
            cfg,
        })
    }
}

/// What one account ends with.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct AccountReport {
    /// The final balance.
    pub(crate) balance: f64,
    /// The lowest balance the account ever had.
    pub(crate) lowest: f64,
    /// The transfers it paid or received.
    pub(crate) transfers: u64,
}

impl AccountReport {
    /// An account holding `balance`, before any transfer.
    pub(crate) fn new(balance: f64) -> AccountReport {
        AccountReport {
            balance,
            lowest: balance,
            transfers: 0,
        }
    }

    /// Pays `amount` (Savina's `Credit`).
    #[inline]
    pub(crate) fn pay(&mut self, amount: f64) {
        self.balance -= amount;
        self.lowest = self.lowest.min(self.balance);
        self.transfers += 1;
    }

    /// Receives `amount` (Savina's `Debit`).
    #[inline]
    pub(crate) fn receive(&mut self, amount: f64) {
        self.balance += amount;
        self.transfers += 1;
    }
}

/// Validates a run: the Teller counted `replies`, which must be N; `accounts` (by id) must match the
/// sequential replay in transfers and balances, conserve the total and, where applicable, never go
/// below zero. The result is `replies`.
pub(crate) fn check(work: &Workload, replies: u64, accounts: &[AccountReport]) -> Outcome {
    let mut outcome = Outcome::expect_eq("replies at the teller", work.cfg.transactions, replies);
    if outcome.check.is_ok() {
        outcome.check = check_balances(&work.expected, accounts);
    }
    outcome
}

/// Relative rounding tolerance for a balance.
const TOLERANCE: f64 = 1e-9;

fn check_balances(expected: &Expected, accounts: &[AccountReport]) -> Result<(), String> {
    if accounts.len() != expected.balances.len() {
        return Err(format!(
            "{} accounts reported, expected {}",
            accounts.len(),
            expected.balances.len()
        ));
    }
    for (id, (got, (&want, &scale))) in accounts
        .iter()
        .zip(expected.balances.iter().zip(&expected.scale))
        .enumerate()
    {
        if got.transfers != expected.transfers[id] {
            return Err(format!(
                "account {id} took part in {} transfers, the transactions give {}",
                got.transfers, expected.transfers[id]
            ));
        }
        if (got.balance - want).abs() > TOLERANCE * scale {
            return Err(format!(
                "account {id} ends with {}, the transactions give {want}",
                got.balance
            ));
        }
        if expected.overdraft_impossible && got.lowest < 0.0 {
            return Err(format!("account {id} was overdrawn to {}", got.lowest));
        }
    }
    let total: f64 = accounts.iter().map(|a| a.balance).sum();
    let start = expected.initial * accounts.len() as f64;
    let moved: f64 = expected.scale.iter().sum();
    if (total - start).abs() > TOLERANCE * moved {
        return Err(format!("the accounts hold {total} in all, not {start}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check, AccountReport, Config, Workload, BENCHMARK};
    use crate::benchmarks::testing::{self, params, rejects_alike as rejects, validates};

    fn workload(a: f64, n: f64) -> Workload {
        Workload::from_params(&params(&BENCHMARK, &[("a", a), ("n", n)])).unwrap()
    }

    /// SPEC.md: destinations up to 999 and 9,384.08 moved in all at the defaults.
    #[test]
    fn default_transactions_are_savinas() {
        let cfg = Config {
            accounts: 1000,
            transactions: 50_000,
        };
        let (mut total, mut max_dst) = (0.0, 0);
        for t in cfg.transactions() {
            assert!(t.src < t.dst && t.src < 800);
            total += t.amount;
            max_dst = max_dst.max(t.dst);
        }
        assert_eq!(max_dst, 999);
        assert!((total - 9384.08).abs() < 0.005, "{total}");
        // Savina's balance, ((DBL_MAX / (A·N)) / 1000) · 1000 ≈ 3.5954e300, which no amount
        // changes (SPEC.md).
        let work = workload(1000.0, 50_000.0);
        let initial = cfg.initial_balance();
        assert!((initial / 3.5954e300 - 1.0).abs() < 1e-4, "{initial}");
        assert!(work.expected.overdraft_impossible);
        assert!(work.expected.balances.iter().all(|&b| b == initial));
        assert_eq!(work.expected.transfers.iter().sum::<u64>(), 100_000);
    }

    /// The check wants every reply and every account's transfers; at Savina's balances those
    /// counts are what a wrong flow shows in (no amount changes a balance).
    #[test]
    fn check_wants_every_reply_and_the_replayed_balances() {
        let work = workload(20.0, 300.0);
        let good: Vec<AccountReport> = work
            .expected
            .balances
            .iter()
            .zip(&work.expected.transfers)
            .map(|(&b, &transfers)| AccountReport {
                balance: b,
                lowest: b.min(work.expected.initial),
                transfers,
            })
            .collect();
        assert!(check(&work, 300, &good).check.is_ok());
        let mut lost = good.clone();
        lost[2].transfers -= 1;
        assert!(check(&work, 300, &lost).check.is_err());
        assert!(check(&work, 300, &good).check.is_ok());
        assert!(check(&work, 299, &good).check.is_err());
        let mut moved = good.clone();
        moved[3].balance *= 1.001;
        assert!(check(&work, 300, &moved).check.is_err());
        assert!(check(&work, 300, &good[1..]).check.is_err());
        // With balances that every amount changes, an overdraft shows too.
        let small = Workload {
            expected: std::sync::Arc::new(super::Expected::derive_from(&work.cfg, 10_000.0)),
            cfg: work.cfg,
        };
        let mut overdrawn: Vec<AccountReport> = small
            .expected
            .balances
            .iter()
            .zip(&small.expected.transfers)
            .map(|(&b, &transfers)| AccountReport {
                balance: b,
                lowest: b.min(10_000.0),
                transfers,
            })
            .collect();
        assert!(check(&small, 300, &overdrawn).check.is_ok());
        overdrawn[0].lowest = -1.0;
        assert!(check(&small, 300, &overdrawn).check.is_err());
        assert!(check(&work, 300, &good[1..]).check.is_err());
    }

    #[test]
    fn every_model_validates_at_a_reduced_size() {
        testing::expect_result(
            &BENCHMARK,
            testing::ACTOR_AND_FLOOR,
            &[("a", 50.0), ("n", 2_000.0)],
            serde_json::json!(2_000),
        );
        validates(&BENCHMARK, &[("a", 10.0), ("n", 500.0)]);
        testing::expect_result(
            &BENCHMARK,
            testing::TUNED_ACTOR_AND_FLOOR,
            &[("a", 50.0), ("n", 2_000.0)],
            serde_json::json!(2_000),
        );
    }

    #[test]
    fn boc_validates_at_a_reduced_size() {
        testing::expect_result(
            &BENCHMARK,
            testing::BOC,
            &[("a", 50.0), ("n", 2_000.0)],
            serde_json::json!(2_000),
        );
        testing::boc_validates(&BENCHMARK, &[("a", 10.0), ("n", 0.0)]);
    }

    #[test]
    fn fewer_than_ten_accounts_are_rejected() {
        assert!(rejects(&BENCHMARK, &[("a", 9.0)]).contains("`a`"));
    }
}
