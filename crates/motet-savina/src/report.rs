//! Human-readable output: the per-run table, the summary, its Markdown form and `list`.
//!
//! The summary has one row per (benchmark, thread count) and one column per model's median. The
//! sequential floor runs once (threads = 1) and is shown in every row of its benchmark, since it
//! bounds every thread count. Two ratio columns follow where both sides exist: `actor/floor` (motet
//! actors' median over the floor's: how far from the floor, lower is better) and `peer/actor` (the
//! fastest peer's median over motet actors': above 1 means motet is faster).

use std::fmt::Write as _;

use crate::bench::{Benchmark, Model};
use crate::record::Record;
use crate::registry;
use crate::runner::Plan;

/// The peer runtimes, compared with motet actors in the summary.
pub const PEERS: [Model; 3] = [Model::Actix, Model::Ractor, Model::Kameo];

/// The per-run table's header line.
pub fn table_header() -> String {
    format!(
        "{:<12} {:<13} {:>7} {:>12} {:>12} {:>12}  {:<12} {}",
        "benchmark", "model", "threads", "median ms", "min ms", "max ms", "result", "status"
    )
}

/// One line of the per-run table.
pub fn table_row(r: &Record) -> String {
    format!(
        "{:<12} {:<13} {:>7} {:>12} {:>12} {:>12}  {:<12} {}",
        r.benchmark,
        r.model.name(),
        r.threads,
        ms(r.median_ms),
        ms(r.min_ms),
        ms(r.max_ms),
        r.result.to_string(),
        if r.validated { "OK" } else { "FAILED" }
    )
}

/// A time in milliseconds, or `-` if there is none.
fn ms(v: f64) -> String {
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
            // Ratios use validated runs only.
            let median = |m: Model| record(m).filter(|r| r.validated).map(|r| r.median_ms);
            let mut row = vec![benchmark.to_string(), threads.to_string()];
            row.extend(models.iter().map(|&m| cell(record(m))));
            let actor = median(Model::Actor);
            if actor_floor {
                row.push(ratio(actor, median(Model::Floor)));
            }
            if peer_actor {
                let best = PEERS
                    .iter()
                    .filter_map(|&p| median(p))
                    .filter(|v| !v.is_nan())
                    .reduce(f64::min);
                row.push(ratio(best, actor));
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
fn row_keys(records: &[Record]) -> Vec<(&'static str, usize)> {
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
fn lookup<'a>(
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

/// `num / den` as "1.23x", or `-` if either is missing.
fn ratio(num: Option<f64>, den: Option<f64>) -> String {
    match (num, den) {
        (Some(n), Some(d)) if !n.is_nan() && !d.is_nan() && d > 0.0 => format!("{:.2}x", n / d),
        _ => "-".to_string(),
    }
}

/// The Markdown report: the summary, the parameters and the machine.
pub fn markdown(records: &[Record], plan: &Plan) -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut out = String::from("# motet-savina results\n\n");
    let _ = writeln!(
        out,
        "Machine: {cores} cores (available parallelism). Each time is the median, in \
         milliseconds, of {} timed iteration(s) after {} untimed warm-up iteration(s).\n",
        plan.iterations, plan.warmup
    );
    let summary = Summary::new(records);
    out.push_str(&summary.to_markdown());
    out.push_str("\nThe sequential floor runs on one thread and is shown at every thread count.");
    if summary.header.iter().any(|h| h == "actor/floor") {
        out.push_str(" `actor/floor`: motet actors' median over the floor's (lower is better).");
    }
    if summary.header.iter().any(|h| h == "peer/actor") {
        out.push_str(
            " `peer/actor`: the fastest peer's median over motet actors' (above 1: motet is \
             faster).",
        );
    }
    out.push('\n');
    out.push_str("\n## Parameters\n\n| benchmark | parameters |\n|---|---|\n");
    for (benchmark, params) in &plan.benchmarks {
        let _ = writeln!(out, "| {} | {} |", benchmark.name, params);
    }
    out
}

/// The text of `motet-savina list`.
pub fn list() -> String {
    let mut out = String::new();
    for b in registry::all() {
        list_one(&mut out, b);
    }
    let models: Vec<&str> = Model::ALL.iter().map(|m| m.name()).collect();
    let _ = writeln!(out, "model names: {}", models.join(", "));
    out
}

/// One benchmark's entry in `list`.
fn list_one(out: &mut String, b: &Benchmark) {
    let _ = writeln!(out, "{:>2} {:<12} {}", b.id, b.name, b.title);
    for p in b.params {
        let _ = writeln!(
            out,
            "   {:<4} default {:<9} small {:<9} {}",
            p.name, p.default, p.small, p.help
        );
    }
    let models: Vec<&str> = (b.variants)().iter().map(|v| v.model.name()).collect();
    let _ = writeln!(out, "   models: {}\n", models.join(", "));
}

#[cfg(test)]
mod tests {
    use super::{list, markdown, table_row, Summary};
    use crate::bench::Model;
    use crate::params::Params;
    use crate::record::Record;
    use crate::registry::find;
    use crate::runner::Plan;

    fn rec(benchmark: &'static str, model: Model, threads: usize, median: f64) -> Record {
        let b = find(benchmark).unwrap();
        Record {
            benchmark,
            model,
            threads,
            params: Params::small(b.params),
            iterations: 3,
            median_ms: median,
            min_ms: median,
            max_ms: median,
            result: serde_json::json!(1),
            validated: true,
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

    #[test]
    fn markdown_names_parameters_and_cores() {
        let b = find("threadring").unwrap();
        let plan = Plan {
            benchmarks: vec![(b, Params::small(b.params))],
            models: vec![Model::Floor],
            threads: vec![1],
            iterations: 3,
            warmup: 1,
        };
        let md = markdown(&[rec("threadring", Model::Floor, 1, 1.0)], &plan);
        assert!(md.contains("cores"));
        assert!(md.contains("| threadring | n=100 r=10000 |"), "{md}");
    }

    #[test]
    fn list_names_every_benchmark_and_its_models() {
        let text = list();
        assert!(text.contains(" 1 pingpong"));
        assert!(text.contains(" 7 big"));
        let models: Vec<&str> = text.lines().filter(|l| l.contains("models: ")).collect();
        assert_eq!(models.len(), 7);
        assert!(models.iter().all(|l| l.contains("floor")), "{text}");
        assert!(
            text.contains("n    default 40000     small 4000      round trips"),
            "{text}"
        );
    }
}
