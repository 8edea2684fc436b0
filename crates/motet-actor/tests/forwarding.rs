//! Forwarding actors (`Spawn::forwarding`): user messages go to the forward on the sending thread,
//! never into the mailbox or the handler; a refused message fails the send; system signals (links,
//! monitors, kills, watches) work as for any actor; a stopped forwarding actor refuses sends
//! without calling the forward; the reference `Addr::send` hands over is released (also when the
//! forward panics), so a forwarding actor whose last address went that way stops as unreachable.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

use motet_actor::{
    spawn, Actor, AskError, Context, Down, ExitReason, Reply, SendError, Spawn, TrySendError,
};
use motet_runtime::Runtime;

const GUARD: Duration = Duration::from_secs(30);

enum Msg {
    Item(u64),
    Ask(Reply<u64>),
}

/// Counts its handler's calls, which must stay at zero.
struct Outlet {
    handled: Arc<AtomicU64>,
}

impl Actor for Outlet {
    type Msg = Msg;
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, _msg: Msg) {
        self.handled.fetch_add(1, SeqCst);
    }
}

/// A forwarding outlet that records each item with the thread it was forwarded on, answers asks
/// with 42, and refuses items at or above `refuse_from`.
fn outlet(
    rt: &Runtime,
    refuse_from: u64,
) -> (
    motet_actor::Addr<Msg>,
    mpsc::Receiver<(u64, ThreadId)>,
    Arc<AtomicU64>,
) {
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let handled = Arc::new(AtomicU64::new(0));
    let addr = Spawn::new(Outlet {
        handled: handled.clone(),
    })
    .forwarding(move |msg| match msg {
        Msg::Item(n) if n >= refuse_from => Err(Msg::Item(n)),
        Msg::Item(n) => {
            let _ = tx.lock().unwrap().send((n, std::thread::current().id()));
            Ok(())
        }
        Msg::Ask(reply) => {
            let _ = reply.send(42);
            Ok(())
        }
    })
    .spawn(rt.handle());
    (addr, rx, handled)
}

#[test]
fn user_messages_go_to_the_forward_on_the_sending_thread_in_order() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let (addr, rx, handled) = outlet(&rt, u64::MAX);
    let me = std::thread::current().id();
    for n in 0..1000 {
        addr.tell(Msg::Item(n)).unwrap();
    }
    addr.try_tell(Msg::Item(1000)).unwrap();
    addr.clone().send(Msg::Item(1001)).unwrap();
    for n in 0..=1001 {
        let (got, thread) = rx.recv_timeout(GUARD).unwrap();
        assert_eq!((got, thread), (n, me), "forwarded in order, on the sender");
    }
    assert_eq!(addr.ask(Msg::Ask, GUARD).wait(), Ok(42));
    rt.wait_quiescent();
    assert_eq!(handled.load(SeqCst), 0, "the handler never runs");
    assert_eq!(
        addr.queued_len(),
        None,
        "nothing queued: not a bounded mailbox"
    );
}

#[test]
fn a_refused_message_fails_the_send_and_comes_back() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, rx, _) = outlet(&rt, 10);
    addr.tell(Msg::Item(9)).unwrap();
    assert!(matches!(
        addr.tell(Msg::Item(10)),
        Err(SendError(Msg::Item(10)))
    ));
    assert!(matches!(
        addr.try_tell(Msg::Item(11)),
        Err(TrySendError::Stopped(Msg::Item(11)))
    ));
    assert!(matches!(
        addr.clone().send(Msg::Item(12)),
        Err(SendError(Msg::Item(12)))
    ));
    assert_eq!(rx.recv_timeout(GUARD).unwrap().0, 9);
    assert!(rx.try_recv().is_err());
    // The refused `send` gave its reference back: the actor is still reachable through `addr`.
    addr.tell(Msg::Item(1)).unwrap();
    assert_eq!(rx.recv_timeout(GUARD).unwrap().0, 1);
}

