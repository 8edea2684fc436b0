//! Pools, groups, timers and the registry.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use motet::actor::{spawn, Actor, Addr, Context, ExitReason, Group, Pool, Registry, Reply, Timers};
use motet::Runtime;

const TIMEOUT: Duration = Duration::from_secs(10);

/// A worker that squares numbers, adds to a shared total, or fails on request.
struct Worker {
    total: Arc<AtomicU64>,
}

enum Job {
    Square(u64, Reply<u64>),
    Add(u64),
    Fail,
}

impl Actor for Worker {
    type Msg = Job;
    fn handle(&mut self, _: &mut Context<'_, Self>, job: Job) {
        match job {
            Job::Square(n, reply) => {
                let _ = reply.send(n * n);
            }
            Job::Add(n) => {
                self.total.fetch_add(n, SeqCst);
            }
            Job::Fail => panic!("a worker fails (on purpose)"),
        }
    }
}

/// Adds what it receives to a shared total; stops on 0.
struct Listener {
    total: Arc<AtomicU64>,
}

impl Actor for Listener {
    type Msg = u64;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, n: u64) {
        if n == 0 {
            ctx.stop();
        }
        self.total.fetch_add(n, SeqCst);
    }
}

fn listener(rt: &Runtime, total: &Arc<AtomicU64>) -> Addr<u64> {
    spawn(
        rt.handle(),
        Listener {
            total: total.clone(),
        },
    )
}

/// Shows pools, groups, timers and the registry; panics if any of them misbehaves.
pub fn run() {
    let rt = Runtime::builder().workers(2).build().expect("runtime");
    pools(&rt);
    groups(&rt);
    timers(&rt);
    registry(&rt);
    println!("actor tour (tools): all checks passed");
}

/// One address in front of four workers; resized at run time; a failing worker is removed.
fn pools(rt: &Runtime) {
    let total = Arc::new(AtomicU64::new(0));
    let t = total.clone();
    let pool = Pool::builder(move || Worker { total: t.clone() })
        .size(4)
        .spawn(rt.handle())
        .expect("pool");
    // Round robin: each message goes to the next worker.
    for n in 1..=100 {
        pool.tell(Job::Add(n)).unwrap();
    }
    let nine = pool.addr().ask(|r| Job::Square(3, r), TIMEOUT).wait();
    assert_eq!(nine, Ok(9));
    // Split-join: the same request to every worker, the answers joined into one.
    let sum = pool
        .split_join(
            |r| Job::Square(2, r),
            TIMEOUT,
            |parts| parts.into_iter().map(|p| p.unwrap()).sum::<u64>(),
        )
        .wait();
    assert_eq!(sum, Ok(16));
    // A failing worker is removed; the pool keeps serving with the others. (Its panic is reported
    // in one line rather than with the default hook's backtrace.)
    std::panic::set_hook(Box::new(|info| eprintln!("worker panicked: {info}")));
    pool.tell(Job::Fail).unwrap();
    pool.grow(2).unwrap(); // resized at run time (also `shrink` and `resize`)
    rt.wait_quiescent();
    assert_eq!(pool.size(), 4 - 1 + 2);
    for _ in 0..10 {
        pool.tell(Job::Add(1)).unwrap();
    }
    rt.wait_quiescent();
    assert_eq!(total.load(SeqCst), 5050 + 10);
    println!(
        "pool: {} workers, total {}",
        pool.size(),
        total.load(SeqCst)
    );
}

/// Publish to every member; members leave, or are removed when they stop.
fn groups(rt: &Runtime) {
    let total = Arc::new(AtomicU64::new(0));
    let group = Group::new();
    let (a, b, c) = (
        listener(rt, &total),
        listener(rt, &total),
        listener(rt, &total),
    );
    for m in [&a, &b, &c] {
        group.join(m);
    }
    assert_eq!(group.publish(10), 3);
    group.leave(&a); // nothing published from now on reaches `a`
    let c_stopped = c.watch();
    c.tell(0).unwrap(); // `c` stops, and leaves the group by itself
    assert!(c_stopped.wait().is_normal());
    assert_eq!(group.members(), vec![b.id()]);
    assert_eq!(group.publish(1), 1);
    rt.wait_quiescent();
    assert_eq!(total.load(SeqCst), 30 + 1);
    println!(
        "group: {} member left, total {}",
        group.len(),
        total.load(SeqCst)
    );
}

/// A periodic timer an actor keeps in its state, and a delayed send from outside.
fn timers(rt: &Runtime) {
    struct Ticker {
        timers: Option<Timers<u64>>,
        ticks: u64,
    }
    impl Actor for Ticker {
        type Msg = u64;
        fn started(&mut self, ctx: &mut Context<'_, Self>) {
            let timers = Timers::new(&ctx.myself());
            timers.send_every(Duration::from_millis(1), || 1);
            self.timers = Some(timers);
        }
        fn handle(&mut self, ctx: &mut Context<'_, Self>, n: u64) {
            self.ticks += n;
            if self.ticks >= 3 {
                ctx.stop(); // the state goes, and the periodic timer with it
            }
        }
    }
    let ticker = spawn(
        rt.handle(),
        Ticker {
            timers: None,
            ticks: 0,
        },
    );
    assert!(ticker.watch().wait().is_normal());

    let total = Arc::new(AtomicU64::new(0));
    let l = listener(rt, &total);
    let timers = Timers::new(&l);
    timers.send_after(Duration::from_millis(5), 42);
    let never = timers.send_after(Duration::from_secs(3600), 1).unwrap();
    assert!(timers.cancel(never));
    rt.wait_quiescent(); // no timer left pending
    assert_eq!(total.load(SeqCst), 42);
    // A timer does not keep its target alive: with its last address gone, it stops.
    timers.send_every(Duration::from_millis(1), || 1);
    let stopped = l.watch();
    drop(l);
    assert_eq!(stopped.wait(), ExitReason::Unreachable);
    assert!(timers.target_stopped());
    println!("timers: delayed send delivered, periodic timers ended with their targets");
}

/// Typed lookup by name; a name goes away with its actor.
fn registry(rt: &Runtime) {
    let total = Arc::new(AtomicU64::new(0));
    let registry = Registry::new();
    let l = listener(rt, &total);
    registry.register("listener", &l).unwrap();
    assert!(registry.register("listener", &l).is_err()); // taken
    assert!(registry.lookup::<String>("listener").is_err()); // wrong message type
    let found = registry.lookup::<u64>("listener").unwrap();
    let stopped = found.watch();
    found.tell(0).unwrap();
    assert!(stopped.wait().is_normal());
    assert!(!registry.contains("listener"));
    println!("registry: {} names after the actor stopped", registry.len());
}
