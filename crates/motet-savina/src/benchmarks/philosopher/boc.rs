//! Dining Philosophers in BoC(Full), after the BoC paper's port: the forks are cowns and a meal is
//! one behaviour over both of a philosopher's forks, so there is no Arbitrator, no denial and no
//! retry. Deadlock freedom is the runtime's: a `when` acquires its cowns atomically.
//!
//! Each philosopher is a cown too. Its behaviour, while rounds are left, spawns the meal over its
//! two forks, and the meal, once eaten, spawns the philosopher's next behaviour: a philosopher asks
//! for its next meal after the last one, as Savina's asks again only after eating. After M rounds
//! it tells the Table. Per meal: one behaviour on the philosopher and one on two forks (200,000 of
//! each at the defaults). `boc-tuned` (deviation `meal-queued-early`) spawns the next behaviour
//! right after the meal is requested, so a philosopher queues all its meals at once.
//!
//! What the check reads: every fork counts the meals it served as a philosopher's left fork and as
//! its right one (the meals eaten and the meals granted), and marks itself held for the length of
//! a meal, through [`black_box`] so that the marks are real stores: a meal that finds a fork
//! marked, or leaves one marked by another, is a violation (it would mean two behaviours ran on
//! one cown at once).

use std::hint::black_box;

use motet_boc::{when, when_detached, Cown};
use motet_runtime::{Handle, Runtime};

use super::{check, Config, Forks};
use crate::bench::{Outcome, Prepared};
use crate::benchmarks::boc_driver::{read, start};
use crate::motet_support;
use crate::params::Params;

/// Builds the runtime; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare((Config::from_params(params)?, false), threads, run)
}

/// As [`prepare`], each philosopher queuing its next turn before its meal has run (deviation
/// `meal-queued-early`).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    motet_support::prepare((Config::from_params(params)?, true), threads, run)
}

/// A fork: who holds it during a meal, and what it saw.
#[derive(Default)]
struct Fork {
    holder: Option<u32>,
    /// Meals served as the left fork of the philosopher with the same index.
    as_left: u64,
    /// Meals served as the right fork of the philosopher to its left.
    as_right: u64,
    violations: u64,
}

impl Fork {
    /// Takes the fork for philosopher `id`.
    fn take(&mut self, id: u32) {
        if black_box(&mut *self).holder.is_some() {
            self.violations += 1;
        }
        self.holder = Some(id);
        black_box(&mut *self);
    }

    /// Puts the fork down after philosopher `id`'s meal.
    fn put_down(&mut self, id: u32) {
        if black_box(&mut *self).holder != Some(id) {
            self.violations += 1;
        }
        self.holder = None;
    }
}

struct Philosopher {
    id: u32,
    rounds_left: u64,
    left: Cown<Fork>,
    right: Cown<Fork>,
    table: Cown<Table>,
    /// The philosopher's own cown, from which a turn spawns the next one: the turn's closure then
    /// captures nothing (a 48-byte block, not 56) and no handle is cloned and dropped per turn
    /// (two atomic operations on the cown's count). The last turn drops it, so the cown is freed
    /// once its last behaviour is done (it holds its own handle until then: a run cut short by a
    /// runtime shut down before the last turn leaves the cown allocated).
    me: Option<Cown<Philosopher>>,
}

/// Counts the philosophers that are done.
struct Table {
    done: usize,
}

/// A meal: philosopher `id` holds both forks for the length of the behaviour.
fn meal(id: u32, left: &mut Fork, right: &mut Fork) {
    left.take(id);
    right.take(id);
    left.as_left += 1;
    right.as_right += 1;
    left.put_down(id);
    right.put_down(id);
}

/// The philosopher's behaviour: requests a meal, whose behaviour then requests the philosopher's
/// next turn; or reports to the Table.
fn hungry(p: &mut Philosopher) {
    if p.rounds_left > 0 {
        p.rounds_left -= 1;
        let id = p.id;
        let me = p.me.clone();
        let _ = when_detached((&p.left, &p.right), move |(left, right)| {
            meal(id, left, right);
            if let Some(me) = me {
                let _ = when_detached(&me, hungry);
            }
        });
    } else {
        finish(p);
    }
}

/// The tuned philosopher's behaviour: requests a meal and its own next turn at once, or reports
/// to the Table.
fn hungry_early(p: &mut Philosopher) {
    if p.rounds_left > 0 {
        p.rounds_left -= 1;
        let id = p.id;
        let _ = when_detached((&p.left, &p.right), move |(left, right)| {
            meal(id, left, right)
        });
        if let Some(me) = &p.me {
            let _ = when_detached(me, hungry_early);
        }
    } else {
        finish(p);
    }
}

/// The last turn: drops the philosopher's own handle and tells the Table.
fn finish(p: &mut Philosopher) {
    p.me = None;
    let _ = when_detached(&p.table, |t| t.done += 1);
}

/// Seats the philosophers: philosopher i eats with forks i and (i + 1) mod N.
fn seat(h: &Handle, cfg: &Config, early: bool) -> (Vec<Cown<Fork>>, Cown<Table>) {
    let turn: fn(&mut Philosopher) = if early { hungry_early } else { hungry };
    let forks: Vec<Cown<Fork>> = (0..cfg.n).map(|_| Cown::new(h, Fork::default())).collect();
    let table = Cown::new(h, Table { done: 0 });
    for i in 0..cfg.n {
        let philosopher = Cown::new(
            h,
            Philosopher {
                id: i as u32,
                rounds_left: cfg.m,
                left: forks[i].clone(),
                right: forks[(i + 1) % cfg.n].clone(),
                table: table.clone(),
                me: None,
            },
        );
        // The first turn stores the handle and takes the turn: it runs before any other
        // behaviour on the philosopher's cown.
        let _ = when_detached(&philosopher.clone(), move |p| {
            p.me = Some(philosopher);
            turn(p);
        });
    }
    (forks, table)
}

/// One timed iteration: seats the philosophers (in a driver behaviour), runs them to quiescence and checks the forks.
fn run(&(cfg, early): &(Config, bool), rt: &Runtime) -> Outcome {
    let cfg = &cfg;
    let seating = *cfg;
    let (forks, table) = match start(rt, move |h| seat(h, &seating, early)) {
        Ok(seated) => seated,
        Err(e) => return Outcome::failed(e),
    };
    rt.wait_quiescent();
    let done = match read(&table, |t| t.done) {
        Ok(done) => done,
        Err(e) => return Outcome::failed(e),
    };
    let seen = when(&forks[..], |forks| {
        let mut meals = 0;
        let mut grants = 0;
        let mut violations = 0;
        let holders = forks
            .iter()
            .map(|f| {
                meals += f.as_left;
                grants += f.as_right;
                violations += f.violations;
                f.holder
            })
            .collect();
        (meals, Forks::from_parts(holders, grants, violations))
    })
    .wait();
    let (meals, forks) = match seen {
        Ok(seen) => seen,
        Err(e) => return Outcome::failed(format!("reading the forks failed: {e}")),
    };
    let mut outcome = check(cfg, meals, 0, Some(&forks));
    if outcome.check.is_ok() && done != cfg.n {
        outcome.check = Err(format!("{done} philosophers finished, expected {}", cfg.n));
    }
    outcome
}
