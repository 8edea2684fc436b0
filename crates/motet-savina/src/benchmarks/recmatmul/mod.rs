//! 23. Recursive Matrix Multiplication (parallelism): `C = A·B` split recursively into blocks.
//!
//! Leaves of at most `t` elements are computed by `w` workers.
//!
//! Flow (SPEC.md section 3.23): the Master creates W workers and sends `Work(whole matrix)`; every
//! Work goes to worker `(srC + scC) mod W`. A worker whose block has more than `t` elements sends
//! the eight half-size products of the 2×2 decomposition back to the Master (two per quadrant of
//! C), which forwards them; a worker with a leaf block adds `A·B` over it into C. Every processed
//! Work is answered with `Done`; when every Work sent is done the Master stops the workers, they
//! echo `Stop`, and the Master exits. At the defaults the tree is 1 → 8 → 64 → 512 leaves of
//! 128 × 128 × 128, 1.07e9 multiply-adds.
//!
//! Data: `A[i][j] = i`, `B[i][j] = j`, built once in `prepare` (untimed, as Savina builds them in
//! `initialize`) and shared read-only.
//!
//! C: one matrix shared by every worker, as Savina's static `C` ([`SharedC`]): made in `prepare`
//! and zeroed at the start of each iteration; a leaf adds into its block of C in place.
//!
//! Kernel: every default program multiplies a leaf with SPEC.md's i-j-k loop
//! ([`Leaf::Plain`]); `actor-tuned` with register tiles over a packed B ([`Leaf::Tiled`],
//! deviation `tiled-matmul`) and a batch of one for its Master and workers (deviation `batch`).
//! Both kernels add every entry's terms in Savina's order, so both give the same C.
//!
//! The floor runs the actor program's messages on one thread; `floor-loop` is the decomposition
//! alone, its Work items in a first-in, first-out queue.
//!
//! Validation, after the run (untimed, as Savina's `cleanupIteration`): `C[i][j] = n·i·j` exactly
//! (every value is an integer below 2⁵³). The result is the sum of C, `n·(n(n−1)/2)²`.

mod actor;
mod floor;
mod floor_loop;
mod matrix;
mod reactor;

use crate::bench::{Benchmark, Outcome};

pub(crate) use matrix::{Inputs, Leaf, SharedC, Work};

