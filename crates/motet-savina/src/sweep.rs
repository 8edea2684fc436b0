//! `motet-savina sweep`: one benchmark's time over a range of one parameter, for several models,
//! written as a table, JSON records and a log-log SVG plot.
//!
//! The Effpi runtime thesis (section 5.3) measures its runtimes this way: each of its six
//! benchmarks at growing scales, plotted log-log. [`Preset`]s hold those sweeps, so that
//! `motet-savina sweep threadring` runs the thesis' curve; `--param` and `--points` run any other
//! (any parameter of any benchmark), and `--size` sets the parameters that stay fixed (by default
//! the thesis' settings, such as 200 round trips per Ping-Pong pair).
//!
//! Every point is a cell of the ordinary harness ([`runner`](crate::runner)): each (point, model,
//! threads) runs in a child process, `--warmup` untimed then `--iterations` timed iterations, every
//! result validated. The JSON records have the format of `run --json`; the table has one row per
//! point and one column per (model, threads), with `process/actor` ratios where both ran.
//!
//! ```text
//! motet-savina sweep BENCH [--param PARAM] [--points V,...] [--model MODEL,...] [--threads N,...]
//!                    [--iterations N] [--warmup N] [--size default|small|PARAM=V]...
//!                    [--json FILE] [--markdown FILE] [--plot FILE.svg]
//! ```

mod plot;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

use clap::Args;
use indicatif::ProgressBar;

use crate::bench::{Benchmark, Model};
use crate::cli::{parse_models, parse_threads};
use crate::console::progress_bar;
use crate::params::Params;
use crate::record::Record;
use crate::registry;
use crate::report::{ms, table_header, table_row};
use crate::runner::{self, Isolation, Job, Observer, Plan};
use crate::sizes::Sizes;

pub use plot::svg;

/// The arguments of `sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The benchmark to sweep, by short name.
    #[arg(value_name = "BENCH")]
    pub benchmark: String,

    /// The parameter to sweep [default: the Effpi thesis' for its six benchmarks].
    #[arg(long, value_name = "PARAM")]
    pub param: Option<String>,

    /// The values of the swept parameter, comma-separated (`_` separators and `1e5` allowed)
    /// [default: the thesis' range].
    #[arg(long, value_name = "V,...", value_delimiter = ',')]
    pub points: Vec<String>,

    /// Models, comma-separated or repeated [default: motet's default models and the floor, those
    /// the benchmark has].
    #[arg(long = "model", value_name = "MODEL,...", value_delimiter = ',')]
    pub models: Vec<String>,

    /// Worker-thread counts, comma-separated or repeated (a sequential model runs once, as 1).
    #[arg(long, value_name = "N,...", value_delimiter = ',', default_value = "2")]
    pub threads: Vec<usize>,

    /// Timed iterations per point, model and thread count.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub iterations: usize,

    /// Untimed warm-up iterations before the timed ones.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub warmup: usize,

    /// The fixed parameters, as for `run` [default: the thesis' settings, over Savina's
    /// defaults]; the swept parameter's value comes from the points.
    #[arg(long, value_name = "default|small|PARAM=V")]
    pub size: Vec<String>,

    /// Write the records as a JSON array to FILE (the format of `run --json`).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write the table as Markdown to FILE.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Draw the curves (median time over the swept parameter, log-log) as SVG to FILE.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

/// A sweep of the Effpi runtime thesis (section 5.3): the parameter it grows, the points, and
/// what it holds fixed.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// The benchmark's short name.
    pub benchmark: &'static str,
    /// The swept parameter, by SPEC.md's flag name.
    pub param: &'static str,
    /// Its values.
    pub points: &'static [f64],
    /// The parameters held fixed (over Savina's defaults).
    pub fixed: &'static [(&'static str, f64)],
}

