//! A node process for motet-remote's multi-process tests: publishes an echo actor and a sink,
//! prints `READY <node>` and runs until its stdin closes (or it is killed).
//!
//! `motet-remote-testnode --listen PORT [--connect PORT] [--lease MS] [--ns NAMESPACE]`

use std::io::Read;
use std::time::Duration;

use motet_actor::spawn;
use motet_remote::testing::{EchoActor, SinkActor};
use motet_remote::{Node, NodeConfig};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let mut config = NodeConfig::new().namespace(&arg("--ns").unwrap_or_else(|| "test".into()));
    if let Some(p) = arg("--listen") {
        config = config.listen(&format!("tcp/127.0.0.1:{p}"));
    }
    if let Some(p) = arg("--connect") {
        config = config.connect(&format!("tcp/127.0.0.1:{p}"));
    }
    if let Some(ms) = arg("--lease").and_then(|s| s.parse().ok()) {
        config = config.lease(Duration::from_millis(ms));
    }
    let rt = motet_runtime::Runtime::builder()
        .workers(2)
        .build()
        .expect("runtime");
    let node = match Node::start(rt.handle(), config) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let echo = spawn(rt.handle(), EchoActor::default());
    let sink = spawn(rt.handle(), SinkActor::new());
    node.publish("echo", &echo).expect("publish echo");
    node.publish("sink", &sink).expect("publish sink");
    println!("READY {}", node.id().key_chunk());
    // Runs until the parent closes stdin (or kills this process).
    let mut buf = [0u8; 64];
    while matches!(std::io::stdin().read(&mut buf), Ok(n) if n > 0) {}
    node.close();
}
