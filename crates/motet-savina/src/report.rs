//! Human-readable output: the per-run table and the summary on the console, and what the Markdown
//! report ([`markdown`](crate::markdown)) and the chart ([`chart`](crate::chart)) share.
//!
//! The summary has one row per (benchmark, thread count) and one column per model's median. The
//! sequential floor runs once (threads = 1) and is shown in every row of its benchmark, since it
//! bounds every thread count. Two ratio columns follow where both sides exist: `actor/floor` (motet
//! actors' median over the floor's: how far from the floor, lower is better) and `peer/actor` (the
//! fastest peer's median over motet actors': above 1 means motet is faster).

use crate::bench::Model;
use crate::machine::Machine;
use crate::record::Record;

pub use crate::listing::{list, list_verbose};
pub use crate::markdown::markdown;

/// Where and how a run was made, for the report's header and the chart's subtitle.
#[derive(Clone, Debug)]
pub struct Setting {
    /// The machine, compiler and date.
    pub machine: Machine,
    /// The arguments the binary was run with (after its name).
    pub command: String,
}

/// The peer runtimes, compared with motet actors in the summary.
pub const PEERS: [Model; 4] = [Model::Actix, Model::ActixOne, Model::Ractor, Model::Kameo];

/// The per-run table's header line.
pub fn table_header() -> String {
    format!(
        "{:<13} {:<13} {:>7} {:>12} {:>12} {:>12} {:>9}  {:<12} {}",
        "benchmark",
        "model",
        "threads",
        "median ms",
        "min ms",
        "max ms",
        "peak MiB",
        "result",
        "status"
    )
}

/// One line of the per-run table.
pub fn table_row(r: &Record) -> String {
    format!(
        "{:<13} {:<13} {:>7} {:>12} {:>12} {:>12} {:>9}  {:<12} {}",
        r.benchmark,
        r.model.name(),
        r.threads,
        ms(r.median_ms),
        ms(r.min_ms),
        ms(r.max_ms),
        r.peak_rss_kib.map_or_else(|| "-".to_string(), mib),
        r.result.to_string(),
        if r.validated { "OK" } else { "FAILED" }
    )
}

/// KiB as MiB with one decimal.
pub(crate) fn mib(kib: u64) -> String {
    format!("{:.1}", kib as f64 / 1024.0)
}

/// A time in milliseconds, or `-` if there is none.
pub(crate) fn ms(v: f64) -> String {
    if v.is_nan() {
        "-".to_string()
    } else {
        format!("{v:.3}")
    }
}

/// The summary as a grid of cells: a header row, then one row per (benchmark, thread count).
pub struct Summary {
    /// Column titles.
    pub header: Vec<String>,
    /// Cells, one row per (benchmark, thread count), in run order.
    pub rows: Vec<Vec<String>>,
}

impl Summary {
    /// Builds the summary of `records`.
    pub fn new(records: &[Record]) -> Summary {
        let models: Vec<Model> = Model::ALL
            .into_iter()
            .filter(|m| records.iter().any(|r| r.model == *m))
            .collect();
        let has = |m: Model| models.contains(&m);
        let actor_floor = has(Model::Actor) && has(Model::Floor);
        let peer_actor = has(Model::Actor) && PEERS.iter().any(|&p| has(p));
        let mut header = vec!["benchmark".to_string(), "threads".to_string()];
        header.extend(models.iter().map(|m| m.name().to_string()));
        if actor_floor {
            header.push("actor/floor".into());
        }
        if peer_actor {
            header.push("peer/actor".into());
        }
        let mut rows = Vec::new();
        for (benchmark, threads) in row_keys(records) {
            let record = |m: Model| lookup(records, benchmark, m, threads);
            let mut row = vec![benchmark.to_string(), threads.to_string()];
            row.extend(models.iter().map(|&m| cell(record(m))));
            // Ratios use validated runs only.
            let valid = |m: Model| record(m).filter(|r| r.validated && !r.median_ms.is_nan());
            let actor = valid(Model::Actor);
            if actor_floor {
                row.push(compared(actor, valid(Model::Floor)));
            }
            if peer_actor {
                let best = PEERS
                    .iter()
                    .filter_map(|&p| valid(p))
                    .min_by(|a, b| a.median_ms.total_cmp(&b.median_ms));
                row.push(compared(best, actor));
            }
            rows.push(row);
        }
        Summary { header, rows }
    }

