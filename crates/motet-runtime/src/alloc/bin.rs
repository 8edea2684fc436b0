//! A bin: the freed blocks of one size class, newest last.

use std::alloc::{dealloc, Layout};
use std::ptr::NonNull;

/// Freed blocks of one class, the newest last: a thread's bin, or a full bin on its way between
/// threads.
///
/// An array of pointers, not a list linked through the blocks: taking a block then reads the
/// array (one line per eight blocks, read in order), where a linked list reads the block itself,
/// a cache miss on every allocation that the next allocation's pop must wait for (a chain of
/// dependent misses through a burst of spawns).
///
/// A bin's capacity is its room: the configured number of blocks once the bin is open, 0 before
/// (and after its thread's cache is closed), so that `len < capacity` alone tells a free whether
/// the block can stay.
pub(crate) struct Bin(Vec<NonNull<u8>>);

// SAFETY: a bin's blocks are plain memory owned by whoever holds the bin (a thread's cache or the
// shared bins); no one else keeps a pointer to them.
unsafe impl Send for Bin {}

impl Bin {
    /// A bin with no room (not open).
    pub(crate) const EMPTY: Bin = Bin(Vec::new());

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// How many blocks the bin has room for: 0 until it is [opened](Bin::open).
    #[inline(always)]
    pub(crate) fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// Gives the bin room for `blocks` blocks in all.
    pub(crate) fn open(&mut self, blocks: usize) {
        self.0.reserve_exact(blocks.saturating_sub(self.0.len()));
    }

    /// Takes the newest block; with `prefetch` (the class's block size), asks the processor to
    /// fetch the lines of the block the next pop will take.
    #[inline(always)]
    pub(crate) fn pop(&mut self, prefetch: Option<usize>) -> Option<NonNull<u8>> {
        let block = self.0.pop()?;
        if let Some(size) = prefetch {
            if let Some(next) = self.0.last() {
                prefetch_lines(next.as_ptr(), size);
            }
        }
        Some(block)
    }

    /// Adds a freed block if the bin has room; false otherwise.
    #[inline(always)]
    pub(crate) fn try_push(&mut self, block: NonNull<u8>) -> bool {
        let len = self.0.len();
        if len < self.0.capacity() {
            // SAFETY: `len` is below the capacity, so the slot is inside the buffer; the slots
            // below `len + 1` are then initialised. (`Vec::push` would test for growth again.)
            unsafe {
                self.0.as_mut_ptr().add(len).write(block);
                self.0.set_len(len + 1);
            }
            true
        } else {
            false
        }
    }

    /// Frees every block to the allocator; the bin keeps its room.
    pub(crate) fn free_all(&mut self, layout: Layout) {
        for block in self.0.drain(..) {
            // SAFETY: every block of a bin was allocated with its class's layout, `layout`, and
            // the bin owns it.
            unsafe { dealloc(block.as_ptr(), layout) };
        }
    }

    /// The blocks, oldest first (for the loom models).
    #[cfg(all(test, loom))]
    pub(crate) fn blocks(&self) -> &[NonNull<u8>] {
        &self.0
    }

    /// A bin of the given blocks (for the loom models).
    #[cfg(all(test, loom))]
    pub(crate) fn of(blocks: Vec<NonNull<u8>>) -> Bin {
        Bin(blocks)
    }
}

/// Starts fetching the cache lines of the `size` bytes at `p` (a hint; it never faults).
#[inline(always)]
fn prefetch_lines(p: *const u8, size: usize) {
    let last = (p.addr() + size - 1) & !63;
    let mut line = p.addr() & !63;
    while line <= last {
        crate::hint::prefetch(p.with_addr(line));
        line += 64;
    }
}