#[test]
fn messages_from_actors_are_forwarded_on_their_worker() {
    struct Sender {
        to: motet_actor::Addr<Msg>,
    }
    impl Actor for Sender {
        type Msg = u64;
        fn handle(&mut self, _ctx: &mut Context<'_, Self>, n: u64) {
            let _ = self.to.tell(Msg::Item(n));
        }
    }
    let rt = Runtime::builder().workers(2).build().unwrap();
    let (addr, rx, handled) = outlet(&rt, u64::MAX);
    let sender = spawn(rt.handle(), Sender { to: addr.clone() });
    for n in 0..100 {
        sender.tell(n).unwrap();
    }
    let me = std::thread::current().id();
    for n in 0..100 {
        let (got, thread) = rx.recv_timeout(GUARD).unwrap();
        assert_eq!(got, n, "one sender's messages in order");
        assert_ne!(thread, me, "forwarded on the sending actor's worker");
    }
    rt.wait_quiescent();
    assert_eq!(handled.load(SeqCst), 0);
}

#[test]
fn signals_work_and_a_stopped_forwarder_refuses_without_forwarding() {
    struct Watcher {
        downs: mpsc::Sender<Down>,
    }
    impl Actor for Watcher {
        type Msg = motet_actor::AnyAddr;
        fn handle(&mut self, ctx: &mut Context<'_, Self>, target: motet_actor::AnyAddr) {
            ctx.monitor(target);
        }
        fn on_down(&mut self, _ctx: &mut Context<'_, Self>, down: Down) {
            let _ = self.downs.send(down);
        }
    }
    let rt = Runtime::builder().workers(2).build().unwrap();
    let (addr, rx, _) = outlet(&rt, u64::MAX);
    let (downs, down_rx) = mpsc::channel();
    let watcher = spawn(rt.handle(), Watcher { downs });
    watcher.tell(addr.to_any()).unwrap();
    rt.wait_quiescent();
    let watch = addr.watch();
    assert!(addr.kill());
    assert_eq!(watch.wait_timeout(GUARD), Some(ExitReason::Killed));
    let down = down_rx.recv_timeout(GUARD).unwrap();
    assert_eq!((down.id, down.reason), (addr.id(), ExitReason::Killed));
    assert!(matches!(
        addr.tell(Msg::Item(1)),
        Err(SendError(Msg::Item(1)))
    ));
    assert_eq!(addr.ask(Msg::Ask, GUARD).wait(), Err(AskError::Stopped));
    assert!(rx.try_recv().is_err(), "nothing forwarded after the stop");
}

#[test]
fn the_last_address_sent_away_leaves_the_forwarder_unreachable() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, rx, _) = outlet(&rt, u64::MAX);
    let watch = addr.watch();
    rt.wait_quiescent();
    // `send` consumes the last address; its reference travels with the message and is released
    // once the forward took it, so the actor notices that no address is left.
    addr.send(Msg::Item(7)).unwrap();
    assert_eq!(rx.recv_timeout(GUARD).unwrap().0, 7);
    assert_eq!(watch.wait_timeout(GUARD), Some(ExitReason::Unreachable));
}

#[test]
fn many_threads_forward_concurrently_without_loss() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let count = Arc::new(AtomicU64::new(0));
    let seen = count.clone();
    let addr = Spawn::new(Outlet {
        handled: Arc::new(AtomicU64::new(0)),
    })
    .forwarding(move |msg| {
        if let Msg::Item(n) = msg {
            seen.fetch_add(n, SeqCst);
        }
        Ok(())
    })
    .spawn(rt.handle());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                for n in 1..=10_000 {
                    addr.tell(Msg::Item(n)).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(count.load(SeqCst), 4 * 10_000 * 10_001 / 2);
}

#[test]
fn a_forward_that_panics_reaches_the_sender_and_releases_the_carried_address() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let addr = Spawn::new(Outlet {
        handled: Arc::new(AtomicU64::new(0)),
    })
    .forwarding(|msg| match msg {
        Msg::Item(13) => panic!("thirteen"),
        _ => Ok(()),
    })
    .spawn(rt.handle());
    let watch = addr.watch();
    rt.wait_quiescent();
    let sent = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        addr.clone().send(Msg::Item(13))
    }));
    assert!(sent.is_err(), "the forward's panic reaches the sender");
    // The panicking `send` gave its reference back: with `addr` gone, no address is left.
    drop(addr);
    assert_eq!(watch.wait_timeout(GUARD), Some(ExitReason::Unreachable));
}
