//! The locks under more threads than processors, and a holder of low real-time priority that a
//! waiter of higher priority on its processor must let finish.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use super::{SpinLock, UnlockedWord, WordLock};

/// The longest a test waits for its threads before it reports them stuck.
const GUARD: Duration = Duration::from_secs(120);

/// Runs `f` on a thread of its own and waits for it, at most [`GUARD`].
fn within<R: Send + 'static>(what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(GUARD) {
        Ok(r) => r,
        Err(_) => panic!("{what}: no progress within {GUARD:?}"),
    }
}

/// More threads than the machine has processors: at least eight, and four per processor.
fn oversubscribed() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (4 * cores).max(8)
}

/// A counter whose increment is a read, a pause and a write: two threads inside at once lose an
/// increment, which the final count shows.
fn bump(value: &mut u64) {
    let seen = *value;
    std::hint::black_box(seen);
    std::thread::yield_now();
    *value = seen + 1;
}

#[test]
fn the_spinlock_excludes_and_progresses_with_more_threads_than_cores() {
    let threads = oversubscribed();
    let per_thread = 2_000;
    let total = within("spinlock", move || {
        let lock = Arc::new(SpinLock::new(0u64));
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let lock = lock.clone();
                std::thread::spawn(move || {
                    for _ in 0..per_thread {
                        bump(&mut lock.lock());
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        let total = *lock.lock();
        total
    });
    assert_eq!(total, (threads * per_thread) as u64);
}

/// A value whose free word is the lock's generation, shifted clear of [`super::LOCKED`]; the
/// value counts the critical sections, so the two must agree.
struct Counted(u64);

impl UnlockedWord for Counted {
    fn unlocked_word(&self, generation: usize) -> usize {
        generation << 1
    }

    unsafe fn generation(word: usize) -> usize {
        word >> 1
    }
}

#[test]
fn the_word_lock_excludes_and_progresses_with_more_threads_than_cores() {
    let threads = oversubscribed();
    let per_thread = 2_000;
    let (total, word) = within("word lock", move || {
        let lock = Arc::new(WordLock::new(Counted(0)));
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let lock = lock.clone();
                std::thread::spawn(move || {
                    for _ in 0..per_thread {
                        let (mut guard, prev) = lock.lock();
                        // The free word each lock returns is the one the last unlock stored:
                        // its generation counts the unlocks before it.
                        assert_eq!(prev, (guard.0 as usize) << 1);
                        assert_eq!(guard.generation(), guard.0 as usize + 1);
                        bump(&mut guard.0);
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        let total = lock.lock().0 .0;
        (total, lock.word().load(Ordering::Relaxed))
    });
    assert_eq!(total, (threads * per_thread) as u64);
    // One generation per critical section, the one that read the total included.
    assert_eq!(word, (total as usize + 1) << 1);
}

/// Real-time scheduling of the calling thread, and its processor.
#[cfg(target_os = "linux")]
mod realtime {
    /// Puts the calling thread under `SCHED_FIFO` at `priority`; the error says why it could not.
    pub(super) fn fifo(priority: i32) -> Result<(), std::io::Error> {
        let param = libc::sched_param {
            sched_priority: priority,
        };
        // SAFETY: `param` is a valid `sched_param` for the call's duration; pid 0 is this thread.
        let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    /// The processors the calling thread may run on.
    pub(super) fn allowed_cpus() -> Vec<usize> {
        // SAFETY: an all-zero `cpu_set_t` is a valid, empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `set` is a valid `cpu_set_t` of the size passed; pid 0 is this thread.
        let r = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
        if r != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `cpu` is below `CPU_SETSIZE` and `set` is initialised.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .collect()
    }

    /// Whether this process may use `SCHED_FIFO`: tried on a thread of its own, which then ends.
    pub(super) fn fifo_probe() -> Result<(), std::io::Error> {
        fifo(1)
    }

    /// Keeps the calling thread on `cpu`.
    pub(super) fn pin(cpu: usize) -> Result<(), std::io::Error> {
        // SAFETY: an all-zero `cpu_set_t` is a valid, empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `cpu` comes from `allowed_cpus`, so it is below `CPU_SETSIZE`.
        unsafe { libc::CPU_SET(cpu, &mut set) };
        // SAFETY: `set` is a valid `cpu_set_t` of the size passed; pid 0 is this thread.
        let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}

/// Under `SCHED_FIFO` a thread yields only to threads of its own priority. The holder (of
/// priority one) takes the lock and wakes the waiter (of priority two) on the same processor,
/// which preempts it and waits for the lock: the holder runs again only if the waiter stops being runnable, and then
/// finishes its section and unlocks. A lock whose waiters only spin and yield never lets it.
///
/// Needs two processors (one for the pair, one for the test's own thread) and the right to use
/// real-time priorities (root or `CAP_SYS_NICE`); without them it says so and passes.
#[cfg(target_os = "linux")]
#[test]
fn a_higher_priority_waiter_on_the_holders_processor_lets_the_holder_finish() {
    let cpus = realtime::allowed_cpus();
    if cpus.len() < 2 {
        eprintln!("skipped: needs two processors, has {}", cpus.len());
        return;
    }
    let cpu = cpus[0];
    if let Err(e) = within("probe", realtime::fifo_probe) {
        eprintln!("skipped: SCHED_FIFO is not allowed here ({e})");
        return;
    }
    let lock = Arc::new(SpinLock::new(0u64));
    let waiting = Arc::new(AtomicBool::new(false));
    let (ready_tx, ready_rx) = mpsc::channel::<()>();
    let (go_tx, go_rx) = mpsc::channel::<()>();

    let waiter = {
        let (lock, waiting) = (lock.clone(), waiting.clone());
        std::thread::spawn(move || {
            realtime::pin(cpu).unwrap();
            realtime::fifo(2).unwrap();
            ready_tx.send(()).unwrap();
            go_rx.recv().unwrap();
            waiting.store(true, Ordering::SeqCst);
            let mut guard = lock.lock();
            *guard += 1;
            *guard
        })
    };
    ready_rx.recv().unwrap();
    let holder = {
        let (lock, waiting) = (lock.clone(), waiting.clone());
        std::thread::spawn(move || {
            realtime::pin(cpu).unwrap();
            realtime::fifo(1).unwrap();
            let mut guard = lock.lock();
            go_tx.send(()).unwrap();
            // The waiter preempts this thread when it wakes; this thread sees `waiting` only once
            // the waiter has reached the lock and stopped being runnable.
            while !waiting.load(Ordering::SeqCst) {
                std::hint::spin_loop();
            }
            *guard += 1;
        })
    };
    let seen_by_waiter = within("real-time pair", move || {
        holder.join().unwrap();
        waiter.join().unwrap()
    });
    // The holder's increment came first: the waiter held the lock after it.
    assert_eq!(seen_by_waiter, 2);
}
