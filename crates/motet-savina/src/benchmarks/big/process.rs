//! Big as motet processes: `w` processes, each reading its own channel, and a Sink process. The
//! channels are made first; as SPEC.md's actors get a `Neighbors` message, every process (the Sink
//! included) first reads the sending ends of all of them from its own channel (channels are
//! values). `process-tuned` gives them to each process when it is spawned instead (deviation
//! `channels-at-spawn`), so its message type has no `Neighbors` variant and is half the size. Then,
//! as in SPEC.md, every Big process gets `Pong(−1)`; on a pong it checks the sender, then pings a
//! neighbor drawn from its own LCG, or after `n` pings tells the Sink; on a ping it answers the
//! pinger. With `w` exits the Sink sends every Big process `Exit`.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use motet_process::channel::{self, Receiver, Sender};
use motet_process::ProcessSystem;

use super::{check, Config};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::ResultSlot;
use crate::params::Params;
use crate::process_support;
use crate::random::PseudoRandom;

/// Builds the runtime and the process system; `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    process_support::prepare(Config::from_params(params)?, threads, run::<Neighbors>)
}

/// Builds the runtime and the process system for the tuned program (channels at spawn).
pub(super) fn prepare_tuned(params: &Params, threads: usize) -> Prepared {
    process_support::prepare(Config::from_params(params)?, threads, run::<Infallible>)
}

/// What a Big process receives. `N` is what SPEC.md's `Neighbors` message carries: every Big
/// process's channel in the SPEC program ([`Neighbors`]); nothing in the tuned program
/// (`Infallible`: there is no such message), whose processes get the channels at spawn, so that
/// its messages are 8 bytes instead of 16.
enum BigMsg<N> {
    /// Every Big process's channel (SPEC.md's `Neighbors`).
    Neighbors(N),
    /// A ping from the Big process with this id.
    Ping(i32),
    /// A pong from the Big process with this id (−1: the start signal).
    Pong(i32),
    /// From the Sink: stop.
    Exit,
}

// The tuned program's message is an `i32` and a tag: the uninhabited variant takes no room.
const _: () = assert!(std::mem::size_of::<BigMsg<Infallible>>() == 8);

/// Every Big process's channel, indexed by id.
type Channels<N> = Arc<[Sender<BigMsg<N>>]>;

/// The SPEC program's `Neighbors` payload: every Big process's channel.
struct Neighbors(Channels<Neighbors>);

/// How a program gives its processes the channels: in a `Neighbors` message, or at spawn.
trait Wiring: Sized + Send + 'static {
    /// The `Neighbors` message's payload for `all`; `None` where the channels go at spawn.
    fn payload(all: &Channels<Self>) -> Option<Self>;
    /// The channels a payload carries.
    fn channels(self) -> Channels<Self>;
}

impl Wiring for Neighbors {
    fn payload(all: &Channels<Self>) -> Option<Self> {
        Some(Neighbors(all.clone()))
    }

    fn channels(self) -> Channels<Self> {
        self.0
    }
}

impl Wiring for Infallible {
    fn payload(_: &Channels<Self>) -> Option<Self> {
        None
    }

    fn channels(self) -> Channels<Self> {
        match self {}
    }
}

/// What the Sink receives.
enum SinkMsg<N> {
    /// Every Big process's channel (SPEC.md's `Neighbors`).
    Neighbors(N),
    /// A Big process has sent its `n` pings.
    Exit,
}

/// A Big process.
struct Big<N: Wiring> {
    id: i32,
    n: u64,
    inbox: Receiver<BigMsg<N>>,
    /// From `Neighbors`, or given at spawn in the tuned program.
    neighbors: Option<Channels<N>>,
    w: i32,
    sink: Sender<SinkMsg<N>>,
    totals: Arc<Totals>,
}

/// What the Big processes add up as they exit: the pings they answered and the pongs that came
/// from a neighbor other than the one pinged.
#[derive(Default)]
struct Totals {
    pings_handled: AtomicU64,
    unexpected: AtomicU64,
}

