//! A supervisor on one node watching a worker on another: this program starts a copy of itself as
//! the worker node on 127.0.0.1. The supervisor monitors the remote worker; when the worker fails,
//! the supervisor gets a `Down` with the worker's own exit reason and asks the remote factory for a
//! new worker (the factory answers with the new worker's address). At the end the worker node is
//! killed (`kill -9`) and the supervisor sees `node unreachable`.
//!
//! `cargo run -p motet-remote --example remote_supervisor`

use std::time::Duration;

use motet_actor::{spawn, Actor, Addr, Context, Down, ExitReason};
use motet_remote::testing::{free_port, ChildGuard};
use motet_remote::{Node, NodeConfig, RemoteMsg, RemoteReply};
use serde::{Deserialize, Serialize};

/// Work for a worker: a number to square, or an order to fail.
#[derive(Serialize, Deserialize)]
enum Work {
    Square(u64, RemoteReply<u64>),
    Fail(String),
}
impl RemoteMsg for Work {
    const NAME: &'static str = "examples.remote_supervisor.Work";
}

/// A new worker's address, as the factory's answer.
#[derive(Serialize, Deserialize)]
struct NewWorker(#[serde(with = "motet_remote::addr")] Addr<Work>);
impl RemoteMsg for NewWorker {
    const NAME: &'static str = "examples.remote_supervisor.NewWorker";
}

/// The factory's request.
#[derive(Serialize, Deserialize)]
struct SpawnWorker(RemoteReply<NewWorker>);
impl RemoteMsg for SpawnWorker {
    const NAME: &'static str = "examples.remote_supervisor.SpawnWorker";
}

struct Worker;
impl Actor for Worker {
    type Msg = Work;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, w: Work) {
        match w {
            Work::Square(n, reply) => {
                let _ = reply.send(n * n);
            }
            Work::Fail(why) => ctx.stop_with(ExitReason::Error(why.into())),
        }
    }
}

struct Factory;
impl Actor for Factory {
    type Msg = SpawnWorker;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, SpawnWorker(reply): SpawnWorker) {
        let _ = reply.send(NewWorker(ctx.spawn(Worker)));
    }
}

/// Watches one worker at a time; reports each `Down` to the main thread.
struct Watch {
    downs: crossbeam_channel::Sender<Down>,
}
impl Actor for Watch {
    type Msg = Addr<Work>;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, worker: Addr<Work>) {
        ctx.monitor(&worker);
    }
    fn on_down(&mut self, _ctx: &mut Context<'_, Self>, down: Down) {
        let _ = self.downs.send(down);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rt = motet_runtime::Runtime::builder()
        .workers(2)
        .build()
        .unwrap();
    if args.get(1).map(String::as_str) == Some("--worker-node") {
        let node = Node::start(
            rt.handle(),
            NodeConfig::new()
                .namespace("supervision")
                .listen(&format!("tcp/127.0.0.1:{}", args[2])),
        )
        .expect("worker node");
        node.publish("factory", &spawn(rt.handle(), Factory))
            .unwrap();
        println!("READY");
        let mut line = String::new();
        while std::io::stdin()
            .read_line(&mut line)
            .map(|n| n > 0)
            .unwrap_or(false)
        {}
        return;
    }
    let port = free_port();
    let exe = std::env::current_exe().unwrap();
    let child = ChildGuard::spawn(&exe, &["--worker-node".into(), port.to_string()]).unwrap();
    child
        .expect_line("READY", Duration::from_secs(30))
        .expect("worker node up");
    let node = Node::start(
        rt.handle(),
        NodeConfig::new()
            .namespace("supervision")
            .connect(&format!("tcp/127.0.0.1:{port}"))
            .lease(Duration::from_secs(2)),
    )
    .expect("supervisor node");
    let factory = node
        .lookup::<SpawnWorker>("factory", Duration::from_secs(30))
        .expect("find the factory");
    let (tx, downs) = crossbeam_channel::unbounded();
    let watch = spawn(rt.handle(), Watch { downs: tx });
    let t = Duration::from_secs(10);
    let new_worker = || {
        factory
            .ask(|r| SpawnWorker(r.into()), t)
            .wait()
            .expect("the factory answers")
            .0
    };

    let mut worker = new_worker();
    watch.tell(worker.clone()).unwrap();
    for round in 1..=3u64 {
        let sq = worker.ask(|r| Work::Square(round, r.into()), t).wait();
        println!("round {round}: remote worker squared {round} -> {sq:?}");
        worker
            .tell(Work::Fail(format!("failure #{round}")))
            .unwrap();
        let down = downs.recv_timeout(t).expect("a Down for the worker");
        println!(
            "supervisor: worker stopped: {}; restarting it remotely",
            down.reason
        );
        worker = new_worker();
        watch.tell(worker.clone()).unwrap();
    }
    println!("killing the worker node (kill -9, pid {})", child.pid());
    child.signal("KILL");
    let down = downs.recv_timeout(Duration::from_secs(30)).expect("a Down");
    println!("supervisor: worker stopped: {}", down.reason);
    assert_eq!(down.reason, ExitReason::NodeUnreachable);
}