    /// The summary as aligned plain text.
    pub fn to_text(&self) -> String {
        let widths: Vec<usize> = (0..self.header.len())
            .map(|c| {
                std::iter::once(&self.header)
                    .chain(&self.rows)
                    .map(|row| row[c].len())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(c, (cell, w))| {
                    if c == 0 {
                        format!("{cell:<w$}")
                    } else {
                        format!("{cell:>w$}")
                    }
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
        out
    }

    /// The summary as a Markdown table.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
        out.push_str(&line(&self.header));
        let rule: Vec<String> = (0..self.header.len())
            .map(|c| if c == 0 { "---" } else { "---:" }.to_string())
            .collect();
        out.push_str(&line(&rule));
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }
}

/// The distinct (benchmark, thread count) pairs of `records`, in run order.
pub(crate) fn row_keys(records: &[Record]) -> Vec<(&'static str, usize)> {
    let mut keys: Vec<(&'static str, usize)> = Vec::new();
    for r in records {
        let key = (r.benchmark, r.threads);
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    // A benchmark measured at some thread count by a parallel model needs no floor-only row at 1.
    let parallel = |b: &str, t: usize| {
        records
            .iter()
            .any(|r| r.benchmark == b && r.threads == t && !r.model.is_sequential())
    };
    keys.iter()
        .copied()
        .filter(|&(b, t)| {
            parallel(b, t) || !keys.iter().any(|&(b2, t2)| b2 == b && parallel(b2, t2))
        })
        .collect()
}

/// The record of `model` for (`benchmark`, `threads`); a sequential model's single record serves
/// every thread count.
pub(crate) fn lookup<'a>(
    records: &'a [Record],
    benchmark: &str,
    model: Model,
    threads: usize,
) -> Option<&'a Record> {
    records.iter().find(|r| {
        r.benchmark == benchmark
            && r.model == model
            && (model.is_sequential() || r.threads == threads)
    })
}

/// A summary cell: the median, marked if the run failed.
fn cell(record: Option<&Record>) -> String {
    match record {
        Some(r) if r.validated => ms(r.median_ms),
        Some(r) => format!("{} FAILED", ms(r.median_ms)),
        None => "-".to_string(),
    }
}

/// The ratio of two cells' medians, `num / den`, marked "tie" where their 95% confidence
/// intervals overlap.
fn compared(num: Option<&Record>, den: Option<&Record>) -> String {
    let r = ratio(num.map(|r| r.median_ms), den.map(|r| r.median_ms));
    match (num, den) {
        (Some(n), Some(d)) if n.ties(d) => format!("{r} tie"),
        _ => r,
    }
}

/// `num / den` as "1.23x", or `-` if either is missing.
fn ratio(num: Option<f64>, den: Option<f64>) -> String {
    match (num, den) {
        (Some(n), Some(d)) if !n.is_nan() && !d.is_nan() && d > 0.0 => format!("{:.2}x", n / d),
        _ => "-".to_string(),
    }
}

/// The setting of a report for the tests of its parts: a two-core test machine with
/// `memory_kib`, and the arguments `command`.
#[cfg(test)]
pub(crate) fn test_setting(memory_kib: Option<u64>, command: &str) -> Setting {
    Setting {
        machine: Machine {
            cpu: "Test CPU".into(),
            cores: 2,
            memory_kib,
            os: "linux x86_64".into(),
            rustc: "rustc 1.95.0".into(),
            date: "2026-01-02".into(),
        },
        command: command.into(),
    }
}

/// A validated record with the given median, for the tests of the report's parts.
#[cfg(test)]
pub(crate) fn test_record(
    benchmark: &'static str,
    model: Model,
    threads: usize,
    median: f64,
) -> Record {
    let b = crate::registry::find(benchmark).expect("a registered benchmark");
    Record {
        benchmark,
        model,
        threads,
        params: crate::params::Params::small(b.params),
        deviations: &[],
        own_protocol: false,
        iterations: 3,
        median_ms: median,
        ci95_low_ms: median * 0.9,
        ci95_high_ms: median * 1.1,
        min_ms: median * 0.9,
        max_ms: median * 1.1,
        result: serde_json::json!(1),
        validated: true,
        peak_rss_kib: Some((median * 1024.0) as u64),
        reactors_created: None,
        metrics: None,
    }
}

#[cfg(test)]
mod tests {
    use super::{table_row, Summary};
    use crate::bench::Model;
    use crate::params::Params;
    use crate::record::Record;
    use crate::registry::find;

    fn rec(benchmark: &'static str, model: Model, threads: usize, median: f64) -> Record {
        let b = find(benchmark).unwrap();
        Record {
            benchmark,
            model,
            threads,
            params: Params::small(b.params),
            deviations: &[],
            own_protocol: false,
            iterations: 3,
            median_ms: median,
            ci95_low_ms: median,
            ci95_high_ms: median,
            min_ms: median,
            max_ms: median,
            result: serde_json::json!(1),
            validated: true,
            peak_rss_kib: Some(4096),
            reactors_created: None,
            metrics: None,
        }
    }

    #[test]
    fn summary_has_a_row_per_benchmark_and_threads_with_ratios() {
        let records = [
            rec("count", Model::Floor, 1, 2.0),
            rec("count", Model::Actor, 1, 10.0),
            rec("count", Model::Actor, 2, 20.0),
            rec("count", Model::Kameo, 1, 30.0),
            rec("count", Model::Ractor, 1, 40.0),
            rec("big", Model::Floor, 1, 1.0),
        ];
        let s = Summary::new(&records);
        assert_eq!(
            s.header,
            [
                "benchmark",
                "threads",
                "actor",
                "floor",
                "ractor",
                "kameo",
                "actor/floor",
                "peer/actor"
            ]
        );
        assert_eq!(
            s.rows[0],
            ["count", "1", "10.000", "2.000", "40.000", "30.000", "5.00x", "3.00x"]
        );
        assert_eq!(
            s.rows[1],
            ["count", "2", "20.000", "2.000", "-", "-", "10.00x", "-"]
        );
        assert_eq!(s.rows[2], ["big", "1", "-", "1.000", "-", "-", "-", "-"]);
        assert_eq!(s.rows.len(), 3);
        assert!(s.to_text().lines().nth(1).unwrap().starts_with("count"));
        assert!(s.to_markdown().starts_with("| benchmark | threads |"));
    }

    #[test]
    fn failed_runs_are_marked_and_left_out_of_ratios() {
        let mut r = rec("count", Model::Actor, 1, 2.0);
        r.validated = false;
        assert!(table_row(&r).ends_with("FAILED"));
        let s = Summary::new(&[r, rec("count", Model::Floor, 1, 1.0)]);
        assert_eq!(s.rows[0], ["count", "1", "2.000 FAILED", "1.000", "-"]);
    }
}
