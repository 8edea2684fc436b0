//! Scoped actors: a plain thread with an address, receives with and without timeouts, links,
//! monitors and asks; dropping it is an exit its links and monitors see.

use std::time::Duration;

use motet_actor::{
    spawn, Actor, AnyAddr, Context, Down, Event, ExitReason, Reply, ScopedActor, Spawn,
};
use motet_runtime::Runtime;

const GUARD: Duration = Duration::from_secs(30);

/// Forwards every number to the scoped actor that sent it, doubled.
struct Doubler;

impl Actor for Doubler {
    type Msg = (u64, motet_actor::Addr<u64>);
    fn handle(&mut self, _: &mut Context<'_, Self>, (n, to): (u64, motet_actor::Addr<u64>)) {
        let _ = to.tell(2 * n);
    }
}

#[test]
fn a_scoped_actor_receives_in_order_and_times_out() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let mut me = ScopedActor::<u64>::new(rt.handle());
    let doubler = spawn(rt.handle(), Doubler);
    for n in 0..1000 {
        doubler.tell((n, me.addr())).unwrap();
    }
    for n in 0..1000 {
        assert_eq!(me.recv_timeout(GUARD), Some(Event::Msg(2 * n)));
    }
    assert_eq!(me.try_recv(), None);
    assert_eq!(me.recv_timeout(Duration::from_millis(20)), None);
    // Still usable after a timeout.
    doubler.tell((21, me.addr())).unwrap();
    assert_eq!(me.recv_timeout(GUARD), Some(Event::Msg(42)));
}

#[test]
fn recv_ends_when_no_sender_is_left() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let mut me = ScopedActor::<u32>::new(rt.handle());
    let addr = me.addr();
    let sender = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        addr.tell(1).unwrap();
        // The last address goes here, while the owner may be blocked in `recv`.
    });
    assert_eq!(me.recv(), Some(Event::Msg(1)));
    assert_eq!(me.recv(), None);
    sender.join().unwrap();
}

#[test]
fn a_scoped_actor_asks_and_monitors() {
    struct Answer;
    impl Actor for Answer {
        type Msg = Reply<u32>;
        fn handle(&mut self, ctx: &mut Context<'_, Self>, r: Reply<u32>) {
            let _ = r.send(42);
            ctx.stop();
        }
    }
    let rt = Runtime::builder().workers(1).build().unwrap();
    let mut me = ScopedActor::<()>::new(rt.handle());
    let answer = spawn(rt.handle(), Answer);
    me.monitor(&answer);
    assert_eq!(answer.ask(|r| r, GUARD).wait(), Ok(42));
    assert_eq!(
        me.recv_timeout(GUARD),
        Some(Event::Down(Down {
            id: answer.id(),
            reason: ExitReason::Normal
        }))
    );
    // Monitoring a stopped actor reports it at once.
    me.monitor(&answer);
    assert_eq!(
        me.recv_timeout(GUARD),
        Some(Event::Down(Down {
            id: answer.id(),
            reason: ExitReason::AlreadyExited
        }))
    );
}

/// Records what it is told about the actors it monitors and links; monitors what it is sent.
struct Watcher(motet_actor::Addr<String>);

impl Actor for Watcher {
    type Msg = Option<(AnyAddr, Reply<()>)>;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Self::Msg) {
        if let Some((target, done)) = msg {
            ctx.monitor(target);
            let _ = done.send(());
        }
    }
    fn on_down(&mut self, _: &mut Context<'_, Self>, down: Down) {
        let _ = self.0.tell(format!("down {}", down.reason));
    }
    fn on_exit(&mut self, _: &mut Context<'_, Self>, exit: motet_actor::ExitSignal) {
        let _ = self.0.tell(format!("exit {}", exit.reason));
    }
    fn stopped(&mut self, _: &mut Context<'_, Self>, reason: &ExitReason) {
        let _ = self.0.tell(format!("stopped {reason}"));
    }
}

#[test]
fn dropping_a_scoped_actor_is_an_exit_seen_by_links_and_monitors() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let mut log = ScopedActor::<String>::new(rt.handle());
    // A monitor, a trapping link and a plain link of the scoped actor.
    let monitor = spawn(rt.handle(), Watcher(log.addr()));
    let trapping = Spawn::new(Watcher(log.addr()))
        .trap_exit(true)
        .spawn(rt.handle());
    let plain = spawn(rt.handle(), Watcher(log.addr()));
    let plain_exit = plain.watch();
    {
        let mut me = ScopedActor::<u32>::new(rt.handle());
        let target = me.addr().to_any();
        // Answered once the monitor signal is queued at the scoped actor.
        assert_eq!(monitor.ask(|r| Some((target, r)), GUARD).wait(), Ok(()));
        me.link(&trapping);
        me.link(&plain);
        // A message still queued at the drop is dropped with it.
        me.addr().tell(5).unwrap();
        me.set_exit_reason(ExitReason::Error("scope left".into()));
    }
    let mut got: Vec<String> = (0..3)
        .map(|_| match log.recv_timeout(GUARD) {
            Some(Event::Msg(s)) => s,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            "down error: scope left",
            "exit error: scope left",
            "stopped error: scope left"
        ]
    );
    assert_eq!(
        plain_exit.wait_timeout(GUARD),
        Some(ExitReason::Error("scope left".into()))
    );
}

#[test]
fn a_normal_drop_does_not_stop_linked_actors_and_a_kill_is_an_event() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let mut log = ScopedActor::<String>::new(rt.handle());
    let plain = spawn(rt.handle(), Watcher(log.addr()));
    let plain_exit = plain.watch();
    {
        let mut me = ScopedActor::<u32>::new(rt.handle());
        me.link(&plain);
        assert!(me.addr().kill());
        assert_eq!(
            me.recv_timeout(GUARD),
            Some(Event::Stop(ExitReason::Killed))
        );
        // The kill set the exit reason; put it back to normal.
        me.set_exit_reason(ExitReason::Normal);
    }
    assert_eq!(plain_exit.wait_timeout(Duration::from_millis(100)), None);
    assert!(log.try_recv().is_none());
    drop(plain);
    assert_eq!(
        log.recv_timeout(GUARD),
        Some(Event::Msg("stopped unreachable".into()))
    );
}

/// A scoped actor keeps receiving after its runtime shut down: a message that finds it waiting
/// wakes it through the shut-down runtime, which hands it to the owning thread.
#[test]
fn a_scoped_actor_receives_after_its_runtime_shut_down() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let mut me = ScopedActor::<u64>::new(rt.handle());
    let addr = me.addr();
    rt.shutdown();
    let sender = std::thread::spawn(move || {
        for n in 0..3 {
            // Most likely after the owner began to wait: the push wakes it.
            std::thread::sleep(Duration::from_millis(20));
            addr.tell(n).unwrap();
        }
    });
    for n in 0..3 {
        assert_eq!(me.recv_timeout(GUARD), Some(Event::Msg(n)));
    }
    sender.join().unwrap();
    assert_eq!(me.recv_timeout(GUARD), None);
}
