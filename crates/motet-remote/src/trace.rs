//! Per-hop timing of a strictly serial exchange (the bench's ping-pong), compiled only with the
//! `hop-trace` feature, to see which hand-over costs what.
//!
//! Each [`mark`] records the time since the previous mark of this process, under the point that
//! ends the hop. With one message in flight at a time, the hops of one round trip follow each
//! other: on the asking side `Asked` (before `ask`), `ProxyTurn` (the proxy forwards the message,
//! on the sending thread: its turn on a worker before proxies forwarded, hence the name),
//! `Queued` (the frame is on the outbound queue), `Drained` (the drain thread took it), `Put`
//! (Zenoh's `put` returned), then `Received` (the inbox callback ran: the remote side and the wire)
//! and `Delivered` (the reply completed the ask), `Answered` (the asking thread woke). On the
//! answering side the same points name the answer's hops; its `Received` covers its idle time.
//! The first [`CAP`] hops per point are kept.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// Where a hop ends.
#[derive(Clone, Copy, Debug)]
pub enum Point {
    /// A thread is about to ask or tell (marked by the caller).
    Asked,
    /// A proxy began forwarding a message, on the sending thread (it was the proxy's turn on a
    /// worker before proxies forwarded; the name stays for the traces recorded then).
    ProxyTurn,
    /// A frame was pushed onto the outbound queue.
    Queued,
    /// The drain thread took a frame off the queue.
    Drained,
    /// Zenoh's `put` returned.
    Put,
    /// The inbox subscriber's callback started.
    Received,
    /// The frame was delivered into a mailbox or completed an ask.
    Delivered,
    /// The asking thread has the answer (marked by the caller).
    Answered,
}

const NAMES: [&str; 8] = [
    "asked",
    "proxy turn",
    "queued",
    "drained",
    "put",
    "received",
    "delivered",
    "answered",
];

/// Hops kept per point: the bench's warm-up and measured round trips at its default counts.
pub const CAP: usize = 11_000;

static LAST: AtomicU64 = AtomicU64::new(0);
static HOPS: [Mutex<Vec<u64>>; 8] = [const { Mutex::new(Vec::new()) }; 8];

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// Records the time since the previous mark under `point`.
pub fn mark(point: Point) {
    let now = now_ns();
    let prev = LAST.swap(now, Ordering::Relaxed);
    if prev == 0 {
        return;
    }
    let mut hops = HOPS[point as usize]
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if hops.len() < CAP {
        hops.push(now.saturating_sub(prev));
    }
}

/// One line per point that has hops: count, median and mean in microseconds.
pub fn report() -> String {
    let mut out = String::new();
    for (i, name) in NAMES.iter().enumerate() {
        let mut hops = HOPS[i].lock().unwrap_or_else(|e| e.into_inner()).clone();
        if hops.is_empty() {
            continue;
        }
        hops.sort_unstable();
        let mean = hops.iter().sum::<u64>() as f64 / hops.len() as f64;
        out.push_str(&format!(
            "  {name:>10}: n={:>5} p50={:>8.1} us mean={:>8.1} us\n",
            hops.len(),
            hops[hops.len() / 2] as f64 / 1000.0,
            mean / 1000.0
        ));
    }
    out
}

/// How many hops are kept under `point` (at most [`CAP`]).
pub fn count(point: Point) -> usize {
    HOPS[point as usize]
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .len()
}
