//! Multi-process tests on loopback: a child node process (the `motet-remote-testnode` binary) and
//! a node in this test process. Every child is killed by PID when its guard drops; every wait is
//! bounded.

use std::path::Path;
use std::time::{Duration, Instant};

use motet_actor::{spawn, AskError, ExitReason};
use motet_remote::testing::{free_port, ChildGuard, Echo, Sink, Watcher};
use motet_remote::{Node, NodeConfig, NodeId, RemoteReply};

const BIN: &str = env!("CARGO_BIN_EXE_motet-remote-testnode");
const LONG: Duration = Duration::from_secs(30);

struct Pair {
    child: ChildGuard,
    child_id: NodeId,
    node: Node,
    _rt: motet_runtime::Runtime,
}

/// Starts a child node and a node here, connected both ways, in a fresh namespace.
fn pair(ns: &str, lease_ms: u64) -> Pair {
    let (child_port, my_port) = (free_port(), free_port());
    let child = ChildGuard::spawn(
        Path::new(BIN),
        &[
            "--listen".into(),
            child_port.to_string(),
            "--connect".into(),
            my_port.to_string(),
            "--lease".into(),
            lease_ms.to_string(),
            "--ns".into(),
            ns.into(),
        ],
    )
    .expect("start the test node");
    let chunk = child
        .expect_line("READY ", LONG)
        .expect("the child node reports READY");
    let child_id = NodeId::parse_chunk(&chunk).expect("a node id");
    let rt = motet_runtime::Runtime::builder()
        .workers(2)
        .build()
        .unwrap();
    let node = Node::start(
        rt.handle(),
        NodeConfig::new()
            .namespace(ns)
            .listen(&format!("tcp/127.0.0.1:{my_port}"))
            .connect(&format!("tcp/127.0.0.1:{child_port}"))
            .lease(Duration::from_millis(lease_ms)),
    )
    .expect("start the local node");
    Pair {
        child,
        child_id,
        node,
        _rt: rt,
    }
}

fn message_count() -> u64 {
    std::env::var("MOTET_REMOTE_MESSAGES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) {
            20_000
        } else {
            1_000_000
        })
}

/// Asks the sink for its report: `n` items received, all in order.
fn assert_all_in_order(sink: &motet_actor::Addr<Sink>, n: u64) {
    let report = sink
        .ask(
            |r| Sink::Report(RemoteReply::from(r)),
            Duration::from_secs(120),
        )
        .wait()
        .expect("the sink reports");
    assert_eq!(report, vec![n, 1], "all {n} messages, in order");
}

#[test]
fn tell_and_ask_across_processes_in_order() {
    let p = pair("tellask", 10_000);
    let echo = p.node.lookup::<Echo>("echo", LONG).expect("lookup echo");
    assert_eq!(p.node.remote_of(&echo).map(|r| r.0), Some(p.child_id));
    let answer = echo
        .ask(|r| Echo::Ping(41, RemoteReply::from(r)), LONG)
        .wait();
    assert_eq!(answer, Ok(41));

    // An address inside a message arrives as a working remote address.
    let (tx, rx) = crossbeam_channel::unbounded();
    struct Collect(crossbeam_channel::Sender<u64>);
    impl motet_actor::Actor for Collect {
        type Msg = u64;
        fn handle(&mut self, _: &mut motet_actor::Context<'_, Self>, n: u64) {
            let _ = self.0.send(n);
        }
    }
    let collect = spawn(p.node.runtime(), Collect(tx));
    echo.tell(Echo::PingTo(7, collect.clone())).unwrap();
    assert_eq!(rx.recv_timeout(LONG), Ok(7));

    let sink = p.node.lookup::<Sink>("sink", LONG).expect("lookup sink");
    let n = message_count();
    for i in 0..n {
        sink.tell(Sink::Item(i)).unwrap();
        if i % 4096 == 0 {
            assert!(p.node.wait_writable(LONG));
        }
    }
    assert_all_in_order(&sink, n);
    assert_eq!(p.node.stats().rejected(), 0);
}

/// The drain thread puts a frame through the express publisher when nothing else is queued and
/// through the batching one otherwise: bursts of varied length, each started on an empty queue,
/// switch between the two again and again, and the sink must still see every item in order.
#[test]
fn order_holds_across_the_switch_between_express_and_batched_puts() {
    let p = pair("switch", 10_000);
    let sink = p.node.lookup::<Sink>("sink", LONG).expect("lookup sink");
    let n = message_count();
    let (mut i, mut seed) = (0u64, 0x2545_f491_4f6c_dd1du64);
    let mut bursts = 0u64;
    while i < n {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let len = (seed % 200 + 1).min(n - i);
        for _ in 0..len {
            sink.tell(Sink::Item(i)).unwrap();
            i += 1;
        }
        bursts += 1;
        // Every other burst starts on an empty queue (its first frame goes express); the others
        // may find frames still queued.
        if bursts.is_multiple_of(2) {
            assert!(p.node.flush(LONG), "the outbound queue drains");
        }
    }
    assert_all_in_order(&sink, n);
    assert_eq!(p.node.stats().rejected(), 0);
}

