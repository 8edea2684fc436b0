//! Remote messaging between two processes on loopback: ping-pong round-trip time (p50/p99 over
//! 10,000 round trips after 1,000 warm-up ones) and a one-way stream of 1,000,000 small messages,
//! for motet remote actors, raw Zenoh put/subscribe with the same session settings, tokio TCP
//! with postcard frames, and CAF 0.17 remote actors (libcaf_io's `publish`/`remote_actor`). Each
//! system runs against a child process this program starts.
//!
//! `cargo run --release -p motet-remote --example remote_bench -- [--json FILE] [--rtt N]
//! [--stream N] [--systems motet,zenoh,tcp,caf]`
//!
//! The CAF side is `bench/caf/caf_bench.cpp`, compiled here with `g++ -O2` against Debian's
//! `libcaf-dev` (0.17) when `caf` is among the systems; without g++ or the CAF headers, `caf` is
//! skipped with a message and the other systems still run.
//!
//! With `--features hop-trace`, both motet sides print where the ping-pong's time goes (see
//! `motet_remote::trace`).
//!
//! Prints one JSON record per system (and appends it to FILE):
//! `{"system", "rtt_p50_us", "rtt_p99_us", "msgs_per_s", "messages_checked"}`.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use motet_actor::spawn;
use motet_remote::testing::{free_port, ChildGuard, Echo, EchoActor, Sink, SinkActor};
use motet_remote::{Node, NodeConfig, RemoteReply};
use serde::{Deserialize, Serialize};
use zenoh::qos::CongestionControl;
use zenoh::Wait;

const WARMUP: usize = 1_000;
const LONG: Duration = Duration::from_secs(60);

fn arg(args: &[String], flag: &str) -> Option<String> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(role) = arg(&args, "--serve") {
        let port: u16 = arg(&args, "--port")
            .and_then(|p| p.parse().ok())
            .expect("--port");
        let stream: u64 = arg(&args, "--stream")
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        match role.as_str() {
            "motet" => serve_motet(port),
            "zenoh" => serve_zenoh(port, stream),
            "tcp" => serve_tcp(port),
            other => panic!("unknown system {other}"),
        }
        return;
    }
    let rtt_n: usize = arg(&args, "--rtt")
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let stream_n: u64 = arg(&args, "--stream")
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let systems = arg(&args, "--systems").unwrap_or_else(|| "motet,zenoh,tcp,caf".into());
    let json = arg(&args, "--json");
    let exe = std::env::current_exe().expect("own path");
    for system in systems.split(',') {
        let port = free_port();
        if system == "caf" {
            match caf::bench(&exe, port, WARMUP, rtt_n, stream_n) {
                Ok((rtts, rate, checked)) => report(system, rtts, rate, checked, json.as_deref()),
                Err(why) => eprintln!("caf skipped: {why}"),
            }
            continue;
        }
        let child = ChildGuard::spawn(
            &exe,
            &[
                "--serve".into(),
                system.into(),
                "--port".into(),
                port.to_string(),
                "--stream".into(),
                stream_n.to_string(),
            ],
        )
        .expect("start the server process");
        child
            .expect_line("READY", LONG)
            .expect("the server process is ready");
        let (rtts, rate, checked) = match system {
            "motet" => bench_motet(port, rtt_n, stream_n),
            "zenoh" => bench_zenoh(port, rtt_n, stream_n),
            "tcp" => bench_tcp(port, rtt_n, stream_n),
            other => panic!("unknown system {other}"),
        };
        drop(child);
        report(system, rtts, rate, checked, json.as_deref());
    }
}