/// Recursive Matrix Multiplication (Savina 23).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "recmatmul",
    id: 23,
    title: "Recursive Matrix Multiplication: blocked C = A·B by W workers",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-w`, `-n`, `-t`, `-p`; "small" is LF's small size (`n = 512`).
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param(super::WORKERS, parse = super::workers)]
        workers: usize,
        #[param("n", default = 1024.0, small = 512.0, min = 1, help = "matrix dimension")]
        n: usize,
        /// Clamped to `u32::MAX`.
        #[param("t", default = 16384.0, small = 16384.0, min = 1,
            help = "largest block (elements) a worker multiplies without splitting")]
        threshold: usize,
        #[param(super::priorities(10.0), min = 1)]
        _priorities: u64,
    }
    derived {
        /// The dimension of a leaf block: `n` halved until `dim²` is at most `t`.
        leaf: usize = 0,
    }
    finish = Config::finish;
}

variants!(
    actor,
    actor_tuned ["batch", "tiled-matmul"],
    reactor (own_protocol),
    floor,
    floor_loop,
);

impl Config {
    /// Checks the dimension, which must halve exactly down to the leaf size (Savina's integer
    /// halving otherwise leaves rows and columns out of C), finds the leaf size and clamps the
    /// threshold.
    fn finish(&mut self) -> Result<(), String> {
        let n = self.n;
        if n > 1 << 16 {
            return Err(format!("parameter `n` must be at most 65536, got {n}"));
        }
        self.threshold = self.threshold.min(u32::MAX as usize);
        let threshold = self.threshold;
        let mut leaf = n;
        while leaf * leaf > threshold {
            if !leaf.is_multiple_of(2) {
                return Err(format!(
                    "parameter `n` ({n}) must halve exactly down to blocks of at most `t` \
                     ({threshold}) elements; {leaf} is odd"
                ));
            }
            leaf /= 2;
        }
        self.leaf = leaf;
        Ok(())
    }

    /// The first Work: the whole product.
    pub(crate) fn root_work(&self) -> Work {
        Work::root(self.n)
    }

    /// The worker a Work goes to: `(srC + scC) mod W`, as in Savina.
    pub(crate) fn worker_of(&self, work: &Work) -> usize {
        (work.sr_c + work.sc_c) % self.workers
    }
}

/// Validates C: `C[i][j] = n·i·j` for every entry. The result is the sum of C.
///
/// This runs inside every timed iteration, after the workers are done, so it is the sequential
/// tail of the program on any number of workers: a row is checked without branching per entry
/// and summed in [`LANES`] partial sums, so that the loop compiles to vector instructions and the
/// additions do not wait on one another (one running sum was a visible share of the 2-worker
/// time at the defaults). For `n` up to 2048 every entry and every partial sum of a
/// correct C is an integer below 2⁵³ (at the defaults the sum is 2.8·10¹⁴), so the result is the
/// exact sum whatever the order of the additions; beyond, it is rounded, the same way for every
/// variant.
pub(crate) fn check(cfg: &Config, c: Option<&SharedC>) -> Outcome {
    let Some(c) = c else {
        return Outcome::failed("the Master reported no C");
    };
    let n = cfg.n as f64;
    // Column indices as floats, so the expected row is one multiplication per entry.
    let columns: Vec<f64> = (0..cfg.n).map(|j| j as f64).collect();
    let mut sum = 0.0;
    let mut error = None;
    c.for_each_row(|i, j0, row| {
        let ni = n * i as f64;
        let columns = &columns[j0..][..row.len()];
        let (row_sum, wrong) = row_sum_and_mismatch(ni, columns, row);
        sum += row_sum;
        if wrong && error.is_none() {
            let (j, (&got, &column)) = (j0..)
                .zip(row.iter().zip(columns))
                .find(|(_, (&got, &column))| got != ni * column)
                .expect("a mismatch was seen in this row");
            error = Some(format!("C[{i}][{j}] is {got}, expected {}", ni * column));
        }
    });
    Outcome {
        result: sum.into(),
        check: error.map_or(Ok(()), Err),
    }
}

/// Partial sums per row in [`check`].
const LANES: usize = 8;

/// The sum of `row` and whether some entry differs from `ni · columns[j]` (`row` and `columns`
/// have the same length).
fn row_sum_and_mismatch(ni: f64, columns: &[f64], row: &[f64]) -> (f64, bool) {
    let mut lanes = [0.0; LANES];
    let mut wrong = false;
    let (row_chunks, columns_chunks) = (row.chunks_exact(LANES), columns.chunks_exact(LANES));
    let (row_rest, columns_rest) = (row_chunks.remainder(), columns_chunks.remainder());
    for (got, column) in row_chunks.zip(columns_chunks) {
        for ((lane, &got), &column) in lanes.iter_mut().zip(got).zip(column) {
            *lane += got;
            wrong |= got != ni * column;
        }
    }
    let mut sum = lanes.iter().sum::<f64>();
    for (&got, &column) in row_rest.iter().zip(columns_rest) {
        sum += got;
        wrong |= got != ni * column;
    }
    (sum, wrong)
}

#[cfg(test)]
mod tests {
    use super::{check, row_sum_and_mismatch, Config, SharedC, BENCHMARK, LANES};
    use crate::bench::Model;
    use crate::benchmarks::testing;

    fn config(sets: &[(&str, f64)]) -> Result<Config, String> {
        Config::from_params(&testing::defaults(&BENCHMARK, sets))
    }

    #[test]
    fn leaves_are_128_at_the_defaults() {
        let cfg = config(&[]).unwrap();
        assert_eq!((cfg.n, cfg.leaf, cfg.workers), (1024, 128, 20));
        assert_eq!(config(&[("n", 512.0)]).unwrap().leaf, 128);
        assert_eq!(config(&[("n", 48.0), ("t", 144.0)]).unwrap().leaf, 12);
    }

    #[test]
    fn sizes_that_do_not_halve_are_rejected() {
        let err = testing::rejects(&BENCHMARK, &[("n", 100.0), ("t", 16.0)]);
        assert!(err.contains("`n`"), "{err}");
        testing::rejects(&BENCHMARK, &[("n", 0.0)]);
        testing::rejects(&BENCHMARK, &[("w", 0.0)]);
        testing::rejects(&BENCHMARK, &[("t", 1.5)]);
    }

    #[test]
    fn check_wants_every_entry() {
        let cfg = config(&[("n", 4.0), ("t", 4.0)]).unwrap();
        let mut c = SharedC::new(&cfg);
        assert!(check(&cfg, Some(&c)).check.is_err(), "C still zero");
        for (index, block) in c.blocks_mut() {
            let (r, col) = (index / 2 * 2, index % 2 * 2);
            for (e, v) in block.iter_mut().enumerate() {
                *v = 4.0 * (r + e / 2) as f64 * (col + e % 2) as f64;
            }
        }
        let ok = check(&cfg, Some(&c));
        assert_eq!(ok.check, Ok(()));
        assert_eq!(ok.result, serde_json::json!(4.0 * 36.0));
        *c.block_mut(3).first_mut().unwrap() += 1.0;
        assert!(check(&cfg, Some(&c)).check.is_err());
        assert!(check(&cfg, None).check.is_err());
    }

    /// A row's sum and its mismatches, in the vector part of the row and in its remainder.
    #[test]
    fn row_check_sums_and_sees_every_entry() {
        let len = 3 * LANES + 3;
        let columns: Vec<f64> = (0..len).map(|j| j as f64).collect();
        let row: Vec<f64> = columns.iter().map(|&j| 5.0 * j).collect();
        let want: f64 = row.iter().sum();
        assert_eq!(row_sum_and_mismatch(5.0, &columns, &row), (want, false));
        for wrong in [0, LANES + 1, len - 1] {
            let mut bad = row.clone();
            bad[wrong] += 1.0;
            assert_eq!(
                row_sum_and_mismatch(5.0, &columns, &bad),
                (want + 1.0, true),
                "entry {wrong}"
            );
        }
    }

    /// A wrong entry is named by its coordinates.
    #[test]
    fn check_names_the_first_wrong_entry() {
        let cfg = config(&[("n", 32.0), ("t", 256.0)]).unwrap();
        let mut c = SharedC::new(&cfg);
        for (index, block) in c.blocks_mut() {
            let (r, col) = (index / 2 * 16, index % 2 * 16);
            for (e, v) in block.iter_mut().enumerate() {
                *v = 32.0 * (r + e / 16) as f64 * (col + e % 16) as f64;
            }
        }
        assert_eq!(check(&cfg, Some(&c)).check, Ok(()));
        // Block 3 holds C[16..][16..]; its entry 16·2 + 11 is C[18][27].
        c.block_mut(3)[16 * 2 + 11] = -1.0;
        let err = check(&cfg, Some(&c)).check.unwrap_err();
        assert_eq!(
            err,
            format!("C[18][27] is -1, expected {}", 32.0 * 18.0 * 27.0)
        );
    }

    /// The actor program on one and two workers and the floor validate at a reduced size.
    #[test]
    fn validates_at_a_reduced_size() {
        testing::run_actor_and_floor(&BENCHMARK, &[("n", 64.0), ("t", 256.0), ("w", 5.0)]);
    }

    /// Every program checks C after its timed run.
    #[test]
    fn validation_is_untimed() {
        testing::validation_is_untimed(
            &BENCHMARK,
            &[
                Model::Actor,
                Model::ActorTuned,
                Model::Floor,
                Model::FloorLoop,
                Model::Reactor,
            ],
            &[("n", 32.0), ("t", 64.0), ("w", 3.0)],
        );
    }

    /// The default programs (the i-j-k loop) and the tuned one (the tiled kernel) validate and
    /// give the same sum of C, on more than one iteration of one program (C is zeroed between).
    #[test]
    fn default_and_tuned_programs_agree() {
        let sets = [("n", 64.0), ("t", 256.0), ("w", 5.0)];
        let n = 64.0f64;
        let sum = n * (n * (n - 1.0) / 2.0).powi(2);
        testing::expect_result(
            &BENCHMARK,
            &[
                (Model::Actor, 2, 2),
                (Model::ActorTuned, 2, 2),
                (Model::Floor, 1, 2),
                (Model::FloorLoop, 1, 2),
                (Model::Reactor, 2, 2),
            ],
            &sets,
            serde_json::json!(sum),
        );
    }
}
