//! The vectorised board of the tuned programs (deviation `window-board`): a partial placement of
//! queens edited in place, checked one row against a 32-wide window of later rows.

use super::Kernel;

/// The most queens a board holds (Savina's table stops at 20).
pub(crate) const MAX: usize = 20;

/// Rows compared with one row at a time: every later row of a full board fits.
const WINDOW: usize = 32;

/// The column stored for a row without a queen: no queen's column, or column ± distance, can
/// equal it (columns are below 20, distances at most 32).
const EMPTY: i8 = 100;

/// Queens in rows `0..depth`: `cols[r]` is the column of the queen in row `r`, [`EMPTY`] from row
/// `depth` on (the padding lets every row be compared with a full window of later rows). Carried
/// by value in Work messages (Savina allocates an `int[]` per Work); the search edits one board in
/// place (Savina copies an `int[]` per trial).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Board {
    cols: [i8; MAX + WINDOW],
    depth: usize,
}

impl Kernel for Board {
    /// No queen placed.
    fn empty() -> Board {
        Board {
            cols: [EMPTY; MAX + WINDOW],
            depth: 0,
        }
    }

    /// Rows placed.
    fn depth(&self) -> usize {
        self.depth
    }

    /// This board with a queen in the next row, at column `c`.
    fn with(&self, c: usize) -> Board {
        let mut b = *self;
        b.cols[b.depth] = c as i8;
        b.depth += 1;
        b
    }

    /// Savina's `boardValid`: no two queens of the first `depth` rows share a column or a
    /// diagonal. Every pair is compared, O(d²), as in Savina (`q == p`, `q == p − d`,
    /// `q == p + d` for rows `d` apart); the pairs of one row are compared as one
    /// fixed-width batch, which the compiler turns into vector instructions, so the check stops
    /// after the first row with a conflict rather than after the first pair.
    fn valid(&self) -> bool {
        let distance: [i8; WINDOW] = std::array::from_fn(|k| k as i8 + 1);
        for i in 0..self.depth {
            let p = self.cols[i];
            let later = &self.cols[i + 1..i + 1 + WINDOW];
            let mut conflict = false;
            for (&q, &d) in later.iter().zip(&distance) {
                conflict |= (q == p) | (q == p - d) | (q == p + d);
            }
            if conflict {
                return false;
            }
        }
        true
    }

    /// Savina's `nqueensKernelSeq`: every valid completion of this board to `n` rows, each
    /// reported to `solution`.
    fn search(&mut self, n: usize, solution: &mut dyn FnMut()) {
        if self.depth == n {
            solution();
            return;
        }
        let row = self.depth;
        self.depth += 1;
        for c in 0..n as i8 {
            self.cols[row] = c;
            if self.valid() {
                self.search(n, solution);
            }
        }
        self.cols[row] = EMPTY;
        self.depth -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::{Board, Kernel};
    use crate::random::PseudoRandom;

    #[test]
    fn validity_checks_columns_and_diagonals() {
        let b = Board::empty().with(1).with(3);
        assert!(b.valid());
        assert!(!b.with(2).valid(), "diagonal with row 1");
        assert!(!b.with(1).valid(), "column of row 0");
        assert!(b.with(0).valid());
    }

    /// The batched check agrees with a pair-by-pair one: boards grown by random valid placements,
    /// then one random queen more (so a conflict, if any, involves the last row and any earlier
    /// one, up to 19 rows away).
    #[test]
    fn validity_agrees_with_a_pairwise_check() {
        let pairwise = |cols: &[usize]| {
            (0..cols.len()).all(|i| {
                (i + 1..cols.len())
                    .all(|j| cols[i] != cols[j] && cols[i].abs_diff(cols[j]) != j - i)
            })
        };
        let mut rng = PseudoRandom::new(7);
        let (mut valid, mut invalid) = (0, 0);
        for _ in 0..400 {
            let mut cols = Vec::new();
            let mut board = Board::empty();
            for _ in 0..60 {
                let c = rng.next_int_below(20) as usize;
                cols.push(c);
                if pairwise(&cols) && cols.len() < 20 {
                    board = board.with(c);
                } else {
                    cols.pop();
                }
            }
            let c = rng.next_int_below(20) as usize;
            cols.push(c);
            let last = board.with(c);
            assert_eq!(last.valid(), pairwise(&cols), "{cols:?}");
            if pairwise(&cols) {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
        assert!(valid > 0 && invalid > 0);
    }

    #[test]
    fn search_counts_the_eight_queens() {
        let mut count = 0;
        Board::empty().search(8, &mut || count += 1);
        assert_eq!(count, 92);
        let mut from_prefix = 0;
        let mut b = Board::empty().with(0);
        b.search(8, &mut || from_prefix += 1);
        assert_eq!(from_prefix, 4);
        assert_eq!(b, Board::empty().with(0), "the search restores the board");
    }
}
