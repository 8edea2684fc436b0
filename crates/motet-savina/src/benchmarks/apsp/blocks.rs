//! The block layout of the distance matrix and Savina's Floyd–Warshall step over one block, shared
//! by the actors, the reactors and the floor.

use std::sync::Arc;

/// A distance: Savina's `long`.
pub(crate) type Dist = i64;

/// One block of distances, `b × b` row-major, shared read-only: on the reactors' ports, and as the
/// final distances a run hands to the check.
pub(crate) type Block = Arc<[Dist]>;

/// How the `n × n` matrix is cut into `b × b` blocks, numbered row-major.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    n: usize,
    b: usize,
    /// Blocks per row (and per column).
    per_dim: usize,
}

impl Layout {
    /// The layout of `n × n` in blocks of `b` (`b` divides `n`).
    pub(crate) fn new(n: usize, b: usize) -> Layout {
        debug_assert!(b > 0 && n.is_multiple_of(b));
        Layout {
            n,
            b,
            per_dim: n / b,
        }
    }

    /// Block size.
    pub(crate) fn b(&self) -> usize {
        self.b
    }

    /// Graph nodes.
    pub(crate) fn n(&self) -> usize {
        self.n
    }

    /// How many blocks.
    pub(crate) fn blocks(&self) -> usize {
        self.per_dim * self.per_dim
    }

    /// Block `id`'s (block row, block column).
    pub(crate) fn coords(&self, id: usize) -> (usize, usize) {
        (id / self.per_dim, id % self.per_dim)
    }

    /// The id of the block at (block row, block column).
    pub(crate) fn id(&self, bi: usize, bj: usize) -> usize {
        bi * self.per_dim + bj
    }

    /// Block `id`'s neighbours in Savina's order: the other blocks of its block column, then the
    /// other blocks of its block row.
    pub(crate) fn neighbours(&self, id: usize) -> Vec<usize> {
        let (bi, bj) = self.coords(id);
        let column = (0..self.per_dim)
            .filter(|&r| r != bi)
            .map(|r| self.id(r, bj));
        let row = (0..self.per_dim)
            .filter(|&c| c != bj)
            .map(|c| self.id(bi, c));
        column.chain(row).collect()
    }

    /// The place of block `from` in the [`neighbours`](Layout::neighbours) of block `to` (`from`
    /// a neighbour of `to`).
    pub(crate) fn slot(&self, to: usize, from: usize) -> usize {
        let ((ti, tj), (fi, fj)) = (self.coords(to), self.coords(from));
        debug_assert!(
            (fi == ti) != (fj == tj),
            "block {from} is no neighbour of {to}"
        );
        let skip = |x: usize, own: usize| if x < own { x } else { x - 1 };
        if fj == tj {
            skip(fi, ti)
        } else {
            self.per_dim - 1 + skip(fj, tj)
        }
    }

    /// Block `id` of the full matrix `d`.
    pub(crate) fn cut<T: Copy>(&self, d: &[T], id: usize) -> Vec<T> {
        let (bi, bj) = self.coords(id);
        let (row0, col0) = (bi * self.b, bj * self.b);
        let mut block = Vec::with_capacity(self.b * self.b);
        for i in row0..row0 + self.b {
            block.extend_from_slice(&d[i * self.n + col0..][..self.b]);
        }
        block
    }

    /// Every entry of block `id` as (global row, global column, distance).
    pub(crate) fn entries<'a, T: Copy>(
        &self,
        id: usize,
        block: &'a [T],
    ) -> impl Iterator<Item = (usize, usize, T)> + 'a {
        let (bi, bj) = self.coords(id);
        let (row0, col0, b) = (bi * self.b, bj * self.b, self.b);
        block
            .chunks_exact(b)
            .enumerate()
            .flat_map(move |(di, row)| {
                row.iter()
                    .enumerate()
                    .map(move |(dj, &d)| (row0 + di, col0 + dj, d))
            })
    }

    /// For step `k` of block `id`: the block holding `D[row][k]` for this block's rows, and the one
    /// holding `D[k][col]` for its columns (either may be `id` itself).
    pub(crate) fn sources(&self, id: usize, k: usize) -> (usize, usize) {
        let (bi, bj) = self.coords(id);
        let kb = k / self.b;
        (self.id(bi, kb), self.id(kb, bj))
    }

    /// Copies column `k` (global) of `block`, a block of the block column holding it, into `out`.
    pub(crate) fn column_into<T: Copy>(&self, block: &[T], k: usize, out: &mut Vec<T>) {
        let c = k % self.b;
        out.clear();
        out.extend(block.chunks_exact(self.b).map(|row| row[c]));
    }

    /// Row `k` (global) of `block`, a block of the block row holding it.
    pub(crate) fn row<'a, T>(&self, block: &'a [T], k: usize) -> &'a [T] {
        &block[(k % self.b) * self.b..][..self.b]
    }
}

