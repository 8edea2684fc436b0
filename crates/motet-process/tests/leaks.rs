//! No process, channel or message leaks. Messages and process guards are `Tracked` values that count
//! themselves (+1 when made, -1 when dropped); after each scenario the count is back to zero. A
//! counting allocator checks the same for whole processes and channels: cycles of spawning and
//! finishing leave no bytes behind.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use motet_process::session::{session, End, Recv, Send};
use motet_process::{actor, channel, ProcessSystem, Select};
use motet_runtime::testing::{self, Census, CountingAllocator, Tracked};
use motet_runtime::Runtime;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// The allocation tests measure the whole process: every test of this file runs alone.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn queued_messages_are_dropped_with_their_channel() {
    let _s = serial();
    let census = Census::default();
    let (tx, rx) = channel::unbounded::<Tracked>();
    for _ in 0..100 {
        tx.send(census.track()).unwrap();
    }
    let (btx, brx) = channel::bounded::<Tracked>(10);
    for _ in 0..10 {
        btx.try_send(census.track()).unwrap();
    }
    assert_eq!(census.live(), 110);
    drop(rx);
    assert_eq!(
        census.live(),
        10,
        "the last receiver drops the queued messages"
    );
    // A send to a closed channel hands the message back; dropping the error drops it.
    drop(tx.send(census.track()));
    drop(tx);
    drop((btx, brx));
    assert_eq!(census.live(), 0);
}

/// A process that parked on its channel through the channel's lock word keeps the channel's memory
/// (a pin) until it is freed; when its receiver, the channel's last handle beside that pin, goes
/// while the process lives on, the queued messages go with the receiver, not with the process.
#[test]
fn a_pinned_channels_last_receiver_drops_the_queued_messages() {
    let _s = serial();
    let census = Census::default();
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let (tx, rx) = channel::unbounded::<Tracked>();
    let (go_tx, go_rx) = channel::unbounded::<()>();
    let (done_tx, done_rx) = channel::unbounded::<()>();
    system.spawn(async move {
        // Parks in the channel's word (it finds the channel idle and empty) and pins it.
        drop(rx.recv().await.unwrap());
        // Parks on another channel, through its wait queue, until the sender is gone.
        go_rx.recv().await.unwrap();
        drop(rx);
        done_tx.send(()).unwrap();
        // Lives on, still holding the pin, until its channel's sender goes.
        let _ = go_rx.recv().await;
    });
    // Lets the process park first (if it has not, the test takes the path without a pin).
    std::thread::sleep(Duration::from_millis(20));
    for _ in 0..11 {
        tx.send(census.track()).unwrap();
    }
    drop(tx);
    go_tx.send(()).unwrap();
    done_rx.recv_blocking().unwrap();
    assert_eq!(
        census.live(),
        0,
        "the last receiver dropped the ten queued messages"
    );
    drop(go_tx);
    system.wait().unwrap();
    rt.wait_quiescent();
}

#[test]
fn cancelled_processes_and_their_messages_are_freed() {
    let _s = serial();
    testing::check(|rt| {
        let census = Census::default();
        let system = ProcessSystem::new(rt.handle());
        let (tx, rx) = channel::unbounded::<Tracked>();
        // Processes parked on receives, on bounded sends, on selects and on timeouts, each holding a
        // tracked guard; then a shutdown.
        for i in 0..20 {
            let guard = census.track();
            let rx = rx.clone();
            let held = census.track();
            let (btx, _brx_kept) = channel::bounded::<Tracked>(0);
            let (_other_tx, other_rx) = channel::unbounded::<Tracked>();
            system.spawn(async move {
                let _guard = guard;
                match i % 4 {
                    0 => drop(rx.recv().await),
                    1 => drop(btx.send(held).await),
                    2 => {
                        drop(
                            Select::new()
                                .recv(&rx, |r| r.ok())
                                .recv(&other_rx, |r| r.ok())
                                .await,
                        );
                    }
                    _ => drop(rx.recv_timeout(Duration::from_secs(3600)).await),
                }
                let _keep = (_brx_kept, _other_tx);
            });
        }
        // (No wait for quiescence here: the receives with a timeout keep an hour-long timer pending.
        // Shutdown cancels running and parked processes alike.)
        tx.send(census.track()).unwrap();
        system.shutdown();
        assert_eq!(system.live(), 0);
        drop((tx, rx));
        rt.wait_quiescent();
        assert_eq!(census.live(), 0, "a process, guard or message leaked");
    });
}

