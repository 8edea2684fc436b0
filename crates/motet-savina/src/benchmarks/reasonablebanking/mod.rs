//! ReasonableBanking (the BoC paper's section 5.3): Savina's Bank Transaction with the guarantees a
//! real bank asks for. `t` Tellers each issue their share of `n` transfers between any two of `a`
//! accounts; a transfer is atomic over its two accounts, is refused (not applied) when it would
//! overdraw the source, nothing deadlocks or livelocks, and two transfers of one Teller that touch
//! a common account take effect in the order the Teller issued them.
//!
//! - **boc**: a transfer is one behaviour over both account cowns (the paper's Fig. 4a); each
//!   Teller is a cown whose behaviour spawns its transfers in order, and every transfer tells its
//!   Teller. The guarantees are BoC's own: atomic acquisition and happens-before.
//! - **actor**: the protocol of the paper's Fig. 4b. A Teller works one transfer at a time: it
//!   sends `Acquire` to the lower-numbered account and, once `Acquired`, to the other; accounts
//!   queue the acquires they cannot grant yet. Holding both, the Teller spawns a Manager and sends
//!   each account its operation (debit or credit, naming the Manager). An account not already
//!   waiting for a decision votes (the source votes no if it cannot pay), enters stashing (later
//!   operations wait in its stash) and grants its next queued acquire; the Manager, with both
//!   votes, sends commit or abort to both accounts and tells the Teller, which starts its next
//!   transfer. Acquiring in account order rules out deadlock; operations wait only for decisions
//!   of transfers that already hold both accounts, so nothing waits in a cycle.
//! - **floor**: the actor program's protocol and messages on the sequential floor (one thread).
//! - **floor-loop**: the transfers applied in a sequential loop, the Tellers' in turn (no
//!   protocol).
//!
//! Parameters: the paper's (Savina's Banking: 1,000 accounts, 50,000 transfers), with 10 Tellers
//! (the paper does not give its count). Teller k draws its transfers from its own
//! [`PseudoRandom`] (seed 123456 + k): `src = next_int(A)`, `dst` another account uniformly,
//! `amount = next_int(1000) + 1`; balances are whole units from 1,000 each, so that some transfers
//! are refused and the sums are exact.
//!
//! Validation, for every model: the money in all accounts is A · 1,000; no account was ever below
//! zero; every transfer was decided once (committed + refused = N, and every account saw exactly
//! the decisions of the transfers that name it); and every account saw each Teller's transfers in
//! increasing issue order. Which transfers are refused depends on the interleaving of the Tellers,
//! so the counts are reported, not compared.
//!
//! [`PseudoRandom`]: crate::random::PseudoRandom

mod actor;
mod boc;
mod floor;
mod floor_loop;

use crate::bench::{Benchmark, Outcome};
use crate::random::PseudoRandom;

