//! Helpers shared by the multi-process tests, the test node binary and the examples: the messages
//! of the test actors, the actors, and child-process handling on loopback.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use motet_actor::{Actor, Addr, Context, Down};
use serde::{Deserialize, Serialize};

use crate::{RemoteMsg, RemoteReply};

/// Messages of the echo actor.
#[derive(Debug, Serialize, Deserialize)]
pub enum Echo {
    /// Answer with the number.
    Ping(u64, RemoteReply<u64>),
    /// Keep the reply handle and never answer (an ask that stays pending).
    Hold(RemoteReply<u64>),
    /// Stop with `Error(reason)`.
    Fail(String),
    /// Send `Pong(n)` to the address given.
    PingTo(u64, #[serde(with = "crate::addr")] Addr<u64>),
    /// Send `0..n` to the address given, then stop with `Error("burst")`.
    Burst(u64, #[serde(with = "crate::addr")] Addr<u64>),
}

impl RemoteMsg for Echo {
    const NAME: &'static str = "motet_remote::testing::Echo";
}

/// The echo actor.
#[derive(Default)]
pub struct EchoActor {
    held: Vec<RemoteReply<u64>>,
}

impl Actor for EchoActor {
    type Msg = Echo;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Echo) {
        match msg {
            Echo::Ping(n, reply) => {
                let _ = reply.send(n);
            }
            Echo::Hold(reply) => self.held.push(reply),
            Echo::Fail(reason) => ctx.stop_with(motet_actor::ExitReason::Error(reason.into())),
            Echo::PingTo(n, to) => {
                let _ = to.tell(n);
            }
            Echo::Burst(n, to) => {
                for i in 0..n {
                    let _ = to.tell(i);
                }
                ctx.stop_with(motet_actor::ExitReason::Error("burst".into()));
            }
        }
    }
}

/// Messages of the sink, which checks that numbered items arrive complete and in order.
#[derive(Debug, Serialize, Deserialize)]
pub enum Sink {
    /// The next item; must be one more than the previous one (starting at 0).
    Item(u64),
    /// Answers `[received, in_order as 0/1]`.
    Report(RemoteReply<Vec<u64>>),
}

impl RemoteMsg for Sink {
    const NAME: &'static str = "motet_remote::testing::Sink";
}

impl RemoteMsg for Vec<u64> {
    const NAME: &'static str = "Vec<u64>";
}

/// The sink actor.
#[derive(Default)]
pub struct SinkActor {
    received: u64,
    in_order: bool,
}

impl SinkActor {
    /// A sink expecting item 0 first.
    pub fn new() -> SinkActor {
        SinkActor {
            received: 0,
            in_order: true,
        }
    }
}

impl Actor for SinkActor {
    type Msg = Sink;
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: Sink) {
        match msg {
            Sink::Item(n) => {
                if n != self.received {
                    self.in_order = false;
                }
                self.received += 1;
            }
            Sink::Report(reply) => {
                let _ = reply.send(vec![self.received, u64::from(self.in_order)]);
            }
        }
    }
}

/// Monitors one actor and forwards its [`Down`] to a channel.
pub struct Watcher<M: Send + 'static> {
    target: Addr<M>,
    downs: crossbeam_channel::Sender<Down>,
}

impl<M: Send + 'static> Watcher<M> {
    /// A watcher of `target` reporting to `downs`.
    pub fn new(target: Addr<M>, downs: crossbeam_channel::Sender<Down>) -> Self {
        Watcher { target, downs }
    }
}

impl<M: Send + 'static> Actor for Watcher<M> {
    type Msg = ();
    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        ctx.monitor(&self.target);
    }
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, _msg: ()) {}
    fn on_down(&mut self, _ctx: &mut Context<'_, Self>, down: Down) {
        let _ = self.downs.send(down);
    }
}

/// A free TCP port on 127.0.0.1 (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// A child process killed (SIGKILL, by PID) and reaped when dropped.
pub struct ChildGuard {
    child: Child,
    lines: crossbeam_channel::Receiver<String>,
}

impl ChildGuard {
    /// Starts `program args…` with piped stdin/stdout; stdout lines become readable with
    /// [`ChildGuard::expect_line`].
    pub fn spawn(program: &std::path::Path, args: &[String]) -> std::io::Result<ChildGuard> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = crossbeam_channel::unbounded();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(ChildGuard { child, lines: rx })
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits (bounded) for a stdout line starting with `prefix`; returns the rest of it.
    pub fn expect_line(&self, prefix: &str, timeout: Duration) -> Option<String> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(rest) = line.strip_prefix(prefix) {
                        return Some(rest.trim().to_owned());
                    }
                }
                Err(_) => return None,
            }
        }
    }

    /// Sends a signal by name (`"STOP"`, `"CONT"`, `"KILL"`) to the child, by PID.
    pub fn signal(&self, name: &str) -> bool {
        let pid = self.child.id();
        // The `kill` program keeps this crate free of unsafe code.
        Command::new("kill")
            .arg(format!("-{name}"))
            .arg(pid.to_string())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
