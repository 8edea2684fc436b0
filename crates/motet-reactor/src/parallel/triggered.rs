//! The level scheduler's reactions triggered at the current tag and not yet taken, in a queue per
//! level.

use motet_reactor_core::Program;

/// The reactions triggered at the current tag and not yet taken, in a queue per level, with a
/// bitset of the non-empty levels: the next level to run is found with a scan of a few words.
/// (The core's `LevelQueue` hands out one reaction at a time; the level scheduler takes a whole
/// level at once.)
pub(crate) struct Triggered {
    /// Triggered reactions per level.
    pub(crate) queues: Vec<Vec<u32>>,
    /// Levels with a non-empty queue, as a bitset.
    nonempty: Vec<u64>,
}

impl Triggered {
    /// Empty queues for the levels of `prog`, each with room for its level's reactions.
    pub(crate) fn new(prog: &Program) -> Triggered {
        let g = prog.graph();
        Triggered {
            queues: g
                .level_widths
                .iter()
                .map(|&w| Vec::with_capacity(w as usize))
                .collect(),
            nonempty: vec![0; (g.levels as usize).div_ceil(64).max(1)],
        }
    }

    /// Adds reaction `r` of `prog` to its level's queue.
    #[inline(always)]
    pub(crate) fn push(&mut self, prog: &Program, r: u32) {
        let l = prog.level(r as usize) as usize;
        self.queues[l].push(r);
        self.nonempty[l / 64] |= 1 << (l % 64);
    }

    /// The lowest non-empty level at or above `from`, marked empty: the caller takes its queue
    /// (`queues[l]`).
    pub(crate) fn take_next(&mut self, from: usize) -> Option<usize> {
        let mut w = from / 64;
        let mut bits = self.nonempty.get(w)? & (!0u64 << (from % 64));
        loop {
            if bits != 0 {
                let l = w * 64 + bits.trailing_zeros() as usize;
                self.nonempty[l / 64] &= !(1 << (l % 64));
                return Some(l);
            }
            w += 1;
            bits = *self.nonempty.get(w)?;
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Triggered;

    /// Levels are taken lowest first from where the scan starts, across the bitset's words, and
    /// each once.
    #[test]
    fn take_next_finds_the_lowest_marked_level_from_a_start() {
        let mut t = Triggered {
            queues: vec![Vec::new(); 130],
            nonempty: vec![0; 3],
        };
        for l in [0usize, 3, 63, 64, 129] {
            t.nonempty[l / 64] |= 1 << (l % 64);
        }
        assert_eq!(t.take_next(1), Some(3));
        assert_eq!(t.take_next(4), Some(63));
        assert_eq!(t.take_next(0), Some(0));
        assert_eq!(t.take_next(0), Some(64));
        assert_eq!(t.take_next(65), Some(129));
        assert_eq!(t.take_next(0), None);
        assert_eq!(t.take_next(200), None);
    }
}
