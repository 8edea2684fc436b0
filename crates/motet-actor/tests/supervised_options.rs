//! Supervised children with spawn options: a detached child restarts on its own thread, a bounded
//! child keeps its mailbox (and its bound) across a restart.

use std::sync::mpsc;
use std::time::Duration;

use motet_actor::{Actor, Addr, AskError, Context, Reply, Strategy, Supervisor, TrySendError};
use motet_runtime::Runtime;

const GUARD: Duration = Duration::from_secs(30);

enum Msg {
    Panic,
    /// Answers with the handler's thread name and how many messages this incarnation handled.
    Where(Reply<(String, u32)>),
    /// Blocks the handler until the sender side is used or dropped.
    Block(mpsc::Receiver<()>),
    /// Only counted.
    Note,
}

#[derive(Default)]
struct Worker {
    handled: u32,
}

impl Actor for Worker {
    type Msg = Msg;
    fn handle(&mut self, _: &mut Context<'_, Self>, msg: Msg) {
        self.handled += 1;
        match msg {
            Msg::Panic => panic!("asked to fail"),
            Msg::Where(r) => {
                let name = std::thread::current().name().unwrap_or("").to_string();
                let _ = r.send((name, self.handled));
            }
            Msg::Block(rx) => {
                let _ = rx.recv_timeout(GUARD);
            }
            Msg::Note => {}
        }
    }
}

/// Asks where the child runs, again while its bounded mailbox is full.
fn ask_when_room(child: &Addr<Msg>) -> (String, u32) {
    let deadline = std::time::Instant::now() + GUARD;
    loop {
        match child.ask(Msg::Where, GUARD).wait() {
            Err(AskError::Full) if std::time::Instant::now() < deadline => std::thread::yield_now(),
            other => return other.expect("an answer"),
        }
    }
}

#[test]
fn a_detached_child_restarts_on_its_own_thread() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let sup = Supervisor::builder(Strategy::OneForOne)
        .intensity(5, Duration::from_secs(60))
        .spawn(rt.handle());
    let child = sup.child(Worker::default).detached().spawn().unwrap();
    let (before, n) = child.ask(Msg::Where, GUARD).wait().unwrap();
    assert!(before.starts_with("motet-detached-"), "thread {before:?}");
    assert_eq!(n, 1);
    child.tell(Msg::Panic).unwrap();
    // The state was rebuilt (the count starts again), on the same thread, at the same address.
    let (after, n) = child.ask(Msg::Where, GUARD).wait().unwrap();
    assert_eq!(after, before);
    assert_eq!(n, 1);
    sup.stop();
    assert!(sup.watch().wait_timeout(GUARD).is_some());
    assert!(child.watch().wait_timeout(GUARD).is_some());
}

#[test]
fn a_bounded_child_keeps_its_mailbox_and_bound_across_a_restart() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let sup = Supervisor::builder(Strategy::OneForOne)
        .intensity(5, Duration::from_secs(60))
        .spawn(rt.handle());
    let child = sup.child(Worker::default).bounded(3).spawn().unwrap();
    // Hold the child in a handler, then fill its mailbox: the panic and two more.
    let (release, blocked) = mpsc::channel();
    child.tell(Msg::Block(blocked)).unwrap();
    // Wait until the block is being handled (the mailbox is empty again).
    let deadline = std::time::Instant::now() + GUARD;
    let mut sent = 0;
    while sent < 3 {
        let msg = if sent == 0 { Msg::Panic } else { Msg::Note };
        match child.try_tell(msg) {
            Ok(()) => sent += 1,
            Err(TrySendError::Full(_)) => {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the mailbox never drained"
                );
                std::thread::yield_now();
            }
            Err(e) => panic!("refused: {e:?}"),
        }
    }
    assert!(
        matches!(child.try_tell(Msg::Panic), Err(TrySendError::Full(_))),
        "the bound holds"
    );
    // An ask is refused as such, not reported as a stopped actor.
    assert_eq!(child.ask(Msg::Where, GUARD).wait(), Err(AskError::Full));
    release.send(()).unwrap();
    // After the restart the two notes queued behind the panic are handled by the new incarnation,
    // then this ask: the mailbox survived the restart.
    let (_, n) = ask_when_room(&child);
    assert_eq!(n, 3);
    // Still bounded after the restart.
    let (release, blocked) = mpsc::channel();
    child.tell(Msg::Block(blocked)).unwrap();
    let mut accepted = 0;
    let deadline = std::time::Instant::now() + GUARD;
    loop {
        match child.try_tell(Msg::Note) {
            Ok(()) => accepted += 1,
            Err(TrySendError::Full(_)) if accepted >= 3 => break,
            Err(TrySendError::Full(_)) => {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the mailbox never drained"
                );
                std::thread::yield_now();
            }
            Err(e) => panic!("refused: {e:?}"),
        }
        assert!(accepted <= 3, "more than the bound accepted");
    }
    release.send(()).unwrap();
    sup.stop();
    assert!(sup.watch().wait_timeout(GUARD).is_some());
}
