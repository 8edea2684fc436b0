//! Bank Transaction in BoC(Full), after the BoC paper's port: a transfer is one behaviour over both
//! account cowns, so the two-phase protocol of the actor version (credit, debit, reply, stash)
//! disappears; the transfer then tells the Teller, one behaviour on the Teller's cown.
//!
//! The Teller's behaviour spawns the N transfers, drawn as in every variant. Per transfer: one
//! two-cown behaviour and one on the Teller (50,000 of each at the defaults, and the Teller's
//! first). The balances are read after the run, by one behaviour over every account.

use std::sync::Arc;

use motet_boc::{when, when_detached, Cown};
use motet_runtime::Runtime;

use super::{check, AccountReport, Workload};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::boc_driver::read;
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare(Workload::from_params(params)?, threads, run)
}

/// An account: its balance, the lowest it ever was, and the Teller a transfer from it reports to.
/// The Teller's handle is cloned once per account, when the accounts open, rather than once per
/// transfer into its closure: a transfer then captures only its amount (a smaller block) and
/// costs no atomic increment and decrement of the Teller's count.
struct Account {
    book: AccountReport,
    teller: Cown<Teller>,
}

/// The Teller: how many transfers told it they are done.
struct Teller {
    replies: u64,
}

/// One timed iteration: creates the cowns, lets the Teller spawn the transfers, runs them to
/// quiescence and checks the balances.
fn run(work: &Workload, rt: &Runtime) -> Outcome {
    let h = rt.handle();
    let teller = Cown::new(h, Teller { replies: 0 });
    let accounts: Arc<[Cown<Account>]> = (0..work.cfg.accounts)
        .map(|_| {
            Cown::new(
                h,
                Account {
                    book: AccountReport::new(work.cfg.initial_balance()),
                    teller: teller.clone(),
                },
            )
        })
        .collect();
    let cfg = work.cfg;
    let all = accounts.clone();
    let _ = when_detached(&teller, move |_| {
        for t in cfg.transactions() {
            let amount = t.amount;
            let _ = when_detached((&all[t.src], &all[t.dst]), move |(src, dst)| {
                src.book.pay(amount);
                dst.book.receive(amount);
                let _ = when_detached(&src.teller, |t| t.replies += 1);
            });
        }
    });
    rt.wait_quiescent();
    let replies = match read(&teller, |t| t.replies) {
        Ok(r) => r,
        Err(e) => return Outcome::failed(e),
    };
    let reports = when(&accounts[..], |accounts| {
        accounts.iter().map(|a| a.book).collect::<Vec<_>>()
    })
    .wait();
    match reports {
        Ok(reports) => check(work, replies, &reports),
        Err(e) => Outcome::failed(format!("reading the balances failed: {e}")),
    }
}
