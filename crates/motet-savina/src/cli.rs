//! The command line: `motet-savina list` and `motet-savina run`.
//!
//! The argument structs are clap-derived; [`RunArgs::plan`] turns them into a [`Plan`], rejecting
//! unknown benchmark names, models and parameters with an error that lists the valid ones (the
//! binary prints it and exits with status 2, as clap does for its own usage errors).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::bench::{Benchmark, Model};
use crate::registry;
use crate::runner::{Isolation, Plan};
use crate::sizes::Sizes;

/// The Savina benchmarks on motet's models, its peers and the sequential floor.
#[derive(Debug, Parser)]
#[command(name = "motet-savina", version)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the benchmarks: which models implement each, and their parameters.
    List(ListArgs),
    /// Run benchmarks, print a table as it goes and a summary at the end.
    Run(RunArgs),
    /// Run one benchmark over a range of one parameter for several models (the Effpi thesis'
    /// scaling curves by default); print a table, write JSON and a log-log plot.
    Sweep(crate::sweep::SweepArgs),
    /// Measure one cell (benchmark, model, thread count) and report it on stdout as JSON lines:
    /// what `run` starts a child process with for every cell (see the `cell` module).
    #[command(hide = true)]
    Cell(CellArgs),
}

/// The arguments of `list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Describe each benchmark in full: title, parameters with their meaning, models.
    #[arg(long, short)]
    pub verbose: bool,
}

/// The arguments of the hidden `cell` subcommand: one job.
#[derive(Debug, Args)]
pub struct CellArgs {
    /// The benchmark, by short name.
    #[arg(value_name = "BENCH")]
    pub benchmark: String,
    /// The model.
    #[arg(long, value_name = "MODEL")]
    pub model: String,
    /// Worker threads.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// Timed iterations.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub iterations: usize,
    /// Untimed warm-up iterations.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub warmup: usize,
    /// More timed iterations until they add up to this many seconds, as for `run`.
    #[arg(long, value_name = "SECONDS", default_value = "0", value_parser = parse_seconds)]
    pub min_time: Duration,
    /// Problem size, as for `run`.
    #[arg(long, value_name = "default|small|PARAM=V")]
    pub size: Vec<String>,
}

/// The arguments of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Benchmarks to run, by short name (see `list`).
    #[arg(value_name = "BENCH", conflicts_with = "all")]
    pub benchmarks: Vec<String>,

    /// Benchmarks to run, comma-separated or repeated (added to the names given as arguments).
    #[arg(
        long = "bench",
        value_name = "BENCH,...",
        value_delimiter = ',',
        conflicts_with = "all"
    )]
    pub bench: Vec<String>,

    /// Run every benchmark.
    #[arg(long)]
    pub all: bool,

    /// Models to run, comma-separated or repeated: actor, boc, reactor, reactor-level, process,
    /// floor, actix, ractor, kameo [default: every model this binary has].
    #[arg(long = "model", value_name = "MODEL,...", value_delimiter = ',')]
    pub models: Vec<String>,

    /// Worker-thread counts, comma-separated or repeated (a sequential model runs once, as 1).
    #[arg(
        long,
        value_name = "N,...",
        value_delimiter = ',',
        default_value = "1,2"
    )]
    pub threads: Vec<usize>,

    /// Timed iterations per benchmark, model and thread count [default: 10, and more until
    /// `--min-time` is reached].
    #[arg(long, value_name = "N")]
    pub iterations: Option<usize>,

    /// Untimed warm-up iterations before the timed ones.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub warmup: usize,

    /// After the timed iterations, keep timing more until they add up to SECONDS per benchmark,
    /// model and thread count (at most 1000 in all): short cells get a steadier median and a
    /// narrower confidence interval [default: 1 second, or 0 when --iterations is given].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub min_time: Option<Duration>,

    /// Run each cell in N rounds, each a process of its own with its own warm-up, the cells of a
    /// benchmark taking turns in alternating order; the timed iterations and --min-time are
    /// split over the rounds and the record pools their samples. Two cells of a ratio then ran
    /// interleaved, and no median rests on one process alone.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub rounds: usize,

    /// Problem size: `default` (Savina's), `small`, or PARAM=V by SPEC.md's flag names (e.g.
    /// `--size r=1000`); repeated flags accumulate.
    #[arg(long, value_name = "default|small|PARAM=V")]
    pub size: Vec<String>,

    /// Write the records as a JSON array to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write the report as Markdown to FILE: the machine, the times with their spread and ratios,
    /// the peak memory, the parameters (and the chart, if --plot is given).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Draw the chart of the ratios to the sequential floor (log scale, one group per benchmark)
    /// as SVG to FILE.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

