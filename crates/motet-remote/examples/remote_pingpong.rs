//! Two-process ping-pong: this program starts a copy of itself as the second node on 127.0.0.1,
//! looks up its player, and the two players hit a ball back and forth. The ball carries the address
//! of the player who hit it, so each reply goes to an address that crossed the network.
//!
//! `cargo run -p motet-remote --example remote_pingpong [-- HITS]`

use std::time::{Duration, Instant};

use motet_actor::{spawn, Actor, Addr, Context};
use motet_remote::testing::{free_port, ChildGuard};
use motet_remote::{Node, NodeConfig, RemoteMsg};
use serde::{Deserialize, Serialize};

/// The ball: how many hits so far, and who hit it last.
#[derive(Serialize, Deserialize)]
struct Ball {
    hits: u64,
    #[serde(with = "motet_remote::addr")]
    from: Addr<Ball>,
}

impl RemoteMsg for Ball {
    const NAME: &'static str = "examples.remote_pingpong.Ball";
}

/// Returns the ball until `last` hits; then reports on `done` (if it has one).
struct Player {
    last: u64,
    done: Option<crossbeam_channel::Sender<u64>>,
}

impl Actor for Player {
    type Msg = Ball;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, ball: Ball) {
        if ball.hits >= self.last {
            if let Some(done) = &self.done {
                let _ = done.send(ball.hits);
            }
            return;
        }
        let _ = ball.from.tell(Ball {
            hits: ball.hits + 1,
            from: ctx.myself(),
        });
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rt = motet_runtime::Runtime::builder()
        .workers(2)
        .build()
        .unwrap();
    if args.get(1).map(String::as_str) == Some("--pong") {
        let port = &args[2];
        let node = Node::start(
            rt.handle(),
            NodeConfig::new()
                .namespace("pingpong")
                .listen(&format!("tcp/127.0.0.1:{port}")),
        )
        .expect("start the pong node");
        let player = spawn(
            rt.handle(),
            Player {
                last: u64::MAX,
                done: None,
            },
        );
        node.publish("player", &player).expect("publish");
        println!("READY");
        let mut line = String::new();
        while std::io::stdin()
            .read_line(&mut line)
            .map(|n| n > 0)
            .unwrap_or(false)
        {}
        return;
    }
    let hits: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let port = free_port();
    let exe = std::env::current_exe().unwrap();
    let child = ChildGuard::spawn(&exe, &["--pong".into(), port.to_string()]).expect("child");
    child
        .expect_line("READY", Duration::from_secs(30))
        .expect("the pong node started");
    let node = Node::start(
        rt.handle(),
        NodeConfig::new()
            .namespace("pingpong")
            .connect(&format!("tcp/127.0.0.1:{port}")),
    )
    .expect("start the ping node");
    let remote = node
        .lookup::<Ball>("player", Duration::from_secs(30))
        .expect("find the remote player");
    let (tx, rx) = crossbeam_channel::bounded(1);
    let me = spawn(
        rt.handle(),
        Player {
            last: hits,
            done: Some(tx),
        },
    );
    let t = Instant::now();
    remote.tell(Ball { hits: 0, from: me }).unwrap();
    let n = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("the rally ended");
    let dt = t.elapsed();
    println!(
        "{n} hits between two processes in {dt:?} ({:.1} us per round trip)",
        dt.as_secs_f64() * 1e6 / (n as f64 / 2.0)
    );
    drop(child);
}
