//! One measured (benchmark, model, thread count) and its JSON form.
//!
//! `--json FILE` writes an array of these records, with exactly these keys in this order:
//! `{"benchmark", "model", "threads", "params", "deviations", "own_protocol", "iterations",
//! "median_ms", "ci95_low_ms", "ci95_high_ms", "min_ms", "max_ms", "result", "validated",
//! "peak_rss_kib"}`. `deviations` names every way the program differs from SPEC.md (empty for the
//! default models, which follow it exactly; see [`crate::deviation`]); `own_protocol` is true for a
//! program whose protocol differs from the actor program's by design (BoC's multi-cown behaviours,
//! LF's batched reactions), which may therefore run below the floor. `ci95_low_ms` and
//! `ci95_high_ms` bound a 95% confidence interval of the median (see [`Stats`]). `result` is the
//! benchmark's checked output (SPEC.md's validation value), so that anyone can check it
//! independently. `peak_rss_kib` is the peak
//! resident memory of the child process that measured the record (its `prepare`, warm-up and
//! timed iterations, and the binary's own few MiB), in KiB; `null` where it was not measured (a run
//! in process, or a platform without `wait4`). Records of reactor programs carry two more keys:
//! `reactors_created`, the reactors created by mutations during the last iteration (0 for a static
//! program), and `metrics`: LF's Table 1 figures of the last iteration ([`ReactorMetrics`]: reactors,
//! reactions, actions, ports, connections, tags, reactions executed, ports set, actions scheduled,
//! and `ns_per_reaction` from the median); other records have neither key.

use std::io;
use std::path::Path;

use serde::{Serialize, Serializer};

use crate::bench::{Model, ReactorMetrics};
use crate::params::Params;

/// The measurement of one (benchmark, model, thread count).
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    /// SPEC.md's short name.
    pub benchmark: &'static str,
    /// The model, by its command-line name.
    #[serde(serialize_with = "model_name")]
    pub model: Model,
    /// Worker threads (1 for a sequential model).
    pub threads: usize,
    /// The parameter values, as a JSON object.
    #[serde(serialize_with = "params_object")]
    pub params: Params,
    /// The names of the program's deviations from SPEC.md (empty: it follows SPEC.md exactly).
    pub deviations: &'static [&'static str],
    /// Whether the program's protocol differs from the actor program's by design, so that it may
    /// run below the floor.
    pub own_protocol: bool,
    /// Timed iterations measured.
    pub iterations: usize,
    /// Median time of the timed iterations, in milliseconds (`null` if none completed).
    pub median_ms: f64,
    /// Lower end of the median's 95% confidence interval, in milliseconds.
    pub ci95_low_ms: f64,
    /// Upper end of the median's 95% confidence interval, in milliseconds.
    pub ci95_high_ms: f64,
    /// Fastest timed iteration, in milliseconds.
    pub min_ms: f64,
    /// Slowest timed iteration, in milliseconds.
    pub max_ms: f64,
    /// The last iteration's checked output (`null` if it panicked).
    pub result: serde_json::Value,
    /// Whether every iteration (warm-up included) passed the benchmark's check.
    pub validated: bool,
    /// Peak resident memory of the process that measured this record alone, in KiB (`null` if
    /// not measured).
    pub peak_rss_kib: Option<u64>,
    /// Reactors created by mutations during the last iteration, for reactor programs (the key is
    /// left out otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reactors_created: Option<u64>,
    /// LF's Table 1 figures, for reactor programs (the key is left out otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics: Option<ReactorMetrics>,
}

impl Record {
    /// The record as a JSON value (keys in record order).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a record always serialises")
    }

    /// Whether this cell's and `other`'s medians are a tie: their 95% confidence intervals
    /// overlap, so the run does not tell which is faster.
    pub fn ties(&self, other: &Record) -> bool {
        self.ci95_low_ms <= other.ci95_high_ms && other.ci95_low_ms <= self.ci95_high_ms
    }
}

fn model_name<S: Serializer>(model: &Model, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(model.name())
}

fn params_object<S: Serializer>(params: &Params, s: S) -> Result<S::Ok, S::Error> {
    params.to_json().serialize(s)
}

/// What a cell's samples say: their median with a 95% confidence interval, and their range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// The median.
    pub median: f64,
    /// Lower end of the median's 95% confidence interval.
    pub ci_low: f64,
    /// Upper end of the median's 95% confidence interval.
    pub ci_high: f64,
    /// The fastest sample.
    pub min: f64,
    /// The slowest sample.
    pub max: f64,
}

