//! Timers: a delayed send arrives once, a periodic send repeats until cancelled, timers are
//! cancelled by their handle, by dropping their `Timers`, and when their target stops, and a timer
//! does not keep its target reachable. Every test ends with the runtime quiescent, which a timer
//! left pending would prevent.

use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use motet_actor::{spawn, Actor, Context, ExitReason, Timers};
use motet_runtime::{testing, Runtime};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tick {
    Once,
    Every,
    Stop,
}

/// Counts ticks; stops at `Tick::Stop`.
struct Target {
    once: Arc<AtomicU32>,
    every: Arc<AtomicU32>,
}

impl Actor for Target {
    type Msg = Tick;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, tick: Tick) {
        match tick {
            Tick::Once => self.once.fetch_add(1, SeqCst),
            Tick::Every => self.every.fetch_add(1, SeqCst),
            Tick::Stop => {
                ctx.stop();
                0
            }
        };
    }
}

struct Counts {
    once: Arc<AtomicU32>,
    every: Arc<AtomicU32>,
}

fn target(rt: &Runtime) -> (motet_actor::Addr<Tick>, Counts) {
    let once = Arc::new(AtomicU32::new(0));
    let every = Arc::new(AtomicU32::new(0));
    let addr = spawn(
        rt.handle(),
        Target {
            once: once.clone(),
            every: every.clone(),
        },
    );
    (addr, Counts { once, every })
}

/// A period: virtual on a deterministic runtime, short on real threads.
fn period(rt: &Runtime) -> Duration {
    if rt.handle().seed().is_some() {
        Duration::from_secs(1)
    } else {
        Duration::from_millis(2)
    }
}

/// Waits until `cond` holds (bounded: liveness only); drives a deterministic runtime.
fn eventually(rt: &Runtime, mut cond: impl FnMut() -> bool) {
    if rt.handle().seed().is_some() {
        rt.handle().drive_until(&mut cond);
    } else {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while !cond() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    assert!(cond(), "condition not reached");
}

#[test]
fn a_delayed_send_arrives_once() {
    testing::check(|rt| {
        let (addr, counts) = target(rt);
        let timers = Timers::new(&addr);
        assert!(timers.send_after(period(rt), Tick::Once).is_some());
        assert_eq!(timers.pending(), 1);
        rt.wait_quiescent();
        assert_eq!(counts.once.load(SeqCst), 1);
        assert_eq!(timers.pending(), 0);
    });
}

#[test]
fn a_periodic_send_repeats_until_cancelled() {
    testing::check(|rt| {
        let (addr, counts) = target(rt);
        let timers = Timers::new(&addr);
        let id = timers.send_every(period(rt), || Tick::Every).unwrap();
        eventually(rt, || counts.every.load(SeqCst) >= 3);
        assert!(timers.cancel(id));
        assert!(!timers.cancel(id));
        rt.wait_quiescent();
        let after = counts.every.load(SeqCst);
        assert!(after >= 3);
        rt.wait_quiescent();
        assert_eq!(counts.every.load(SeqCst), after, "ticked after the cancel");
    });
}

#[test]
fn a_cancelled_delayed_send_never_arrives() {
    testing::check(|rt| {
        let (addr, counts) = target(rt);
        let timers = Timers::new(&addr);
        let id = timers
            .send_after(Duration::from_secs(3600), Tick::Once)
            .unwrap();
        assert!(timers.cancel(id));
        // Quiescent at once: the cancelled timer no longer counts as pending work.
        rt.wait_quiescent();
        assert_eq!(counts.once.load(SeqCst), 0);
    });
}

#[test]
fn dropping_the_timers_cancels_them() {
    testing::check(|rt| {
        let (addr, counts) = target(rt);
        let timers = Timers::new(&addr);
        timers.send_after(Duration::from_secs(3600), Tick::Once);
        timers.send_every(Duration::from_secs(3600), || Tick::Every);
        drop(timers);
        rt.wait_quiescent();
        assert_eq!(counts.once.load(SeqCst) + counts.every.load(SeqCst), 0);
    });
}

#[test]
fn timers_are_cancelled_when_the_target_stops() {
    testing::check(|rt| {
        let (addr, counts) = target(rt);
        let timers = Timers::new(&addr);
        timers.send_every(period(rt), || Tick::Every);
        timers.send_after(Duration::from_secs(3600), Tick::Once);
        let stopped = addr.watch();
        addr.tell(Tick::Stop).unwrap();
        assert!(stopped.wait().is_normal());
        assert!(timers.target_stopped());
        assert_eq!(timers.pending(), 0);
        assert!(timers.send_after(period(rt), Tick::Once).is_none());
        // Nothing left pending, though `timers` is still alive.
        rt.wait_quiescent();
        assert_eq!(counts.once.load(SeqCst), 0);
    });
}

#[test]
fn a_periodic_timer_does_not_keep_its_target_reachable() {
    testing::check(|rt| {
        let (addr, counts) = target(rt);
        let timers = Timers::new(&addr);
        timers.send_every(period(rt), || Tick::Every);
        eventually(rt, || counts.every.load(SeqCst) >= 2);
        let stopped = addr.watch();
        drop(addr);
        assert_eq!(stopped.wait(), ExitReason::Unreachable);
        assert!(timers.target_stopped());
        rt.wait_quiescent();
    });
}

/// Keeps its timers in its state, as Akka's timers are kept: they end with the actor.
struct SelfTicker {
    timers: Option<Timers<Tick>>,
    every: Arc<AtomicU32>,
}

impl Actor for SelfTicker {
    type Msg = Tick;
    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        let timers = Timers::new(&ctx.myself());
        timers.send_every(Duration::from_millis(1), || Tick::Every);
        self.timers = Some(timers);
    }
    fn handle(&mut self, ctx: &mut Context<'_, Self>, tick: Tick) {
        if tick == Tick::Every && self.every.fetch_add(1, SeqCst) + 1 == 3 {
            ctx.stop();
        }
    }
}

#[test]
fn timers_kept_by_an_actor_end_with_it() {
    testing::check(|rt| {
        let every = Arc::new(AtomicU32::new(0));
        let addr = spawn(
            rt.handle(),
            SelfTicker {
                timers: None,
                every: every.clone(),
            },
        );
        assert!(addr.watch().wait().is_normal());
        rt.wait_quiescent();
        assert_eq!(every.load(SeqCst), 3);
    });
}
