//! Stress: on a pool of 2 workers, many senders (processes and threads) race into channels whose
//! receivers use timeouts, while the channel is closed mid-way. What the docs promise must hold in
//! every round: every value is either received exactly once or handed back to its sender in the
//! error; a receive times out only with an error value; after the close, sends fail and receivers
//! drain what was queued and then see the channel closed. And a shutdown racing the wake-ups of a
//! busy ring of processes ends every process once.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use motet_process::channel::{self, RecvTimeoutError, SendError, TrySendError};
use motet_process::{ProcessSystem, Select};
use motet_runtime::Runtime;

const SENDERS: usize = 8;
const PER_SENDER: usize = 2_000;
const RECEIVERS: usize = 4;
const ROUNDS: usize = 5;
/// Longer than any healthy wait: a receive that times out with this means a lost wake-up.
const GUARD: Duration = Duration::from_secs(60);

/// Checks that the received and returned values partition the sent ones.
fn check_partition(received: Vec<usize>, returned: Vec<usize>, sent: usize) {
    let total = received.len() + returned.len();
    let mut seen = HashSet::with_capacity(total);
    for v in received.iter().chain(returned.iter()) {
        assert!(seen.insert(*v), "value {v} delivered twice");
    }
    assert_eq!(
        total, sent,
        "values lost: {} of {sent} accounted for",
        total
    );
}

/// A pool of 2 workers and a process system on it.
fn two_workers() -> (Runtime, ProcessSystem) {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    (rt, system)
}

/// A channel on which each receiver sends what it received, or each sender what it got back.
fn tally() -> (channel::Sender<Vec<usize>>, channel::Receiver<Vec<usize>>) {
    channel::unbounded()
}

/// Everything sent on a [`tally`] channel, once its senders are gone.
fn gather(tally: channel::Receiver<Vec<usize>>) -> Vec<usize> {
    tally.into_iter().flatten().collect()
}

#[test]
fn racing_senders_timeouts_and_close_on_two_workers() {
    let (_rt, system) = two_workers();
    for round in 0..ROUNDS {
        let (tx, rx) = channel::unbounded::<usize>();
        let ((got_tx, got_rx), (back_tx, back_rx)) = (tally(), tally());
        let timeouts = Arc::new(AtomicUsize::new(0));
        for _ in 0..RECEIVERS {
            let (rx, got, timeouts) = (rx.clone(), got_tx.clone(), timeouts.clone());
            system.spawn(async move {
                let mut mine = Vec::new();
                loop {
                    match rx.recv_timeout(Duration::from_micros(200)).await {
                        Ok(v) => mine.push(v),
                        Err(RecvTimeoutError::Timeout) => {
                            timeouts.fetch_add(1, SeqCst);
                        }
                        Err(RecvTimeoutError::Closed) => break,
                    }
                }
                got.send(mine).unwrap();
            });
        }
        // Half the senders are processes, half are threads outside the runtime.
        let mut threads = Vec::new();
        for s in 0..SENDERS {
            let (tx, back) = (tx.clone(), back_tx.clone());
            let send_all = move || {
                let mut returned = Vec::new();
                for i in 0..PER_SENDER {
                    if let Err(SendError(v)) = tx.send(s * PER_SENDER + i) {
                        returned.push(v);
                    }
                }
                back.send(returned).unwrap();
            };
            if s % 2 == 0 {
                system.spawn(async move { send_all() });
            } else {
                threads.push(std::thread::spawn(send_all));
            }
        }
        drop((got_tx, back_tx));
        // Close while the senders are still going (after a varying amount of traffic).
        while rx.len() < round * 500 && !rx.is_empty() {
            std::thread::yield_now();
        }
        rx.close();
        drop((tx, rx));
        for t in threads {
            t.join().unwrap();
        }
        let (received, returned) = (gather(got_rx), gather(back_rx));
        check_partition(received, returned, SENDERS * PER_SENDER);
        system.wait_timeout(GUARD).unwrap();
    }
}

#[test]
fn bounded_channels_under_contention_lose_nothing() {
    let (_rt, system) = two_workers();
    for cap in [0, 1, 16] {
        let (tx, rx) = channel::bounded::<usize>(cap);
        let ((got_tx, got_rx), (back_tx, back_rx)) = (tally(), tally());
        for _ in 0..RECEIVERS {
            let (rx, got) = (rx.clone(), got_tx.clone());
            system.spawn(async move {
                let mut mine = Vec::new();
                // Receives that give up and retry race the senders' hand-offs.
                loop {
                    match rx.recv_timeout(Duration::from_micros(100)).await {
                        Ok(v) => mine.push(v),
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Closed) => break,
                    }
                }
                got.send(mine).unwrap();
            });
        }
        for s in 0..SENDERS {
            let (tx, back) = (tx.clone(), back_tx.clone());
            system.spawn(async move {
                let mut returned = Vec::new();
                for i in 0..PER_SENDER / 4 {
                    let v = s * PER_SENDER + i;
                    if i % 5 == 0 {
                        match tx.try_send(v) {
                            Ok(()) => continue,
                            Err(TrySendError::Full(v)) => {
                                if let Err(SendError(v)) = tx.send(v).await {
                                    returned.push(v);
                                }
                            }
                            Err(TrySendError::Closed(v)) => returned.push(v),
                        }
                    } else if let Err(SendError(v)) = tx.send(v).await {
                        returned.push(v);
                    }
                }
                back.send(returned).unwrap();
            });
        }
        drop((tx, rx, got_tx, back_tx));
        let (received, returned) = (gather(got_rx), gather(back_rx));
        assert!(returned.is_empty(), "nobody closed the channel");
        check_partition(received, returned, SENDERS * (PER_SENDER / 4));
        system.wait_timeout(GUARD).unwrap();
    }
}

