//! Detached actors: each runs on an OS thread of its own, may block, and behaves as a pooled actor
//! for asks, watches, links, monitors and kills; its thread ends when it stops, a panic included.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use motet_actor::{spawn, Actor, Context, Event, ExitReason, Reply, ScopedActor, Spawn};
use motet_runtime::Runtime;

const GUARD: Duration = Duration::from_secs(30);

/// Sets its flag when the thread it lives in ends (thread-local destructors run at thread exit).
struct ThreadEnd(Arc<AtomicBool>);

impl Drop for ThreadEnd {
    fn drop(&mut self) {
        self.0.store(true, SeqCst);
    }
}

thread_local! {
    static END: RefCell<Option<ThreadEnd>> = const { RefCell::new(None) };
}

enum Msg {
    /// Blocks the handler (as blocking IO would).
    Sleep(Duration),
    /// Blocks the handler until the sender side is used or dropped.
    Block(mpsc::Receiver<()>),
    /// Answers with the name of the handler's thread.
    Where(Reply<String>),
    Panic,
    Stop,
}

struct Blocker {
    ended: Arc<AtomicBool>,
}

impl Actor for Blocker {
    type Msg = Msg;

    fn started(&mut self, _ctx: &mut Context<'_, Self>) {
        let ended = self.ended.clone();
        END.with(|e| *e.borrow_mut() = Some(ThreadEnd(ended)));
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Sleep(d) => std::thread::sleep(d),
            Msg::Block(gate) => {
                let _ = gate.recv();
            }
            Msg::Where(reply) => {
                let _ = reply.send(std::thread::current().name().unwrap_or("").to_string());
            }
            Msg::Panic => panic!("detached handler failed"),
            Msg::Stop => ctx.stop(),
        }
    }
}

fn wait_flag(flag: &AtomicBool) -> bool {
    let deadline = std::time::Instant::now() + GUARD;
    while std::time::Instant::now() < deadline {
        if flag.load(SeqCst) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    false
}

fn blocker(rt: &Runtime) -> (motet_actor::Addr<Msg>, Arc<AtomicBool>) {
    let ended = Arc::new(AtomicBool::new(false));
    let addr = Spawn::new(Blocker {
        ended: ended.clone(),
    })
    .detached()
    .spawn(rt.handle());
    (addr, ended)
}

#[test]
fn a_detached_actor_runs_on_its_own_thread_and_answers_asks() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, ended) = blocker(&rt);
    let name = addr.ask(Msg::Where, GUARD).wait().unwrap();
    assert!(name.starts_with("motet-detached-"), "ran on {name:?}");
    let watch = addr.watch();
    addr.tell(Msg::Stop).unwrap();
    assert_eq!(watch.wait_timeout(GUARD), Some(ExitReason::Normal));
    assert!(wait_flag(&ended), "the detached thread did not end");
}

/// With one worker, a pooled actor that blocks would stall every other actor (the ask below would
/// time out); a detached one blocks only its own thread.
#[test]
fn a_blocking_detached_actor_does_not_stall_the_pool() {
    struct Echo;
    impl Actor for Echo {
        type Msg = Reply<u32>;
        fn handle(&mut self, _: &mut Context<'_, Self>, reply: Reply<u32>) {
            let _ = reply.send(7);
        }
    }
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, ended) = blocker(&rt);
    let (release, gate) = mpsc::channel();
    addr.tell(Msg::Block(gate)).unwrap();
    let echo = spawn(rt.handle(), Echo);
    assert_eq!(echo.ask(|r| r, GUARD).wait(), Ok(7));
    assert!(!addr.is_stopped());
    release.send(()).unwrap();
    addr.tell(Msg::Stop).unwrap();
    assert!(wait_flag(&ended));
}

#[test]
fn a_panicking_detached_actor_stops_its_links_and_monitors_see_it_and_its_thread_ends() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let (addr, ended) = blocker(&rt);
    let mut me = ScopedActor::<()>::new(rt.handle());
    me.monitor(&addr);
    me.link(&addr);
    addr.tell(Msg::Panic).unwrap();
    let mut got = Vec::new();
    while got.len() < 2 {
        match me.recv_timeout(GUARD) {
            Some(Event::Down(d)) => got.push(("down", d.reason)),
            Some(Event::Exit(e)) => got.push(("exit", e.reason)),
            other => panic!("unexpected {other:?}"),
        }
    }
    got.sort_by_key(|g| g.0);
    let panicked = ExitReason::Panicked("detached handler failed".into());
    assert_eq!(got, [("down", panicked.clone()), ("exit", panicked)]);
    assert!(wait_flag(&ended), "the detached thread did not end");
    assert!(addr.is_stopped());
    assert!(addr.tell(Msg::Stop).is_err());
}

#[test]
fn killing_a_detached_actor_ends_its_thread() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, ended) = blocker(&rt);
    let watch = addr.watch();
    assert!(addr.kill());
    assert_eq!(watch.wait_timeout(GUARD), Some(ExitReason::Killed));
    assert!(wait_flag(&ended));
}

#[test]
fn an_unreachable_detached_actor_stops_and_its_thread_ends() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, ended) = blocker(&rt);
    addr.tell(Msg::Sleep(Duration::from_millis(1))).unwrap();
    drop(addr);
    assert!(wait_flag(&ended), "the detached thread did not end");
}

/// The runtime's shutdown does not stop a detached actor: a message that wakes it afterwards
/// still reaches its thread (its wake passes through the shut-down runtime, which hands it on).
#[test]
fn a_detached_actor_outlives_its_runtime() {
    struct Echo(mpsc::Sender<u32>);
    impl Actor for Echo {
        type Msg = u32;
        fn handle(&mut self, ctx: &mut Context<'_, Self>, n: u32) {
            let _ = self.0.send(n);
            if n == 0 {
                ctx.stop();
            }
        }
    }
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (tx, rx) = mpsc::channel();
    let addr = Spawn::new(Echo(tx)).detached().spawn(rt.handle());
    addr.tell(1).unwrap();
    assert_eq!(rx.recv_timeout(GUARD), Ok(1));
    rt.shutdown();
    // Idle by now, most likely: each of these wakes it through the runtime.
    for n in [2, 3] {
        std::thread::sleep(Duration::from_millis(20));
        addr.tell(n).unwrap();
        assert_eq!(rx.recv_timeout(GUARD), Ok(n));
    }
    let watch = addr.watch();
    addr.tell(0).unwrap();
    assert_eq!(rx.recv_timeout(GUARD), Ok(0));
    assert_eq!(watch.wait_timeout(GUARD), Some(ExitReason::Normal));
}