/// The thesis' six sweeps: chameneos up to 50,000 creatures with 25,000 meetings, Counting Actor
/// over the messages sent, Fork Join creation up to 100,000 processes, Fork Join throughput up to
/// 100,000 processes of 200 messages, Ping-Pong up to 100,000 pairs of 200 round trips, Thread
/// Ring over the ring's size with the hops fixed (a million, so that the hops, not building and
/// tearing down the ring, make up most of the time at every size).
pub const PRESETS: &[Preset] = &[
    Preset {
        benchmark: "chameneos",
        param: "c",
        points: &[10.0, 100.0, 1_000.0, 10_000.0, 50_000.0],
        fixed: &[("m", 25_000.0)],
    },
    Preset {
        benchmark: "count",
        param: "n",
        points: &[1_000.0, 10_000.0, 100_000.0, 1_000_000.0, 10_000_000.0],
        fixed: &[],
    },
    Preset {
        benchmark: "fjcreate",
        param: "n",
        points: &[100.0, 1_000.0, 10_000.0, 100_000.0],
        fixed: &[],
    },
    Preset {
        benchmark: "fjthrput",
        param: "a",
        points: &[10.0, 100.0, 1_000.0, 10_000.0, 100_000.0],
        fixed: &[("n", 200.0)],
    },
    Preset {
        benchmark: "pingpong",
        param: "p",
        points: &[1.0, 10.0, 100.0, 1_000.0, 10_000.0, 100_000.0],
        fixed: &[("n", 200.0)],
    },
    Preset {
        benchmark: "threadring",
        param: "n",
        points: &[100.0, 1_000.0, 10_000.0, 100_000.0],
        fixed: &[("r", 1_000_000.0)],
    },
];

/// The preset sweep of `benchmark`, if the thesis has one.
pub fn preset(benchmark: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.benchmark == benchmark)
}

/// A resolved sweep: what runs.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The benchmark.
    pub benchmark: &'static Benchmark,
    /// The swept parameter.
    pub param: &'static str,
    /// The parameters at each point, in order (the swept one set to the point's value).
    pub points: Vec<(f64, Params)>,
    /// The models, in order.
    pub models: Vec<Model>,
    /// Worker-thread counts, in order.
    pub threads: Vec<usize>,
    /// Timed iterations per cell.
    pub iterations: usize,
    /// Untimed warm-up iterations per cell.
    pub warmup: usize,
}

