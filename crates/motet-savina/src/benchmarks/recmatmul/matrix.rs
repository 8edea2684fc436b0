//! The matrices of Recursive Matrix Multiplication, its Work items, and the leaf kernel that the
//! actors and the floor share.

use super::Config;

/// A, B (`n × n`, row-major): `A[i][j] = i`, `B[i][j] = j`, as Savina initialises them.
pub(crate) struct Inputs {
    n: usize,
    a: Vec<f64>,
    b: Vec<f64>,
}

impl Inputs {
    /// Builds A and B for `n × n` (untimed, in `prepare`).
    pub(crate) fn new(n: usize) -> Inputs {
        let a = (0..n * n).map(|e| (e / n) as f64).collect();
        let b = (0..n * n).map(|e| (e % n) as f64).collect();
        Inputs { n, a, b }
    }

    /// The leaf step of Savina's worker: `C[i][j] += Σ_k A[i][scA + k] · B[srB + k][j]` over the
    /// `dim × dim` block of `work`, into `c` (that block of C, row-major).
    ///
    /// Every `C[i][j]` receives its terms in Savina's order (k ascending, each product added onto
    /// the value C had, one rounding per addition), so the result is bitwise Savina's. The block
    /// is computed in tiles of [`TILE_ROWS`] × `COLUMNS` entries of C held in registers while k
    /// runs: A's and B's values are loaded once per tile and k instead of C's once per term. The
    /// B block is first copied into a packing buffer as column panels of `COLUMNS`, k-major, so a
    /// tile reads its panel contiguously (B's own rows lie `n` apart, which maps onto a few cache
    /// sets when `n` is a power of two). The row tiles are the outer loop: a tile's rows of A stay
    /// in the first-level cache while it runs over every panel, and the packed block (contiguous)
    /// in the second level. With the panels outside, each panel read the whole A block again,
    /// rows `n` apart that share a few sets of the second-level cache (one default-size iteration
    /// under cachegrind with a 1 MiB, 8-way last level: 5.4 M misses that way, 3.1 M this way).
    /// Rows and columns past the last whole tile are done one entry at a time, in the same order.
    ///
    /// The packing buffer is the calling thread's ([`PACKED`]), not the caller's: whichever
    /// actor or reactor runs the leaf, a thread packs every leaf into the same memory, which its
    /// cache still holds from the leaf before. A buffer per worker actor wrote a block of cold
    /// lines per leaf: under the same simulation the actors had 0.84 M write misses to the
    /// floor's 0.45 M, and as many as the floor with the buffer per thread.
    ///
    /// On x86-64 processors with AVX the tiles are 8 columns wide and compiled for AVX (twice the
    /// entries per instruction; multiplications and additions stay separate, never fused, so the
    /// roundings are the same); elsewhere they are 4 wide for the baseline SSE2.
    pub(crate) fn multiply_leaf(&self, work: &Work, c: &mut [f64]) {
        let mut packed = PACKED.with(|p| p.take());
        self.multiply_leaf_into(work, c, &mut packed);
        PACKED.with(|p| p.set(packed));
    }

