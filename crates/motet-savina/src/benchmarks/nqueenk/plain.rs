//! Savina's board and search, as SPEC.md gives them: the queens of rows `0..depth` in an array of
//! `depth` columns, a new array per trial (`System.arraycopy` into `new int[depth + 1]`), and
//! `boardValid`'s pairwise check, which returns at the first conflict. Every default program runs
//! this kernel.

use super::Kernel;

/// Queens in rows `0..depth`: `cols[r]` is the column of the queen in row `r`. Carried in Work
/// messages as Savina's `int[]` is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plain {
    cols: Box<[i32]>,
}

impl Kernel for Plain {
    fn empty() -> Plain {
        Plain { cols: Box::new([]) }
    }

    fn depth(&self) -> usize {
        self.cols.len()
    }

    /// A copy of this board with a queen in the next row, at column `c`.
    fn with(&self, c: usize) -> Plain {
        let mut cols = Vec::with_capacity(self.cols.len() + 1);
        cols.extend_from_slice(&self.cols);
        cols.push(c as i32);
        Plain {
            cols: cols.into_boxed_slice(),
        }
    }

    /// Savina's `boardValid`: every pair of rows, in order, until the first conflict.
    fn valid(&self) -> bool {
        let a = &self.cols;
        let n = a.len();
        for i in 0..n {
            let p = a[i];
            for j in i + 1..n {
                let q = a[j];
                let d = (j - i) as i32;
                if q == p || q == p - d || q == p + d {
                    return false;
                }
            }
        }
        true
    }

    /// Savina's `nqueensKernelSeq`: for each column, a new board one row longer, searched on if
    /// it is valid.
    fn search(&mut self, n: usize, solution: &mut dyn FnMut()) {
        if self.cols.len() == n {
            solution();
            return;
        }
        for c in 0..n {
            let mut next = self.with(c);
            if next.valid() {
                next.search(n, solution);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Kernel, Plain};
    use crate::benchmarks::nqueenk::Board;
    use crate::random::PseudoRandom;

    fn board<K: Kernel>(cols: &[usize]) -> K {
        cols.iter().fold(K::empty(), |b, &c| b.with(c))
    }

    #[test]
    fn validity_checks_columns_and_diagonals() {
        let b: Plain = board(&[1, 3]);
        assert!(b.valid());
        assert!(!b.with(2).valid(), "diagonal with row 1");
        assert!(!b.with(1).valid(), "column of row 0");
        assert!(!b.with(4).valid(), "diagonal with row 1");
        assert!(b.with(0).valid());
        assert_eq!(b.with(0).depth(), 3);
    }

    /// Savina's check and the tuned window agree on random boards, conflicting or not.
    #[test]
    fn agrees_with_the_window_board() {
        let mut rng = PseudoRandom::new(11);
        let (mut valid, mut invalid) = (0, 0);
        for _ in 0..500 {
            let len = 1 + rng.next_int_below(12) as usize;
            let cols: Vec<usize> = (0..len).map(|_| rng.next_int_below(12) as usize).collect();
            let plain: Plain = board(&cols);
            let window: Board = board(&cols);
            assert_eq!(plain.valid(), window.valid(), "{cols:?}");
            if plain.valid() {
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
        Plain::empty().search(8, &mut || count += 1);
        assert_eq!(count, 92);
        let mut from_prefix = 0;
        let mut b: Plain = board(&[0]);
        b.search(8, &mut || from_prefix += 1);
        assert_eq!(from_prefix, 4);
    }
}
