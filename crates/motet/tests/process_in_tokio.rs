//! Processes awaiting tokio: a timer and a TCP connection through `in_tokio`, and a tokio task's
//! `JoinHandle` as it is.

use std::time::Duration;

use motet::process::{channel, in_tokio, ProcessSystem};
use motet::Runtime;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const GUARD: Duration = Duration::from_secs(60);

fn tokio_rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_process_sleeps_on_a_tokio_timer() {
    let tokio = tokio_rt();
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let (out_tx, out_rx) = channel::unbounded();
    let handle = tokio.handle().clone();
    for i in 0..10u64 {
        let (handle, out_tx) = (handle.clone(), out_tx.clone());
        system.spawn(async move {
            // In an async block: `sleep` itself needs the context, not only its polls.
            in_tokio(&handle, async {
                tokio::time::sleep(Duration::from_millis(i)).await
            })
            .await;
            out_tx.send(i).unwrap();
        });
    }
    drop(out_tx);
    let mut got: Vec<u64> = out_rx.into_iter().collect();
    got.sort();
    assert_eq!(got, (0..10).collect::<Vec<_>>());
    system.wait().unwrap();
}

#[test]
fn a_process_talks_tcp_to_a_tokio_echo_server() {
    let tokio = tokio_rt();
    let listener = tokio
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    // The server: a tokio task echoing each line in upper case.
    tokio.spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let (read, mut write) = socket.into_split();
        let mut lines = BufReader::new(read).lines();
        while let Some(line) = lines.next_line().await.unwrap() {
            write
                .write_all(format!("{}\n", line.to_uppercase()).as_bytes())
                .await
                .unwrap();
        }
    });
    // The client: a process, its socket driven by tokio's reactor.
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let (out_tx, out_rx) = channel::unbounded::<String>();
    let handle = tokio.handle().clone();
    system.spawn(in_tokio(&handle.clone(), async move {
        let socket = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (read, mut write) = socket.into_split();
        let mut lines = BufReader::new(read).lines();
        for word in ["motet", "tokio"] {
            write
                .write_all(format!("{word}\n").as_bytes())
                .await
                .unwrap();
            out_tx
                .send(lines.next_line().await.unwrap().unwrap())
                .unwrap();
        }
    }));
    assert_eq!(out_rx.recv_blocking_timeout(GUARD).unwrap(), "MOTET");
    assert_eq!(out_rx.recv_blocking_timeout(GUARD).unwrap(), "TOKIO");
    system.wait().unwrap();
}

#[test]
fn a_process_awaits_a_tokio_task() {
    let tokio = tokio_rt();
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let (out_tx, out_rx) = channel::unbounded();
    let handle = tokio.handle().clone();
    system.spawn(async move {
        // No feature needed: the task runs on tokio, its `JoinHandle` wakes the process.
        let task = handle.spawn(async {
            tokio::time::sleep(Duration::from_millis(2)).await;
            42
        });
        out_tx.send(task.await.unwrap()).unwrap();
    });
    assert_eq!(out_rx.recv_blocking_timeout(GUARD), Ok(42));
    system.wait().unwrap();
}