impl RunArgs {
    /// The plan these arguments ask for, or a usage error naming what is valid.
    pub fn plan(&self) -> Result<Plan, String> {
        let names: Vec<String> = self.benchmarks.iter().chain(&self.bench).cloned().collect();
        let benchmarks = select_benchmarks(&names, self.all)?;
        let models = if self.models.is_empty() {
            registry::models()
        } else {
            parse_models(&self.models)?
        };
        let threads = parse_threads(&self.threads)?;
        if self.iterations == Some(0) {
            return Err("--iterations must be at least 1".into());
        }
        let iterations = self.iterations.unwrap_or(DEFAULT_ITERATIONS);
        if self.rounds == 0 || self.rounds > iterations {
            return Err(format!(
                "--rounds must be between 1 and the timed iterations ({iterations})"
            ));
        }
        // By default a cell is timed at least `DEFAULT_ITERATIONS` times and at least
        // `DEFAULT_MIN_TIME` in all; a run that names its iterations (CI, a quick look) gets just
        // those, unless it names a time too.
        let min_time = match (self.iterations, self.min_time) {
            (_, Some(t)) => t,
            (Some(_), None) => Duration::ZERO,
            (None, None) => DEFAULT_MIN_TIME,
        };
        let params = Sizes::parse(&self.size)?.resolve(&benchmarks)?;
        Ok(Plan {
            benchmarks: benchmarks.into_iter().zip(params).collect(),
            models,
            threads,
            iterations,
            warmup: self.warmup,
            min_time,
            isolation: Isolation::current_exe()?,
            rounds: self.rounds,
        })
    }
}

/// The timed iterations of a cell when `run` is not told.
pub const DEFAULT_ITERATIONS: usize = 10;

/// The least time the timed iterations of a cell add up to when `run` is told neither
/// `--iterations` nor `--min-time`.
pub const DEFAULT_MIN_TIME: Duration = Duration::from_secs(1);

/// A non-negative, finite number of seconds (`--min-time`).
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds)
        .map_err(|_| format!("`{text}` must be a non-negative, finite number of seconds"))
}

/// The benchmarks named (duplicates dropped), or all of them with `all`.
pub fn select_benchmarks(names: &[String], all: bool) -> Result<Vec<&'static Benchmark>, String> {
    let valid = || registry::names().join(", ");
    if all {
        return Ok(registry::all().to_vec());
    }
    if names.is_empty() {
        return Err(format!(
            "name benchmarks to run, or --all; valid: {}",
            valid()
        ));
    }
    let mut selected: Vec<&'static Benchmark> = Vec::new();
    for name in names {
        let b = registry::find(name)
            .ok_or_else(|| format!("unknown benchmark `{name}`; valid: {}", valid()))?;
        if !selected.iter().any(|s| std::ptr::eq(*s, b)) {
            selected.push(b);
        }
    }
    Ok(selected)
}

/// Models by name (duplicates dropped).
pub fn parse_models(names: &[String]) -> Result<Vec<Model>, String> {
    let mut models = Vec::new();
    for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        let model = Model::from_name(name).ok_or_else(|| {
            let valid: Vec<&str> = Model::ALL.iter().map(|m| m.name()).collect();
            format!("unknown model `{name}`; valid: {}", valid.join(", "))
        })?;
        if !models.contains(&model) {
            models.push(model);
        }
    }
    if models.is_empty() {
        return Err("--model names no model".into());
    }
    Ok(models)
}

/// Thread counts, each at least 1 (duplicates dropped).
pub fn parse_threads(counts: &[usize]) -> Result<Vec<usize>, String> {
    let mut threads = Vec::new();
    for &n in counts {
        if n == 0 {
            return Err("--threads: a thread count must be at least 1".into());
        }
        if !threads.contains(&n) {
            threads.push(n);
        }
    }
    if threads.is_empty() {
        return Err("--threads names no thread count".into());
    }
    Ok(threads)
}

#[cfg(test)]
mod tests {
    use super::{parse_models, parse_threads, select_benchmarks, Cli, Command};
    use crate::bench::Model;
    use clap::Parser;
    use std::time::Duration;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn plan_of(args: &[&str]) -> Result<crate::runner::Plan, String> {
        let cli = Cli::try_parse_from(args).map_err(|e| e.to_string())?;
        match cli.command {
            Command::Run(run) => run.plan(),
            _ => Err("not a run".into()),
        }
    }

    #[test]
    fn unknown_benchmarks_list_the_valid_ones() {
        let err = select_benchmarks(&strings(&["pingpong", "nosuch"]), false).unwrap_err();
        assert!(err.contains("unknown benchmark `nosuch`"), "{err}");
        assert!(err.contains("pingpong, count, fjthrput"), "{err}");
        let err = select_benchmarks(&[], false).unwrap_err();
        assert!(err.contains("--all"), "{err}");
        assert_eq!(
            select_benchmarks(&[], true).unwrap().len(),
            crate::registry::all().len()
        );
        let two = select_benchmarks(&strings(&["big", "count", "big"]), false).unwrap();
        assert_eq!(
            two.iter().map(|b| b.name).collect::<Vec<_>>(),
            ["big", "count"]
        );
    }

