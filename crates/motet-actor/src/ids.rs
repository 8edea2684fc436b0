//! Actor ids: handed out from per-thread blocks so that spawning does not contend on one counter.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::exit::ActorId;

const BLOCK: u64 = 1024;
static NEXT_BLOCK: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static RANGE: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// A fresh, process-unique id.
pub(crate) fn next_id() -> ActorId {
    RANGE.with(|r| {
        let (mut next, mut end) = r.get();
        if next == end {
            next = NEXT_BLOCK.fetch_add(BLOCK, Ordering::Relaxed);
            end = next + BLOCK;
        }
        r.set((next + 1, end));
        ActorId(next)
    })
}
