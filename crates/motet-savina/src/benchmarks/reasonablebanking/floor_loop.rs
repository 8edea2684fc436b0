//! ReasonableBanking on the sequential floor: the transfers applied in a loop, one transfer of
//! each Teller in turn, with no protocol: what any model's run costs beyond the transfers.

use super::{check, Config, Ledger, Transfers};
use crate::bench::{Outcome, Prepared};
use crate::params::Params;

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let mut ledgers = vec![Ledger::new(cfg.tellers); cfg.accounts];
    let mut tellers: Vec<Transfers> = (0..cfg.tellers).map(|k| cfg.transfers_of(k)).collect();
    let (mut committed, mut refused) = (0, 0);
    let mut active = true;
    while active {
        active = false;
        for (k, teller) in tellers.iter_mut().enumerate() {
            let Some(t) = teller.next() else { continue };
            active = true;
            let commit = ledgers[t.src].covers(t.amount);
            if commit {
                committed += 1;
                ledgers[t.src].decide(k, t.seq, Some(-t.amount));
                ledgers[t.dst].decide(k, t.seq, Some(t.amount));
            } else {
                refused += 1;
                ledgers[t.src].decide(k, t.seq, None);
                ledgers[t.dst].decide(k, t.seq, None);
            }
        }
    }
    check(cfg, committed, refused, &ledgers)
}
