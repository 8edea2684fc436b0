//! 17. Filter Bank (parallelism): `chan` banks of FIR filters, combined at a sink.
//!
//! Flow (SPEC.md section 3.17): the Producer and the Source run a handshake `sim` times (`Boot` →
//! the Source sends the next input value down the pipeline → `Next` back); then the Producer sends
//! `Exit`. Branches copies each value to the `chan` Banks; a Bank (which builds its sub-pipeline when
//! it starts) feeds Delay(`col`−1) → FIR(`col`, H[j]) → SampleFilter(`col`) → Delay(`col`−1) →
//! FIR(`col`, F[j]) → TaggedForward(j) → Integrator. The Integrator groups one value per bank, in
//! arrival order per bank, and sends each full group to Combine, which sums it (in bank order) and
//! sends the sum to the Sink. `Exit` cascades down every path; the Integrator waits for `chan` of
//! them. A Delay outputs its oldest value per input; a FIR keeps a circular buffer of `col` values
//! and, once full, outputs `Σ_s slot[s]·coef[col−1−s]` per input (indexed by buffer slot, as in
//! Savina); SampleFilter passes one input in `col` and outputs 0 for the others.
//!
//! Input: the Source sends `k mod 1000` for the k-th value, as Savina's does. At the default sizes
//! the only FIR1 output that passes both the SampleFilter and the second Delay is the first, which
//! sees the first input (0) alone, so the Sink receives `sim − 2(col−1)` = 2,050 values, all 0.0
//! (SPEC.md sections 3.17 and 6), while the whole FIR arithmetic is performed. At the small size
//! (`col` = 100) many FIR1 outputs get through and the values vary.
//!
//! Kernel: every default program's FIR adds its products in slot order, as Savina does
//! ([`FirSum::InIndexOrder`]); `actor-tuned` and `floor-tuned` add them in eight interleaved lanes
//! that vectorise ([`FirSum::InLanes`], deviation `lanes-fir`).
//!
//! Validation: the Sink's count, sum and position-weighted sum `Σ (m+1)·v_m` equal those of a direct
//! computation of the same filter bank. The direct computation is derived from the pipeline's
//! structure rather than by running it: only every `col`-th FIR1 output passes the SampleFilter, so
//! FIR2's buffer holds one non-zero value, always in slot `col`−1, and Sink value m is
//! `Σ_j y_j(col·⌊m/col⌋)·F[j][0]`, where `y_j(u)` is FIR1's output u of bank j: O(`sim`) work, done
//! in `prepare` (untimed). It computes `y_j(u)` in slot order, and every other step (the zeros FIR2
//! adds, Combine's bank order, the Sink's arrival order) as the pipeline does, so a program whose
//! FIR adds in slot order must match it exactly; the lanes only reassociate FIR1's sum, so the tuned
//! programs must match it to 1e-9 relative (exactly where every value is an integer below 2^53, as
//! at the defaults). The result is the Sink's sum.

mod actor;
mod floor;
mod reactor;

use std::collections::VecDeque;
use std::sync::Arc;

use crate::bench::{Benchmark, Outcome};
use crate::params::Params;

