//! Storage that never moves what it holds as it grows: values in fixed-size chunks, each allocated
//! once at its full size, so that a system that grows to many actors copies none of them (a
//! vector's growth copies every value it holds).

use std::ops::{Index, IndexMut};

/// Values per chunk: a power of two, so that an index splits into chunk and offset by shifting.
const CHUNK_BITS: u32 = 10;
const CHUNK: usize = 1 << CHUNK_BITS;
const MASK: usize = CHUNK - 1;

/// An iterator over a [`Chunks`]' values in index order.
pub type Iter<'a, T> = std::iter::Flatten<std::slice::Iter<'a, Vec<T>>>;

/// A growable sequence of values that stay where they are put.
pub(super) struct Chunks<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Chunks<T> {
    /// An empty sequence; it allocates its first chunk on the first push.
    pub(super) fn new() -> Chunks<T> {
        Chunks {
            chunks: Vec::new(),
            len: 0,
        }
    }

    /// How many values it holds.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Appends `value` at index [`len`](Chunks::len).
    #[inline]
    pub(super) fn push(&mut self, value: T) {
        let chunk = self.len >> CHUNK_BITS;
        if chunk == self.chunks.len() {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        // Chunk `chunk` has room: it was allocated at CHUNK and holds `len & MASK` values (the
        // chunks after the last value's are empty, see `clear`).
        self.chunks[chunk].push(value);
        self.len += 1;
    }

    /// Drops every value and keeps the chunks' buffers for the values pushed next.
    pub(super) fn clear(&mut self) {
        for chunk in &mut self.chunks {
            chunk.clear();
        }
        self.len = 0;
    }

    /// A pointer to value `i`, made without a reference to any other value (nor to `i`'s), so
    /// that a reference made from it stays valid while other values are pushed, replaced or
    /// reached through their own pointers; it stays valid until the `Chunks` is dropped.
    ///
    /// # Panics
    /// If `i` is not below [`len`](Chunks::len).
    #[inline]
    pub(super) fn ptr(&mut self, i: usize) -> *mut T {
        let chunk = &mut self.chunks[i >> CHUNK_BITS];
        assert!(i & MASK < chunk.len(), "no value at index {i}");
        // SAFETY: in bounds of the chunk's initialised values (checked above). `as_mut_ptr` makes
        // no reference to the chunk's values, and the chunk's buffer never moves: it was
        // allocated at its full size and is never grown.
        unsafe { chunk.as_mut_ptr().add(i & MASK) }
    }

    /// The values in index order.
    pub(super) fn iter(&self) -> Iter<'_, T> {
        // Chunks after the last value's are empty: they add nothing.
        self.chunks.iter().flatten()
    }
}

impl<T> Index<usize> for Chunks<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i >> CHUNK_BITS][i & MASK]
    }
}

impl<T> IndexMut<usize> for Chunks<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i >> CHUNK_BITS][i & MASK]
    }
}

#[cfg(test)]
mod tests {
    use super::{Chunks, CHUNK};

    #[test]
    fn values_keep_their_index_and_address_across_chunks() {
        let mut chunks = Chunks::new();
        chunks.push(0usize);
        let first: *const usize = &chunks[0];
        for i in 1..3 * CHUNK + 5 {
            chunks.push(i);
        }
        assert_eq!(chunks.len(), 3 * CHUNK + 5);
        assert!(std::ptr::eq(first, &chunks[0]), "growth moved a value");
        for i in [0, 1, CHUNK - 1, CHUNK, 2 * CHUNK + 1, 3 * CHUNK + 4] {
            assert_eq!(chunks[i], i);
        }
        chunks[CHUNK] = 7;
        assert_eq!(chunks[CHUNK], 7);
        assert!(chunks
            .iter()
            .copied()
            .eq((0..3 * CHUNK + 5).map(|i| if i == CHUNK { 7 } else { i })));
    }

    #[test]
    fn cleared_chunks_keep_their_buffers_and_fill_again_from_index_zero() {
        let mut chunks = Chunks::new();
        for i in 0..2 * CHUNK + 1 {
            chunks.push(i);
        }
        let second: *const usize = &chunks[CHUNK];
        chunks.clear();
        assert_eq!(chunks.len(), 0);
        assert_eq!(chunks.iter().count(), 0);
        for i in 0..CHUNK + 2 {
            chunks.push(i + 10);
        }
        assert_eq!(chunks.len(), CHUNK + 2);
        assert!(
            std::ptr::eq(second, &chunks[CHUNK]),
            "the second chunk's buffer is reused"
        );
        assert!(chunks.iter().copied().eq((0..CHUNK + 2).map(|i| i + 10)));
    }
}
