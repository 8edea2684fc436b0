//! The OS-threads version: one thread per philosopher, confined to W CPUs, each fork a
//! `std::sync::Mutex`, a meal taken with try-lock and back-off.

use std::sync::{Arc, Mutex, MutexGuard, RwLock, TryLockError};
use std::thread;
use std::time::{Duration, Instant};

use super::eat::meal;
use super::{check, Config, Fork};

/// Runs the table with one thread per philosopher, all confined to `workers` of the CPUs this
/// process may use (all of them if it may use fewer); returns the time from the start signal
/// until every thread has eaten, once the forks validated.
pub fn run(cfg: &Config, workers: usize) -> Result<Duration, String> {
    cfg.validate()?;
    if workers == 0 {
        return Err("at least 1 worker is needed".into());
    }
    let cpus = cpu_set(workers)?;
    let forks: Arc<Vec<Mutex<Fork>>> =
        Arc::new((0..cfg.philosophers).map(|_| Mutex::default()).collect());
    // Held while the threads are spawned: each waits on it (reading) before its first meal.
    let gate = Arc::new(RwLock::new(()));
    let closed = gate
        .write()
        .map_err(|_| "the start gate is poisoned".to_string())?;
    let mut philosophers = Vec::with_capacity(cfg.philosophers);
    for i in 0..cfg.philosophers {
        let (forks, gate, cpus, cfg) = (forks.clone(), gate.clone(), cpus.clone(), *cfg);
        let spawned = thread::Builder::new()
            .name(format!("philosopher-{i}"))
            .spawn(move || {
                confine(&cpus)?;
                drop(gate.read());
                let (l, r) = cfg.forks_of(i);
                for _ in 0..cfg.meals {
                    let (mut left, mut right) = lock_both(&forks[l], &forks[r])?;
                    meal(&mut left, &mut right, cfg.eat, cfg.clock);
                }
                Ok::<(), String>(())
            });
        match spawned {
            Ok(handle) => philosophers.push(handle),
            Err(e) => {
                // The threads already spawned eat their meals and end; the run is failed.
                drop(closed);
                for p in philosophers {
                    let _ = p.join();
                }
                return Err(format!("spawning philosopher {i} failed: {e}"));
            }
        }
    }
    let start = Instant::now();
    drop(closed);
    let mut failure = None;
    for (i, p) in philosophers.into_iter().enumerate() {
        let outcome = p
            .join()
            .unwrap_or_else(|_| Err(format!("philosopher {i} panicked")));
        if let (Err(e), None) = (outcome, &failure) {
            failure = Some(e);
        }
    }
    let elapsed = start.elapsed();
    if let Some(e) = failure {
        return Err(e);
    }
    let seen = forks
        .iter()
        .map(|f| {
            f.lock()
                .map(|f| f.clone())
                .map_err(|_| "a fork's mutex is poisoned".to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    check(cfg, &seen)?;
    Ok(elapsed)
}

/// Both forks, without deadlock: locks one and try-locks the other; when that fails, lets the
/// first go, yields, and starts again from the one that was busy (C++'s `std::lock` algorithm).
fn lock_both<'a>(
    a: &'a Mutex<Fork>,
    b: &'a Mutex<Fork>,
) -> Result<(MutexGuard<'a, Fork>, MutexGuard<'a, Fork>), String> {
    let poisoned = |_| "a fork's mutex is poisoned".to_string();
    let (mut first, mut second) = (a, b);
    loop {
        let held = first.lock().map_err(poisoned)?;
        match second.try_lock() {
            Ok(other) => {
                return Ok(if std::ptr::eq(first, a) {
                    (held, other)
                } else {
                    (other, held)
                });
            }
            Err(TryLockError::Poisoned(_)) => return Err("a fork's mutex is poisoned".into()),
            Err(TryLockError::WouldBlock) => {
                drop(held);
                thread::yield_now();
                std::mem::swap(&mut first, &mut second);
            }
        }
    }
}

/// The first `workers` CPUs this process may run on (all of them if there are fewer).
#[cfg(target_os = "linux")]
fn cpu_set(workers: usize) -> Result<Vec<usize>, String> {
    // SAFETY: `cpu_set_t` is a plain bit array, for which all zeroes is a valid (empty) set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a live `cpu_set_t` and the size passed is its own.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Err(format!(
            "reading the CPU affinity failed: {}",
            std::io::Error::last_os_error()
        ));
    }
    let allowed: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `cpu` is below CPU_SETSIZE, the number of CPUs a `cpu_set_t` holds.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect();
    Ok(allowed.into_iter().take(workers).collect())
}

/// Confines the calling thread to `cpus`.
#[cfg(target_os = "linux")]
fn confine(cpus: &[usize]) -> Result<(), String> {
    // SAFETY: as in `cpu_set`, all zeroes is an empty `cpu_set_t`.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        // SAFETY: `cpu` came from `cpu_set`, so it is below CPU_SETSIZE.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: `set` is a live `cpu_set_t` and the size passed is its own; pid 0 is this thread.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(format!(
            "confining a philosopher to CPUs {cpus:?} failed: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// Elsewhere the threads are not confined: the worker count only names the run.
#[cfg(not(target_os = "linux"))]
fn cpu_set(workers: usize) -> Result<Vec<usize>, String> {
    Ok((0..workers).collect())
}

/// Elsewhere the threads are not confined.
#[cfg(not(target_os = "linux"))]
fn confine(_cpus: &[usize]) -> Result<(), String> {
    Ok(())
}
