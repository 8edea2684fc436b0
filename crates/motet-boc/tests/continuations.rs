//! A behaviour that spawns work for others and then its own next turn on its own cown (a
//! philosopher's turn: its meal over two forks, then its next turn) does not run its turns ahead of
//! the work it spawned: a spawned behaviour granted its cowns at once runs before the turn that
//! follows. The order is a scheduling choice, not a guarantee of the model; what is checked is its
//! effect on memory, the number of spawned behaviours waiting at any time.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use motet_boc::{when, when_detached, Cown};
use motet_runtime::Runtime;

/// How many meals were spawned and have not run yet, and the most there ever were.
#[derive(Default)]
struct Outstanding {
    now: AtomicUsize,
    most: AtomicUsize,
}

struct Philosopher {
    turns_left: u32,
    left: Cown<u64>,
    right: Cown<u64>,
    me: Option<Cown<Philosopher>>,
    outstanding: Arc<Outstanding>,
}

fn turn(p: &mut Philosopher) {
    if p.turns_left == 0 {
        p.me = None;
        return;
    }
    p.turns_left -= 1;
    let now = p.outstanding.now.fetch_add(1, Ordering::Relaxed) + 1;
    p.outstanding.most.fetch_max(now, Ordering::Relaxed);
    let outstanding = p.outstanding.clone();
    when_detached((&p.left, &p.right), move |(l, r)| {
        *l += 1;
        *r += 1;
        outstanding.now.fetch_sub(1, Ordering::Relaxed);
    })
    .unwrap();
    if let Some(me) = &p.me {
        when_detached(me, turn).unwrap();
    }
}

/// One worker, one philosopher with free forks: each meal runs before the next turn, so at most
/// one meal waits at a time (a whole inline chain of turns, 128, used to run first).
#[test]
fn a_turn_that_respawns_itself_does_not_run_ahead_of_its_meals() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let h = rt.handle();
    let (left, right) = (Cown::new(h, 0u64), Cown::new(h, 0u64));
    let outstanding = Arc::new(Outstanding::default());
    let turns = 1_000;
    let philosopher = Cown::new(
        h,
        Philosopher {
            turns_left: turns,
            left: left.clone(),
            right: right.clone(),
            me: None,
            outstanding: outstanding.clone(),
        },
    );
    let me = philosopher.clone();
    // Started from a behaviour, as a program's driver does.
    let driver = Cown::new(h, ());
    when(&driver, move |_| {
        when_detached(&philosopher, move |p| {
            p.me = Some(me);
            turn(p);
        })
        .unwrap();
    })
    .wait()
    .unwrap();
    rt.wait_quiescent();
    let meals = when((&left, &right), |(l, r)| (*l, *r)).wait().unwrap();
    assert_eq!(meals, (u64::from(turns), u64::from(turns)));
    assert_eq!(outstanding.now.load(Ordering::Relaxed), 0);
    let most = outstanding.most.load(Ordering::Relaxed);
    assert!(most <= 2, "{most} meals waited at once");
}

/// On several workers the same program eats every meal, whatever the order.
#[test]
fn respawning_turns_eat_every_meal_on_several_workers() {
    let rt = Runtime::builder().workers(3).build().unwrap();
    let h = rt.handle();
    let forks: Vec<Cown<u64>> = (0..5).map(|_| Cown::new(h, 0u64)).collect();
    let outstanding = Arc::new(Outstanding::default());
    for i in 0..5 {
        let philosopher = Cown::new(
            h,
            Philosopher {
                turns_left: 200,
                left: forks[i].clone(),
                right: forks[(i + 1) % 5].clone(),
                me: None,
                outstanding: outstanding.clone(),
            },
        );
        let me = philosopher.clone();
        when_detached(&philosopher, move |p| {
            p.me = Some(me);
            turn(p);
        })
        .unwrap();
    }
    rt.wait_quiescent();
    let total = when(&forks[..], |forks| forks.iter().copied().sum::<u64>())
        .wait()
        .unwrap();
    // Each meal counts once on each of its two forks.
    assert_eq!(total, 2 * 5 * 200);
    assert_eq!(outstanding.now.load(Ordering::Relaxed), 0);
}