    #[test]
    fn unknown_models_list_the_valid_ones() {
        let err = parse_models(&strings(&["actor", "akka"])).unwrap_err();
        assert!(err.contains("unknown model `akka`"), "{err}");
        assert!(err.contains("reactor-level"), "{err}");
        assert!(err.contains("kameo"), "{err}");
        let models = parse_models(&strings(&["floor", "reactor-level", "floor"])).unwrap();
        assert_eq!(models, [Model::Floor, Model::ReactorLevel]);
        for m in Model::ALL {
            assert_eq!(parse_models(&[m.name().to_string()]).unwrap(), [m]);
        }
    }

    #[test]
    fn thread_counts_are_positive() {
        assert!(parse_threads(&[0]).is_err());
        assert_eq!(parse_threads(&[2, 1, 2]).unwrap(), [2, 1]);
    }

    #[test]
    fn run_arguments_make_a_plan() {
        let plan = plan_of(&[
            "motet-savina",
            "run",
            "threadring",
            "--model",
            "floor,actor",
            "--threads",
            "1",
            "--threads",
            "2",
            "--size",
            "small",
            "--size",
            "r=1000",
            "--iterations",
            "3",
        ])
        .unwrap();
        assert_eq!(plan.models, [Model::Floor, Model::Actor]);
        assert_eq!(plan.threads, [1, 2]);
        assert_eq!((plan.iterations, plan.warmup), (3, 2));
        assert_eq!(plan.benchmarks[0].1.to_string(), "n=100 r=1000");
    }

    #[test]
    fn benchmarks_by_option_join_those_by_argument() {
        let plan = plan_of(&[
            "motet-savina",
            "run",
            "big",
            "--bench",
            "pingpong,count",
            "--bench",
            "big",
        ])
        .unwrap();
        let names: Vec<_> = plan.benchmarks.iter().map(|(b, _)| b.name).collect();
        assert_eq!(names, ["big", "pingpong", "count"]);
        assert!(plan_of(&["motet-savina", "run", "--bench", "count", "--all"]).is_err());
        assert!(plan_of(&["motet-savina", "run", "--bench", "nosuch"])
            .unwrap_err()
            .contains("unknown benchmark `nosuch`"));
    }

    #[test]
    fn defaults_and_usage_errors() {
        let plan = plan_of(&["motet-savina", "run", "--all"]).unwrap();
        assert_eq!(plan.threads, [1, 2]);
        assert_eq!((plan.iterations, plan.warmup), (10, 2));
        assert!(plan.models.contains(&Model::Floor));
        assert_eq!(plan.benchmarks[0].1.to_string(), "n=40000 p=1");
        assert!(plan_of(&["motet-savina", "run", "big", "--all"]).is_err());
        assert!(plan_of(&["motet-savina", "run", "nosuch"])
            .unwrap_err()
            .contains("valid: pingpong"));
        assert!(
            plan_of(&["motet-savina", "run", "--all", "--model", "erlang"])
                .unwrap_err()
                .contains("unknown model")
        );
        assert!(plan_of(&["motet-savina", "run", "big", "--size", "r=3"])
            .unwrap_err()
            .contains("big: n, w"));
        assert!(plan_of(&["motet-savina", "run", "big", "--iterations", "0"]).is_err());
        // Untold, a cell is timed 10 times and at least a second; told its iterations, just
        // those; told a time, at least that.
        assert_eq!(plan.min_time, super::DEFAULT_MIN_TIME);
        let counted = plan_of(&["motet-savina", "run", "big", "--iterations", "3"]).unwrap();
        assert_eq!((counted.iterations, counted.min_time), (3, Duration::ZERO));
        let longer = plan_of(&["motet-savina", "run", "big", "--min-time", "0.5"]).unwrap();
        assert_eq!(
            (longer.iterations, longer.min_time),
            (10, Duration::from_millis(500))
        );
        let both = [
            "motet-savina",
            "run",
            "big",
            "--iterations",
            "3",
            "--min-time",
            "2",
        ];
        let both = plan_of(&both).unwrap();
        assert_eq!(
            (both.iterations, both.min_time),
            (3, Duration::from_secs(2))
        );
        for bad in ["-1", "x", "inf"] {
            assert!(plan_of(&["motet-savina", "run", "big", "--min-time", bad]).is_err());
        }
    }

    #[test]
    fn rounds_are_at_least_one_and_at_most_the_timed_iterations() {
        assert_eq!(plan_of(&["motet-savina", "run", "big"]).unwrap().rounds, 1);
        let three = plan_of(&["motet-savina", "run", "big", "--rounds", "3"]).unwrap();
        assert_eq!((three.rounds, three.iterations), (3, 10));
        for bad in [
            &["motet-savina", "run", "big", "--rounds", "0"][..],
            &["motet-savina", "run", "big", "--rounds", "11"],
            &[
                "motet-savina",
                "run",
                "big",
                "--rounds",
                "3",
                "--iterations",
                "2",
            ],
        ] {
            let err = plan_of(bad).unwrap_err();
            assert!(err.contains("--rounds must be between 1 and"), "{err}");
        }
    }
}
