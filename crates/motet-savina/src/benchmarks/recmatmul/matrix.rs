//! The matrices of Recursive Matrix Multiplication, its Work items, and the leaf kernels that the
//! actors, the reactors and the floor share: SPEC.md's i-j-k loop in every default program, the
//! tiled kernel in `actor-tuned` (deviation `tiled-matmul`).

use std::sync::{Mutex, MutexGuard};

use super::Config;

/// Which leaf kernel a program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Leaf {
    /// SPEC.md's i-j-k loop ([`Inputs::multiply_leaf_plain`]): every default program.
    Plain,
    /// Register tiles over a packed B ([`Inputs::multiply_leaf_tiled`], deviation
    /// `tiled-matmul`): `actor-tuned`.
    Tiled,
}

/// How many `f64`s of gap follow each row of A and B: a row is [`ROW_GAP`] values longer than the
/// matrix is wide, as Savina's `double[][]` rows are separate JVM arrays, each behind a 16-byte
/// header. With rows exactly `n` values apart and `n` a power of two (1,024 at the defaults: 8 KiB),
/// the i-j-k loop's walk down a column of B touches one address per row at the same offset modulo
/// the cache's set stride, so the column's lines fall into a few cache sets and evict each other:
/// the same loop ran about 4.5x slower at `n = 1024` than at `n = 1000` or `1040`. Savina's layout
/// (and CAF's `vector<vector<double>>` under glibc's malloc, whose chunk headers do the same) never
/// puts rows a power of two apart.
pub(crate) const ROW_GAP: usize = 2;

/// A, B (`n × n`, row-major, rows [`ROW_GAP`] values apart beyond `n`): `A[i][j] = i`, `B[i][j] = j`,
/// as Savina initialises them.
pub(crate) struct Inputs {
    /// The distance between the starts of two rows: `n + ROW_GAP`.
    pitch: usize,
    a: Vec<f64>,
    b: Vec<f64>,
}

impl Inputs {
    /// Builds A and B for `n × n` (untimed, in `prepare`).
    pub(crate) fn new(n: usize) -> Inputs {
        Inputs::from_fn(n, |i, _| i as f64, |_, j| j as f64)
    }

    /// A and B with `A[i][j] = a(i, j)` and `B[i][j] = b(i, j)`, rows [`ROW_GAP`] values apart
    /// beyond `n` (the gaps hold zeros and are never read).
    pub(crate) fn from_fn(
        n: usize,
        a: impl Fn(usize, usize) -> f64,
        b: impl Fn(usize, usize) -> f64,
    ) -> Inputs {
        let pitch = n + ROW_GAP;
        let fill = |f: &dyn Fn(usize, usize) -> f64| {
            (0..n * pitch)
                .map(|e| {
                    let (i, j) = (e / pitch, e % pitch);
                    if j < n {
                        f(i, j)
                    } else {
                        0.0
                    }
                })
                .collect()
        };
        Inputs {
            pitch,
            a: fill(&a),
            b: fill(&b),
        }
    }

    /// The leaf step of Savina's worker with `kernel`: `C[i][j] += Σ_k A[i][scA + k] · B[srB + k][j]`
    /// over the `dim × dim` block of `work`, into `c` (that block of C, row-major). Both kernels
    /// add every `C[i][j]`'s terms in Savina's order (k ascending, each product added onto the
    /// value C had, one rounding per addition), so both give Savina's C to the bit.
    #[inline]
    pub(crate) fn multiply_leaf(&self, kernel: Leaf, work: &Work, c: &mut [f64]) {
        match kernel {
            Leaf::Plain => self.multiply_leaf_plain(work, c),
            Leaf::Tiled => self.multiply_leaf_tiled(work, c),
        }
    }

