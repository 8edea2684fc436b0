//! `AnyAddr::after_pending`: the closure runs once, after every message queued before it, whether
//! the actor handles them, stops with them queued, or had stopped already.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use motet_actor::{spawn, Actor, Context};
use motet_runtime::Runtime;

const GUARD: Duration = Duration::from_secs(30);

enum Msg {
    Note(u32),
    /// Blocks the handler until the sender side is used or dropped.
    Block(mpsc::Receiver<()>),
    Stop,
}

struct Log(mpsc::Sender<u32>);

impl Actor for Log {
    type Msg = Msg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Note(n) => {
                let _ = self.0.send(n);
            }
            Msg::Block(rx) => drop(rx.recv_timeout(GUARD)),
            Msg::Stop => ctx.stop(),
        }
    }
}

#[test]
fn runs_after_the_messages_queued_before_it_on_every_worker_count() {
    for workers in [1, 2, 4] {
        let rt = Runtime::builder().workers(workers).build().unwrap();
        let (tx, rx) = mpsc::channel();
        let log = spawn(rt.handle(), Log(tx.clone()));
        for round in 0..100u32 {
            for i in 0..10 {
                log.tell(Msg::Note(round * 100 + i)).unwrap();
            }
            let tx = tx.clone();
            log.to_any().after_pending(move || {
                let _ = tx.send(round * 100 + 99);
            });
        }
        let seen: Vec<u32> = rx.iter().take(1100).collect();
        let expected: Vec<u32> = (0..100u32)
            .flat_map(|r| (0..10).map(move |i| r * 100 + i).chain([r * 100 + 99]))
            .collect();
        assert_eq!(seen, expected, "{workers} workers");
    }
}

#[test]
fn runs_once_when_the_actor_stops_with_it_queued_or_has_stopped() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let (tx, _rx) = mpsc::channel();
    let log = spawn(rt.handle(), Log(tx));
    let runs = Arc::new(AtomicUsize::new(0));
    // Queued behind a stop: the actor stops first and drops the rest, the barrier included.
    let (release, blocked) = mpsc::channel();
    log.tell(Msg::Block(blocked)).unwrap();
    log.tell(Msg::Stop).unwrap();
    log.tell(Msg::Note(1)).unwrap();
    let r = Arc::clone(&runs);
    log.to_any().after_pending(move || {
        r.fetch_add(1, Ordering::SeqCst);
    });
    assert_eq!(
        runs.load(Ordering::SeqCst),
        0,
        "not before the messages ahead of it"
    );
    release.send(()).unwrap();
    assert!(log.watch().wait_timeout(GUARD).is_some());
    // The mailbox closed with the barrier in it: it ran while the actor stopped.
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    // Pushed to a stopped actor: it runs at once, here.
    let r = Arc::clone(&runs);
    log.to_any().after_pending(move || {
        r.fetch_add(1, Ordering::SeqCst);
    });
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}
