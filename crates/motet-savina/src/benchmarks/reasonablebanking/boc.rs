//! ReasonableBanking in BoC(Full), as the paper's Fig. 4a: a transfer is one behaviour over both
//! account cowns. Each Teller is a cown; its first behaviour spawns its transfers in issue order,
//! and every transfer then tells its Teller whether it committed (one behaviour on the Teller).
//! Atomicity is the two-cown `when`; per-Teller order is happens-before (of two transfers of one
//! Teller that share an account, the one spawned first runs first). Per transfer: one two-cown
//! behaviour and one on the Teller.

use std::sync::Arc;

use motet_boc::{when, when_detached, Cown};
use motet_runtime::Runtime;

use super::{check, Config, Ledger};
use crate::bench::{Outcome, Prepared};
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Config::from_params(params)?, threads, run)
}

/// A Teller's count of its decided transfers.
#[derive(Default)]
struct Teller {
    committed: u64,
    refused: u64,
}

/// One timed iteration: creates the accounts and Tellers, lets every Teller issue its transfers,
/// runs them to quiescence and checks the ledgers.
fn run(cfg: &Config, rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let accounts: Arc<[Cown<Ledger>]> = (0..cfg.accounts)
        .map(|_| Cown::new(h, Ledger::new(cfg.tellers)))
        .collect();
    let tellers: Vec<Cown<Teller>> = (0..cfg.tellers)
        .map(|_| Cown::new(h, Teller::default()))
        .collect();
    for (k, teller) in tellers.iter().enumerate() {
        let (accounts, me, cfg) = (accounts.clone(), teller.clone(), *cfg);
        let _ = when_detached(teller, move |_| {
            for t in cfg.transfers_of(k) {
                let me = me.clone();
                let _ = when_detached((&accounts[t.src], &accounts[t.dst]), move |(src, dst)| {
                    let commit = src.covers(t.amount);
                    let (debit, credit) = if commit {
                        (Some(-t.amount), Some(t.amount))
                    } else {
                        (None, None)
                    };
                    src.decide(k, t.seq, debit);
                    dst.decide(k, t.seq, credit);
                    let _ = when_detached(&me, move |teller| {
                        if commit {
                            teller.committed += 1;
                        } else {
                            teller.refused += 1;
                        }
                    });
                });
            }
        });
    }
    rt.wait_quiescent();
    let counts = when(&tellers[..], |tellers| {
        tellers
            .iter()
            .fold((0, 0), |(c, r), t| (c + t.committed, r + t.refused))
    })
    .wait();
    let ledgers = when(&accounts[..], |accounts| {
        accounts.iter().cloned().collect::<Vec<_>>()
    })
    .wait();
    match (counts, ledgers) {
        (Ok((committed, refused)), Ok(ledgers)) => check(cfg, committed, refused, &ledgers),
        (Err(e), _) | (_, Err(e)) => Outcome::failed(format!("reading the results failed: {e}")),
    }
}