/// ReasonableBanking (BoC paper, section 5.3).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "reasonablebanking",
    id: 0,
    title:
        "ReasonableBanking: T tellers, N ordered atomic transfers between A accounts, no overdraft",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-a` accounts, `-n` transfers, `-t` Tellers.
    const PARAMS: &[ParamSpec] = [accounts, transfers, tellers];

    /// The decoded parameters, shared by every variant (`t` is checked before `n`).
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("a", default = 1_000.0, small = 1_000.0, min = 2, fits = i32,
            help = "accounts (at least 2)")]
        accounts: usize,
        #[param("t", default = 10.0, small = 10.0, min = 1, fits = u32,
            help = "Tellers (at least 1)")]
        tellers: usize,
        #[param("n", default = 50_000.0, small = 5_000.0, min = 0,
            help = "transfers, shared among the Tellers")]
        transfers: u64,
    }
}

/// Every account's starting balance, in whole units.
pub(crate) const INITIAL_BALANCE: i64 = 1_000;

/// Teller k's generator starts from this seed plus k.
const TELLER_SEED: i64 = 123_456;

variants!(actor, boc(own_protocol), floor, floor_loop);

impl Config {
    /// Teller `k`'s transfers, in the order it issues them: N / T each, the first N mod T Tellers
    /// one more.
    pub(crate) fn transfers_of(&self, k: usize) -> Transfers {
        let t = self.tellers as u64;
        let extra = u64::from((k as u64) < self.transfers % t);
        Transfers {
            rng: PseudoRandom::new(TELLER_SEED + k as i64),
            accounts: self.accounts as i32,
            seq: 0,
            left: self.transfers / t + extra,
        }
    }
}

/// One transfer: `amount` from account `src` to account `dst` (`src != dst`), the `seq`-th (from 1)
/// its Teller issues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Transfer {
    pub(crate) src: usize,
    pub(crate) dst: usize,
    pub(crate) amount: i64,
    pub(crate) seq: u64,
}

/// A Teller's transfers, drawn one per step.
pub(crate) struct Transfers {
    rng: PseudoRandom,
    accounts: i32,
    seq: u64,
    left: u64,
}

impl Iterator for Transfers {
    type Item = Transfer;

    fn next(&mut self) -> Option<Transfer> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        self.seq += 1;
        let src = self.rng.next_int_below(self.accounts);
        let mut dst = self.rng.next_int_below(self.accounts - 1);
        if dst >= src {
            dst += 1;
        }
        let amount = i64::from(self.rng.next_int_below(1_000)) + 1;
        Some(Transfer {
            src: src as usize,
            dst: dst as usize,
            amount,
            seq: self.seq,
        })
    }
}

/// An account's ledger: its balance, and what it saw of the transfers that named it.
#[derive(Clone, Debug)]
pub(crate) struct Ledger {
    pub(crate) balance: i64,
    /// The lowest the balance ever was.
    pub(crate) lowest: i64,
    /// Decisions (commit or refusal) of transfers that named this account.
    pub(crate) decided: u64,
    /// Per Teller, the sequence number of the last of its transfers decided here.
    last_seq: Vec<u64>,
    /// Decisions that came after a later transfer of the same Teller.
    pub(crate) out_of_order: u64,
}

impl Ledger {
    /// A fresh account of a bank with `tellers` Tellers.
    pub(crate) fn new(tellers: usize) -> Ledger {
        Ledger {
            balance: INITIAL_BALANCE,
            lowest: INITIAL_BALANCE,
            decided: 0,
            last_seq: vec![0; tellers],
            out_of_order: 0,
        }
    }

    /// Whether the balance covers paying `amount`.
    pub(crate) fn covers(&self, amount: i64) -> bool {
        self.balance >= amount
    }

    /// Records the decision of Teller `teller`'s transfer `seq`, applying `delta` if committed.
    pub(crate) fn decide(&mut self, teller: usize, seq: u64, delta: Option<i64>) {
        if let Some(delta) = delta {
            self.balance += delta;
            self.lowest = self.lowest.min(self.balance);
        }
        self.decided += 1;
        match self.last_seq.get_mut(teller) {
            Some(last) if *last < seq => *last = seq,
            _ => self.out_of_order += 1,
        }
    }
}

/// Checks a run: `committed` and `refused` as the Tellers counted them, and every account's ledger.
pub(crate) fn check(cfg: &Config, committed: u64, refused: u64, ledgers: &[Ledger]) -> Outcome {
    let result = serde_json::json!({ "committed": committed, "refused": refused });
    Outcome {
        check: check_ledgers(cfg, committed, refused, ledgers),
        result,
    }
}

fn check_ledgers(
    cfg: &Config,
    committed: u64,
    refused: u64,
    ledgers: &[Ledger],
) -> Result<(), String> {
    if committed + refused != cfg.transfers {
        return Err(format!(
            "{committed} committed and {refused} refused transfers, expected {} in all",
            cfg.transfers
        ));
    }
    if ledgers.len() != cfg.accounts {
        return Err(format!(
            "{} accounts reported, expected {}",
            ledgers.len(),
            cfg.accounts
        ));
    }
    let total: i64 = ledgers.iter().map(|l| l.balance).sum();
    let expected = INITIAL_BALANCE * cfg.accounts as i64;
    if total != expected {
        return Err(format!(
            "the accounts hold {total} in all, expected {expected}"
        ));
    }
    if let Some((i, l)) = ledgers.iter().enumerate().find(|(_, l)| l.lowest < 0) {
        return Err(format!("account {i} was overdrawn to {}", l.lowest));
    }
    if let Some((i, l)) = ledgers
        .iter()
        .enumerate()
        .find(|(_, l)| l.out_of_order != 0)
    {
        return Err(format!(
            "account {i} decided {} transfers after a later one of the same Teller",
            l.out_of_order
        ));
    }
    let decided: u64 = ledgers.iter().map(|l| l.decided).sum();
    if decided != 2 * cfg.transfers {
        return Err(format!(
            "the accounts saw {decided} decisions, expected 2 per transfer ({})",
            2 * cfg.transfers
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check, Config, Ledger, BENCHMARK, INITIAL_BALANCE};
    use crate::bench::Model;
    use crate::benchmarks::testing::{
        self, params, rejects_alike as rejects, run_iterations as run, validates,
    };

    fn cfg() -> Config {
        Config {
            accounts: 2,
            transfers: 2,
            tellers: 1,
        }
    }

    #[test]
    fn transfers_are_shared_among_tellers_and_name_two_accounts() {
        let cfg = Config {
            accounts: 5,
            transfers: 23,
            tellers: 4,
        };
        let counts: Vec<usize> = (0..4).map(|k| cfg.transfers_of(k).count()).collect();
        assert_eq!(counts, [6, 6, 6, 5]);
        for k in 0..4 {
            for (i, t) in cfg.transfers_of(k).enumerate() {
                assert_ne!(t.src, t.dst);
                assert!(t.src < 5 && t.dst < 5);
                assert!((1..=1_000).contains(&t.amount));
                assert_eq!(t.seq, i as u64 + 1);
            }
        }
    }

    #[test]
    fn the_check_catches_lost_money_overdrafts_reordering_and_missing_decisions() {
        let cfg = cfg();
        let mut a = Ledger::new(1);
        let mut b = Ledger::new(1);
        a.decide(0, 1, Some(-10));
        b.decide(0, 1, Some(10));
        a.decide(0, 2, None);
        b.decide(0, 2, None);
        assert_eq!(check(&cfg, 1, 1, &[a.clone(), b.clone()]).check, Ok(()));
        assert!(check(&cfg, 1, 0, &[a.clone(), b.clone()]).check.is_err());
        let mut lost = b.clone();
        lost.balance -= 1;
        assert!(check(&cfg, 1, 1, &[a.clone(), lost]).check.is_err());
        let mut overdrawn = a.clone();
        overdrawn.lowest = -1;
        assert!(check(&cfg, 1, 1, &[overdrawn, b.clone()]).check.is_err());
        let mut late = Ledger::new(1);
        late.decide(0, 2, None);
        late.decide(0, 1, Some(-10));
        assert_eq!(late.out_of_order, 1);
        assert!(check(&cfg, 1, 1, &[late, b.clone()]).check.is_err());
        let mut undecided = b.clone();
        undecided.decided = 1;
        assert!(check(&cfg, 1, 1, &[a, undecided]).check.is_err());
        assert_eq!(Ledger::new(1).balance, INITIAL_BALANCE);
    }

    #[test]
    fn floor_and_actor_validate_at_a_reduced_size() {
        let outcomes = validates(&BENCHMARK, &[("a", 20.0), ("n", 2_000.0), ("t", 3.0)]);
        assert!(!outcomes.is_empty());
        validates(&BENCHMARK, &[("a", 2.0), ("n", 300.0), ("t", 1.0)]);
        validates(&BENCHMARK, &[("a", 10.0), ("n", 0.0), ("t", 4.0)]);
    }

    /// Twenty accounts and 2,000 transfers of up to 1,000 from 1,000 each: some must be refused.
    #[test]
    fn some_transfers_are_refused_at_a_reduced_size() {
        let p = params(&BENCHMARK, &[("a", 20.0), ("n", 2_000.0), ("t", 3.0)]);
        for model in [Model::Floor, Model::Actor, Model::Boc] {
            let outcome = &run(&BENCHMARK, model, 2, &p, 1)[0];
            assert_eq!(outcome.check, Ok(()), "{model}");
            assert!(outcome.result["refused"].as_u64().unwrap() > 0, "{model}");
            assert!(outcome.result["committed"].as_u64().unwrap() > 0, "{model}");
        }
    }

    /// With one Teller the transfers are decided one at a time in its order, whatever the
    /// scheduling, so the counts are fixed: the floor's equal the actors' (on one and two
    /// workers) and the plain loop's.
    #[test]
    fn with_one_teller_the_floor_counts_what_the_actors_count() {
        let sets = [("a", 5.0), ("n", 1_000.0), ("t", 1.0)];
        let [one, two, floor] = testing::run_actor_and_floor(&BENCHMARK, &sets);
        let floor_loop = testing::run(&BENCHMARK, Model::FloorLoop, 1, &sets).result;
        assert_eq!([&one, &two, &floor_loop], [&floor; 3]);
        assert!(floor["refused"].as_u64().unwrap() > 0, "{floor}");
    }

    #[test]
    fn boc_validates_at_a_reduced_size() {
        testing::boc_validates(&BENCHMARK, &[("a", 20.0), ("n", 2_000.0), ("t", 3.0)]);
        testing::boc_validates(&BENCHMARK, &[("a", 2.0), ("n", 300.0), ("t", 2.0)]);
        testing::boc_validates(&BENCHMARK, &[("a", 10.0), ("n", 0.0), ("t", 4.0)]);
    }

    #[test]
    fn bad_sizes_are_rejected() {
        assert!(rejects(&BENCHMARK, &[("a", 1.0)]).contains("`a`"));
        assert!(rejects(&BENCHMARK, &[("t", 0.0)]).contains("`t`"));
    }
}
