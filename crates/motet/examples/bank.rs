//! Behaviour-oriented concurrency: a bank whose accounts are cowns.
//!
//! `cargo run -p motet --features boc --example bank`
//!
//! Transfers take both accounts at once (no money is ever seen in flight, and no lock order can
//! deadlock), a log cown records them in an order consistent with the transfers, an audit reads
//! every account at once while other audits may run beside it, and a batch schedules a withdrawal
//! and a deposit as one step.

use motet::boc::{read_all, when, Batch, Cown};
use motet::Runtime;

struct Account {
    name: &'static str,
    balance: i64,
}

fn main() {
    let rt = Runtime::new().expect("runtime");
    let h = rt.handle();
    let accounts: Vec<Cown<Account>> = ["alice", "bob", "carol"]
        .into_iter()
        .map(|name| Cown::new(h, Account { name, balance: 100 }))
        .collect();
    let log = Cown::new(h, Vec::<String>::new());

    // Transfers: each acquires both accounts, and then logs what it did.
    for (i, amount) in [30, 50, 70, 20].into_iter().enumerate() {
        let (from, to) = (&accounts[i % 3], &accounts[(i + 1) % 3]);
        let log = log.clone();
        drop(when((from, to), move |(from, to)| {
            let entry = if from.balance >= amount {
                from.balance -= amount;
                to.balance += amount;
                format!("{} -> {}: {amount}", from.name, to.name)
            } else {
                format!("{} -> {}: {amount} refused", from.name, to.name)
            };
            drop(when(&log, move |log| log.push(entry)));
        }));
    }

    // A withdrawal and a deposit as one atomic step: nothing comes between them.
    let mut batch = Batch::new();
    drop(batch.add(&accounts[0], |a| a.balance -= 10));
    drop(batch.add(&accounts[2], |a| a.balance += 10));
    batch.spawn();

    // An audit reads every account at once; its promise is waited for here.
    let total = when(read_all(&accounts), |all| {
        all.iter().map(|a| a.balance).sum::<i64>()
    });
    println!(
        "total after the transfers: {}",
        total.wait().expect("audit")
    );

    rt.wait_quiescent();
    let entries = when(&log, |log| log.clone()).wait().expect("log");
    for entry in entries {
        println!("{entry}");
    }
    for a in &accounts {
        let (name, balance) = when(a.read(), |a: &Account| (a.name, a.balance))
            .wait()
            .expect("balance");
        println!("{name}: {balance}");
    }
}
