//! Scale: processes each parked on a receive from its own channel cost at most 256 bytes each
//! (process, future with its wait-queue entry, and channel), are all woken and finished, and their
//! memory comes back.
//!
//! The figure is measured with a counting global allocator: live bytes (requested sizes) after
//! spawning every process and reaching quiescence, minus live bytes before, divided by the number of
//! processes. The test's own vector of senders is allocated before the first reading. The million-
//! process run is `#[ignore]`d so that `cargo test --workspace` stays quick; CI runs it in release:
//! `cargo test --release -p motet-process --test scale -- --include-ignored --nocapture`.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::Mutex;

use motet_process::{channel, ProcessSystem};
use motet_runtime::testing::CountingAllocator;
use motet_runtime::Runtime;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn live() -> isize {
    CountingAllocator::live_bytes()
}

/// Tests of this file measure the whole process's allocations: they run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// Spawns `n` processes on a pool of `workers`, each parked on a receive from its own channel;
/// measures and prints the bytes per parked process; then wakes them all with one value each, waits
/// for them to finish and checks that the memory comes back.
fn parked_processes(n: usize, workers: usize) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Freed blocks stay with the thread that freed them (at most a bin per size class), so the
    // bytes counted are the processes' own, not blocks another thread's cache handed over.
    motet_process::set_block_sharing(false);
    let rt = Runtime::builder().workers(workers).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let sum: &'static AtomicU64 = Box::leak(Box::new(AtomicU64::new(0)));
    let spawn_parked = |senders: &mut Vec<channel::Sender<u64>>, count: usize| {
        for _ in 0..count {
            let (tx, rx) = channel::unbounded::<u64>();
            system.spawn(async move {
                if let Ok(v) = rx.recv().await {
                    sum.fetch_add(v, Relaxed);
                }
            });
            senders.push(tx);
        }
    };
    // Warm up: the workers' queues and the registry's slabs reach their working sizes.
    {
        let mut warm = Vec::with_capacity(10_000);
        spawn_parked(&mut warm, 10_000);
        rt.wait_quiescent();
        for tx in &warm {
            tx.send(1).unwrap();
        }
        system.wait().unwrap();
    }
    sum.store(0, SeqCst);

    let before_vec = live();
    let mut senders = Vec::with_capacity(n);
    let base = live();
    spawn_parked(&mut senders, n);
    rt.wait_quiescent();
    let used = live() - base;
    assert_eq!(
        system.live(),
        n,
        "every process is alive, parked on its receive"
    );
    let per_process = used as f64 / n as f64;
    println!(
        "bytes per parked process: {per_process:.1} ({n} processes, each with its channel, {workers} workers)"
    );

    for tx in &senders {
        tx.send(1).unwrap();
    }
    system.wait().unwrap();
    assert_eq!(
        sum.load(SeqCst),
        n as u64,
        "every process received its value"
    );
    drop(senders);
    rt.wait_quiescent();
    let left = live() - before_vec;
    println!("bytes left after every process finished: {left}");
    // Not freed would leave `used` bytes; the registry keeps its slab (8 bytes per entry) for reuse.
    let slack = (n * 16) as isize + 256 * 1024;
    assert!(
        left < slack,
        "{left} bytes still live after every process finished ({used} were used)"
    );
    assert!(
        per_process <= 256.0,
        "a parked process costs {per_process:.1} bytes (goal: at most 256)"
    );
}

#[test]
fn many_parked_processes() {
    parked_processes(20_000, 2);
}

#[test]
#[ignore = "a million processes: run in release (CI does)"]
fn a_million_parked_processes() {
    for workers in [1, 2] {
        parked_processes(1_000_000, workers);
    }
}
