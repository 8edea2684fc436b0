//! The tuned programs' kernel (deviation `simd-relax`): distances as `i32` and the step in place,
//! compiled for AVX2 where the processor has it, two rows a pass. Savina's step (`blocks::step`)
//! makes a new block of `long`s in a plain loop.

/// A distance of the tuned programs. Every distance is below `(n − 1)·w < 2³⁰` (the parameters are
/// bounded in `Config`), so `i32` holds it and a sum of two, and the step's inner loop handles
/// twice as many per vector instruction as with Savina's `long`.
pub(crate) type Narrow = i32;

/// `block` in the tuned programs' distances.
pub(crate) fn narrow(block: Vec<super::Dist>) -> Vec<Narrow> {
    block.into_iter().map(|d| d as Narrow).collect()
}

/// One Floyd–Warshall step over a block in place: `d[i][j] = min(d[i][j], col_k[i] + row_k[j])`
/// (row and column `k` do not change in step `k`, as `D[k][k] = 0`, so they may be read from the
/// block being updated once copied out).
pub(crate) fn relax_in_place(d: &mut [Narrow], col_k: &[Narrow], row_k: &[Narrow]) {
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
fn relax_in_place_avx2(d: &mut [Narrow], col_k: &[Narrow], row_k: &[Narrow]) {
    relax_in_place_loop(d, col_k, row_k);
}

/// The loop of [`relax_in_place`] (inlined into each caller, so that it is compiled for that
/// caller's instruction set). It updates two rows per pass over row `k`, so each vector of row
/// `k` is loaded once for both, which measured faster than a row at a time (see
/// docs/measurements/2026-11-29-comment-figures.md).
#[inline(always)]
fn relax_in_place_loop(d: &mut [Narrow], col_k: &[Narrow], row_k: &[Narrow]) {
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
    use super::{relax_in_place, Narrow};
    use crate::benchmarks::apsp::blocks::relax;

    /// The kernel, whichever instruction set runs it, against Savina's step, at widths that leave
    /// vector tails.
    #[test]
    fn the_tuned_kernel_agrees_with_savinas_step() {
        for b in [1, 3, 7, 8, 9, 33, 50] {
            let prev: Vec<Narrow> = (0..b * b).map(|e| ((e * 37) % 101) as Narrow).collect();
            let col: Vec<Narrow> = (0..b).map(|i| ((i * 13) % 17) as Narrow).collect();
            let row: Vec<Narrow> = (0..b).map(|j| ((j * 7) % 23) as Narrow).collect();
            let wide = |v: &[Narrow]| v.iter().map(|&x| i64::from(x)).collect::<Vec<i64>>();
            let mut want = vec![0; b * b];
            relax(&wide(&prev), &mut want, &wide(&col), &wide(&row));
            let mut d = prev.clone();
            relax_in_place(&mut d, &col, &row);
            assert_eq!(wide(&d), want, "b {b}");
        }
    }
}