/// One Floyd–Warshall step over a block, as Savina's `performComputation` does it: a new block
/// with `new[i][j] = min(prev[i][j], D[gi][k] + D[k][gj])`, in a plain loop over `i` then `j`.
/// `column_source` is the block of this block row holding column `k` (`D[gi][k]`), `row_source`
/// the block of this block column holding row `k` (`D[k][gj]`); either may be `prev` itself.
pub(crate) fn step(
    layout: &Layout,
    k: usize,
    prev: &[Dist],
    column_source: &[Dist],
    row_source: &[Dist],
) -> Vec<Dist> {
    let b = layout.b();
    let local = k % b;
    let row_k = &row_source[local * b..][..b];
    let mut next = Vec::with_capacity(b * b);
    for (i, prev_row) in prev.chunks_exact(b).enumerate() {
        let via = column_source[i * b + local];
        for (&p, &r) in prev_row.iter().zip(row_k) {
            next.push(p.min(via + r));
        }
    }
    next
}

/// The same step into `out`, with column `k` for the block's rows already copied out (`col_k`)
/// and row `k` for its columns (`row_k`): the reactors' form.
pub(crate) fn relax(prev: &[Dist], out: &mut [Dist], col_k: &[Dist], row_k: &[Dist]) {
    let b = row_k.len();
    for ((out_row, prev_row), &via) in out.chunks_exact_mut(b).zip(prev.chunks_exact(b)).zip(col_k)
    {
        for ((o, &p), &r) in out_row.iter_mut().zip(prev_row).zip(row_k) {
            *o = p.min(via + r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{relax, step, Layout};

    #[test]
    fn neighbours_are_the_block_column_then_the_block_row() {
        let layout = Layout::new(12, 3);
        for id in 0..layout.blocks() {
            let (bi, bj) = layout.coords(id);
            let neighbours = layout.neighbours(id);
            assert_eq!(neighbours.len(), 6);
            for (slot, &n) in neighbours.iter().enumerate() {
                let (ni, nj) = layout.coords(n);
                assert_ne!(n, id);
                assert!(if slot < 3 { nj == bj } else { ni == bi });
            }
        }
        assert_eq!(layout.neighbours(5), [1, 9, 13, 4, 6, 7]);
        for to in 0..layout.blocks() {
            for (slot, &from) in layout.neighbours(to).iter().enumerate() {
                assert_eq!(layout.slot(to, from), slot, "block {from} in {to}'s list");
            }
        }
    }

    #[test]
    fn rows_columns_and_sources() {
        let layout = Layout::new(4, 2);
        let d: Vec<i64> = (0..16).collect();
        let block = layout.cut(&d, 1); // rows 0-1, columns 2-3
        assert_eq!(block, [2, 3, 6, 7]);
        let mut col = Vec::new();
        layout.column_into(&block, 3, &mut col);
        assert_eq!(col, [3, 7]);
        assert_eq!(layout.row(&block, 1), [6, 7]);
        assert_eq!(layout.sources(1, 0), (0, 1));
        assert_eq!(layout.sources(1, 3), (1, 3));
        let entries: Vec<_> = layout.entries(3, &layout.cut(&d, 3)).collect();
        assert_eq!(entries[1], (2, 3, 11));
    }

    #[test]
    fn a_step_takes_the_shorter_way() {
        let prev = [5, 1, 9, 9];
        let mut out = [0; 4];
        relax(&prev, &mut out, &[1, 2], &[3, 0]);
        assert_eq!(out, [4, 1, 5, 2]);
        // The same step reading column 1 of `column_source` and row 1 of `row_source` (k = 1,
        // blocks of 2).
        let layout = Layout::new(4, 2);
        assert_eq!(step(&layout, 1, &prev, &[0, 1, 0, 2], &[0, 0, 3, 0]), out);
    }
}