    /// SPEC.md's leaf: Savina's i-j-k loop, one `C[i][j]` at a time, its terms added for k
    /// ascending, reading A's row i and B's column j (`n` apart) in place.
    pub(crate) fn multiply_leaf_plain(&self, work: &Work, c: &mut [f64]) {
        let (pitch, dim) = (self.pitch, work.dim);
        debug_assert_eq!(c.len(), dim * dim);
        for (i, c_row) in c.chunks_exact_mut(dim).enumerate() {
            let a_row = &self.a[(work.sr_a + i) * pitch + work.sc_a..][..dim];
            for (j, c_ij) in c_row.iter_mut().enumerate() {
                let b_column = self.b[work.sr_b * pitch + work.sc_b + j..]
                    .iter()
                    .step_by(pitch);
                for (&a_ik, &b_kj) in a_row.iter().zip(b_column) {
                    *c_ij += a_ik * b_kj;
                }
            }
        }
    }

    /// The tuned leaf (deviation `tiled-matmul`), with [`Inputs::multiply_leaf`]'s result. The block
    /// is computed in tiles of [`TILE_ROWS`] × `COLUMNS` entries of C held in registers while k
    /// runs: A's and B's values are loaded once per tile and k instead of C's once per term. The
    /// B block is first copied into a packing buffer as column panels of `COLUMNS`, k-major, so a
    /// tile reads its panel contiguously (B's own rows lie `n` apart, which maps onto a few cache
    /// sets when `n` is a power of two). The row tiles are the outer loop: a tile's rows of A stay
    /// in the first-level cache while it runs over every panel, and the packed block (contiguous)
    /// in the second level. With the panels outside, each panel read the whole A block again,
    /// rows `n` apart that share a few sets of the second-level cache (cachegrind counted far
    /// fewer last-level misses this way).
    /// Rows and columns past the last whole tile are done one entry at a time, in the same order.
    ///
    /// The packing buffer is the calling thread's ([`PACKED`]), not the caller's: whichever
    /// actor or reactor runs the leaf, a thread packs every leaf into the same memory, which its
    /// cache still holds from the leaf before. A buffer per worker actor wrote a block of cold
    /// lines per leaf, and the same simulation showed the actors' extra write misses gone with the
    /// buffer per thread.
    ///
    /// On x86-64 processors with AVX the tiles are 8 columns wide and compiled for AVX (twice the
    /// entries per instruction; multiplications and additions stay separate, never fused, so the
    /// roundings are the same); elsewhere they are 4 wide for the baseline SSE2.
    pub(crate) fn multiply_leaf_tiled(&self, work: &Work, c: &mut [f64]) {
        let mut packed = PACKED.with(|p| p.take());
        self.multiply_leaf_into(work, c, &mut packed);
        PACKED.with(|p| p.set(packed));
    }

