//! Scale: a million actors, each reached by one message and left idle, cost less than 256 bytes each
//! (a regression guard; the goal is 128), and are all freed once their addresses are dropped.
//!
//! The figure is measured with a counting global allocator: live bytes after spawning every actor
//! and reaching quiescence, minus live bytes before, divided by the number of actors (the test's own
//! vector of addresses is allocated before the first reading, so it is not counted).
//!
//! It runs in a few seconds even in a debug build, so it is not ignored there; see the figure with
//! `cargo test --release -p motet-actor --test scale -- --nocapture`.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::Mutex;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::testing::CountingAllocator;
use motet_runtime::Runtime;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn live() -> isize {
    CountingAllocator::live_bytes()
}

/// Tests of this file measure the whole process's allocations: they must run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// An actor with no state: counts the message that reaches it and stays idle.
struct Idle;

impl Actor for Idle {
    type Msg = &'static AtomicUsize;

    fn handle(&mut self, _ctx: &mut Context<'_, Self>, reached: &'static AtomicUsize) {
        reached.fetch_add(1, Relaxed);
    }
}

/// Spawns `n` actors on a pool of `workers`, sends each one message, measures and prints the bytes
/// per idle actor, then drops every address and checks that the memory comes back.
fn idle_actors(n: usize, workers: usize) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Freed cells and nodes stay in their thread's cache instead of moving between threads
    // through the shared bins (up to half a megabyte per size class): the bytes that come
    // back are then the workers' fixed caches away from all there is.
    motet_actor::set_block_sharing(false);
    let rt = Runtime::builder().workers(workers).build().unwrap();
    let reached: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));
    // Warm up: the workers' queues and node caches reach their working sizes.
    {
        let warm: Vec<Addr<_>> = (0..10_000).map(|_| spawn(rt.handle(), Idle)).collect();
        for a in &warm {
            a.tell(reached).unwrap();
        }
        rt.wait_quiescent();
    }
    rt.wait_quiescent();
    reached.store(0, SeqCst);

    let before_vec = live();
    let mut addrs: Vec<Addr<&'static AtomicUsize>> = Vec::with_capacity(n);
    let base = live();
    for _ in 0..n {
        let addr = spawn(rt.handle(), Idle);
        addr.tell(reached).unwrap();
        addrs.push(addr);
    }
    rt.wait_quiescent();
    let used = live() - base;
    assert_eq!(reached.load(SeqCst), n, "a message was not processed");
    assert!(
        addrs.iter().all(|a| !a.is_stopped()),
        "an actor with a live address stopped"
    );
    let per_actor = used as f64 / n as f64;
    println!("bytes per idle actor: {per_actor:.1} ({n} actors, {workers} workers)");

    drop(addrs);
    rt.wait_quiescent();
    let left = live() - before_vec;
    println!("bytes left after dropping every address: {left}");
    // Not freed would leave `used` bytes; allow a little for queue buffers and caches.
    let slack = 256 * 1024;
    assert!(
        left < slack,
        "{left} bytes still live after every actor became unreachable ({used} were used by the actors)"
    );
    assert!(
        per_actor < 256.0,
        "an idle actor costs {per_actor:.1} bytes (regression guard: 256; goal: 128)"
    );
}

#[test]
fn a_million_idle_actors() {
    for workers in [1, 2] {
        idle_actors(1_000_000, workers);
    }
}