#[test]
fn selects_racing_senders_take_each_value_once() {
    let (_rt, system) = two_workers();
    let (a_tx, a) = channel::unbounded::<usize>();
    let (b_tx, b) = channel::unbounded::<usize>();
    let (got_tx, got_rx) = tally();
    for _ in 0..RECEIVERS {
        let (a, b, got) = (a.clone(), b.clone(), got_tx.clone());
        system.spawn(async move {
            let mut mine = Vec::new();
            let mut open = 2;
            while open > 0 {
                let r = Select::new()
                    .recv(&a, |r| r.ok())
                    .recv(&b, |r| r.ok())
                    .timeout(Duration::from_micros(300), || Some(usize::MAX))
                    .await;
                match r {
                    Some(usize::MAX) => {}
                    Some(v) => mine.push(v),
                    None => open = (!a.is_closed()) as usize + (!b.is_closed()) as usize,
                }
            }
            while let Ok(v) = a.try_recv().or_else(|_| b.try_recv()) {
                mine.push(v);
            }
            got.send(mine).unwrap();
        });
    }
    drop((a, b, got_tx));
    let mut threads = Vec::new();
    for s in 0..SENDERS {
        let tx = if s % 2 == 0 {
            a_tx.clone()
        } else {
            b_tx.clone()
        };
        threads.push(std::thread::spawn(move || {
            for i in 0..PER_SENDER {
                tx.send(s * PER_SENDER + i).unwrap();
            }
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
    drop((a_tx, b_tx));
    let received = gather(got_rx);
    check_partition(received, Vec::new(), SENDERS * PER_SENDER);
    system.wait_timeout(GUARD).unwrap();
}

/// Shutdown races wake-ups: on 2 workers, processes forward values around a ring of channels
/// while threads keep sending into it, and the system shuts down mid-way. Every process's state
/// word then gets wake-ups and the cancellation from several threads at once; shutdown must
/// return with every process gone (none scheduled twice, none left parked), and the senders must
/// see their sends fail once the ring's processes (its channels' receivers) are gone.
#[test]
fn shutdown_races_wakes_on_two_workers() {
    const RING: usize = 64;
    const THREADS: usize = 2;
    for _ in 0..ROUNDS {
        let (_rt, system) = two_workers();
        let forwarded = Arc::new(AtomicUsize::new(0));
        let (txs, rxs): (Vec<_>, Vec<_>) = (0..RING).map(|_| channel::unbounded::<usize>()).unzip();
        for (i, rx) in rxs.into_iter().enumerate() {
            let next = txs[(i + 1) % RING].clone();
            let forwarded = forwarded.clone();
            system.spawn(async move {
                while let Ok(v) = rx.recv().await {
                    forwarded.fetch_add(1, SeqCst);
                    if next.send(v + 1).is_err() {
                        return;
                    }
                }
            });
        }
        let senders: Vec<_> = (0..THREADS)
            .map(|t| {
                let tx = txs[t].clone();
                std::thread::spawn(move || {
                    let mut sent = 0;
                    while tx.send(sent).is_ok() {
                        sent += 1;
                    }
                    sent
                })
            })
            .collect();
        drop(txs);
        // Shut down once the ring is busy.
        while forwarded.load(SeqCst) < RING * 4 {
            std::thread::yield_now();
        }
        system.shutdown();
        assert_eq!(system.live(), 0, "processes left after shutdown");
        // The cancelled processes dropped their receivers: the threads' sends fail and they stop.
        for s in senders {
            s.join().unwrap();
        }
        assert!(system.wait_timeout(GUARD).is_ok());
    }
}

#[test]
fn batched_receives_racing_senders_and_close_lose_nothing() {
    let (_rt, system) = two_workers();
    for round in 0..ROUNDS {
        let (tx, rx) = channel::unbounded::<usize>();
        let ((got_tx, got_rx), (back_tx, back_rx)) = (tally(), tally());
        for r in 0..RECEIVERS {
            let (rx, got) = (rx.clone(), got_tx.clone());
            system.spawn(async move {
                let mut mine = Vec::new();
                let mut batch = std::collections::VecDeque::new();
                loop {
                    // Half the receivers mix single receives in, so batches and single values
                    // race for the same queue.
                    if r % 2 == 1 && mine.len() % 3 == 0 {
                        match rx.recv().await {
                            Ok(v) => mine.push(v),
                            Err(_) => break,
                        }
                    } else {
                        match rx.recv_many(&mut batch).await {
                            Ok(n) => {
                                assert_eq!(n, batch.len());
                                mine.extend(batch.drain(..));
                            }
                            Err(_) => break,
                        }
                    }
                }
                got.send(mine).unwrap();
            });
        }
        let closer = tx.clone();
        for s in 0..SENDERS {
            let (tx, back) = (tx.clone(), back_tx.clone());
            system.spawn(async move {
                let mut returned = Vec::new();
                for i in 0..PER_SENDER {
                    if let Err(SendError(v)) = tx.send(s * PER_SENDER + i) {
                        returned.push(v);
                    }
                    if i % 64 == 0 {
                        motet_process::yield_now().await;
                    }
                }
                back.send(returned).unwrap();
            });
        }
        if round % 2 == 1 {
            std::thread::sleep(Duration::from_micros(200));
            closer.close();
        }
        drop((tx, rx, closer, got_tx, back_tx));
        let (received, returned) = (gather(got_rx), gather(back_rx));
        if round % 2 == 0 {
            assert!(returned.is_empty(), "nobody closed the channel");
        }
        check_partition(received, returned, SENDERS * PER_SENDER);
        system.wait_timeout(GUARD).unwrap();
    }
}
