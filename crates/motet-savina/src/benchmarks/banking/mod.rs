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
//! Balances: Savina starts every account at `DBL_MAX / (A·N)`, where adding at most 1000 leaves the
//! balance unchanged; here every account starts at 10,000, so every transfer shows.
//!
//! Validation: the Teller receives N replies (the result); every account's final balance equals the
//! balance of a sequential replay of the same transactions (up to rounding, as concurrent accounts
//! apply their transfers in another order), so the total money is conserved; and, where the initial
//! balance covers everything an account ever pays (as at the defaults), no account was ever overdrawn.
//!
//! [`PseudoRandom`]: crate::random::PseudoRandom

mod actor;
mod boc;
mod floor;
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

/// Every account's starting balance: large enough that no interleaving of the default workload
/// (9,384.08 moved in all) can overdraw an account, small enough that every amount changes it.
pub(crate) const INITIAL_BALANCE: f64 = 10_000.0;

/// Savina's seed for the Teller's generator.
const TELLER_SEED: i64 = 123_456;

variants!(
    actor ["init-message", "balance-10000"],
    boc ["balance-10000"] (own_protocol),
    reactor ["balance-10000"] (own_protocol),
    floor ["init-message", "balance-10000"],
);

impl Config {
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
    /// Each account's final balance.
    balances: Vec<f64>,
    /// Per account, the initial balance plus every amount it received or paid: the scale of its
    /// rounding error.
    scale: Vec<f64>,
    /// Whether the initial balance covers everything each account pays, so that no order of the
    /// transfers can overdraw one.
    overdraft_impossible: bool,
}

impl Expected {
    /// Replays `cfg`'s transactions.
    pub(crate) fn derive(cfg: &Config) -> Expected {
        let mut balances = vec![INITIAL_BALANCE; cfg.accounts];
        let mut scale = vec![INITIAL_BALANCE; cfg.accounts];
        let mut paid = vec![0.0; cfg.accounts];
        for t in cfg.transactions() {
            balances[t.src] -= t.amount;
            balances[t.dst] += t.amount;
            scale[t.src] += t.amount;
            scale[t.dst] += t.amount;
            paid[t.src] += t.amount;
        }
        Expected {
            balances,
            scale,
            overdraft_impossible: paid.iter().all(|&p| p <= INITIAL_BALANCE),
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
}

/// Validates a run: the Teller counted `replies`, which must be N; `accounts` (by id) must match the
/// sequential replay, conserve the total and, where applicable, never go below zero. The result is
/// `replies`.
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
    let start = INITIAL_BALANCE * accounts.len() as f64;
    let moved: f64 = expected.scale.iter().sum();
    if (total - start).abs() > TOLERANCE * moved {
        return Err(format!("the accounts hold {total} in all, not {start}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check, AccountReport, Config, Workload, BENCHMARK, INITIAL_BALANCE};
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
        let work = workload(1000.0, 50_000.0);
        assert!(work.expected.overdraft_impossible);
        assert!(work.expected.balances.iter().all(|&b| b != INITIAL_BALANCE));
    }

    #[test]
    fn check_wants_every_reply_and_the_replayed_balances() {
        let work = workload(20.0, 300.0);
        let good: Vec<AccountReport> = work
            .expected
            .balances
            .iter()
            .map(|&b| AccountReport {
                balance: b,
                lowest: b.min(INITIAL_BALANCE),
            })
            .collect();
        assert!(check(&work, 300, &good).check.is_ok());
        assert!(check(&work, 299, &good).check.is_err());
        let mut moved = good.clone();
        moved[3].balance += 0.01;
        assert!(check(&work, 300, &moved).check.is_err());
        let mut unchanged = good.clone();
        for a in &mut unchanged {
            a.balance = INITIAL_BALANCE;
        }
        assert!(check(&work, 300, &unchanged).check.is_err());
        let mut overdrawn = good.clone();
        overdrawn[0].lowest = -1.0;
        assert!(check(&work, 300, &overdrawn).check.is_err());
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
