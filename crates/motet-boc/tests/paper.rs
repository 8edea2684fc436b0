//! The examples of the BoC paper (Listings 2 to 10), each asserting the orders the paper states.
//! Every scenario runs under the deterministic scheduler for many seeds and on pools of 1 and 2
//! workers (`testing::check`).
//!
//! Orders are observed through event logs: a shared one, or a log cown as in Listing 8.

use std::sync::{Arc, Mutex};

use motet_boc::{when, Cown};
use motet_runtime::{testing, Runtime};

#[derive(Debug, Default, Clone, PartialEq)]
struct Account {
    balance: i64,
    frozen: bool,
}

fn account(rt: &Runtime, balance: i64) -> Cown<Account> {
    Cown::new(
        rt.handle(),
        Account {
            balance,
            frozen: false,
        },
    )
}

/// A shared event log: names with the order they happened in.
#[derive(Clone, Default)]
struct Events(Arc<Mutex<Vec<&'static str>>>);

impl Events {
    fn record(&self, name: &'static str) {
        self.0.lock().unwrap().push(name);
    }

    fn position(&self, name: &str) -> usize {
        let log = self.0.lock().unwrap();
        log.iter()
            .position(|n| *n == name)
            .unwrap_or_else(|| panic!("{name} never happened: {log:?}"))
    }

    fn all(&self) -> Vec<&'static str> {
        self.0.lock().unwrap().clone()
    }
}

fn balance(c: &Cown<Account>) -> i64 {
    when(c, |a| a.balance).wait().unwrap()
}

/// Listing 2: two independent behaviours; when `src` and `dst` are the same cown, the withdrawal
/// (spawned first) happens before the deposit.
#[test]
fn listing_2_independent_behaviours() {
    testing::check(|rt| {
        let transfer = |src: &Cown<Account>, dst: &Cown<Account>, amount, ev: &Events| {
            let e = ev.clone();
            drop(when(src, move |s| {
                s.balance -= amount;
                e.record("withdraw");
            }));
            let e = ev.clone();
            drop(when(dst, move |d| {
                d.balance += amount;
                e.record("deposit");
            }));
        };
        let (src, dst) = (account(rt, 100), account(rt, 0));
        let ev = Events::default();
        transfer(&src, &dst, 30, &ev);
        rt.wait_quiescent();
        assert_eq!((balance(&src), balance(&dst)), (70, 30));

        let alias = account(rt, 10);
        let ev = Events::default();
        transfer(&alias, &alias, 5, &ev);
        rt.wait_quiescent();
        assert_eq!(ev.all(), ["withdraw", "deposit"]);
        assert_eq!(balance(&alias), 10);
    });
}

fn nested_transfer(src: &Cown<Account>, dst: &Cown<Account>, amount: i64, ev: &Events) {
    let (dst, e) = (dst.clone(), ev.clone());
    drop(when(src, move |s| {
        e.record("withdraw");
        if s.balance >= amount {
            s.balance -= amount;
            drop(when(&dst, move |d| {
                d.balance += amount;
                e.record("deposit");
            }));
        }
    }));
}

/// Listing 3: the deposit is spawned by the withdrawal, only when the funds suffice, and so runs
/// after it.
#[test]
fn listing_3_nested_behaviours() {
    testing::check(|rt| {
        let (src, dst) = (account(rt, 100), account(rt, 0));
        let ev = Events::default();
        nested_transfer(&src, &dst, 60, &ev);
        rt.wait_quiescent();
        assert_eq!(ev.all(), ["withdraw", "deposit"]);
        let ev = Events::default();
        nested_transfer(&src, &dst, 60, &ev);
        rt.wait_quiescent();
        assert_eq!(ev.all(), ["withdraw"], "insufficient funds: no deposit");
        assert_eq!((balance(&src), balance(&dst)), (40, 60));
    });
}

/// Listing 4: transfers in both directions do not deadlock; both complete.
#[test]
fn listing_4_no_deadlock() {
    testing::check(|rt| {
        let (s1, s2) = (account(rt, 10), account(rt, 10));
        let ev = Events::default();
        nested_transfer(&s1, &s2, 1, &ev);
        nested_transfer(&s2, &s1, 2, &ev);
        rt.wait_quiescent();
        assert_eq!((balance(&s1), balance(&s2)), (11, 9));
        let log = ev.all();
        assert_eq!(log.iter().filter(|e| **e == "withdraw").count(), 2);
        assert_eq!(log.iter().filter(|e| **e == "deposit").count(), 2);
    });
}

fn atomic_transfer(src: &Cown<Account>, dst: &Cown<Account>, amount: i64) {
    drop(when((src, dst), move |(s, d)| {
        if s.balance >= amount && !s.frozen && !d.frozen {
            s.balance -= amount;
            d.balance += amount;
        }
    }));
}