/// Prints one system's record and appends it to the JSON file, if any.
fn report(system: &str, mut rtts: Vec<u64>, rate: f64, checked: bool, json: Option<&str>) {
    rtts.sort_unstable();
    let pct = |p: f64| rtts[((rtts.len() as f64 * p) as usize).min(rtts.len() - 1)];
    let record = format!(
        "{{\"system\": \"{system}\", \"rtt_p50_us\": {:.1}, \"rtt_p99_us\": {:.1}, \"msgs_per_s\": {:.0}, \"messages_checked\": {checked}}}",
        pct(0.50) as f64 / 1000.0,
        pct(0.99) as f64 / 1000.0,
        rate
    );
    println!("{record}");
    if let Some(path) = json {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("open the JSON file");
        writeln!(f, "{record}").expect("write the JSON file");
    }
}

#[path = "../bench/caf/caf.rs"]
mod caf;

fn ready() {
    println!("READY");
    std::io::stdout().flush().ok();
}

fn wait_for_stdin_close() {
    use std::io::Read;
    let mut buf = [0u8; 64];
    while matches!(std::io::stdin().read(&mut buf), Ok(n) if n > 0) {}
}

// --- motet -------------------------------------------------------------------------------------

fn serve_motet(port: u16) {
    let rt = motet_runtime::Runtime::builder()
        .workers(2)
        .build()
        .unwrap();
    let node = Node::start(
        rt.handle(),
        NodeConfig::new()
            .namespace("bench")
            .listen(&format!("tcp/127.0.0.1:{port}")),
    )
    .expect("node");
    node.publish("echo", &spawn(rt.handle(), EchoActor::default()))
        .unwrap();
    node.publish("sink", &spawn(rt.handle(), SinkActor::new()))
        .unwrap();
    #[cfg(feature = "hop-trace")]
    std::thread::spawn(|| {
        use motet_remote::trace;
        while trace::count(trace::Point::Put) < trace::CAP {
            std::thread::sleep(Duration::from_millis(50));
        }
        eprintln!("hops of the answering node:\n{}", trace::report());
    });
    ready();
    wait_for_stdin_close();
}

fn bench_motet(port: u16, rtt_n: usize, stream_n: u64) -> (Vec<u64>, f64, bool) {
    let rt = motet_runtime::Runtime::builder()
        .workers(2)
        .build()
        .unwrap();
    let node = Node::start(
        rt.handle(),
        NodeConfig::new()
            .namespace("bench")
            .connect(&format!("tcp/127.0.0.1:{port}")),
    )
    .expect("node");
    let echo = node.lookup::<Echo>("echo", LONG).expect("lookup echo");
    let mut rtts = Vec::with_capacity(rtt_n);
    let mut checked = true;
    for i in 0..(WARMUP + rtt_n) as u64 {
        let t = Instant::now();
        #[cfg(feature = "hop-trace")]
        motet_remote::trace::mark(motet_remote::trace::Point::Asked);
        let got = echo
            .ask(|r| Echo::Ping(i, RemoteReply::from(r)), LONG)
            .wait();
        #[cfg(feature = "hop-trace")]
        motet_remote::trace::mark(motet_remote::trace::Point::Answered);
        if i >= WARMUP as u64 {
            rtts.push(t.elapsed().as_nanos() as u64);
        }
        checked &= got == Ok(i);
    }
    #[cfg(feature = "hop-trace")]
    eprintln!(
        "hops of the asking node:\n{}",
        motet_remote::trace::report()
    );
    let sink = node.lookup::<Sink>("sink", LONG).expect("lookup sink");
    let t = Instant::now();
    for i in 0..stream_n {
        let _ = sink.tell(Sink::Item(i));
        if i % 8192 == 0 {
            node.wait_writable(LONG);
        }
    }
    let report = sink
        .ask(|r| Sink::Report(RemoteReply::from(r)), LONG)
        .wait();
    let rate = stream_n as f64 / t.elapsed().as_secs_f64();
    checked &= report == Ok(vec![stream_n, 1]);
    (rtts, rate, checked)
}

// --- raw Zenoh ---------------------------------------------------------------------------------