    /// [`Inputs::multiply_leaf_tiled`] with the packing buffer `packed`.
    fn multiply_leaf_into(&self, work: &Work, c: &mut [f64], packed: &mut Vec<f64>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: `multiply_leaf_avx` only requires the AVX instructions it is compiled with,
            // and the processor has them (checked just above).
            return unsafe { self.multiply_leaf_avx(work, c, packed) };
        }
        self.multiply_leaf_tiles::<TILE_COLUMNS>(work, c, packed);
    }

    /// [`Inputs::multiply_leaf_tiled`] compiled for AVX, with tiles 8 columns wide (16 accumulators in
    /// 8 of the 16 AVX registers).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn multiply_leaf_avx(&self, work: &Work, c: &mut [f64], packed: &mut Vec<f64>) {
        self.multiply_leaf_tiles::<8>(work, c, packed);
    }

    /// The kernel with tiles `COLUMNS` wide (inlined into each caller, so that it is compiled for
    /// that caller's instruction set).
    #[inline(always)]
    fn multiply_leaf_tiles<const COLUMNS: usize>(
        &self,
        work: &Work,
        c: &mut [f64],
        packed: &mut Vec<f64>,
    ) {
        let (pitch, dim) = (self.pitch, work.dim);
        debug_assert_eq!(c.len(), dim * dim);
        let a_row = |i: usize| &self.a[(work.sr_a + i) * pitch + work.sc_a..][..dim];
        let b_row = |k: usize| &self.b[(work.sr_b + k) * pitch + work.sc_b..][..dim];
        let panels = dim / COLUMNS;
        let tiled_rows = dim - dim % TILE_ROWS;
        packed.clear();
        packed.reserve(panels * COLUMNS * dim);
        for p in 0..panels {
            for k in 0..dim {
                packed.extend_from_slice(&b_row(k)[p * COLUMNS..][..COLUMNS]);
            }
        }
        for i0 in (0..tiled_rows).step_by(TILE_ROWS) {
            let a: [&[f64]; TILE_ROWS] = std::array::from_fn(|r| a_row(i0 + r));
            for (p, panel) in packed.chunks_exact(COLUMNS * dim).enumerate() {
                let j0 = p * COLUMNS;
                let mut acc = [[0.0; COLUMNS]; TILE_ROWS];
                for (r, acc_row) in acc.iter_mut().enumerate() {
                    acc_row.copy_from_slice(&c[(i0 + r) * dim + j0..][..COLUMNS]);
                }
                for (k, b) in panel.chunks_exact(COLUMNS).enumerate() {
                    for (acc_row, a_r) in acc.iter_mut().zip(&a) {
                        let a_ik = a_r[k];
                        for (c_ij, &b_kj) in acc_row.iter_mut().zip(b) {
                            *c_ij += a_ik * b_kj;
                        }
                    }
                }
                for (r, acc_row) in acc.iter().enumerate() {
                    c[(i0 + r) * dim + j0..][..COLUMNS].copy_from_slice(acc_row);
                }
            }
        }
        // The rows below the last whole tile (all columns), then the columns right of the last
        // whole panel (the tiled rows).
        let edge = |i: usize, j: usize, c_ij: &mut f64| {
            for (k, &a_ik) in a_row(i).iter().enumerate() {
                *c_ij += a_ik * b_row(k)[j];
            }
        };
        for i in tiled_rows..dim {
            for j in 0..dim {
                edge(i, j, &mut c[i * dim + j]);
            }
        }
        for i in 0..tiled_rows {
            for j in panels * COLUMNS..dim {
                edge(i, j, &mut c[i * dim + j]);
            }
        }
    }
}

std::thread_local! {
    /// The packing buffer of [`Inputs::multiply_leaf_tiled`] on this thread (taken out while a leaf
    /// runs, put back after): one leaf block of B, reused by every leaf the thread runs, freed
    /// when the thread ends.
    static PACKED: std::cell::Cell<Vec<f64>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Rows of C per register tile of the leaf kernel.
const TILE_ROWS: usize = 4;
/// Columns of C per register tile of the leaf kernel for the baseline instruction sets: with
/// [`TILE_ROWS`], 16 accumulators, which SSE2 holds in 8 of its 16 vector registers.
const TILE_COLUMNS: usize = 4;

/// One product of the decomposition: `C[srC.., scC..] += A[srA.., scA..] · B[srB.., scB..]`
/// over `dim × dim` blocks (`numBlocks = dim²` elements), Savina's `WorkMessage` without the
/// priority its plain actors ignore.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Work {
    pub(crate) sr_a: usize,
    pub(crate) sc_a: usize,
    pub(crate) sr_b: usize,
    pub(crate) sc_b: usize,
    pub(crate) sr_c: usize,
    pub(crate) sc_c: usize,
    pub(crate) num_blocks: usize,
    pub(crate) dim: usize,
}

impl Work {
    /// The whole product, `n × n`.
    pub(crate) fn root(n: usize) -> Work {
        Work {
            sr_a: 0,
            sc_a: 0,
            sr_b: 0,
            sc_b: 0,
            sr_c: 0,
            sc_c: 0,
            num_blocks: n * n,
            dim: n,
        }
    }

    /// The eight half-size products of the 2×2 decomposition, in Savina's order: for each
    /// quadrant of C (row-major), the two products that add into it.
    pub(crate) fn split(&self) -> [Work; 8] {
        let h = self.dim / 2;
        let part = |ra: usize, ca: usize, rb: usize, cb: usize| Work {
            sr_a: self.sr_a + ra,
            sc_a: self.sc_a + ca,
            sr_b: self.sr_b + rb,
            sc_b: self.sc_b + cb,
            sr_c: self.sr_c + ra,
            sc_c: self.sc_c + cb,
            num_blocks: self.num_blocks / 4,
            dim: h,
        };
        [
            part(0, 0, 0, 0),
            part(0, h, h, 0),
            part(0, 0, 0, h),
            part(0, h, h, h),
            part(h, 0, 0, 0),
            part(h, h, h, 0),
            part(h, 0, 0, h),
            part(h, h, h, h),
        ]
    }
}

