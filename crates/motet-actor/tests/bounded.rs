//! Bounded mailboxes: a full mailbox refuses `tell`/`try_tell` (handing the message back), makes
//! `send_async` wait and `tell_timeout` block up to its timeout; signals are never refused; a
//! stopped actor fails waiting senders; under overload the queue stays within the bound, memory
//! stays flat and nothing accepted is lost.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use motet_actor::{Actor, Addr, Context, ExitReason, SendError, Spawn, TrySendError};
use motet_runtime::Runtime;

const GUARD: Duration = Duration::from_secs(30);

enum Msg {
    /// Blocks the handler until released, so that the mailbox fills; stops the actor if the
    /// release side is dropped instead.
    Hold(mpsc::Receiver<()>),
    Item(u64),
}

struct Sink {
    handled: mpsc::Sender<u64>,
}

impl Actor for Sink {
    type Msg = Msg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Hold(gate) => {
                if gate.recv().is_err() {
                    ctx.stop();
                }
            }
            Msg::Item(n) => {
                let _ = self.handled.send(n);
            }
        }
    }
}

/// A bounded sink of `capacity`, held busy (its mailbox empty) until `release` is used.
fn held_sink(rt: &Runtime, capacity: usize) -> (Addr<Msg>, mpsc::Sender<()>, mpsc::Receiver<u64>) {
    let (tx, rx) = mpsc::channel();
    let addr = Spawn::new(Sink { handled: tx })
        .bounded(capacity)
        .spawn(rt.handle());
    let (release, gate) = mpsc::channel();
    addr.tell(Msg::Hold(gate)).unwrap();
    // Wait until the hold is taken (the mailbox is empty again).
    let deadline = Instant::now() + GUARD;
    while addr.queued_len() != Some(0) && Instant::now() < deadline {
        std::thread::yield_now();
    }
    assert_eq!(addr.queued_len(), Some(0));
    (addr, release, rx)
}

#[test]
fn a_full_mailbox_refuses_tell_and_try_tell_and_takes_signals() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, release, rx) = held_sink(&rt, 3);
    for n in 0..3 {
        addr.tell(Msg::Item(n)).unwrap();
    }
    assert_eq!(addr.queued_len(), Some(3));
    match addr.tell(Msg::Item(3)) {
        Err(SendError(Msg::Item(3))) => {}
        _ => panic!("a full mailbox took a message"),
    }
    match addr.try_tell(Msg::Item(4)) {
        Err(TrySendError::Full(Msg::Item(4))) => {}
        _ => panic!("try_tell did not report a full mailbox"),
    }
    // Signals are never refused (they count).
    let exit = addr.watch();
    assert_eq!(addr.queued_len(), Some(4));
    release.send(()).unwrap();
    let got: Vec<_> = (0..3).map(|_| rx.recv_timeout(GUARD).unwrap()).collect();
    assert_eq!(got, [0, 1, 2]);
    // Room again.
    addr.tell(Msg::Item(5)).unwrap();
    assert_eq!(rx.recv_timeout(GUARD), Ok(5));
    addr.kill();
    assert_eq!(exit.wait_timeout(GUARD), Some(ExitReason::Killed));
    match addr.try_tell(Msg::Item(6)) {
        Err(TrySendError::Stopped(Msg::Item(6))) => {}
        _ => panic!("try_tell did not report a stopped actor"),
    }
}

#[test]
fn a_blocking_send_times_out_on_a_full_mailbox() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, release, _rx) = held_sink(&rt, 1);
    addr.tell(Msg::Item(0)).unwrap();
    match addr.tell_timeout(Msg::Item(1), Duration::from_millis(50)) {
        Err(TrySendError::Full(Msg::Item(1))) => {}
        _ => panic!("the blocking send did not time out"),
    }
    release.send(()).unwrap();
}

#[test]
fn a_blocking_send_resumes_when_room_is_made() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, release, rx) = held_sink(&rt, 1);
    addr.tell(Msg::Item(0)).unwrap();
    let sender = {
        let addr = addr.clone();
        std::thread::spawn(move || addr.tell_timeout(Msg::Item(1), GUARD).is_ok())
    };
    release.send(()).unwrap();
    assert!(sender.join().unwrap());
    let got: Vec<_> = (0..2).map(|_| rx.recv_timeout(GUARD).unwrap()).collect();
    assert_eq!(got, [0, 1]);
}

/// Drives a future to completion on this thread (the waker unparks it).
fn block_on<F: std::future::Future>(fut: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut fut = std::pin::pin!(fut);
    loop {
        if let std::task::Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park_timeout(GUARD);
    }
}