fn zenoh_session(listen: Option<u16>, connect: Option<u16>) -> zenoh::Session {
    let mut c = zenoh::Config::default();
    c.insert_json5("mode", "\"peer\"").unwrap();
    c.insert_json5("scouting/multicast/enabled", "false")
        .unwrap();
    if let Some(p) = listen {
        c.insert_json5("listen/endpoints", &format!("[\"tcp/127.0.0.1:{p}\"]"))
            .unwrap();
    }
    if let Some(p) = connect {
        c.insert_json5("connect/endpoints", &format!("[\"tcp/127.0.0.1:{p}\"]"))
            .unwrap();
    }
    zenoh::open(c).wait().expect("zenoh session")
}

fn serve_zenoh(port: u16, stream_n: u64) {
    let s = zenoh_session(Some(port), None);
    let pong = s
        .declare_publisher("bench/pong")
        .congestion_control(CongestionControl::Block)
        .express(true)
        .wait()
        .unwrap();
    let _ping = s
        .declare_subscriber("bench/ping")
        .callback(move |sample| {
            let _ = pong.put(sample.payload().clone()).wait();
        })
        .wait()
        .unwrap();
    let done = s
        .declare_publisher("bench/done")
        .congestion_control(CongestionControl::Block)
        .wait()
        .unwrap();
    let next = AtomicU64::new(0);
    let ok = AtomicU64::new(1);
    let _stream = s
        .declare_subscriber("bench/stream")
        .callback(move |sample| {
            let v: u64 = postcard::from_bytes(&sample.payload().to_bytes()).unwrap_or(u64::MAX);
            let n = next.fetch_add(1, Ordering::Relaxed);
            if v != n {
                ok.store(0, Ordering::Relaxed);
            }
            if n + 1 == stream_n {
                let bytes = postcard::to_stdvec(&(n + 1, ok.load(Ordering::Relaxed))).unwrap();
                let _ = done.put(bytes).wait();
            }
        })
        .wait()
        .unwrap();
    ready();
    wait_for_stdin_close();
}

fn bench_zenoh(port: u16, rtt_n: usize, stream_n: u64) -> (Vec<u64>, f64, bool) {
    let s = zenoh_session(None, Some(port));
    let (tx, rx) = crossbeam_channel::unbounded::<u64>();
    let _pong = s
        .declare_subscriber("bench/pong")
        .callback(move |sample| {
            let v: u64 = postcard::from_bytes(&sample.payload().to_bytes()).unwrap_or(u64::MAX);
            let _ = tx.send(v);
        })
        .wait()
        .unwrap();
    let (dtx, drx) = crossbeam_channel::unbounded::<(u64, u64)>();
    let _done = s
        .declare_subscriber("bench/done")
        .callback(move |sample| {
            if let Ok(v) = postcard::from_bytes(&sample.payload().to_bytes()) {
                let _ = dtx.send(v);
            }
        })
        .wait()
        .unwrap();
    let ping = s
        .declare_publisher("bench/ping")
        .congestion_control(CongestionControl::Block)
        .express(true)
        .wait()
        .unwrap();
    // Wait until the pong side is reachable (declarations propagate after connecting).
    let deadline = Instant::now() + LONG;
    loop {
        ping.put(postcard::to_stdvec(&u64::MAX).unwrap())
            .wait()
            .unwrap();
        if rx.recv_timeout(Duration::from_millis(100)).is_ok() {
            break;
        }
        assert!(Instant::now() < deadline, "no pong");
    }
    while rx.try_recv().is_ok() {}
    let mut rtts = Vec::with_capacity(rtt_n);
    let mut checked = true;
    for i in 0..(WARMUP + rtt_n) as u64 {
        let t = Instant::now();
        ping.put(postcard::to_stdvec(&i).unwrap()).wait().unwrap();
        let got = rx.recv_timeout(LONG);
        if i >= WARMUP as u64 {
            rtts.push(t.elapsed().as_nanos() as u64);
        }
        checked &= got == Ok(i);
    }
    let stream = s
        .declare_publisher("bench/stream")
        .congestion_control(CongestionControl::Block)
        .wait()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    for i in 0..stream_n {
        stream.put(postcard::to_stdvec(&i).unwrap()).wait().unwrap();
    }
    let report = drx.recv_timeout(LONG);
    let rate = stream_n as f64 / t.elapsed().as_secs_f64();
    checked &= report == Ok((stream_n, 1));
    (rtts, rate, checked)
}