/// C, the one matrix every worker adds into, as Savina's static C: allocated zeroed once, untimed,
/// and zeroed again at the start of each iteration ([`SharedC::clear`]).
///
/// It is stored as leaf-sized blocks (row-major within a block, blocks row-major), each behind its
/// own lock, which a leaf holds while it adds into the block. Savina's routing sends every leaf of
/// one block to one worker (they share `srC + scC`), which runs them one after another, so no lock
/// is ever waited on; the locks make the sharing safe without relying on that routing. The layout
/// leaves the kernels' arithmetic alone: a leaf reads and writes each `C[i][j]` once.
pub(crate) struct SharedC {
    /// Leaf dimension.
    leaf: usize,
    /// Blocks per row of C.
    per_row: usize,
    /// Row-major by block.
    blocks: Vec<Mutex<Box<[f64]>>>,
}

impl SharedC {
    /// A zero C for `cfg`.
    pub(crate) fn new(cfg: &Config) -> SharedC {
        let per_row = cfg.n / cfg.leaf;
        let len = cfg.leaf * cfg.leaf;
        SharedC {
            leaf: cfg.leaf,
            per_row,
            blocks: (0..per_row * per_row)
                .map(|_| Mutex::new(vec![0.0; len].into_boxed_slice()))
                .collect(),
        }
    }

    /// Sets every entry to zero.
    pub(crate) fn clear(&self) {
        for index in 0..self.blocks.len() {
            self.lock(index).fill(0.0);
        }
    }

    /// The block of C a leaf Work adds into, locked.
    pub(crate) fn block_for(&self, work: &Work) -> MutexGuard<'_, Box<[f64]>> {
        debug_assert_eq!(work.dim, self.leaf, "leaves all have the leaf dimension");
        self.lock((work.sr_c / self.leaf) * self.per_row + work.sc_c / self.leaf)
    }

    /// Block `index` (row-major by block), locked. A leaf that panicked leaves its block
    /// half-written, which the check then reports, so a poisoned lock is taken as it is.
    fn lock(&self, index: usize) -> MutexGuard<'_, Box<[f64]>> {
        self.blocks[index].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Block `index` (row-major by block).
    #[cfg(test)]
    pub(crate) fn block_mut(&mut self, index: usize) -> &mut [f64] {
        self.blocks[index]
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Every block with its index.
    #[cfg(test)]
    pub(crate) fn blocks_mut(&mut self) -> impl Iterator<Item = (usize, &mut [f64])> {
        self.blocks
            .iter_mut()
            .enumerate()
            .map(|(i, b)| (i, &mut **b.get_mut().unwrap_or_else(|e| e.into_inner())))
    }

    /// Calls `f(i, j0, row)` for each row of each block: `row` holds `C[i][j0..]`.
    pub(crate) fn for_each_row(&self, mut f: impl FnMut(usize, usize, &[f64])) {
        for index in 0..self.blocks.len() {
            let block = self.lock(index);
            let (i0, j0) = (
                (index / self.per_row) * self.leaf,
                (index % self.per_row) * self.leaf,
            );
            for (di, row) in block.chunks_exact(self.leaf).enumerate() {
                f(i0 + di, j0, row);
            }
        }
    }

    /// `C[i][j]`.
    #[cfg(test)]
    pub(crate) fn get(&self, i: usize, j: usize) -> f64 {
        let (leaf, per_row) = (self.leaf, self.per_row);
        self.lock((i / leaf) * per_row + j / leaf)[(i % leaf) * leaf + j % leaf]
    }
}

#[cfg(test)]
mod tests {
    use super::{Inputs, Leaf, Work, TILE_COLUMNS};

