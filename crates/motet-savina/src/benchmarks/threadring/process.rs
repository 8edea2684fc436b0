//! Thread Ring as motet processes: `n` processes, process i reading channel i and sending into
//! channel (i+1) mod n. As SPEC.md's actors get `Data(next)`, each process first reads the sending
//! end of its successor's channel from its own channel (channels are values, Effpi's way).
//! `process-tuned` hands each process that sending end when it is spawned instead, with no `Data`
//! message (deviation `channels-at-spawn`). The token and the exit wave follow SPEC.md:
//! `Ping(k)` is forwarded as `Ping(k−1)` until it reaches 0, whose holder starts `Exit(n)`; a
//! process forwards `Exit(e−1)` if e > 0 and ends. The one process that would get a second `Exit`
//! has ended: that send finds its channel closed and is dropped. A builder process makes the ring
//! and injects the token, as the benchmark's main process.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_process::channel::{self, Receiver, Sender};
use motet_process::ProcessSystem;

use super::{check, Config, Counts};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::ResultSlot;
use crate::params::Params;
use crate::process_support;

/// Builds the runtime and the process system; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    process_support::prepare(Config::from_params(params)?, threads, run::<false>)
}

/// Builds the runtime and the process system for the tuned program (channels at spawn).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    process_support::prepare(Config::from_params(params)?, threads, run::<true>)
}

/// What travels around the ring.
enum RingMsg {
    /// The sending end of the successor's channel (SPEC.md's `Data(next)`).
    Data(Sender<RingMsg>),
    /// The token, with the passes left.
    Ping(u64),
    /// The exit wave, with the exits left to forward.
    Exit(usize),
}

/// A member of the ring.
struct Member {
    index: usize,
    n: usize,
    inbox: Receiver<RingMsg>,
    /// The successor's channel: from `Data`, or given at spawn in the tuned program.
    next: Option<Sender<RingMsg>>,
    zero_at: ResultSlot<usize>,
    totals: Arc<Totals>,
}

/// What the members add up as they end: the pings they handled, and how many ended on an exit.
#[derive(Default)]
struct Totals {
    pings: AtomicU64,
    exits: AtomicU64,
}

impl Member {
    /// The member's process. An `async` block that borrows the captured member, not an `async fn`:
    /// an `async fn` moves its arguments into its body's locals, so its future keeps the member
    /// twice (160 bytes against 112), and the process's block grows by a cache line's worth.
    #[allow(clippy::manual_async_fn)] // on purpose: the `async fn` form is the larger future
    fn run(mut self) -> impl Future<Output = ()> + Send + 'static {
        async move {
            // Pings handled; added to the totals on the exit, which reaches each member after
            // every ping sent to it.
            let mut pings = 0;
            while let Ok(msg) = self.inbox.recv().await {
                match msg {
                    RingMsg::Data(next) => self.next = Some(next),
                    RingMsg::Ping(k) if k > 0 => {
                        pings += 1;
                        self.send(RingMsg::Ping(k - 1));
                    }
                    RingMsg::Ping(_) => {
                        pings += 1;
                        self.zero_at.set(self.index);
                        self.send(RingMsg::Exit(self.n));
                    }
                    RingMsg::Exit(e) => {
                        if e > 0 {
                            self.send(RingMsg::Exit(e - 1));
                        }
                        self.totals.pings.fetch_add(pings, Ordering::Relaxed);
                        self.totals.exits.fetch_add(1, Ordering::Relaxed);
                        return;
                    }
                }
            }
        }
    }
}

impl Member {
    /// Sends `msg` to the successor (known once `Data` has come: it is the first message).
    fn send(&self, msg: RingMsg) {
        if let Some(next) = &self.next {
            let _ = next.send(msg);
        }
    }
}

/// The ring's builder, as the benchmark's main process: creates the channels and the members,
/// sends each member its successor's channel (`Data`) unless `at_spawn` gave it already, then
/// injects the token. It runs on a worker, so the ring's processes and channels are allocated
/// on the worker threads that later free them (an allocator's thread-local free path), instead of
/// on the harness thread.
async fn build_ring(
    system: ProcessSystem,
    cfg: Config,
    zero_at: ResultSlot<usize>,
    totals: Arc<Totals>,
    at_spawn: bool,
) {
    let Config { n, r } = cfg;
    let (senders, inboxes): (Vec<_>, Vec<_>) = (0..n).map(|_| channel::unbounded()).unzip();
    for (index, inbox) in inboxes.into_iter().enumerate() {
        let member = Member {
            index,
            n,
            inbox,
            next: at_spawn.then(|| senders[(index + 1) % n].clone()),
            zero_at: zero_at.clone(),
            totals: totals.clone(),
        };
        system.spawn(member.run());
    }
    if !at_spawn {
        for (index, sender) in senders.iter().enumerate() {
            let _ = sender.send(RingMsg::Data(senders[(index + 1) % n].clone()));
        }
    }
    let _ = senders[0].send(RingMsg::Ping(r));
}

/// One timed iteration: spawns the ring's builder, waits for every process and checks where the
/// zero ping arrived, the pings handled and the exits.
fn run<const AT_SPAWN: bool>(cfg: &Config, system: &ProcessSystem) -> Outcome {
    let zero_at = ResultSlot::new();
    let totals = Arc::new(Totals::default());
    system.spawn(build_ring(
        system.clone(),
        *cfg,
        zero_at.clone(),
        totals.clone(),
        AT_SPAWN,
    ));
    process_support::finish(system, || {
        let counts = Counts {
            zero_at: zero_at.take(),
            pings: totals.pings.load(Ordering::Relaxed),
            exits: Some(totals.exits.load(Ordering::Relaxed)),
        };
        check(*cfg, counts)
    })
}
