//! Loom models of the channel's wait-queue hand-off with real processes:
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p motet-process --lib --release loom`.
//!
//! The processes run on a stand-in worker (`ProcessSystem::run_ready`, the model's own thread)
//! instead of motet-runtime's pool; everything else (the channel's lock word, its wait queues, the
//! entries' states, the process's state word and its waker-less wake-up) is the real code. A
//! receiving process parks in its channel's lock word when it finds the channel idle and empty
//! (see `channel::fast_park`), so the models of a receiver race that park; the models after
//! `Race` add a wake through another channel and a select on the pinned channel.

use loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use loom::sync::Arc;

use crate::channel::{self, SendError};
use crate::{ProcessSystem, Select};

/// Runs a model; the channel's spinlock and the process machinery take more branch points per
/// execution than loom's default allows.
fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if std::env::var("LOOM_MAX_BRANCHES").is_err() {
        builder.max_branches = 20_000;
    }
    builder.check(f);
}

/// Received values are stored as `v + 1`; 0 means "nothing", `CLOSED` means "the receive failed".
const CLOSED: usize = usize::MAX;

/// A model's process system (on the model's own thread) and an unbounded channel.
fn system_and_channel<T: Send>() -> (ProcessSystem, channel::Sender<T>, channel::Receiver<T>) {
    let (tx, rx) = channel::unbounded::<T>();
    (ProcessSystem::for_model(4), tx, rx)
}

/// Spawns a process that runs `body` and stores what it returns in the cell returned (0 until
/// then).
fn spawn_storing(
    system: &ProcessSystem,
    body: impl std::future::Future<Output = usize> + Send + 'static,
) -> Arc<AtomicUsize> {
    let out = Arc::new(AtomicUsize::new(0));
    let seen = out.clone();
    system.spawn(async move { seen.store(body.await, SeqCst) });
    out
}

/// A process that receives one value and stores it as `v + 1`, or `CLOSED`.
fn spawn_receiver(system: &ProcessSystem, rx: channel::Receiver<usize>) -> Arc<AtomicUsize> {
    spawn_storing(
        system,
        async move { rx.recv().await.map_or(CLOSED, |v| v + 1) },
    )
}

/// Runs the ready processes, then `join` (the model's other threads ending), then the processes
/// made ready meanwhile; returns what `join` returned.
fn run_around<T>(system: &ProcessSystem, join: impl FnOnce() -> T) -> T {
    system.run_ready();
    let joined = join();
    system.run_ready();
    joined
}

/// A send races the receiving process's first run (which parks it): the value is handed over
/// exactly once, the process is scheduled exactly once per wake-up and finishes.
#[test]
fn loom_send_races_parking_receiver() {
    model(|| {
        let (system, tx, rx) = system_and_channel();
        let out = spawn_receiver(&system, rx);
        let sender = loom::thread::spawn(move || tx.send(7).unwrap());
        run_around(&system, || sender.join().unwrap());
        assert_eq!(out.load(SeqCst), 8);
        assert_eq!(system.live(), 0);
    });
}

/// Two sends race a process's batched receive (`recv_many`), which parks in the channel's word
/// or takes what is queued: both values arrive, once each and in order, in one or two batches.
#[test]
fn loom_sends_race_batched_receive() {
    model(|| {
        let (system, tx, rx) = system_and_channel::<usize>();
        let out = spawn_storing(&system, async move {
            let mut batch = std::collections::VecDeque::new();
            while batch.len() < 2 {
                if rx.recv_many(&mut batch).await.is_err() {
                    break;
                }
            }
            let got: Vec<usize> = batch.into_iter().collect();
            assert_eq!(got, [1, 2], "values lost, repeated or out of order");
            1
        });
        let sender = loom::thread::spawn(move || {
            tx.send(1).unwrap();
            tx.send(2).unwrap();
        });
        run_around(&system, || sender.join().unwrap());
        assert_eq!(out.load(SeqCst), 1);
        assert_eq!(system.live(), 0);
    });
}

/// A close races a send and the receiving process: either the value is received and the send
/// succeeded, or the receive failed and the send got its value back. Nothing is lost.
#[test]
fn loom_close_races_send_and_receiver() {
    model(|| {
        let (system, tx, rx) = system_and_channel();
        let closer_rx = rx.clone();
        let out = spawn_receiver(&system, rx);
        let sender = loom::thread::spawn(move || tx.send(7));
        let closer = loom::thread::spawn(move || {
            closer_rx.close();
            // Values queued before the close are still receivable; count what is left.
            closer_rx.try_recv().ok()
        });
        let (sent, left) = run_around(&system, || (sender.join().unwrap(), closer.join().unwrap()));
        let got = out.load(SeqCst);
        match sent {
            Ok(()) => assert!(
                got == 8 || left == Some(7),
                "a sent value was lost (got {got}, left {left:?})"
            ),
            Err(SendError(v)) => {
                assert_eq!(v, 7);
                assert_eq!(got, CLOSED);
            }
        }
        assert_eq!(system.live(), 0);
    });
}

/// Two senders race into the two channels of a parked select: exactly one value is taken, the other
/// stays in its channel.
#[test]
fn loom_select_takes_exactly_one() {
    model(|| {
        let (system, a_tx, a_rx) = system_and_channel::<usize>();
        let (b_tx, b_rx) = channel::unbounded::<usize>();
        let (a2, b2) = (a_rx.clone(), b_rx.clone());
        let out = spawn_storing(&system, async move {
            Select::new()
                .recv(&a2, |r| r.map_or(CLOSED, |v| v + 1))
                .recv(&b2, |r| r.map_or(CLOSED, |v| v + 1))
                .await
        });
        let sa = loom::thread::spawn(move || a_tx.send(1).unwrap());
        let sb = loom::thread::spawn(move || b_tx.send(2).unwrap());
        run_around(&system, || {
            sa.join().unwrap();
            sb.join().unwrap();
        });
        let got = out.load(SeqCst);
        let left_a = a_rx.try_recv().ok();
        let left_b = b_rx.try_recv().ok();
        match got {
            2 => assert_eq!((left_a, left_b), (None, Some(2))),
            3 => assert_eq!((left_a, left_b), (Some(1), None)),
            other => panic!("the select took {other}"),
        }
        assert_eq!(system.live(), 0);
    });
}

/// The last sender's drop races a receiver minting a new sender (an actor reaching itself) and the
/// receiving process: the receive fails only if no sender was left when it had to wait.
#[test]
fn loom_last_sender_drop_races_a_mint() {
    model(|| {
        let (system, tx, rx) = system_and_channel();
        let minter_rx = rx.clone();
        let out = spawn_receiver(&system, rx);
        let dropper = loom::thread::spawn(move || drop(tx));
        let minter = loom::thread::spawn(move || {
            let tx = minter_rx.sender();
            tx.send(5).unwrap();
        });
        run_around(&system, || {
            dropper.join().unwrap();
            minter.join().unwrap();
        });
        let got = out.load(SeqCst);
        assert!(got == 6 || got == CLOSED, "got {got}");
        assert_eq!(system.live(), 0);
    });
}

/// Shutdown (its cancelling half; the wait would block the model) races a send to a parked
/// process: the process's state word gets the sender's wake-up and the cancellation from two
/// threads, and exactly one of them schedules it (a wake that finds
/// it idle marks it running). It runs once more and ends, received or cancelled, and nothing is
/// scheduled twice.
#[test]
fn loom_shutdown_races_a_wake() {
    model(|| {
        let (system, tx, rx) = system_and_channel();
        let out = spawn_receiver(&system, rx);
        // The receiver parks (and joins the registry, where shutdown finds it).
        system.run_ready();
        assert_eq!(out.load(SeqCst), 0);
        let sender = loom::thread::spawn(move || tx.send(7).is_ok());
        let stopper = {
            let system = system.clone();
            loom::thread::spawn(move || system.cancel_all_for_model())
        };
        let sent = sender.join().unwrap();
        stopper.join().unwrap();
        system.run_ready();
        let got = out.load(SeqCst);
        assert!(got == 8 || got == 0, "got {got}");
        assert!(got == 0 || sent, "received a value that was not sent");
        assert_eq!(system.live(), 0);
    });
}

/// The first of two futures to complete (a stand-in for a `select!` of two plain receives: the
/// first receive asks to park in its channel's word, the second goes to its channel's wait queue).
struct Race<A, B>(A, B);

impl<A: std::future::Future, B: std::future::Future<Output = A::Output>> std::future::Future
    for Race<A, B>
{
    type Output = A::Output;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<A::Output> {
        // SAFETY: the fields are never moved out of the pinned future.
        let this = unsafe { self.get_unchecked_mut() };
        // SAFETY: as above.
        if let std::task::Poll::Ready(v) =
            unsafe { std::pin::Pin::new_unchecked(&mut this.0) }.poll(cx)
        {
            return std::task::Poll::Ready(v);
        }
        // SAFETY: as above.
        unsafe { std::pin::Pin::new_unchecked(&mut this.1) }.poll(cx)
    }
}

/// A process that races a receive on a channel `a` (which parks in `a`'s word) against one on a
/// channel `b` (which waits in `b`'s queue), storing what it got as `v + 1` or `CLOSED`. Returns
/// the system, `b`'s sender, with `peek` a clone of `a`'s receiver made before the process is
/// spawned, and the process's cell.
#[allow(clippy::type_complexity)]
fn race_fast_park(
    peek: bool,
) -> (
    ProcessSystem,
    channel::Sender<usize>,
    Option<channel::Receiver<usize>>,
    Arc<AtomicUsize>,
) {
    let (system, a_tx, a_rx) = system_and_channel::<usize>();
    let (b_tx, b_rx) = channel::unbounded::<usize>();
    let a_peek = peek.then(|| a_rx.clone());
    let out = spawn_storing(&system, async move {
        let got = Race(a_rx.recv(), b_rx.recv()).await;
        // Keep `a`'s sender alive until the receive is over.
        drop(a_tx);
        got.map_or(CLOSED, |v| v + 1)
    });
    (system, b_tx, a_peek, out)
}

/// A process parks in channel `a`'s word while its other receive waits in `b`'s queue; a send on
/// `b` races the park. The send's wake-up finds the process `RUNNING` (a fast park leaves it so)
/// and either the park's check sees it or the wake-up finds the process in `a`'s word: the
/// process is scheduled exactly once and receives `b`'s value; nothing is lost.
#[test]
fn loom_wake_through_another_channel_races_fast_park() {
    model(|| {
        let (system, b_tx, _, out) = race_fast_park(false);
        let sender = loom::thread::spawn(move || b_tx.send(3).unwrap());
        run_around(&system, || sender.join().unwrap());
        assert_eq!(out.load(SeqCst), 4);
        assert_eq!(system.live(), 0);
    });
}

/// As above, with a third thread that locks `a` without completing the parked entry (a
/// `try_recv` that finds nothing moves the entry from the word into the wait queue): the process
/// must still be found, by the wake's look-up or by its own after a failed take-back.
#[test]
fn loom_wake_races_fast_park_and_a_lock_that_moves_the_entry() {
    model(|| {
        let (system, b_tx, a_peek, out) = race_fast_park(true);
        let a_peek = a_peek.expect("a clone of `a`'s receiver");
        let sender = loom::thread::spawn(move || b_tx.send(3).unwrap());
        let peeker = loom::thread::spawn(move || a_peek.try_recv().is_ok());
        run_around(&system, || {
            sender.join().unwrap();
            assert!(!peeker.join().unwrap());
        });
        assert_eq!(out.load(SeqCst), 4);
        assert_eq!(system.live(), 0);
    });
}

/// A process parked in a channel's word gets a send on that channel and a close racing from two
/// threads, after its first run: the one that takes it out of the word schedules it, once; it
/// receives the value if the send came first, else the send fails and gives its value back.
#[test]
fn loom_send_and_close_race_a_fast_parked_receiver() {
    model(|| {
        let (system, tx, rx) = system_and_channel();
        let closer_rx = rx.clone();
        let out = spawn_receiver(&system, rx);
        system.run_ready();
        let sender = loom::thread::spawn(move || tx.send(7));
        let closer = loom::thread::spawn(move || {
            closer_rx.close();
        });
        let sent = sender.join().unwrap();
        closer.join().unwrap();
        system.run_ready();
        match sent {
            Ok(()) => assert_eq!(out.load(SeqCst), 8),
            Err(SendError(v)) => {
                assert_eq!(v, 7);
                assert_eq!(out.load(SeqCst), CLOSED);
            }
        }
        assert_eq!(system.live(), 0);
    });
}

/// A select on the channel a process pinned (it parked there through the word first): the
/// select's branch waits in the channel's queue and a send takes it, once.
#[test]
fn loom_select_after_fast_park_on_the_same_channel() {
    model(|| {
        let (system, a_tx, a_rx) = system_and_channel::<usize>();
        let (_b_tx, b_rx) = channel::unbounded::<usize>();
        let a_tx2 = a_tx.clone();
        let out = spawn_storing(&system, async move {
            let first = a_rx.recv().await.map_or(CLOSED, |v| v);
            let got = Select::new()
                .recv(&a_rx, |r| r.map_or(CLOSED, |v| v + 1))
                .recv(&b_rx, |r| r.map_or(CLOSED, |v| v + 1))
                .await;
            first * 100 + got
        });
        system.run_ready();
        let sender = loom::thread::spawn(move || {
            a_tx.send(1).unwrap();
            a_tx2.send(2).unwrap();
        });
        run_around(&system, || sender.join().unwrap());
        assert_eq!(out.load(SeqCst), 103);
        assert_eq!(system.live(), 0);
    });
}

/// The last receiver of a channel that a process pinned goes on one thread while that process
/// ends (and gives its pin back) on another, after the only sender went: whichever of the
/// receiver's release and the pin's comes last frees the channel, once, and the value still
/// queued is dropped (loom reports a leaked `Arc` otherwise).
#[test]
fn loom_last_receiver_beside_a_pin_races_the_pinning_process_ending() {
    model(|| {
        let (system, tx, rx) = system_and_channel::<Arc<usize>>();
        let rx2 = rx.clone();
        // Parks in the channel's word and pins it; ends with the first value.
        let out = spawn_storing(
            &system,
            async move { rx2.recv().await.map_or(CLOSED, |v| *v) },
        );
        system.run_ready();
        tx.send(Arc::new(7)).unwrap();
        tx.send(Arc::new(8)).unwrap();
        drop(tx);
        let dropper = loom::thread::spawn(move || drop(rx));
        run_around(&system, || dropper.join().unwrap());
        assert_eq!(out.load(SeqCst), 7);
        assert_eq!(system.live(), 0);
    });
}

/// A process hands a clone of its waker to another thread, parks in its channel's word, then
/// receives, yields once and ends, while that thread wakes it and drops the waker: the process is
/// scheduled at most once at a time (the wake-up finds it parked in the word, running or done),
/// and whichever of the process's end and the waker's drop gives up the last reference takes the
/// runnable out of the process's slot and frees it, once (loom reports a leak or a double free
/// otherwise).
#[test]
fn loom_waker_outlives_its_process() {
    model(|| {
        let (system, tx, rx) = system_and_channel::<usize>();
        let handed = Arc::new(loom::sync::Mutex::new(None::<std::task::Waker>));
        let hand = handed.clone();
        let out = spawn_storing(&system, async move {
            std::future::poll_fn(|cx| {
                *hand.lock().unwrap() = Some(cx.waker().clone());
                std::task::Poll::Ready(())
            })
            .await;
            let got = rx.recv().await.map_or(CLOSED, |v| v + 1);
            crate::yield_now().await;
            got
        });
        system.run_ready();
        let waker = handed
            .lock()
            .unwrap()
            .take()
            .expect("the process handed its waker");
        let waking = loom::thread::spawn(move || waker.wake());
        tx.send(5).unwrap();
        run_around(&system, || waking.join().unwrap());
        assert_eq!(out.load(SeqCst), 6);
        assert_eq!(system.live(), 0);
    });
}