    /// [`Inputs::multiply_leaf`] with the packing buffer `packed`.
    fn multiply_leaf_into(&self, work: &Work, c: &mut [f64], packed: &mut Vec<f64>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: `multiply_leaf_avx` only requires the AVX instructions it is compiled with,
            // and the processor has them (checked just above).
            return unsafe { self.multiply_leaf_avx(work, c, packed) };
        }
        self.multiply_leaf_tiled::<TILE_COLUMNS>(work, c, packed);
    }

    /// [`Inputs::multiply_leaf`] compiled for AVX, with tiles 8 columns wide (16 accumulators in
    /// 8 of the 16 AVX registers).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn multiply_leaf_avx(&self, work: &Work, c: &mut [f64], packed: &mut Vec<f64>) {
        self.multiply_leaf_tiled::<8>(work, c, packed);
    }

    /// The kernel with tiles `COLUMNS` wide (inlined into each caller, so that it is compiled for
    /// that caller's instruction set).
    #[inline(always)]
    fn multiply_leaf_tiled<const COLUMNS: usize>(
        &self,
        work: &Work,
        c: &mut [f64],
        packed: &mut Vec<f64>,
    ) {
        let (n, dim) = (self.n, work.dim);
        debug_assert_eq!(c.len(), dim * dim);
        let a_row = |i: usize| &self.a[(work.sr_a + i) * n + work.sc_a..][..dim];
        let b_row = |k: usize| &self.b[(work.sr_b + k) * n + work.sc_b..][..dim];
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
    /// The packing buffer of [`Inputs::multiply_leaf`] on this thread (taken out while a leaf
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

/// Leaf-sized blocks of C owned by one worker (or by the floor, which owns them all): a block is
/// allocated, zeroed, when its first leaf arrives.
pub(crate) struct CBlocks {
    /// Leaf dimension.
    leaf: usize,
    /// Blocks per row of C.
    per_row: usize,
    /// Row-major by block, `None` until first written.
    blocks: Vec<Option<Box<[f64]>>>,
}

impl CBlocks {
    /// No blocks yet, for C of `cfg`.
    pub(crate) fn new(cfg: &Config) -> CBlocks {
        let per_row = cfg.n / cfg.leaf;
        CBlocks {
            leaf: cfg.leaf,
            per_row,
            blocks: (0..per_row * per_row).map(|_| None).collect(),
        }
    }

    /// Holds nothing (what a worker keeps once it has handed its blocks over).
    pub(crate) fn empty() -> CBlocks {
        CBlocks {
            leaf: 1,
            per_row: 0,
            blocks: Vec::new(),
        }
    }

    /// The block of C a leaf Work adds into.
    pub(crate) fn block_for(&mut self, work: &Work) -> &mut [f64] {
        debug_assert_eq!(work.dim, self.leaf, "leaves all have the leaf dimension");
        self.block_mut((work.sr_c / self.leaf) * self.per_row + work.sc_c / self.leaf)
    }

    /// Block `index` (row-major by block), allocated zeroed if absent.
    pub(crate) fn block_mut(&mut self, index: usize) -> &mut [f64] {
        let len = self.leaf * self.leaf;
        self.blocks[index].get_or_insert_with(|| vec![0.0; len].into_boxed_slice())
    }

    /// Every present block with its index.
    #[cfg(test)]
    pub(crate) fn blocks_mut(&mut self) -> impl Iterator<Item = (usize, &mut [f64])> {
        let len = self.leaf * self.leaf;
        self.blocks
            .iter_mut()
            .enumerate()
            .map(move |(i, b)| (i, &mut **b.get_or_insert_with(|| vec![0.0; len].into())))
    }

    /// Moves every block of `other` into `self`; a block both hold is an error (two owners).
    pub(crate) fn absorb(&mut self, other: CBlocks) -> Result<(), String> {
        for (index, block) in other.blocks.into_iter().enumerate() {
            if let Some(block) = block {
                if self.blocks[index].replace(block).is_some() {
                    return Err(format!("two workers hold block {index} of C"));
                }
            }
        }
        Ok(())
    }

    /// Calls `f(i, j0, row)` for each row of each block: `row` holds `C[i][j0..]`. Stops at the
    /// first block never written, and returns its index.
    pub(crate) fn for_each_row(
        &self,
        mut f: impl FnMut(usize, usize, &[f64]),
    ) -> Result<(), usize> {
        for (index, block) in self.blocks.iter().enumerate() {
            let block = block.as_deref().ok_or(index)?;
            let (i0, j0) = (
                (index / self.per_row) * self.leaf,
                (index % self.per_row) * self.leaf,
            );
            for (di, row) in block.chunks_exact(self.leaf).enumerate() {
                f(i0 + di, j0, row);
            }
        }
        Ok(())
    }

    /// `C[i][j]`, if its block was written.
    #[cfg(test)]
    pub(crate) fn get(&self, i: usize, j: usize) -> Option<f64> {
        let (leaf, per_row) = (self.leaf, self.per_row);
        let block = self.blocks[(i / leaf) * per_row + j / leaf].as_ref()?;
        Some(block[(i % leaf) * leaf + j % leaf])
    }
}

#[cfg(test)]
mod tests {
    use super::{Inputs, Work, TILE_COLUMNS};

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

    /// The tiled kernel against the textbook loop on blocks whose size is not a multiple of the
    /// tile (edge rows and columns), onto a C that is not zero.
    #[test]
    fn leaf_kernel_matches_the_textbook_loop_at_every_shape() {
        let n = 24;
        let inputs = Inputs::new(n);
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
                        want[i * dim + j] +=
                            inputs.a[(1 + i) * n + 2 + k] * inputs.b[(2 + k) * n + 3 + j];
                    }
                }
            }
            let mut got = start.clone();
            inputs.multiply_leaf(&work, &mut got);
            assert_eq!(got, want, "dim {dim}");
            // The baseline tiles, whichever the processor runs above.
            let mut got = start;
            inputs.multiply_leaf_tiled::<TILE_COLUMNS>(&work, &mut got, &mut Vec::new());
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
        let mut c = vec![1.0; 4];
        inputs.multiply_leaf(&work, &mut c);
        // C[i][j] += Σ_{k<2} i·j = 2·i·j for i, j in {2, 3}.
        assert_eq!(c, [1.0 + 8.0, 1.0 + 12.0, 1.0 + 12.0, 1.0 + 18.0]);
    }
}