#[test]
fn timed_out_and_losing_receives_leak_nothing() {
    let _s = serial();
    testing::check(|rt| {
        let census = Census::default();
        let system = ProcessSystem::new(rt.handle());
        let (a_tx, a) = channel::unbounded::<Tracked>();
        let (b_tx, b) = channel::unbounded::<Tracked>();
        let (done_tx, done_rx) = channel::unbounded::<usize>();
        system.spawn(async move {
            let mut got = 0;
            for _ in 0..50 {
                let r = Select::new()
                    .recv(&a, |r| r.ok())
                    .recv(&b, |r| r.ok())
                    .timeout(Duration::from_micros(100), || None)
                    .await;
                if r.is_some() {
                    got += 1;
                }
            }
            while a.try_recv().is_ok() || b.try_recv().is_ok() {
                got += 1;
            }
            done_tx.send(got).unwrap();
        });
        for _ in 0..10 {
            a_tx.send(census.track()).unwrap();
            b_tx.send(census.track()).unwrap();
        }
        let got = system.block_on(done_rx.recv()).unwrap().unwrap();
        assert_eq!(got, 20, "every message was received once");
        system.wait().unwrap();
        drop((a_tx, b_tx));
        rt.wait_quiescent();
        assert_eq!(census.live(), 0);
    });
}

#[test]
fn sessions_and_actors_leak_nothing() {
    let _s = serial();
    testing::check(|rt| {
        let census = Census::default();
        let system = ProcessSystem::new(rt.handle());
        // A session dropped half-way, with a message in flight.
        let (a, b) = session::<Send<Tracked, Recv<Tracked, End>>>();
        let waiting = a.send(census.track()).unwrap();
        drop(b);
        drop(waiting);
        // An actor that ends with messages still queued.
        let guard = census.track();
        let stop = actor::spawn_handler(&system, guard, |_, _msg: Tracked, _| actor::Flow::Stop);
        for _ in 0..5 {
            let _ = stop.send(census.track());
        }
        system.wait().unwrap();
        drop(stop);
        rt.wait_quiescent();
        assert_eq!(census.live(), 0);
    });
}

#[test]
fn spawning_and_finishing_leaves_no_bytes_behind() {
    let _s = serial();
    // Each thread then keeps a bounded number of freed blocks, reached during the warm-up; with
    // full bins shared, the blocks a worker frees and the spawning thread takes back settle only after
    // several rounds.
    motet_process::set_block_sharing(false);
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let round = |n: usize| {
        let (tx, rx) = channel::unbounded::<u64>();
        for _ in 0..n {
            let (my_tx, my_rx) = channel::bounded::<u64>(1);
            let tx = tx.clone();
            system.spawn(async move {
                let v = my_rx.recv().await.unwrap();
                tx.send(v).unwrap();
            });
            my_tx.try_send(1).unwrap();
        }
        drop(tx);
        let total: u64 = rx.into_iter().sum();
        assert_eq!(total, n as u64);
        system.wait().unwrap();
        rt.wait_quiescent();
    };
    round(10_000); // warm-up: queues, registry slabs, timer tables reach their sizes
    let before = CountingAllocator::live_bytes();
    for _ in 0..3 {
        round(10_000);
    }
    let after = CountingAllocator::live_bytes();
    motet_process::set_block_sharing(true);
    // The margin allows a worker's queue buffer (a crossbeam deque, which grows by doubling) to
    // reach a new high-water mark after the warm-up, as it can when a loaded machine delays one
    // worker: 4,096 to 16,384 task pointers is 96 KiB. Leaking even 10 bytes per process would
    // leave 300 KiB.
    assert!(
        after - before < 256 * 1024,
        "{} bytes left behind by 30,000 processes and channels",
        after - before
    );
}

#[test]
fn a_system_whose_references_workers_banked_is_freed_with_its_runtime() {
    let _s = serial();
    let scenario = || {
        let rt = Runtime::builder().workers(2).build().unwrap();
        let system = ProcessSystem::new(rt.handle());
        // Spawned from a process: the workers take the system's references into their banks,
        // and the worker that frees a process keeps its reference there.
        let forks = system.clone();
        system.spawn(async move {
            for _ in 0..1_000 {
                let (tx, rx) = channel::unbounded::<u32>();
                forks.spawn(async move {
                    let _ = rx.recv().await;
                });
                tx.send(1).unwrap();
            }
        });
        system.wait().unwrap();
        drop(system);
        drop(rt);
    };
    // Warm-up: whatever a first runtime leaves for good (thread-local and global state of the
    // libraries) is left before the measurement.
    scenario();
    let before = CountingAllocator::live_bytes();
    for _ in 0..ROUNDS {
        scenario();
    }
    let after = CountingAllocator::live_bytes();
    // A system (its registry's shards and counts) is about 9 KiB: one kept alive by a bank after
    // its runtime's workers exited would leave ROUNDS times that. The margin allows blocks whose
    // freeing the workers' queues defer (crossbeam's epochs), which later threads collect.
    const ROUNDS: isize = 20;
    assert!(
        after - before < ROUNDS * 9 * 1024 / 2,
        "{} bytes left behind by {ROUNDS} dropped systems and runtimes",
        after - before
    );
}