impl Stats {
    /// The statistics of `samples` (NaN for each if there are none).
    ///
    /// The interval is the distribution-free one from order statistics: the `j`-th smallest and
    /// `j`-th largest samples, with `j` the largest rank for which fewer than `j` of `n` samples
    /// fall below the true median with probability at most 2.5% (the binomial distribution with
    /// `p = 1/2`). It assumes only that the samples are independent draws of one distribution.
    /// With fewer than 6 samples no such interval reaches 95%, and it is the whole range.
    pub fn of(samples: &[f64]) -> Stats {
        if samples.is_empty() {
            return Stats {
                median: f64::NAN,
                ci_low: f64::NAN,
                ci_high: f64::NAN,
                min: f64::NAN,
                max: f64::NAN,
            };
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let mid = n / 2;
        let median = if n % 2 == 1 {
            sorted[mid]
        } else {
            (sorted[mid - 1] + sorted[mid]) / 2.0
        };
        let j = median_ci_rank(n);
        Stats {
            median,
            ci_low: sorted[j - 1],
            ci_high: sorted[n - j],
            min: sorted[0],
            max: sorted[n - 1],
        }
    }

    /// Whether this cell's interval and `other`'s overlap: the data cannot tell which median is
    /// lower, and a comparison of the two is a tie.
    pub fn overlaps(&self, other: &Stats) -> bool {
        self.ci_low <= other.ci_high && other.ci_low <= self.ci_high
    }
}

/// The rank `j` (1-based) of the order statistics that bound a 95% confidence interval of the
/// median of `n` samples: the largest `j` with `P(B < j) <= 0.025`, `B ~ Binomial(n, 1/2)`, and at
/// least 1 (the whole range, for fewer than 6 samples).
fn median_ci_rank(n: usize) -> usize {
    if n > 1000 {
        // The normal approximation, accurate to a rank at this size (the exact sum below would
        // underflow).
        let j = (n as f64 / 2.0 - 1.96 * (n as f64).sqrt() / 2.0).floor() as usize;
        return j.max(1);
    }
    // P(B = k) for k = 0, 1, ...: 2^-n, then times (n - k) / (k + 1).
    let mut pmf = 0.5f64.powi(n as i32);
    let mut below = 0.0; // P(B < j) for the j being tried
    let mut j = 0;
    while j < n / 2 && below + pmf <= 0.025 {
        below += pmf;
        pmf *= (n - j) as f64 / (j + 1) as f64;
        j += 1;
    }
    j.max(1)
}

/// Median, minimum and maximum of `samples` (NaN for each if there are none).
pub fn stats(samples: &[f64]) -> (f64, f64, f64) {
    let s = Stats::of(samples);
    (s.median, s.min, s.max)
}

/// Writes `records` as a JSON array to `path` (through a temporary file, so that a reader never
/// sees half a report).
pub fn write_json(path: &Path, records: &[Record]) -> io::Result<()> {
    let mut text = serde_json::to_string_pretty(records).map_err(io::Error::other)?;
    text.push('\n');
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::{stats, Record, Stats};
    use crate::bench::Model;
    use crate::params::{ParamSpec, Params};

    const SPECS: &[ParamSpec] = &[
        ParamSpec {
            name: "n",
            default: 100.0,
            small: 10.0,
            help: "",
        },
        ParamSpec {
            name: "r",
            default: 2.5,
            small: 1.0,
            help: "",
        },
    ];

    fn record() -> Record {
        Record {
            benchmark: "threadring",
            model: Model::Floor,
            threads: 1,
            params: Params::defaults(SPECS),
            deviations: &[],
            own_protocol: false,
            iterations: 3,
            median_ms: 1.5,
            ci95_low_ms: 1.0,
            ci95_high_ms: 2.0,
            min_ms: 1.0,
            max_ms: 2.0,
            result: serde_json::json!(0),
            validated: true,
            peak_rss_kib: Some(2048),
            reactors_created: None,
            metrics: None,
        }
    }

    #[test]
    fn json_record_has_exactly_the_contract_keys_in_order() {
        let text = serde_json::to_string(&record()).unwrap();
        assert_eq!(
            text,
            r#"{"benchmark":"threadring","model":"floor","threads":1,"params":{"n":100,"r":2.5},"deviations":[],"own_protocol":false,"iterations":3,"median_ms":1.5,"ci95_low_ms":1.0,"ci95_high_ms":2.0,"min_ms":1.0,"max_ms":2.0,"result":0,"validated":true,"peak_rss_kib":2048}"#
        );
        let value = record().to_json();
        let keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        let mut expected = [
            "benchmark",
            "model",
            "threads",
            "params",
            "deviations",
            "own_protocol",
            "iterations",
            "median_ms",
            "ci95_low_ms",
            "ci95_high_ms",
            "min_ms",
            "max_ms",
            "result",
            "validated",
            "peak_rss_kib",
        ];
        expected.sort_unstable();
        assert_eq!(keys, expected);
    }

    #[test]
    fn reactor_records_carry_their_metrics_last() {
        let mut r = record();
        r.model = Model::Reactor;
        r.reactors_created = Some(3);
        r.metrics = Some(crate::bench::ReactorMetrics {
            reactors: 2,
            reactions: 4,
            tags: 10,
            reactions_executed: 30,
            ns_per_reaction: Some(50.0),
            ..Default::default()
        });
        let text = serde_json::to_string(&r).unwrap();
        assert!(
            text.ends_with(r#""peak_rss_kib":2048,"reactors_created":3,"metrics":{"reactors":2,"reactions":4,"actions":0,"ports":0,"connections":0,"tags":10,"reactions_executed":30,"ports_set":0,"actions_scheduled":0,"ns_per_reaction":50.0}}"#),
            "{text}"
        );
    }

    #[test]
    fn missing_times_are_null() {
        let mut r = record();
        (r.median_ms, r.min_ms, r.max_ms) = stats(&[]);
        r.validated = false;
        r.peak_rss_kib = None;
        let v = r.to_json();
        assert!(v["peak_rss_kib"].is_null());
        assert!(v["median_ms"].is_null() && v["min_ms"].is_null() && v["max_ms"].is_null());
        assert_eq!(v["validated"], serde_json::json!(false));
    }

    #[test]
    fn stats_take_the_middle() {
        assert_eq!(stats(&[3.0, 1.0, 2.0]), (2.0, 1.0, 3.0));
        assert_eq!(stats(&[4.0, 1.0, 2.0, 3.0]), (2.5, 1.0, 4.0));
    }

    #[test]
    fn the_interval_of_the_median_is_from_order_statistics() {
        // n = 10: P(B <= 1) = 11/1024 <= 2.5% < P(B <= 2) = 56/1024, so the 2nd smallest and the
        // 2nd largest (coverage 1 - 22/1024, about 97.9%).
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        let s = Stats::of(&ten);
        assert_eq!((s.ci_low, s.median, s.ci_high), (2.0, 5.5, 9.0));
        // n = 6 is the smallest with a 95% interval: the whole range (1 - 2/64 = 96.9%).
        let six = Stats::of(&[6.0, 1.0, 5.0, 2.0, 4.0, 3.0]);
        assert_eq!((six.ci_low, six.ci_high), (1.0, 6.0));
        // n = 5 has none (the range covers 93.75%): the range is given.
        let five = Stats::of(&[5.0, 1.0, 4.0, 2.0, 3.0]);
        assert_eq!((five.ci_low, five.ci_high), (1.0, 5.0));
        // n = 100: j = 40 (P(B < 40) = 1.76%, P(B < 41) = 2.84%).
        let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        let h = Stats::of(&hundred);
        assert_eq!((h.ci_low, h.ci_high), (40.0, 61.0));
        // The normal approximation above 1000 samples agrees with the exact rank at 1000.
        assert_eq!(super::median_ci_rank(1000), 469);
        assert_eq!(super::median_ci_rank(1001), 469);
    }

    #[test]
    fn overlapping_intervals_are_a_tie() {
        let a = Stats::of(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]);
        let b = Stats::of(&[8.5, 9.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]);
        let c = Stats::of(&[10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]);
        assert!(
            a.overlaps(&b) && b.overlaps(&a),
            "9.0 ends one and starts the other"
        );
        assert!(!a.overlaps(&c) && !c.overlaps(&a));
    }

    #[test]
    fn json_file_is_an_array() {
        let dir = std::env::temp_dir().join(format!("motet-savina-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("report.json");
        super::write_json(&path, &[record(), record()]).unwrap();
        let back: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(back.as_array().unwrap().len(), 2);
        assert_eq!(back[1]["benchmark"], "threadring");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
