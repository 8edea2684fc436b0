//! Processes and channels after Effpi: a ping-pong that passes its reply channel (pi-calculus
//! mobility), a select with a timeout, a session-typed exchange, and a process talking to a motet
//! actor. `cargo run -p motet --example processes`.

use std::time::Duration;

use motet::actor::{spawn, Actor, Context, Reply};
use motet::process::session::{session, End, Recv, Send};
use motet::process::{channel, ProcessSystem, Select};
use motet::Runtime;

/// A motet actor that keeps a running total.
struct Total(u64);

impl Actor for Total {
    type Msg = (u64, Reply<u64>);
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, (n, reply): (u64, Reply<u64>)) {
        self.0 += n;
        let _ = reply.send(self.0);
    }
}

fn main() {
    let rt = Runtime::builder().workers(2).build().expect("runtime");
    let system = ProcessSystem::new(rt.handle());

    // Ping-pong: each ping carries the channel its pong goes back on.
    let (pong_tx, pong_rx) = channel::unbounded::<(u32, channel::Sender<u32>)>();
    system.spawn(async move {
        while let Ok((n, reply)) = pong_rx.recv().await {
            let _ = reply.send(n);
        }
    });
    let (done_tx, done_rx) = channel::unbounded::<String>();
    let done = done_tx.clone();
    system.spawn(async move {
        let (me, replies) = channel::unbounded();
        for round in 0..1_000 {
            pong_tx.send((round, me.clone())).unwrap();
            assert_eq!(replies.recv().await, Ok(round));
        }
        done.send("ping-pong: 1,000 round trips".into()).unwrap();
    });
    println!("{}", done_rx.recv_blocking().unwrap());

    // A select over two channels with a timeout: nothing arrives, so the timeout wins.
    let (_quiet_tx, quiet) = channel::unbounded::<u32>();
    let (_silent_tx, silent) = channel::unbounded::<&str>();
    let outcome = system
        .block_on(async {
            Select::new()
                .recv(&quiet, |n| format!("number {n:?}"))
                .recv(&silent, |s| format!("word {s:?}"))
                .timeout(Duration::from_millis(20), || {
                    "select: timed out after 20 ms".to_string()
                })
                .await
        })
        .unwrap();
    println!("{outcome}");

    // A session: the protocol is in the types, and the dual is computed.
    let (server, client) = session::<Recv<String, Send<usize, End>>>();
    system.spawn(async move {
        let (word, server) = server.recv().await.unwrap();
        server.send(word.len()).unwrap().close();
    });
    let len = system
        .block_on(async move {
            let client = client.send("motet".to_string()).unwrap();
            let (len, end) = client.recv().await.unwrap();
            end.close();
            len
        })
        .unwrap();
    println!("session: the server measured {len} letters");

    // A process asks a motet actor and waits for the answer without blocking its worker.
    let total = spawn(rt.handle(), Total(0));
    system.spawn(async move {
        let mut last = 0;
        for n in 1..=10 {
            last = total
                .ask(|reply| (n, reply), Duration::from_secs(5))
                .await
                .unwrap();
        }
        done_tx
            .send(format!("actor interop: the total is {last}"))
            .unwrap();
    });
    println!("{}", done_rx.recv_blocking().unwrap());

    // Every process has finished; the pong process ended when its last sender was dropped.
    system.wait().expect("all processes finish");
}
