//! One measured (benchmark, model, thread count) and its JSON form.
//!
//! `--json FILE` writes an array of these records, with exactly these keys in this order:
//! `{"benchmark", "model", "threads", "params", "iterations", "median_ms", "min_ms", "max_ms",
//! "result", "validated", "peak_rss_kib"}`. `result` is the benchmark's checked output (SPEC.md's
//! validation value), so that anyone can check it independently. `peak_rss_kib` is the peak
//! resident memory of the child process that measured the record (its `prepare`, warm-up and
//! timed iterations, and the binary's own few MiB), in KiB; `null` where it was not measured (a run
//! in process, or a platform without `wait4`). Records of reactor programs carry one more key,
//! `metrics`: LF's Table 1 figures of the last iteration ([`ReactorMetrics`]: reactors,
//! reactions, actions, ports, connections, tags, reactions executed, ports set, actions scheduled,
//! and `ns_per_reaction` from the median); other records have no such key.

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
    /// Timed iterations measured.
    pub iterations: usize,
    /// Median time of the timed iterations, in milliseconds (`null` if none completed).
    pub median_ms: f64,
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
    /// LF's Table 1 figures, for reactor programs (the key is left out otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics: Option<ReactorMetrics>,
}

impl Record {
    /// The record as a JSON value (keys in record order).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a record always serialises")
    }
}

fn model_name<S: Serializer>(model: &Model, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(model.name())
}

fn params_object<S: Serializer>(params: &Params, s: S) -> Result<S::Ok, S::Error> {
    params.to_json().serialize(s)
}

/// Median, minimum and maximum of `samples` (NaN for each if there are none).
pub fn stats(samples: &[f64]) -> (f64, f64, f64) {
    if samples.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    let median = if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    };
    (median, sorted[0], sorted[sorted.len() - 1])
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
    use super::{stats, Record};
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
            iterations: 3,
            median_ms: 1.5,
            min_ms: 1.0,
            max_ms: 2.0,
            result: serde_json::json!(0),
            validated: true,
            peak_rss_kib: Some(2048),
            metrics: None,
        }
    }

    #[test]
    fn json_record_has_exactly_the_contract_keys_in_order() {
        let text = serde_json::to_string(&record()).unwrap();
        assert_eq!(
            text,
            r#"{"benchmark":"threadring","model":"floor","threads":1,"params":{"n":100,"r":2.5},"iterations":3,"median_ms":1.5,"min_ms":1.0,"max_ms":2.0,"result":0,"validated":true,"peak_rss_kib":2048}"#
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
            "iterations",
            "median_ms",
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
            text.ends_with(r#""peak_rss_kib":2048,"metrics":{"reactors":2,"reactions":4,"actions":0,"ports":0,"connections":0,"tags":10,"reactions_executed":30,"ports_set":0,"actions_scheduled":0,"ns_per_reaction":50.0}}"#),
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