/// Listing 5: one behaviour over both accounts; a frozen account blocks the whole transfer.
#[test]
fn listing_5_both_accounts_at_once() {
    testing::check(|rt| {
        let (src, dst) = (account(rt, 100), account(rt, 0));
        atomic_transfer(&src, &dst, 30);
        drop(when(&dst, |d| d.frozen = true));
        atomic_transfer(&src, &dst, 30);
        rt.wait_quiescent();
        assert_eq!((balance(&src), balance(&dst)), (70, 30));
    });
}

/// Listing 6: transfer(s1, s2) then transfer(s2, s4) overlap on s2, so the first happens before the
/// second, which can therefore pay s4 from the money that just arrived on s2.
#[test]
fn listing_6_overlapping_behaviours_run_in_spawn_order() {
    testing::check(|rt| {
        let (s1, s2, s4) = (account(rt, 10), account(rt, 0), account(rt, 0));
        atomic_transfer(&s1, &s2, 10);
        atomic_transfer(&s2, &s4, 10);
        rt.wait_quiescent();
        assert_eq!(
            (balance(&s1), balance(&s2), balance(&s4)),
            (0, 0, 10),
            "the second transfer ran after the first"
        );
    });
}

/// Listing 7: with four distinct accounts the two transfers are unordered (both complete); when
/// s2 and s3 alias, it is Listing 6 again.
#[test]
fn listing_7_order_is_decided_at_run_time() {
    testing::check(|rt| {
        let (s1, s2, s3, s4) = (
            account(rt, 10),
            account(rt, 0),
            account(rt, 10),
            account(rt, 0),
        );
        atomic_transfer(&s1, &s2, 10);
        atomic_transfer(&s3, &s4, 10);
        rt.wait_quiescent();
        assert_eq!(
            [&s1, &s2, &s3, &s4].map(balance),
            [0, 10, 0, 10],
            "distinct accounts: both transfers happened"
        );
        let s3 = s2.clone();
        atomic_transfer(&s1, &s2, 0);
        atomic_transfer(&s3, &s4, 10);
        rt.wait_quiescent();
        assert_eq!((balance(&s2), balance(&s4)), (0, 20));
    });
}

/// Listing 8: an accurate log. "begin" before "deposit" before "transfer", and "freeze" before
/// "transfer"; "deposit" and "freeze" in either order.
#[test]
fn listing_8_nested_behaviours_keep_the_log_in_order() {
    testing::check(|rt| {
        let (src, dst) = (account(rt, 100), account(rt, 0));
        let log = Cown::new(rt.handle(), Vec::<&'static str>::new());
        drop(when(&log, |l| l.push("begin"))); // b1
        let l2 = log.clone();
        drop(when(&src, move |s| {
            // b2
            s.balance -= 10;
            drop(when(&l2, |l| l.push("deposit"))); // b3
        }));
        let l4 = log.clone();
        drop(when(&dst, move |d| {
            // b4
            d.frozen = true;
            drop(when(&l4, |l| l.push("freeze"))); // b5
        }));
        let l6 = log.clone();
        drop(when((&src, &dst), move |(s, d)| {
            // b6
            let _ = (s, d);
            drop(when(&l6, |l| l.push("transfer"))); // b7
        }));
        rt.wait_quiescent();
        let entries = when(&log, |l| l.clone()).wait().unwrap();
        let pos = |name: &str| entries.iter().position(|e| *e == name).unwrap();
        assert_eq!(entries.len(), 4);
        assert_eq!(pos("begin"), 0);
        assert!(pos("deposit") < pos("transfer"));
        assert!(pos("freeze") < pos("transfer"));
    });
}

/// Four philosophers around four forks (unit cowns): each `(a, b, name)` of `meals`, in spawn
/// order, is a behaviour on forks `a` and `b` that records `name`. Returns the record once all
/// have run.
fn dine(rt: &Runtime, meals: [(usize, usize, &'static str); 4]) -> Events {
    let forks: Vec<_> = (0..4).map(|_| Cown::new(rt.handle(), ())).collect();
    let ev = Events::default();
    for (a, b, name) in meals {
        let e = ev.clone();
        drop(when((&forks[a], &forks[b]), move |_| e.record(name)));
    }
    rt.wait_quiescent();
    ev
}

/// Listing 9: four philosophers scheduled in sequential order: the overlapping fork pairs force
/// one linear order, b1, b2, b3, b4.
#[test]
fn listing_9_sequential_scheduling() {
    testing::check(|rt| {
        let ev = dine(rt, [(0, 1, "b1"), (1, 2, "b2"), (2, 3, "b3"), (3, 0, "b4")]);
        assert_eq!(ev.all(), ["b1", "b2", "b3", "b4"]);
    });
}

/// Listing 10: alternating order: b1 and b3 (disjoint) both happen before b2 and b4, with no
/// other constraint.
#[test]
fn listing_10_alternating_scheduling() {
    testing::check(|rt| {
        let ev = dine(rt, [(0, 1, "b1"), (2, 3, "b3"), (1, 2, "b2"), (3, 0, "b4")]);
        for first in ["b1", "b3"] {
            for then in ["b2", "b4"] {
                assert!(ev.position(first) < ev.position(then), "{:?}", ev.all());
            }
        }
    });
}
