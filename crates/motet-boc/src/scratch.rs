//! A small vector of `Copy` values that lives on the stack up to [`INLINE`] items: the scratch
//! space of a spawn (its sorted requests and their grants), which must not allocate for the usual
//! handful of cowns.

use std::mem::MaybeUninit;

/// Items held without allocating.
const INLINE: usize = 16;

/// A vector of up to [`INLINE`] items inline, more on the heap.
pub(crate) enum Scratch<T: Copy> {
    Inline {
        len: usize,
        items: [MaybeUninit<T>; INLINE],
    },
    Heap(Vec<T>),
}

impl<T: Copy> Scratch<T> {
    /// An empty scratch for about `capacity` items.
    pub(crate) fn with_capacity(capacity: usize) -> Scratch<T> {
        if capacity <= INLINE {
            Scratch::Inline {
                len: 0,
                items: [MaybeUninit::uninit(); INLINE],
            }
        } else {
            Scratch::Heap(Vec::with_capacity(capacity))
        }
    }

    /// A scratch holding `item`.
    pub(crate) fn from_one(item: T) -> Scratch<T> {
        let mut s = Scratch::with_capacity(1);
        s.push(item);
        s
    }

    /// `len` copies of `item`.
    pub(crate) fn filled(item: T, len: usize) -> Scratch<T> {
        let mut s = Scratch::with_capacity(len);
        for _ in 0..len {
            s.push(item);
        }
        s
    }

    /// The items of `iter`, whose exact length is known.
    pub(crate) fn from_exact(iter: impl ExactSizeIterator<Item = T>) -> Scratch<T> {
        let mut s = Scratch::with_capacity(iter.len());
        for item in iter {
            s.push(item);
        }
        s
    }

    pub(crate) fn push(&mut self, item: T) {
        match self {
            Scratch::Inline { len, items } if *len < INLINE => {
                items[*len].write(item);
                *len += 1;
            }
            Scratch::Inline { .. } => {
                let mut v = self.as_slice().to_vec();
                v.push(item);
                *self = Scratch::Heap(v);
            }
            Scratch::Heap(v) => v.push(item),
        }
    }

    pub(crate) fn as_slice(&self) -> &[T] {
        match self {
            // SAFETY: the first `len` items are initialised.
            Scratch::Inline { len, items } => unsafe {
                std::slice::from_raw_parts(items.as_ptr().cast::<T>(), *len)
            },
            Scratch::Heap(v) => v,
        }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        match self {
            // SAFETY: the first `len` items are initialised.
            Scratch::Inline { len, items } => unsafe {
                std::slice::from_raw_parts_mut(items.as_mut_ptr().cast::<T>(), *len)
            },
            Scratch::Heap(v) => v,
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Scratch;

    #[test]
    fn spills_to_the_heap_past_the_inline_capacity() {
        let mut s = Scratch::with_capacity(2);
        for i in 0..40 {
            s.push(i);
        }
        assert_eq!(s.as_slice(), (0..40).collect::<Vec<_>>().as_slice());
        assert!(matches!(s, Scratch::Heap(_)));
        let f = Scratch::filled(7u8, 3);
        assert_eq!(f.as_slice(), &[7, 7, 7]);
    }
}
