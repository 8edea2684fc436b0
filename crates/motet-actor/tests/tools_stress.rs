//! Stress and leak checks for the tools built on exit hooks and weak addresses: weak sends racing
//! with an actor's last address going away, and pools, groups, timers and registries torn down in
//! every order (dropped, stopped, or with the runtime shut down under them), leaving no actor
//! state and no message alive.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use motet_actor::{spawn, Actor, Context, ExitReason, Group, Pool, Registry, Timers, WeakAddr};
use motet_runtime::testing::{self, Census, Tracked};
use motet_runtime::Runtime;

/// Holds a tracked state; drops every message after counting it.
struct Sink {
    _state: Tracked,
    handled: Arc<AtomicUsize>,
}

impl Actor for Sink {
    type Msg = Arc<Tracked>;
    fn handle(&mut self, _: &mut Context<'_, Self>, _msg: Arc<Tracked>) {
        self.handled.fetch_add(1, SeqCst);
    }
}

fn sink(census: &Census, handled: &Arc<AtomicUsize>) -> Sink {
    Sink {
        _state: census.track(),
        handled: handled.clone(),
    }
}

/// Threads send through weak addresses while the last strong address is dropped. A weak send
/// takes a strong address for its push, so the actor may go on handling them; once the senders are
/// done it stops as unreachable, sends after its stop fail, and nothing leaks.
#[test]
fn weak_sends_race_with_the_last_address() {
    for workers in [1, 2] {
        let rt = Runtime::builder().workers(workers).build().unwrap();
        for _ in 0..200 {
            let census = Census::default();
            let handled = Arc::new(AtomicUsize::new(0));
            let addr = spawn(rt.handle(), sink(&census, &handled));
            let weak = WeakAddr::new(&addr);
            let go = Arc::new(AtomicBool::new(false));
            let senders: Vec<_> = (0..2)
                .map(|_| {
                    let (weak, go, census) = (weak.clone(), go.clone(), census.clone());
                    std::thread::spawn(move || {
                        while !go.load(SeqCst) {
                            std::hint::spin_loop();
                        }
                        let mut accepted = 0;
                        for _ in 0..2_000 {
                            if weak.tell(Arc::new(census.track())).is_err() {
                                break;
                            }
                            accepted += 1;
                        }
                        accepted
                    })
                })
                .collect();
            let stopped = addr.watch();
            go.store(true, SeqCst);
            drop(addr);
            let accepted: usize = senders.into_iter().map(|s| s.join().unwrap()).sum();
            assert_eq!(stopped.wait(), ExitReason::Unreachable);
            assert!(weak.is_stopped());
            assert!(weak.upgrade().is_none());
            assert!(weak.tell(Arc::new(census.track())).is_err());
            // Accepted sends were handled, or dropped with the mailbox of the stopping actor.
            assert!(handled.load(SeqCst) <= accepted);
            rt.wait_quiescent();
            assert_eq!(census.live(), 0);
        }
    }
}

/// Every tool alive at once; `finish` decides how the scenario ends.
fn tools_scenario(rt: &Runtime, census: &Census, shut_down: bool) {
    let handled = Arc::new(AtomicUsize::new(0));
    let registry = Registry::new();
    let group = Group::new();
    let (c, h) = (census.clone(), handled.clone());
    let pool = Pool::builder(move || sink(&c, &h))
        .size(3)
        .spawn(rt.handle())
        .unwrap();
    let restarting = {
        let (c, h) = (census.clone(), handled.clone());
        Pool::builder(move || sink(&c, &h))
            .size(2)
            .restart(3, Duration::from_secs(5))
            .broadcast()
            .spawn(rt.handle())
            .unwrap()
    };
    let members: Vec<_> = (0..4)
        .map(|_| spawn(rt.handle(), sink(census, &handled)))
        .collect();
    let mut all_timers = Vec::new();
    for (i, m) in members.iter().enumerate() {
        group.join(m);
        registry.register(format!("m{i}"), m).unwrap();
        let timers = Timers::new(m);
        timers.send_after(Duration::from_secs(3600), Arc::new(census.track()));
        let c = census.clone();
        timers.send_every(Duration::from_secs(3600), move || Arc::new(c.track()));
        all_timers.push(timers);
    }
    group.join(pool.addr());
    registry.register("pool", pool.addr()).unwrap();
    for _ in 0..20 {
        pool.tell(Arc::new(census.track())).unwrap();
        restarting.tell(Arc::new(census.track())).unwrap();
        group.publish(Arc::new(census.track()));
    }
    if !shut_down {
        drop(all_timers);
        drop(members);
        drop(group);
        drop(pool);
        drop(restarting);
        drop(registry);
        rt.wait_quiescent();
    }
}

#[test]
fn tools_torn_down_leave_nothing_alive() {
    testing::check(|rt| {
        let census = Census::default();
        tools_scenario(rt, &census, false);
        assert_eq!(census.live(), 0);
    });
}

#[test]
fn tools_under_a_runtime_shutdown_leave_nothing_alive() {
    let mut runtimes: Vec<Runtime> = testing::seeds(8)
        .into_iter()
        .map(|seed| Runtime::builder().deterministic(seed).build().unwrap())
        .collect();
    runtimes.push(Runtime::builder().workers(1).build().unwrap());
    runtimes.push(Runtime::builder().workers(2).build().unwrap());
    for rt in runtimes {
        let census = Census::default();
        tools_scenario(&rt, &census, true);
        drop(rt);
        assert_eq!(census.live(), 0);
    }
}