    #[test]
    fn split_covers_each_quadrant_twice_with_matching_inner_blocks() {
        let parts = Work::root(8).split();
        for (q, pair) in parts.chunks(2).enumerate() {
            for w in pair {
                assert_eq!((w.sr_c, w.sc_c), ((q / 2) * 4, (q % 2) * 4));
                assert_eq!((w.sr_a, w.sc_b), (w.sr_c, w.sc_c));
                assert_eq!(w.sc_a, w.sr_b, "A's columns meet B's rows");
                assert_eq!((w.dim, w.num_blocks), (4, 16));
            }
            assert_ne!(
                pair[0].sc_a, pair[1].sc_a,
                "the two halves of the inner sum"
            );
        }
    }

    /// Rows are never a power of two apart (see [`ROW_GAP`]), at the default size or any other, and
    /// the gap is never read: the product's entries are those of the matrices without it.
    #[test]
    fn rows_are_not_a_power_of_two_apart() {
        for n in [128, 512, 1024, 2048] {
            let inputs = Inputs::new(n);
            assert!(!(inputs.pitch * std::mem::size_of::<f64>()).is_power_of_two());
            assert_eq!(inputs.a.len(), n * inputs.pitch);
            assert_eq!(inputs.b[inputs.pitch + 3], 3.0, "B[1][3] = 3");
            assert_eq!(inputs.a[2 * inputs.pitch + 5], 2.0, "A[2][5] = 2");
        }
    }

    /// Both kernels against the textbook loop, to the bit, on blocks whose size is not a multiple
    /// of the tile (edge rows and columns), onto a C that is not zero, with values whose sums
    /// round (so that a kernel adding in another order would differ).
    #[test]
    fn leaf_kernel_matches_the_textbook_loop_at_every_shape() {
        let n = 24;
        let fa = |i: usize, j: usize| 1.0 / ((i * n + j) as f64 + 3.0);
        let fb = |i: usize, j: usize| ((i * n + j) as f64 * 0.37).sin();
        let inputs = Inputs::from_fn(n, fa, fb);
        for dim in [1, 3, 4, 5, 7, 8, 9, 12, 17] {
            let work = Work {
                sr_a: 1,
                sc_a: 2,
                sr_b: 2,
                sc_b: 3,
                sr_c: 1,
                sc_c: 3,
                num_blocks: dim * dim,
                dim,
            };
            let start: Vec<f64> = (0..dim * dim).map(|e| e as f64 * 0.5).collect();
            let mut want = start.clone();
            for i in 0..dim {
                for j in 0..dim {
                    for k in 0..dim {
                        want[i * dim + j] += fa(1 + i, 2 + k) * fb(2 + k, 3 + j);
                    }
                }
            }
            for kernel in [Leaf::Plain, Leaf::Tiled] {
                let mut got = start.clone();
                inputs.multiply_leaf(kernel, &work, &mut got);
                assert_eq!(got, want, "dim {dim}, {kernel:?}");
            }
            // The baseline tiles, whichever the processor runs above.
            let mut got = start;
            inputs.multiply_leaf_tiles::<TILE_COLUMNS>(&work, &mut got, &mut Vec::new());
            assert_eq!(got, want, "dim {dim}, baseline tiles");
        }
    }

    #[test]
    fn leaf_kernel_adds_the_block_product() {
        let inputs = Inputs::new(4);
        let work = Work {
            sr_a: 2,
            sc_a: 0,
            sr_b: 0,
            sc_b: 2,
            sr_c: 2,
            sc_c: 2,
            num_blocks: 4,
            dim: 2,
        };
        for kernel in [Leaf::Plain, Leaf::Tiled] {
            let mut c = vec![1.0; 4];
            inputs.multiply_leaf(kernel, &work, &mut c);
            // C[i][j] += Σ_{k<2} i·j = 2·i·j for i, j in {2, 3}.
            assert_eq!(
                c,
                [1.0 + 8.0, 1.0 + 12.0, 1.0 + 12.0, 1.0 + 18.0],
                "{kernel:?}"
            );
        }
    }
}