impl<N: Wiring> Big<N> {
    /// Sends `msg` to the Big process `to` (the neighbors come first, in `Neighbors`).
    #[inline]
    fn send(&self, to: i32, msg: BigMsg<N>) {
        if let Some(neighbors) = &self.neighbors {
            let _ = neighbors[to as usize].send(msg);
        }
    }

    async fn run(mut self) {
        let mut rng = PseudoRandom::new(self.id as i64);
        let (mut pings, mut exp_pinger) = (0, -1);
        let (mut pings_handled, mut unexpected) = (0, 0);
        let w = self.w;
        while let Ok(msg) = self.inbox.recv().await {
            match msg {
                BigMsg::Neighbors(all) => self.neighbors = Some(all.channels()),
                BigMsg::Ping(sender) => {
                    pings_handled += 1;
                    self.send(sender, BigMsg::Pong(self.id));
                }
                BigMsg::Pong(sender) => {
                    if sender != exp_pinger {
                        unexpected += 1;
                    }
                    if pings == self.n {
                        let _ = self.sink.send(SinkMsg::Exit);
                    } else {
                        let target = rng.next_int_below(w);
                        exp_pinger = target;
                        self.send(target, BigMsg::Ping(self.id));
                        pings += 1;
                    }
                }
                BigMsg::Exit => break,
            }
        }
        self.totals
            .pings_handled
            .fetch_add(pings_handled, Ordering::Relaxed);
        self.totals
            .unexpected
            .fetch_add(unexpected, Ordering::Relaxed);
    }
}

/// The Sink: counts `w` exits, then stops every Big process and records the count. Its
/// `neighbors` come at spawn or in `Neighbors`, first.
async fn sink<N: Wiring>(
    inbox: Receiver<SinkMsg<N>>,
    mut neighbors: Option<Channels<N>>,
    w: u64,
    result: ResultSlot<u64>,
) {
    let mut exits = 0;
    while exits < w {
        match inbox.recv().await {
            Ok(SinkMsg::Neighbors(all)) => neighbors = Some(all.channels()),
            Ok(SinkMsg::Exit) => exits += 1,
            Err(_) => break,
        }
    }
    for big in neighbors.iter().flat_map(|all| all.iter()) {
        let _ = big.send(BigMsg::Exit);
    }
    result.set(exits);
}

/// One timed iteration: creates the channels and the processes, sends every process the channels
/// (`Neighbors`) unless `N` gives them at spawn, sends the start pongs, waits for every process
/// and checks the exits, the pings answered and the pongs' senders.
fn run<N: Wiring>(cfg: &Config, system: &ProcessSystem) -> Outcome {
    let Config { n, w } = *cfg;
    let result = ResultSlot::new();
    let totals = Arc::new(Totals::default());
    let (inboxes, senders): (Vec<_>, Vec<_>) = (0..w)
        .map(|_| {
            let (tx, rx) = channel::unbounded();
            (rx, tx)
        })
        .unzip();
    let neighbors: Channels<N> = senders.into();
    let at_spawn = N::payload(&neighbors).is_none();
    let (sink_tx, sink_rx) = channel::unbounded();
    system.spawn(sink(
        sink_rx,
        at_spawn.then(|| neighbors.clone()),
        w as u64,
        result.clone(),
    ));
    for (id, inbox) in inboxes.into_iter().enumerate() {
        let big = Big {
            id: id as i32,
            n,
            inbox,
            neighbors: at_spawn.then(|| neighbors.clone()),
            w: w as i32,
            sink: sink_tx.clone(),
            totals: totals.clone(),
        };
        system.spawn(big.run());
    }
    for big in neighbors.iter() {
        if let Some(payload) = N::payload(&neighbors) {
            let _ = big.send(BigMsg::Neighbors(payload));
        }
    }
    if let Some(payload) = N::payload(&neighbors) {
        let _ = sink_tx.send(SinkMsg::Neighbors(payload));
    }
    drop(sink_tx);
    for big in neighbors.iter() {
        let _ = big.send(BigMsg::Pong(-1));
    }
    drop(neighbors);
    process_support::finish(system, || {
        check(
            *cfg,
            result.take().unwrap_or(0),
            totals.pings_handled.load(Ordering::Relaxed),
            totals.unexpected.load(Ordering::Relaxed),
        )
    })
}
