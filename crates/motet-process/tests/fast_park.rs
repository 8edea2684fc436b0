//! Stress: processes that park in their channel's lock word (a plain receive that finds the channel
//! idle and empty) while another receive of theirs waits in a second channel's queue, on 2
//! workers. Values arrive on both channels from two threads at once, so a wake-up through the
//! second channel keeps finding the process parked in the first one's word (or about to park
//! there). Every value must be received exactly once, and every process must finish.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use motet_process::channel;
use motet_process::ProcessSystem;
use motet_runtime::Runtime;

const PROCESSES: usize = 64;
const PER_CHANNEL: usize = 2_000;
const ROUNDS: usize = 6;

/// The first of two futures to complete; the other is dropped (a losing receive that had been
/// handed a value puts it back in its channel).
struct Race<A, B>(A, B);

impl<T, A: Future<Output = T>, B: Future<Output = T>> Future for Race<A, B> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        // SAFETY: the fields are never moved out of the pinned future.
        let this = unsafe { self.get_unchecked_mut() };
        // SAFETY: as above.
        if let Poll::Ready(v) = unsafe { Pin::new_unchecked(&mut this.0) }.poll(cx) {
            return Poll::Ready(v);
        }
        // SAFETY: as above.
        unsafe { Pin::new_unchecked(&mut this.1) }.poll(cx)
    }
}

#[test]
fn wakes_through_a_second_channel_race_fast_parks_on_two_workers() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    for _ in 0..ROUNDS {
        let received = Arc::new(AtomicUsize::new(0));
        let sum = Arc::new(AtomicUsize::new(0));
        let mut mains = Vec::new();
        let mut sides = Vec::new();
        for _ in 0..PROCESSES {
            let (a_tx, a_rx) = channel::unbounded::<usize>();
            let (b_tx, b_rx) = channel::unbounded::<usize>();
            mains.push(a_tx);
            sides.push(b_tx);
            let (received, sum) = (received.clone(), sum.clone());
            system.spawn(async move {
                for _ in 0..2 * PER_CHANNEL {
                    let v = Race(a_rx.recv(), b_rx.recv())
                        .await
                        .expect("the senders outlive the receives");
                    sum.fetch_add(v, SeqCst);
                    received.fetch_add(1, SeqCst);
                }
            });
        }
        let feed = |senders: Vec<channel::Sender<usize>>, base: usize| {
            std::thread::spawn(move || {
                for i in 0..PER_CHANNEL {
                    for tx in &senders {
                        tx.send(base + i).unwrap();
                    }
                }
                senders
            })
        };
        let main_feed = feed(mains, 0);
        let side_feed = feed(sides, PER_CHANNEL);
        let mains = main_feed.join().unwrap();
        let sides = side_feed.join().unwrap();
        system
            .wait_timeout(Duration::from_secs(120))
            .expect("every process receives all its values (a lost wake-up leaves one parked)");
        drop((mains, sides));
        assert_eq!(received.load(SeqCst), PROCESSES * 2 * PER_CHANNEL);
        let per_process: usize = (0..2 * PER_CHANNEL).sum();
        assert_eq!(sum.load(SeqCst), PROCESSES * per_process);
    }
    system.shutdown();
}

/// Shutdown while processes are parked in their channels' words and a thread keeps sending to
/// them: every process ends, received or cancelled.
#[test]
fn shutdown_reaches_processes_parked_in_words() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let mut senders = Vec::new();
    for _ in 0..PROCESSES {
        let (tx, rx) = channel::unbounded::<usize>();
        senders.push(tx);
        system.spawn(async move { while rx.recv().await.is_ok() {} });
    }
    let feeder = std::thread::spawn(move || {
        for i in 0..PER_CHANNEL {
            for tx in &senders {
                if tx.send(i).is_err() {
                    return;
                }
            }
        }
    });
    system.shutdown();
    assert_eq!(system.live(), 0);
    feeder.join().unwrap();
}
