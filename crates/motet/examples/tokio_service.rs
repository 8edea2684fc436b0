//! motet inside a tokio service: a TCP server on tokio whose connections ask a motet actor.
//!
//! Each line a client sends is a word; the `Tally` actor (on motet's runtime) counts the words it
//! has seen, and the connection's tokio task writes back `word: count`.
//!
//! `cargo run -p motet --example tokio_service --features tokio` serves on a free port of
//! 127.0.0.1, runs a client against it, prints the replies and exits;
//! `cargo run -p motet --example tokio_service --features tokio -- 127.0.0.1:7878` serves until
//! interrupted (try `nc 127.0.0.1 7878`).

use std::collections::HashMap;
use std::time::Duration;

use motet::actor::{spawn, Actor, Addr, Context, Reply};
use motet::Runtime;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// How long a connection waits for the actor's answer.
const ASK_TIMEOUT: Duration = Duration::from_secs(5);

/// Counts the words it is told about.
#[derive(Default)]
struct Tally(HashMap<String, u64>);

/// A word seen, and where to answer with its count so far.
struct Seen(String, Reply<u64>);

impl Actor for Tally {
    type Msg = Seen;
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, Seen(word, reply): Seen) {
        let count = self.0.entry(word).or_default();
        *count += 1;
        let _ = reply.send(*count);
    }
}

/// Accepts connections for ever, one tokio task each.
async fn serve(listener: TcpListener, tally: Addr<Seen>) -> std::io::Result<()> {
    loop {
        let (socket, _) = listener.accept().await?;
        let tally = tally.clone();
        tokio::spawn(async move {
            if let Err(e) = connection(socket, tally).await {
                eprintln!("connection: {e}");
            }
        });
    }
}

/// Answers each line of one connection by asking the actor.
async fn connection(socket: TcpStream, tally: Addr<Seen>) -> std::io::Result<()> {
    let (read, mut write) = socket.into_split();
    let mut lines = BufReader::new(read).lines();
    while let Some(word) = lines.next_line().await? {
        let reply = match tally.ask(|r| Seen(word.clone(), r), ASK_TIMEOUT).await {
            Ok(count) => format!("{word}: {count}\n"),
            Err(e) => format!("{word}: {e}\n"),
        };
        write.write_all(reply.as_bytes()).await?;
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let motet = Runtime::new()?;
    let tally = spawn(motet.handle(), Tally::default());
    let serve_only = std::env::args().nth(1);
    let listener = TcpListener::bind(serve_only.as_deref().unwrap_or("127.0.0.1:0")).await?;
    let addr = listener.local_addr()?;
    println!("serving on {addr}");
    let server = tokio::spawn(serve(listener, tally));
    if serve_only.is_some() {
        return Ok(server.await??);
    }
    // The client: three words, one of them twice.
    let socket = TcpStream::connect(addr).await?;
    let (read, mut write) = socket.into_split();
    let mut lines = BufReader::new(read).lines();
    for word in ["motet", "tokio", "motet"] {
        write.write_all(format!("{word}\n").as_bytes()).await?;
        let answer = lines.next_line().await?.ok_or("the server closed")?;
        println!("{answer}");
    }
    server.abort();
    Ok(())
}
