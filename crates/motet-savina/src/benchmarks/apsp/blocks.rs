//! The block layout of the distance matrix and the Floyd–Warshall step over one block, shared by
//! the actors and the floor.

use std::sync::Arc;

/// A distance. Savina stores `long`s; every distance here is below `(n − 1)·w < 2³⁰` (the
/// parameters are bounded in `Config`), so `i32` holds it and a sum of two, and the step's inner
/// loop handles twice as many per vector instruction.
pub(crate) type Dist = i32;

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
    pub(crate) fn cut(&self, d: &[Dist], id: usize) -> Vec<Dist> {
        let (bi, bj) = self.coords(id);
        let (row0, col0) = (bi * self.b, bj * self.b);
        let mut block = Vec::with_capacity(self.b * self.b);
        for i in row0..row0 + self.b {
            block.extend_from_slice(&d[i * self.n + col0..][..self.b]);
        }
        block
    }

    /// Every entry of block `id` as (global row, global column, distance).
    pub(crate) fn entries<'a>(
        &self,
        id: usize,
        block: &'a [Dist],
    ) -> impl Iterator<Item = (usize, usize, Dist)> + 'a {
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
    pub(crate) fn column_into(&self, block: &[Dist], k: usize, out: &mut Vec<Dist>) {
        let c = k % self.b;
        out.clear();
        out.extend(block.chunks_exact(self.b).map(|row| row[c]));
    }

    /// Row `k` (global) of `block`, a block of the block row holding it.
    pub(crate) fn row<'a>(&self, block: &'a [Dist], k: usize) -> &'a [Dist] {
        &block[(k % self.b) * self.b..][..self.b]
    }
}

/// One Floyd–Warshall step over a block: `out[i][j] = min(prev[i][j], col_k[i] + row_k[j])`, where
/// `col_k` is `D[i][k]` for the block's rows and `row_k` is `D[k][j]` for its columns.
///
/// On x86-64 processors with AVX2 (detected at run time) the loop is compiled for AVX2, whose
/// 32-bit minimum takes 8 distances per instruction (the baseline SSE2 has no 32-bit minimum and
/// spends a compare and three logic instructions on every 4).
pub(crate) fn relax(prev: &[Dist], out: &mut [Dist], col_k: &[Dist], row_k: &[Dist]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: `relax_avx2` only requires the AVX2 instructions it is compiled with, and the
        // processor has them (checked just above).
        return unsafe { relax_avx2(prev, out, col_k, row_k) };
    }
    relax_loop(prev, out, col_k, row_k);
}

/// [`relax`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn relax_avx2(prev: &[Dist], out: &mut [Dist], col_k: &[Dist], row_k: &[Dist]) {
    relax_loop(prev, out, col_k, row_k);
}

/// The loop of [`relax`] (inlined into each caller, so that it is compiled for that caller's
/// instruction set). The compiler vectorises it 4 vectors per iteration and leaves `b % 32`
/// distances of each row to scalar code (18 of 50 at `b = 50`). A hand-chunked form (8 distances
/// at a time, then the rest) runs a quarter fewer instructions at `b = 50` but was measured slower
/// (a fifth, on an AMD EPYC with AVX2), so the plain loop stays.
#[inline(always)]
fn relax_loop(prev: &[Dist], out: &mut [Dist], col_k: &[Dist], row_k: &[Dist]) {
    let b = row_k.len();
    for ((out_row, prev_row), &via) in out.chunks_exact_mut(b).zip(prev.chunks_exact(b)).zip(col_k)
    {
        for ((o, &p), &r) in out_row.iter_mut().zip(prev_row).zip(row_k) {
            *o = p.min(via + r);
        }
    }
}

/// [`relax`] in place: the floor's form (row and column `k` do not change in step `k`, as
/// `D[k][k] = 0`, so they may be read from the matrix being updated once copied out).
pub(crate) fn relax_in_place(d: &mut [Dist], col_k: &[Dist], row_k: &[Dist]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: `relax_in_place_avx2` only requires the AVX2 instructions it is compiled with,
        // and the processor has them (checked just above).
        return unsafe { relax_in_place_avx2(d, col_k, row_k) };
    }
    relax_in_place_loop(d, col_k, row_k);
}

/// [`relax_in_place`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn relax_in_place_avx2(d: &mut [Dist], col_k: &[Dist], row_k: &[Dist]) {
    relax_in_place_loop(d, col_k, row_k);
}

/// The loop of [`relax_in_place`] (inlined into each caller, so that it is compiled for that
/// caller's instruction set). It updates two rows per pass over row `k`, so each vector of row
/// `k` is loaded once for both: measured about an eighth faster than a row at a time on an AMD
/// EPYC with AVX2 (the default blocks, the floor's order of steps).
#[inline(always)]
fn relax_in_place_loop(d: &mut [Dist], col_k: &[Dist], row_k: &[Dist]) {
    let b = row_k.len();
    let mut pairs = d.chunks_exact_mut(2 * b);
    let mut vias = col_k.chunks_exact(2);
    for (pair, via) in (&mut pairs).zip(&mut vias) {
        let (upper, lower) = pair.split_at_mut(b);
        let (via_upper, via_lower) = (via[0], via[1]);
        for ((x, y), &r) in upper.iter_mut().zip(lower.iter_mut()).zip(row_k) {
            *x = (*x).min(via_upper + r);
            *y = (*y).min(via_lower + r);
        }
    }
    // An odd last row.
    for (row, &via) in pairs
        .into_remainder()
        .chunks_exact_mut(b)
        .zip(vias.remainder())
    {
        for (x, &r) in row.iter_mut().zip(row_k) {
            *x = (*x).min(via + r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{relax, relax_in_place, Dist, Layout};

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
        let d: Vec<i32> = (0..16).collect();
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
    fn relax_takes_the_shorter_way() {
        let prev = [5, 1, 9, 9];
        let mut out = [0; 4];
        relax(&prev, &mut out, &[1, 2], &[3, 0]);
        assert_eq!(out, [4, 1, 5, 2]);
        let mut d = prev;
        relax_in_place(&mut d, &[1, 2], &[3, 0]);
        assert_eq!(d, out);
    }

    /// The kernels, whichever instruction set runs them, against the baseline loop, at widths
    /// that leave vector tails.
    #[test]
    fn relax_kernels_agree_with_the_baseline_loop() {
        for b in [1, 3, 7, 8, 9, 33, 50] {
            let prev: Vec<Dist> = (0..b * b).map(|e| ((e * 37) % 101) as Dist).collect();
            let col: Vec<Dist> = (0..b).map(|i| ((i * 13) % 17) as Dist).collect();
            let row: Vec<Dist> = (0..b).map(|j| ((j * 7) % 23) as Dist).collect();
            let mut want = vec![0; b * b];
            super::relax_loop(&prev, &mut want, &col, &row);
            for (e, &w) in want.iter().enumerate() {
                assert_eq!(w, prev[e].min(col[e / b] + row[e % b]));
            }
            let mut out = vec![0; b * b];
            relax(&prev, &mut out, &col, &row);
            assert_eq!(out, want, "b {b}");
            let mut d = prev.clone();
            relax_in_place(&mut d, &col, &row);
            assert_eq!(d, want, "b {b}, in place");
        }
    }
}
