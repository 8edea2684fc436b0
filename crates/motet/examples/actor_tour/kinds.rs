//! Kinds of actors and mailboxes: detached and scoped actors, urgent messages, bounded
//! mailboxes, stashing and receive timeouts.

use std::sync::mpsc;
use std::time::Duration;

use motet::actor::{
    spawn, Actor, Context, Event, ExitReason, Reply, ScopedActor, Spawn, TrySendError,
};
use motet::runtime::Runtime;

const GUARD: Duration = Duration::from_secs(10);

pub fn run() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    detached(&rt);
    scoped(&rt);
    urgent(&rt);
    bounded(&rt);
    stash(&rt);
    receive_timeout(&rt);
    println!("kinds: detached, scoped, urgent, bounded, stash, receive timeout: ok");
}

/// A handler that blocks (here: sleeps, as blocking IO would) runs detached, on a thread of its
/// own, so that it stalls no worker.
fn detached(rt: &Runtime) {
    struct Reader;
    impl Actor for Reader {
        type Msg = Reply<String>;
        fn handle(&mut self, _: &mut Context<'_, Self>, reply: Reply<String>) {
            std::thread::sleep(Duration::from_millis(10));
            let _ = reply.send(std::thread::current().name().unwrap_or("").into());
        }
    }
    let reader = Spawn::new(Reader).detached().spawn(rt.handle());
    let thread = reader.ask(|r| r, GUARD).wait().unwrap();
    assert!(thread.starts_with("motet-detached-"));
}

/// The main thread acts as an actor: it has an address, monitors, and receives.
fn scoped(rt: &Runtime) {
    struct Doubler;
    impl Actor for Doubler {
        type Msg = (u32, motet::actor::Addr<u32>);
        fn handle(&mut self, ctx: &mut Context<'_, Self>, (n, to): Self::Msg) {
            let _ = to.tell(2 * n);
            ctx.stop();
        }
    }
    let mut me = ScopedActor::<u32>::new(rt.handle());
    let doubler = spawn(rt.handle(), Doubler);
    me.monitor(&doubler);
    doubler.tell((21, me.addr())).unwrap();
    assert_eq!(me.recv_timeout(GUARD), Some(Event::Msg(42)));
    match me.recv_timeout(GUARD) {
        Some(Event::Down(down)) => assert_eq!(down.reason, ExitReason::Normal),
        other => panic!("expected a down, got {other:?}"),
    }
}

/// Urgent messages overtake queued normal ones (the actor opts in with `PRIORITIES`).
fn urgent(rt: &Runtime) {
    struct Log(mpsc::Sender<&'static str>);
    impl Actor for Log {
        type Msg = (&'static str, Option<mpsc::Receiver<()>>);
        const PRIORITIES: bool = true;
        fn handle(&mut self, _: &mut Context<'_, Self>, (what, hold): Self::Msg) {
            let _ = self.0.send(what);
            if let Some(gate) = hold {
                let _ = gate.recv();
            }
        }
    }
    let (tx, rx) = mpsc::channel();
    let log = spawn(rt.handle(), Log(tx));
    // The actor is busy with "first" while the other two queue up.
    let (release, gate) = mpsc::channel();
    log.tell(("first", Some(gate))).unwrap();
    assert_eq!(rx.recv_timeout(GUARD), Ok("first"));
    log.tell(("normal", None)).unwrap();
    log.tell_urgent(("urgent", None)).unwrap();
    release.send(()).unwrap();
    let order: Vec<_> = (0..2).map(|_| rx.recv_timeout(GUARD).unwrap()).collect();
    assert_eq!(order, ["urgent", "normal"]);
}

/// A bounded mailbox refuses messages while full; `send_async` and `tell_timeout` wait for room.
fn bounded(rt: &Runtime) {
    struct Slow;
    impl Actor for Slow {
        type Msg = Option<mpsc::Receiver<()>>;
        fn handle(&mut self, _: &mut Context<'_, Self>, hold: Self::Msg) {
            if let Some(gate) = hold {
                let _ = gate.recv();
            }
        }
    }
    let slow = Spawn::new(Slow).bounded(2).spawn(rt.handle());
    let (release, gate) = mpsc::channel();
    slow.tell(Some(gate)).unwrap();
    while slow.queued_len() != Some(0) {
        std::thread::yield_now();
    }
    slow.tell(None).unwrap();
    slow.tell(None).unwrap();
    assert!(matches!(slow.try_tell(None), Err(TrySendError::Full(None))));
    assert!(slow.tell_timeout(None, Duration::from_millis(10)).is_err());
    release.send(()).unwrap();
    assert!(slow.tell_timeout(None, GUARD).is_ok());
}

/// A door stashes work while closed and takes it back, in order, when opened.
fn stash(rt: &Runtime) {
    enum Msg {
        Work(u32),
        Open,
    }
    struct Door(bool, mpsc::Sender<u32>);
    impl Actor for Door {
        type Msg = Msg;
        fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
            match msg {
                Msg::Open => {
                    self.0 = true;
                    ctx.unstash_all();
                }
                Msg::Work(n) if self.0 => self.1.send(n).unwrap(),
                Msg::Work(n) => ctx.stash(Msg::Work(n)).unwrap_or(()),
            }
        }
    }
    let (tx, rx) = mpsc::channel();
    let door = spawn(rt.handle(), Door(false, tx));
    door.tell(Msg::Work(1)).unwrap();
    door.tell(Msg::Work(2)).unwrap();
    door.tell(Msg::Open).unwrap();
    door.tell(Msg::Work(3)).unwrap();
    let done: Vec<_> = (0..3).map(|_| rx.recv_timeout(GUARD).unwrap()).collect();
    assert_eq!(done, [1, 2, 3]);
}

/// An actor that hears nothing for a while gets a message saying so.
fn receive_timeout(rt: &Runtime) {
    struct Idle(mpsc::Sender<&'static str>);
    impl Actor for Idle {
        type Msg = &'static str;
        const RECEIVE_TIMEOUT: bool = true;
        fn started(&mut self, ctx: &mut Context<'_, Self>) {
            ctx.set_receive_timeout(Duration::from_millis(20), || "idle");
        }
        fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: &'static str) {
            ctx.clear_receive_timeout();
            let _ = self.0.send(msg);
        }
    }
    let (tx, rx) = mpsc::channel();
    let _idle = spawn(rt.handle(), Idle(tx));
    assert_eq!(rx.recv_timeout(GUARD), Ok("idle"));
}