// --- tokio TCP + postcard ----------------------------------------------------------------------

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum TcpMsg {
    Ping(u64),
    Item(u64),
    Done,
    Report(u64, bool),
}

async fn read_msg<R: tokio::io::AsyncReadExt + Unpin>(r: &mut R) -> Option<TcpMsg> {
    let len = r.read_u32_le().await.ok()? as usize;
    let mut buf = vec![0u8; len];
    r.read_exact(&mut buf).await.ok()?;
    postcard::from_bytes(&buf).ok()
}

async fn write_msg<W: tokio::io::AsyncWriteExt + Unpin>(w: &mut W, m: &TcpMsg) {
    let bytes = postcard::to_stdvec(m).unwrap();
    w.write_u32_le(bytes.len() as u32).await.unwrap();
    w.write_all(&bytes).await.unwrap();
}

fn serve_tcp(port: u16) {
    use tokio::io::AsyncWriteExt;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .unwrap();
        ready();
        tokio::spawn(async {
            tokio::task::spawn_blocking(wait_for_stdin_close).await.ok();
            std::process::exit(0);
        });
        loop {
            let (sock, _) = listener.accept().await.unwrap();
            sock.set_nodelay(true).ok();
            tokio::spawn(async move {
                let (r, w) = sock.into_split();
                let mut r = tokio::io::BufReader::new(r);
                let mut w = tokio::io::BufWriter::new(w);
                let (mut next, mut ok) = (0u64, true);
                while let Some(m) = read_msg(&mut r).await {
                    match m {
                        TcpMsg::Ping(n) => {
                            write_msg(&mut w, &TcpMsg::Ping(n)).await;
                            w.flush().await.unwrap();
                        }
                        TcpMsg::Item(n) => {
                            ok &= n == next;
                            next += 1;
                        }
                        TcpMsg::Done => {
                            write_msg(&mut w, &TcpMsg::Report(next, ok)).await;
                            w.flush().await.unwrap();
                        }
                        TcpMsg::Report(..) => {}
                    }
                }
            });
        }
    });
}

fn bench_tcp(port: u16, rtt_n: usize, stream_n: u64) -> (Vec<u64>, f64, bool) {
    use tokio::io::AsyncWriteExt;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let sock = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        sock.set_nodelay(true).ok();
        let (r, w) = sock.into_split();
        let mut r = tokio::io::BufReader::new(r);
        let mut w = tokio::io::BufWriter::new(w);
        let mut rtts = Vec::with_capacity(rtt_n);
        let mut checked = true;
        for i in 0..(WARMUP + rtt_n) as u64 {
            let t = Instant::now();
            write_msg(&mut w, &TcpMsg::Ping(i)).await;
            w.flush().await.unwrap();
            let got = read_msg(&mut r).await;
            if i >= WARMUP as u64 {
                rtts.push(t.elapsed().as_nanos() as u64);
            }
            checked &= got == Some(TcpMsg::Ping(i));
        }
        let t = Instant::now();
        for i in 0..stream_n {
            write_msg(&mut w, &TcpMsg::Item(i)).await;
        }
        write_msg(&mut w, &TcpMsg::Done).await;
        w.flush().await.unwrap();
        let report = read_msg(&mut r).await;
        let rate = stream_n as f64 / t.elapsed().as_secs_f64();
        checked &= report == Some(TcpMsg::Report(stream_n, true));
        (rtts, rate, checked)
    })
}