#[test]
fn an_async_send_waits_for_room_and_resumes() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, release, rx) = held_sink(&rt, 2);
    addr.tell(Msg::Item(0)).unwrap();
    addr.tell(Msg::Item(1)).unwrap();
    let pending = Arc::new(AtomicBool::new(true));
    let sender = {
        let (addr, pending) = (addr.clone(), pending.clone());
        std::thread::spawn(move || {
            let sent = block_on(addr.send_async(Msg::Item(2))).is_ok();
            pending.store(false, SeqCst);
            sent
        })
    };
    // Still full: the send cannot have completed (the handler holds until released).
    std::thread::sleep(Duration::from_millis(20));
    assert!(pending.load(SeqCst));
    release.send(()).unwrap();
    assert!(sender.join().unwrap());
    let got: Vec<_> = (0..3).map(|_| rx.recv_timeout(GUARD).unwrap()).collect();
    assert_eq!(got, [0, 1, 2]);
}

#[test]
fn waiting_senders_fail_when_the_actor_stops() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, release, _rx) = held_sink(&rt, 1);
    addr.tell(Msg::Item(0)).unwrap();
    let exit = addr.watch();
    let sender = {
        let addr = addr.clone();
        std::thread::spawn(move || {
            matches!(
                block_on(addr.send_async(Msg::Item(1))),
                Err(SendError(Msg::Item(1)))
            )
        })
    };
    // The actor stops with its mailbox still full (the hold ends in a stop), so the waiting
    // sender never gets room: it fails, with its message, whenever it started waiting.
    drop(release);
    assert_eq!(exit.wait_timeout(GUARD), Some(ExitReason::Normal));
    assert!(sender.join().unwrap());
}

fn rss_pages() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    statm.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Four producers send as fast as they can for about two seconds to a consumer that spends a few
/// microseconds per message: the queue never exceeds its bound, memory stays flat, and every
/// accepted message is handled exactly once (by count and by sum).
#[test]
fn overload_keeps_the_queue_bounded_memory_flat_and_loses_nothing() {
    const CAPACITY: usize = 1000;
    let seconds: u64 = std::env::var("MOTET_OVERLOAD_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    struct Slow {
        count: Arc<AtomicU64>,
        sum: Arc<AtomicU64>,
    }
    impl Actor for Slow {
        type Msg = u64;
        fn handle(&mut self, _: &mut Context<'_, Self>, n: u64) {
            // Some work per message, so that producers are far faster.
            let mut x = n;
            for _ in 0..2000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
            std::hint::black_box(x);
            self.count.fetch_add(1, SeqCst);
            self.sum.fetch_add(n, SeqCst);
        }
    }
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (count, sum) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let addr = Spawn::new(Slow {
        count: count.clone(),
        sum: sum.clone(),
    })
    .bounded(CAPACITY)
    .spawn(rt.handle());
    let stop = Arc::new(AtomicBool::new(false));
    let producers: Vec<_> = (0..4u64)
        .map(|p| {
            let (addr, stop) = (addr.clone(), stop.clone());
            std::thread::spawn(move || {
                let (mut accepted, mut accepted_sum, mut refused) = (0u64, 0u64, 0u64);
                let mut n = p;
                while !stop.load(SeqCst) {
                    match addr.tell(n) {
                        Ok(()) => {
                            accepted += 1;
                            accepted_sum += n;
                        }
                        Err(_) => refused += 1,
                    }
                    n += 4;
                }
                (accepted, accepted_sum, refused)
            })
        })
        .collect();
    let start = Instant::now();
    let mut max_queued = 0;
    let mut rss_after_warmup = None;
    let mut max_rss = 0;
    while start.elapsed() < Duration::from_secs(seconds) {
        max_queued = max_queued.max(addr.queued_len().unwrap());
        if start.elapsed() > Duration::from_millis(300) {
            let rss = rss_pages();
            rss_after_warmup.get_or_insert(rss);
            max_rss = max_rss.max(rss);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    stop.store(true, SeqCst);
    let (mut accepted, mut accepted_sum, mut refused) = (0, 0, 0);
    for p in producers {
        let (a, s, r) = p.join().unwrap();
        accepted += a;
        accepted_sum += s;
        refused += r;
    }
    let exit = addr.watch();
    drop(addr);
    assert_eq!(exit.wait_timeout(GUARD), Some(ExitReason::Unreachable));
    assert!(max_queued <= CAPACITY, "queued {max_queued} > {CAPACITY}");
    assert!(
        refused > accepted,
        "the producers were not faster than the consumer"
    );
    assert_eq!(count.load(SeqCst), accepted, "accepted messages were lost");
    assert_eq!(sum.load(SeqCst), accepted_sum);
    let growth_pages = max_rss - rss_after_warmup.unwrap();
    // A bounded queue of 1000 small messages is well under a MiB; an unbounded one fed this fast
    // would grow by hundreds.
    assert!(
        growth_pages * 4096 < 16 << 20,
        "RSS grew by {} KiB",
        growth_pages * 4
    );
    eprintln!(
        "overload: {seconds} s, accepted {accepted}, refused {refused}, max queued {max_queued}, \
         RSS {} KiB after warm-up, max {} KiB",
        rss_after_warmup.unwrap() * 4,
        max_rss * 4
    );
}