impl SweepArgs {
    /// The sweep these arguments ask for, or a usage error naming what is valid.
    pub fn sweep(&self) -> Result<Sweep, String> {
        let benchmark = registry::find(&self.benchmark).ok_or_else(|| {
            format!(
                "unknown benchmark `{}`; valid: {}",
                self.benchmark,
                registry::names().join(", ")
            )
        })?;
        let preset = preset(benchmark.name);
        let param_name = match (&self.param, preset) {
            (Some(p), _) => p.trim().to_string(),
            (None, Some(preset)) => preset.param.to_string(),
            (None, None) => {
                return Err(format!(
                    "{} has no preset sweep (those are: {}); name one with --param and --points",
                    benchmark.name,
                    PRESETS
                        .iter()
                        .map(|p| p.benchmark)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        };
        let param = benchmark
            .params
            .iter()
            .find(|p| p.name == param_name)
            .map(|p| p.name)
            .ok_or_else(|| {
                let valid: Vec<&str> = benchmark.params.iter().map(|p| p.name).collect();
                format!(
                    "{} has no parameter `{param_name}`; valid: {}",
                    benchmark.name,
                    valid.join(", ")
                )
            })?;
        let preset = preset.filter(|p| p.param == param);
        let points = if !self.points.is_empty() {
            parse_points(&self.points)?
        } else if let Some(preset) = preset {
            preset.points.to_vec()
        } else {
            return Err(format!(
                "give the values of `{param}` to sweep with --points (e.g. --points 10,100,1000)"
            ));
        };
        // The fixed parameters: Savina's defaults (or the small sizes), the preset's settings, then
        // the user's overrides, in that order.
        let user = Sizes::parse(&self.size)?;
        let mut overrides: Vec<(String, f64)> = preset
            .map(|p| p.fixed.iter().map(|&(n, v)| (n.to_string(), v)).collect())
            .unwrap_or_default();
        overrides.extend(user.overrides.iter().cloned());
        let sizes = Sizes {
            base: user.base,
            overrides,
        };
        let fixed = sizes.resolve(&[benchmark])?.remove(0);
        let points = points
            .into_iter()
            .map(|v| {
                let mut params = fixed.clone();
                params.set(param, v)?;
                Ok((v, params))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let models = if self.models.is_empty() {
            Model::ALL
                .into_iter()
                .filter(|&m| is_motet_or_floor(m) && benchmark.variant(m).is_some())
                .collect()
        } else {
            parse_models(&self.models)?
        };
        let threads = parse_threads(&self.threads)?;
        if self.iterations == 0 {
            return Err("--iterations must be at least 1".into());
        }
        Ok(Sweep {
            benchmark,
            param,
            points,
            models,
            threads,
            iterations: self.iterations,
            warmup: self.warmup,
        })
    }
}

/// motet's own default models and the floor (the peers and the `-tuned` programs are not swept
/// unless asked for).
fn is_motet_or_floor(model: Model) -> bool {
    !model.is_tuned()
        && !matches!(
            model,
            Model::Actix | Model::ActixOne | Model::Ractor | Model::Kameo
        )
}

/// The points, each a positive finite number; duplicates dropped, order kept.
fn parse_points(values: &[String]) -> Result<Vec<f64>, String> {
    let mut points = Vec::new();
    for value in values.iter().map(|v| v.trim()).filter(|v| !v.is_empty()) {
        let v: f64 = value
            .replace('_', "")
            .parse()
            .map_err(|_| format!("--points: `{value}` is not a number"))?;
        if !v.is_finite() || v <= 0.0 {
            return Err(format!(
                "--points: `{value}` must be positive (the plot is log-log)"
            ));
        }
        if !points.contains(&v) {
            points.push(v);
        }
    }
    if points.is_empty() {
        return Err("--points names no value".into());
    }
    Ok(points)
}

impl Sweep {
    /// The plan that runs every point: the benchmark once per point, with that point's parameters.
    pub fn plan(&self, isolation: Isolation) -> Plan {
        Plan {
            benchmarks: self
                .points
                .iter()
                .map(|(_, params)| (self.benchmark, params.clone()))
                .collect(),
            models: self.models.clone(),
            threads: self.threads.clone(),
            iterations: self.iterations,
            warmup: self.warmup,
            min_time: std::time::Duration::ZERO,
            isolation,
            rounds: 1,
        }
    }

    /// The fixed parameters, as `name=value` words (the swept one left out).
    pub fn fixed(&self) -> String {
        let Some((_, params)) = self.points.first() else {
            return String::new();
        };
        params
            .to_string()
            .split(' ')
            .filter(|word| !word.starts_with(&format!("{}=", self.param)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The value of the swept parameter in `record`.
    pub fn point_of(&self, record: &Record) -> f64 {
        record.params.f64(self.param)
    }

    /// The table's series: every (model, threads) with a record, in model then thread order.
    pub fn series(&self, records: &[Record]) -> Vec<(Model, usize)> {
        let mut series: Vec<(Model, usize)> =
            records.iter().map(|r| (r.model, r.threads)).collect();
        series.sort();
        series.dedup();
        series
    }

    /// The table: one row per point, a column per (model, threads) with the median milliseconds
    /// (`FAILED` for a run that did not validate), then `process/actor` per thread count where both
    /// ran. Markdown, which also reads well as plain text.
    pub fn table(&self, records: &[Record]) -> String {
        let series = self.series(records);
        let ratio_threads: Vec<usize> = self
            .threads
            .iter()
            .copied()
            .filter(|&t| {
                series.contains(&(Model::Process, t)) && series.contains(&(Model::Actor, t))
            })
            .collect();
        let mut header = vec![self.param.to_string()];
        header.extend(series.iter().map(|(m, t)| format!("{m} ({t}) ms")));
        header.extend(ratio_threads.iter().map(|t| format!("process/actor ({t})")));
        let mut rows = Vec::new();
        for (point, _) in &self.points {
            let find = |m: Model, t: usize| {
                records
                    .iter()
                    .find(|r| r.model == m && r.threads == t && self.point_of(r) == *point)
            };
            let mut row = vec![number(*point)];
            for &(m, t) in &series {
                row.push(match find(m, t) {
                    Some(r) if r.validated => ms(r.median_ms),
                    Some(_) => "FAILED".to_string(),
                    None => "-".to_string(),
                });
            }
            for &t in &ratio_threads {
                let valid = |m| find(m, t).filter(|r| r.validated).map(|r| r.median_ms);
                row.push(match (valid(Model::Process), valid(Model::Actor)) {
                    (Some(p), Some(a)) if a > 0.0 => format!("{:.2}", p / a),
                    _ => "-".to_string(),
                });
            }
            rows.push(row);
        }
        markdown_table(&header, &rows)
    }
}

/// A point's value as written on the command line: whole numbers without a fraction.
pub(crate) fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// A Markdown table with right-aligned columns after the first.
fn markdown_table(header: &[String], rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .chain(std::iter::once(header[c].chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let cells: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c == 0 {
                    format!("{s:<w$}", w = widths[c])
                } else {
                    format!("{s:>w$}", w = widths[c])
                }
            })
            .collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut text = line(header);
    let rule: Vec<String> = widths
        .iter()
        .enumerate()
        .map(|(c, &w)| {
            if c == 0 {
                "-".repeat(w)
            } else {
                format!("{}:", "-".repeat(w.saturating_sub(1)))
            }
        })
        .collect();
    text.push_str(&format!("| {} |\n", rule.join(" | ")));
    for row in rows {
        text.push_str(&line(row));
    }
    text
}

/// What a sweep produced.
#[derive(Debug, Default)]
pub struct SweepResult {
    /// One record per cell that got past `prepare`, in run order.
    pub records: Vec<Record>,
    /// Cells that failed (prepare error, failed check, panic or crash).
    pub failures: usize,
}

/// Runs every point of `sweep` (each cell as `isolation` says), telling `observer` as it goes.
pub fn run(sweep: &Sweep, isolation: Isolation, observer: &mut dyn Observer) -> SweepResult {
    let summary = runner::run(&sweep.plan(isolation), observer);
    SweepResult {
        records: summary.records,
        failures: summary.failures,
    }
}

/// The console observer of a sweep: the per-cell table with the point's value in front, notes and
/// failures on stderr, and a progress bar when stderr is a terminal.
pub struct SweepConsole {
    param: &'static str,
    bar: ProgressBar,
    header_printed: bool,
    /// The models already reported as missing (the plan names the benchmark once per point).
    skipped: Vec<Model>,
}

impl SweepConsole {
    /// A console for a sweep over `param`.
    pub fn new(param: &'static str) -> SweepConsole {
        let bar = progress_bar();
        SweepConsole {
            param,
            bar,
            header_printed: false,
            skipped: Vec::new(),
        }
    }

    /// Removes the progress bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn point(&self, params: &Params) -> String {
        format!("{}={}", self.param, number(params.f64(self.param)))
    }
}

impl Observer for SweepConsole {
    fn planned(&mut self, jobs: usize, iterations_per_job: usize) {
        self.bar.set_length((jobs * iterations_per_job) as u64);
    }

    fn skipped(&mut self, benchmark: &Benchmark, model: Model) {
        if !self.skipped.contains(&model) {
            self.skipped.push(model);
            self.bar.suspend(|| {
                eprintln!("note: {} has no {} version; skipped", benchmark.name, model)
            });
        }
    }

    fn started(&mut self, job: &Job<'_>) {
        if !self.header_printed {
            self.header_printed = true;
            let header = format!("{:<12} {}", "point", table_header());
            self.bar.suspend(|| println!("{header}"));
        }
        self.bar.set_message(format!(
            "{} {} {} threads={}",
            job.benchmark.name,
            self.point(job.params),
            job.variant.model,
            job.threads
        ));
    }

    fn progressed(&mut self, n: usize) {
        self.bar.inc(n as u64);
    }

    fn failed(&mut self, job: &Job<'_>, what: &str) {
        let line = format!(
            "FAILED: {} {} threads={} ({}): {what}",
            job.benchmark.name, job.variant.model, job.threads, job.params
        );
        self.bar.suspend(|| eprintln!("{line}"));
    }

    fn note(&mut self, job: &Job<'_>, text: &str) {
        let line = format!(
            "  {} {} threads={}: {text}",
            job.benchmark.name, job.variant.model, job.threads
        );
        self.bar.suspend(|| eprintln!("{line}"));
    }

    fn finished(&mut self, record: &Record) {
        let line = format!("{:<12} {}", self.point(&record.params), table_row(record));
        self.bar.suspend(|| println!("{line}"));
    }
}