/// A thread puts a frame itself when the queue is empty and the wire idle, and queues it
/// otherwise: messages told with pauses between some of them (so that some go direct and the ones
/// after them are queued, perhaps behind a drain thread still busy) arrive complete and in order,
/// and both paths were taken.
#[test]
fn order_holds_across_direct_and_queued_puts() {
    let p = pair("direct", 10_000);
    let sink = p.node.lookup::<Sink>("sink", LONG).expect("lookup sink");
    let n = message_count().min(50_000);
    let before = p.node.stats();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..n {
        sink.tell(Sink::Item(i)).unwrap();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        if seed.is_multiple_of(16) {
            // Longer than the idle time after which a thread puts its own frame.
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    assert_all_in_order(&sink, n);
    let s = p.node.stats();
    let direct = s.frames_put_direct - before.frames_put_direct;
    assert!(direct > 0, "no frame was put by the sending thread");
    assert!(
        direct < s.frames_out - before.frames_out,
        "no frame went through the queue"
    );
    assert_eq!(s.rejected(), 0);
}

#[test]
fn remote_exit_reason_reaches_monitors() {
    let p = pair("exit", 10_000);
    let echo = p.node.lookup::<Echo>("echo", LONG).expect("lookup echo");
    let (tx, rx) = crossbeam_channel::unbounded();
    let _w = spawn(p.node.runtime(), Watcher::new(echo.clone(), tx));
    // Let the watcher start (it monitors the proxy in `started`).
    std::thread::sleep(Duration::from_millis(100));
    echo.tell(Echo::Fail("boom".into())).unwrap();
    let down = rx.recv_timeout(LONG).expect("a Down for the remote actor");
    assert_eq!(down.reason, ExitReason::Error("boom".into()));
    assert!(echo.tell(Echo::Fail("again".into())).is_err());
}

#[test]
fn a_down_follows_the_messages_the_actor_sent_before_it_stopped() {
    use motet_actor::{Actor, Addr, Context, Down};
    let p = pair("lastdown", 10_000);
    let echo = p.node.lookup::<Echo>("echo", LONG).expect("lookup echo");
    struct Tally {
        echo: Addr<Echo>,
        got: u64,
        in_order: bool,
        out: crossbeam_channel::Sender<(u64, bool, ExitReason)>,
    }
    impl Actor for Tally {
        type Msg = u64;
        fn started(&mut self, ctx: &mut Context<'_, Self>) {
            ctx.monitor(&self.echo);
        }
        fn handle(&mut self, _: &mut Context<'_, Self>, n: u64) {
            self.in_order &= n == self.got;
            self.got += 1;
        }
        fn on_down(&mut self, ctx: &mut Context<'_, Self>, down: Down) {
            let _ = self.out.send((self.got, self.in_order, down.reason));
            ctx.stop();
        }
    }
    let (tx, rx) = crossbeam_channel::unbounded();
    let tally = spawn(
        p.node.runtime(),
        Tally {
            echo: echo.clone(),
            got: 0,
            in_order: true,
            out: tx,
        },
    );
    // Let the tally start (it monitors the proxy in `started`).
    std::thread::sleep(Duration::from_millis(100));
    let n = 10_000;
    echo.tell(Echo::Burst(n, tally)).unwrap();
    let (got, in_order, reason) = rx.recv_timeout(LONG).expect("a Down for the remote actor");
    assert_eq!(reason, ExitReason::Error("burst".into()));
    assert_eq!(
        got, n,
        "every message the actor sent before it stopped, before its Down"
    );
    assert!(in_order);
}

#[test]
fn kill_9_turns_proxies_into_node_unreachable_and_fails_asks() {
    let p = pair("kill", 10_000);
    let echo = p.node.lookup::<Echo>("echo", LONG).expect("lookup echo");
    assert_eq!(echo.ask(|r| Echo::Ping(1, r.into()), LONG).wait(), Ok(1));
    let (tx, rx) = crossbeam_channel::unbounded();
    let _w = spawn(p.node.runtime(), Watcher::new(echo.clone(), tx));
    let pending = echo.ask(|r| Echo::Hold(r.into()), Duration::from_secs(120));
    std::thread::sleep(Duration::from_millis(200));
    let killed = Instant::now();
    assert!(p.child.signal("KILL"));
    let down = rx.recv_timeout(LONG).expect("Down after kill -9");
    eprintln!("kill -9 detected after {:?}", killed.elapsed());
    assert_eq!(down.reason, ExitReason::NodeUnreachable);
    assert_eq!(pending.wait(), Err(AskError::Dropped));
    assert!(p.node.is_quarantined(p.child_id));
    assert!(echo.tell(Echo::Fail("x".into())).is_err());
}

#[test]
fn sigstop_is_detected_within_the_lease_and_sigcont_rejoins_as_new_incarnation() {
    let lease = 1000;
    let p = pair("stop", lease);
    let echo = p.node.lookup::<Echo>("echo", LONG).expect("lookup echo");
    assert_eq!(echo.ask(|r| Echo::Ping(1, r.into()), LONG).wait(), Ok(1));
    let (tx, rx) = crossbeam_channel::unbounded();
    let _w = spawn(p.node.runtime(), Watcher::new(echo.clone(), tx));
    std::thread::sleep(Duration::from_millis(200));
    let stopped = Instant::now();
    assert!(p.child.signal("STOP"));
    let down = rx.recv_timeout(LONG).expect("Down after SIGSTOP");
    eprintln!(
        "SIGSTOP detected after {:?} (lease {lease} ms)",
        stopped.elapsed()
    );
    assert_eq!(down.reason, ExitReason::NodeUnreachable);
    // Keep it hung well past its lease, then resume it.
    std::thread::sleep(Duration::from_millis(2 * lease));
    assert!(p.child.signal("CONT"));

    // The resumed process comes back as a new incarnation, which answers; the old address stays
    // dead. Should the new incarnation be lost again (its link to this node breaking once more
    // after the resume), the ask fails at once and the next incarnation is looked up.
    let deadline = Instant::now() + LONG;
    loop {
        assert!(
            Instant::now() < deadline,
            "the resumed node did not rejoin and answer ({:?})",
            p.node.stats()
        );
        if let Ok(fresh) = p.node.lookup::<Echo>("echo", Duration::from_secs(2)) {
            // `None`: the proxy already stopped, its incarnation lost.
            let node = p.node.remote_of(&fresh).map(|(node, _)| node);
            if let Some(node) = node.filter(|&n| n != p.child_id) {
                assert_eq!(node.zid, p.child_id.zid);
                assert!(node.incarnation > p.child_id.incarnation);
                match fresh.ask(|r| Echo::Ping(5, r.into()), LONG).wait() {
                    Ok(v) => {
                        assert_eq!(v, 5);
                        break;
                    }
                    Err(e) => eprintln!("an ask of {node} failed: {e:?} ({:?})", p.node.stats()),
                }
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(echo.tell(Echo::Fail("x".into())).is_err());
}

/// Links a local actor to a remote one in `started`; stops with the reason it is told.
struct Linker<M: Send + 'static>(motet_actor::Addr<M>);
impl<M: Send + 'static> motet_actor::Actor for Linker<M> {
    type Msg = ExitReason;
    fn started(&mut self, ctx: &mut motet_actor::Context<'_, Self>) {
        ctx.link(&self.0);
    }
    fn handle(&mut self, ctx: &mut motet_actor::Context<'_, Self>, reason: ExitReason) {
        ctx.stop_with(reason);
    }
}

#[test]
fn links_cross_nodes_both_ways() {
    let p = pair("link", 10_000);
    // Remote to local: the remote actor fails, the linked local actor stops with its reason.
    let echo = p.node.lookup::<Echo>("echo", LONG).expect("lookup echo");
    let local = spawn(p.node.runtime(), Linker(echo.clone()));
    let local_exit = local.watch();
    std::thread::sleep(Duration::from_millis(100));
    echo.tell(Echo::Fail("remote failure".into())).unwrap();
    assert_eq!(
        local_exit.wait_timeout(LONG),
        Some(ExitReason::Error("remote failure".into()))
    );

    // Local to remote: the local actor fails, the linked remote actor stops with its reason.
    let sink = p.node.lookup::<Sink>("sink", LONG).expect("lookup sink");
    let (tx, rx) = crossbeam_channel::unbounded();
    let _w = spawn(p.node.runtime(), Watcher::new(sink.clone(), tx));
    let local = spawn(p.node.runtime(), Linker(sink.clone()));
    std::thread::sleep(Duration::from_millis(100));
    local
        .tell(ExitReason::Error("local failure".into()))
        .unwrap();
    let down = rx.recv_timeout(LONG).expect("the remote sink stopped");
    assert_eq!(down.reason, ExitReason::Error("local failure".into()));
}