/// Filter Bank (Savina 17).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "filterbank",
    id: 17,
    title: "Filter Bank: a source feeding banks of FIR filters, combined at a sink",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-col` columns (FIR length), `-sim` input values and `-chan` banks; "small" is LF's small size
    /// (100 columns, the same 34,816 values).
    const PARAMS: &[ParamSpec] = [col, sim, chan];

    /// The decoded parameters, shared by every variant (`chan` is checked first). Savina clamps
    /// `chan` to 2..34; here a value outside is an error.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("chan", default = 8.0, small = 8.0, parse = channels,
            help = "channels (banks), 2 to 34")]
        chan: usize,
        /// At least 2: the delays hold `col − 1` values.
        #[param("col", default = 16_384.0, small = 100.0, parse = columns,
            help = "columns: the FIR length, the delays' length + 1 and the sampling rate")]
        col: usize,
        #[param("sim", default = 34_816.0, small = 34_816.0, min = 0,
            help = "input values sent by the source")]
        sim: u64,
    }
}

variants!(
    actor,
    actor_tuned["lanes-fir"],
    reactor(own_protocol),
    floor,
    floor_tuned["lanes-fir"],
);

/// Savina's channel limit (its `MessageChannel` enum has 34 usable values).
const MAX_CHANNELS: u64 = 34;

/// Decodes `chan`: 2 to [`MAX_CHANNELS`].
fn channels(params: &Params, name: &str) -> Result<usize, String> {
    let chan = params.integer(name, 2)?;
    if chan > MAX_CHANNELS {
        return Err(format!(
            "parameter `{name}` must be at most {MAX_CHANNELS}, got {chan}"
        ));
    }
    Ok(chan as usize)
}

/// Decodes `col`: 2 to 2^26.
fn columns(params: &Params, name: &str) -> Result<usize, String> {
    let col = params.integer(name, 2)?;
    if col > 1 << 26 {
        return Err(format!("parameter `{name}` must be at most 2^26"));
    }
    Ok(col as usize)
}

impl Config {
    /// The k-th input value the Source sends: `k mod 1000`, as Savina's Source.
    #[inline]
    pub(crate) fn input(k: u64) -> f64 {
        (k % 1000) as f64
    }

    /// How many values reach the Sink: `sim − 2(col − 1)`, or none.
    pub(crate) fn sink_values(&self) -> u64 {
        self.sim.saturating_sub(2 * (self.col as u64 - 1))
    }
}

/// How a FIR adds its products: the program's kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FirSum {
    /// In slot order, as Savina: every default program.
    InIndexOrder,
    /// In eight interleaved lanes (deviation `lanes-fir`): the tuned programs.
    InLanes,
}

impl FirSum {
    /// The relative tolerance of the check: none in slot order, which is the direct computation's
    /// order; lanes reassociate the sum, which changes its rounding where products or partial sums
    /// are not integers below 2^53.
    fn tolerance(self) -> f64 {
        match self {
            FirSum::InIndexOrder => 0.0,
            FirSum::InLanes => 1e-9,
        }
    }
}

/// Savina's coefficients, computed once (untimed) and shared read-only; each array is stored
/// reversed (`coef[col − 1 − s]` at index s) so that a FIR's sum runs over both arrays in order.
/// They carry the program's [`FirSum`], which every FIR made from them runs.
#[derive(Debug)]
pub(crate) struct Coefficients {
    /// `H[j][i] = i·col + j·chan + j + i + j + 1`, reversed, per bank.
    pub(crate) h: Vec<Arc<[f64]>>,
    /// `F[j][i] = i·j + j·j + j + i`, reversed, per bank.
    pub(crate) f: Vec<Arc<[f64]>>,
    /// How the program's FIRs add their products.
    pub(crate) sum: FirSum,
}

impl Coefficients {
    /// The coefficients for `cfg`, for FIRs that add as `sum` says.
    pub(crate) fn new(cfg: &Config, sum: FirSum) -> Arc<Coefficients> {
        let (c, chan) = (cfg.col as f64, cfg.chan as f64);
        let reversed = |coef: &dyn Fn(f64) -> f64| -> Arc<[f64]> {
            (0..cfg.col).rev().map(|i| coef(i as f64)).collect()
        };
        let h = (0..cfg.chan)
            .map(|j| {
                let j = j as f64;
                reversed(&|i| (i * c) + (j * chan) + j + i + j + 1.0)
            })
            .collect();
        let f = (0..cfg.chan)
            .map(|j| {
                let j = j as f64;
                reversed(&|i| (i * j) + (j * j) + j + i)
            })
            .collect();
        Arc::new(Coefficients { h, f, sum })
    }

    /// `H[j][i]`.
    fn h_at(&self, j: usize, i: usize) -> f64 {
        let h = &self.h[j];
        h[h.len() - 1 - i]
    }

    /// `F[j][i]`.
    fn f_at(&self, j: usize, i: usize) -> f64 {
        let f = &self.f[j];
        f[f.len() - 1 - i]
    }
}

/// A delay line of `len` values, initially zeros: outputs the value it got `len` inputs ago.
#[derive(Debug)]
pub(crate) struct Delay {
    state: Vec<f64>,
    place: usize,
}

impl Delay {
    /// A delay of `len` (at least 1) values.
    pub(crate) fn new(len: usize) -> Delay {
        Delay {
            state: vec![0.0; len],
            place: 0,
        }
    }

    /// Takes one input and returns the output.
    #[inline]
    pub(crate) fn push(&mut self, value: f64) -> f64 {
        let out = std::mem::replace(&mut self.state[self.place], value);
        self.place += 1;
        if self.place == self.state.len() {
            self.place = 0;
        }
        out
    }
}

/// A FIR filter over a circular buffer of `col` values (Savina's `FirFilterActor`).
#[derive(Debug)]
pub(crate) struct Fir {
    data: Vec<f64>,
    index: usize,
    full: bool,
    coef_reversed: Arc<[f64]>,
    sum: FirSum,
}

impl Fir {
    /// A FIR with `coef_reversed` (`coef[col − 1 − s]` at index s) and an empty buffer, adding its
    /// products as `sum` says.
    pub(crate) fn new(coef_reversed: Arc<[f64]>, sum: FirSum) -> Fir {
        Fir {
            data: vec![0.0; coef_reversed.len()],
            index: 0,
            full: false,
            coef_reversed,
            sum,
        }
    }

    /// Takes one input; once the buffer is full, returns `Σ_s slot[s]·coef[col − 1 − s]`.
    #[inline]
    pub(crate) fn push(&mut self, value: f64) -> Option<f64> {
        self.data[self.index] = value;
        self.index += 1;
        if self.index == self.data.len() {
            self.full = true;
            self.index = 0;
        }
        self.full.then(|| match self.sum {
            FirSum::InIndexOrder => dot(&self.data, &self.coef_reversed),
            FirSum::InLanes => dot_lanes(&self.data, &self.coef_reversed),
        })
    }
}

/// `Σ a[i]·b[i]` added in index order, as Savina's FIR loop does (and [`expected`]).
#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut sum = 0.0;
    for (x, y) in a.iter().zip(b) {
        sum += x * y;
    }
    sum
}

/// `Σ a[i]·b[i]`, in eight interleaved partial sums (lanes i mod 8) added at the end, so that the
/// loop vectorises (deviation `lanes-fir`). It differs from [`dot`] only by rounding, and not at
/// all when every product and partial sum is an integer below 2^53 (the case at the default sizes).
#[inline]
fn dot_lanes(a: &[f64], b: &[f64]) -> f64 {
    const LANES: usize = 8;
    let mut acc = [0.0f64; LANES];
    let (a8, b8) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f64 = a8
        .remainder()
        .iter()
        .zip(b8.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a8.zip(b8) {
        for l in 0..LANES {
            acc[l] += x[l] * y[l];
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// SampleFilter: passes the first of every `rate` inputs and outputs 0 for the others.
#[derive(Debug)]
pub(crate) struct Sample {
    rate: usize,
    received: usize,
}

impl Sample {
    /// A filter passing one input in `rate`.
    pub(crate) fn new(rate: usize) -> Sample {
        Sample { rate, received: 0 }
    }

    /// Takes one input and returns the output.
    #[inline]
    pub(crate) fn push(&mut self, value: f64) -> f64 {
        let out = if self.received == 0 { value } else { 0.0 };
        self.received = (self.received + 1) % self.rate;
        out
    }
}

/// The Integrator's grouping: the m-th value from each bank goes into group m; full groups leave
/// in order.
///
/// Savina keeps a list of maps and puts a value into the first map without its bank, which is the
/// same grouping since each bank's values arrive in order; it emits at most one group per message,
/// which can leave full groups behind at the end, so here every full group at the front leaves.
#[derive(Debug)]
pub(crate) struct Integrator {
    chan: usize,
    groups: VecDeque<(Vec<f64>, usize)>,
    received: Vec<u64>,
    emitted: u64,
}

impl Integrator {
    /// An integrator for `chan` banks.
    pub(crate) fn new(chan: usize) -> Integrator {
        Integrator {
            chan,
            groups: VecDeque::new(),
            received: vec![0; chan],
            emitted: 0,
        }
    }

    /// Records `value` from bank `j`, then hands every full group at the front to `emit`.
    pub(crate) fn push(&mut self, j: usize, value: f64, mut emit: impl FnMut(Vec<f64>)) {
        let at = (self.received[j] - self.emitted) as usize;
        self.received[j] += 1;
        if at == self.groups.len() {
            self.groups.push_back((vec![0.0; self.chan], 0));
        }
        let group = &mut self.groups[at];
        group.0[j] = value;
        group.1 += 1;
        while self.groups.front().is_some_and(|g| g.1 == self.chan) {
            let (values, _) = self.groups.pop_front().expect("a front group");
            self.emitted += 1;
            emit(values);
        }
    }
}

/// Combine: the sum of a group, in bank order.
#[inline]
pub(crate) fn combine(values: &[f64]) -> f64 {
    values.iter().sum()
}

/// What the Sink saw.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SinkTotals {
    /// Values received.
    pub(crate) count: u64,
    /// Their sum.
    pub(crate) sum: f64,
    /// `Σ (m+1)·v_m`.
    pub(crate) weighted: f64,
}

impl SinkTotals {
    /// Records the next value.
    #[inline]
    pub(crate) fn push(&mut self, value: f64) {
        self.count += 1;
        self.sum += value;
        self.weighted += self.count as f64 * value;
    }
}

/// The Sink's totals computed directly from the structure of the filter bank (see the module
/// docs): O(`sim`) work.
pub(crate) fn expected(cfg: &Config, coef: &Coefficients) -> SinkTotals {
    let c = cfg.col;
    let count = cfg.sink_values();
    // FIR1's output u = k·col of bank j sees the delayed inputs k·col .. k·col + col − 1 in slots
    // 0 .. col − 1; the first delay shifts the input by col − 1.
    let fir1_at = |j: usize, k: u64| -> f64 {
        let mut sum = 0.0;
        for s in 0..c {
            let t = k * c as u64 + s as u64;
            let delayed = if t < c as u64 - 1 {
                0.0
            } else {
                Config::input(t - (c as u64 - 1))
            };
            sum += delayed * coef.h_at(j, c - 1 - s);
        }
        sum
    };
    let mut totals = SinkTotals::default();
    let mut current: Option<(u64, f64)> = None;
    for m in 0..count {
        let k = m / c as u64;
        let value = match current {
            Some((at, v)) if at == k => v,
            _ => {
                let v = (0..cfg.chan).map(|j| fir1_at(j, k) * coef.f_at(j, 0)).sum();
                current = Some((k, v));
                v
            }
        };
        totals.push(value);
    }
    totals
}

/// Validates a run whose FIRs add as `sum` says: the Sink's totals against `expected`, exactly or
/// to [`FirSum::tolerance`]. The result is the Sink's sum.
pub(crate) fn check(expected: &SinkTotals, got: Option<SinkTotals>, sum: FirSum) -> Outcome {
    let Some(got) = got else {
        return Outcome::failed("the sink did not finish");
    };
    let tolerance = sum.tolerance();
    let close = |a: f64, b: f64| a == b || (a - b).abs() <= tolerance * a.abs().max(b.abs());
    let check = if got.count != expected.count {
        Err(format!(
            "the sink received {} values, expected {}",
            got.count, expected.count
        ))
    } else if !close(got.sum, expected.sum) {
        Err(format!(
            "the sink's sum is {}, the direct computation gives {}",
            got.sum, expected.sum
        ))
    } else if !close(got.weighted, expected.weighted) {
        Err(format!(
            "the sink's weighted sum is {}, the direct computation gives {}",
            got.weighted, expected.weighted
        ))
    } else {
        Ok(())
    };
    Outcome {
        result: got.sum.into(),
        check,
    }
}

#[cfg(test)]
mod tests {
    use super::{
        check, dot, dot_lanes, expected, Coefficients, Config, FirSum, Integrator, SinkTotals,
        BENCHMARK,
    };
    use crate::bench::Model;
    use crate::benchmarks::testing::{self, rejects, run_actor_and_floor};

    fn config(sets: &[(&str, f64)]) -> Config {
        Config::from_params(&testing::defaults(&BENCHMARK, sets)).unwrap()
    }

    /// At the defaults the Sink gets 2,050 values, all 0.0 (SPEC.md section 3.17).
    #[test]
    fn defaults_give_2050_zeros() {
        let cfg = config(&[]);
        let e = expected(&cfg, &Coefficients::new(&cfg, FirSum::InIndexOrder));
        assert_eq!(e.count, 2050);
        assert_eq!(e.sum, 0.0);
        assert_eq!(e.weighted, 0.0);
    }

    /// At the small size the Sink's values are not all zero, so the check there compares real
    /// sums; a Source that sent zeros only would fail it.
    #[test]
    fn the_small_size_gives_nonzero_values() {
        let cfg = Config::from_params(&testing::params(&BENCHMARK, &[])).unwrap();
        let e = expected(&cfg, &Coefficients::new(&cfg, FirSum::InIndexOrder));
        assert_eq!(e.count, 34_816 - 2 * 99);
        assert!(e.sum > 0.0 && e.weighted > e.sum, "{e:?}");
        let zeros = SinkTotals {
            count: e.count,
            ..SinkTotals::default()
        };
        assert!(check(&e, Some(zeros), FirSum::InIndexOrder).check.is_err());
    }

    #[test]
    fn lanes_match_the_plain_sum_on_integers() {
        let a: Vec<f64> = (0..1003).map(|i| (i % 17) as f64).collect();
        let b: Vec<f64> = (0..1003).map(|i| (i * 3 % 101) as f64).collect();
        let plain: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert_eq!(dot(&a, &b), plain);
        assert_eq!(dot_lanes(&a, &b), plain);
    }

    /// On values whose sums round, the default kernel is the index-order sum to the bit, and the
    /// lanes differ from it only within the tuned check's tolerance.
    #[test]
    fn the_default_dot_adds_in_index_order() {
        let a: Vec<f64> = (0..1003).map(|i| 1.0 / (i as f64 + 1.0)).collect();
        let b: Vec<f64> = (0..1003).map(|i| (i as f64 * 0.7).sin()).collect();
        let mut plain = 0.0;
        for (x, y) in a.iter().zip(&b) {
            plain += x * y;
        }
        assert_eq!(dot(&a, &b).to_bits(), plain.to_bits());
        let lanes = dot_lanes(&a, &b);
        assert_ne!(lanes.to_bits(), plain.to_bits(), "the lanes reassociate");
        assert!((lanes - plain).abs() <= FirSum::InLanes.tolerance() * plain.abs());
    }

    #[test]
    fn integrator_groups_by_arrival_per_bank() {
        let mut integrator = Integrator::new(3);
        let mut out = Vec::new();
        for (j, v) in [
            (0, 1.0),
            (0, 2.0),
            (1, 10.0),
            (2, 100.0),
            (1, 20.0),
            (2, 200.0),
        ] {
            integrator.push(j, v, |g| out.push(g));
        }
        assert_eq!(out, [vec![1.0, 10.0, 100.0], vec![2.0, 20.0, 200.0]]);
    }

    #[test]
    fn check_compares_count_and_sums() {
        let e = SinkTotals {
            count: 2,
            sum: 3.0,
            weighted: 5.0,
        };
        for sum in [FirSum::InIndexOrder, FirSum::InLanes] {
            assert!(check(&e, Some(e), sum).check.is_ok());
            assert!(check(&e, Some(SinkTotals { count: 1, ..e }), sum)
                .check
                .is_err());
            assert!(check(&e, Some(SinkTotals { sum: 3.1, ..e }), sum)
                .check
                .is_err());
            assert!(check(&e, Some(SinkTotals { weighted: 4.0, ..e }), sum)
                .check
                .is_err());
            assert!(check(&e, None, sum).check.is_err());
        }
        // The default kernel adds as the direct computation does: one rounding off fails it.
        let off = SinkTotals {
            sum: 3.0f64.next_up(),
            ..e
        };
        assert!(check(&e, Some(off), FirSum::InIndexOrder).check.is_err());
        assert!(check(&e, Some(off), FirSum::InLanes).check.is_ok());
    }

    /// The filter bank run densely, stage by stage over whole arrays, written here independently
    /// of the benchmark's stages: the Sink's values.
    fn dense(col: usize, sim: usize, chan: usize) -> Vec<f64> {
        let input: Vec<f64> = (0..sim).map(|k| (k % 1000) as f64).collect();
        let delay = |x: &[f64]| -> Vec<f64> {
            (0..x.len())
                .map(|t| if t < col - 1 { 0.0 } else { x[t - (col - 1)] })
                .collect()
        };
        let fir = |x: &[f64], coef: &dyn Fn(usize) -> f64| -> Vec<f64> {
            let mut slots = vec![0.0; col];
            let mut out = Vec::new();
            for (t, &v) in x.iter().enumerate() {
                slots[t % col] = v;
                if t + 1 >= col {
                    out.push((0..col).map(|s| slots[s] * coef(col - 1 - s)).sum());
                }
            }
            out
        };
        let mut sink = vec![0.0; sim.saturating_sub(2 * (col - 1))];
        for j in 0..chan {
            let (c, jf, ch) = (col as f64, j as f64, chan as f64);
            let h = |i: usize| i as f64 * c + jf * ch + jf + i as f64 + jf + 1.0;
            let f = |i: usize| i as f64 * jf + jf * jf + jf + i as f64;
            let y = fir(&delay(&input), &h);
            let z: Vec<f64> = y
                .iter()
                .enumerate()
                .map(|(u, &v)| if u % col == 0 { v } else { 0.0 })
                .collect();
            let w = fir(&delay(&z), &f);
            for (m, v) in w.iter().enumerate() {
                sink[m] += v;
            }
        }
        sink
    }

    /// The direct computation and the actor and floor results against the dense run, at two sizes
    /// where the Sink's values vary.
    #[test]
    fn actor_and_floor_match_a_dense_run_at_two_sizes() {
        for (col, sim, chan) in [(5usize, 60usize, 3usize), (16, 200, 8)] {
            let sink = dense(col, sim, chan);
            assert!(sink.windows(2).any(|w| w[0] != w[1]), "values vary");
            let mut totals = SinkTotals::default();
            sink.iter().for_each(|&v| totals.push(v));
            let sets = [
                ("col", col as f64),
                ("sim", sim as f64),
                ("chan", chan as f64),
            ];
            let cfg = config(&sets);
            assert_eq!(
                expected(&cfg, &Coefficients::new(&cfg, FirSum::InIndexOrder)),
                totals
            );
            for result in run_actor_and_floor(&BENCHMARK, &sets) {
                assert_eq!(result, serde_json::json!(totals.sum));
            }
        }
    }

    /// The default programs (FIRs in slot order) and the tuned ones (in lanes) validate and give
    /// the same Sink sum, at a size where the FIRs have whole lanes and a remainder and the values
    /// vary (all integers below 2^53, so the lanes' sums are exact too).
    #[test]
    fn default_and_tuned_programs_agree() {
        let sets = [("col", 44.0), ("sim", 400.0), ("chan", 8.0)];
        let cells = [
            (Model::Actor, 2, 1),
            (Model::ActorTuned, 2, 1),
            (Model::Floor, 1, 1),
            (Model::FloorTuned, 1, 1),
            (Model::Reactor, 2, 1),
        ];
        let outcomes = testing::cells(&BENCHMARK, &cells, &sets);
        let cfg = config(&sets);
        let want = expected(&cfg, &Coefficients::new(&cfg, FirSum::InIndexOrder));
        assert!(want.sum > 0.0);
        for (outcome, cell) in outcomes.iter().zip(cells) {
            assert_eq!(outcome.result, serde_json::json!(want.sum), "{cell:?}");
        }
    }

    #[test]
    fn bad_sizes_are_rejected() {
        assert!(rejects(&BENCHMARK, &[("chan", 35.0)]).contains("`chan`"));
        assert!(rejects(&BENCHMARK, &[("chan", 1.0)]).contains("`chan`"));
        assert!(rejects(&BENCHMARK, &[("col", 1.0)]).contains("`col`"));
    }
}
