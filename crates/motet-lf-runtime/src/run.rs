//! Running a generated program: the command line (`--workers N`, `--fast [BOOL]`,
//! `--timeout TIME`, and `--PARAM VALUE` for each parameter of the main reactor), the hidden
//! reactor through which spawned threads request a stop, and the run on motet's runner.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use motet_reactor::{ProgramBuilder, Runner};
use motet_runtime::Runtime;

use crate::ctx::{mark_finished, Shared};

/// How to run: the target properties, overridden by the command line.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Worker threads (0 or 1: the calling thread).
    pub workers: usize,
    /// Fast mode.
    pub fast: bool,
    /// Stop at (T0 + timeout, 0).
    pub timeout: Option<Duration>,
}

/// A value given on the command line for a parameter of the main reactor.
pub trait ParseArg: Sized {
    /// Parses the value.
    ///
    /// # Errors
    /// A message saying what was expected.
    fn parse_arg(s: &str) -> Result<Self, String>;
}

macro_rules! parse_from_str {
    ($($t:ty),*) => {$(
        impl ParseArg for $t {
            fn parse_arg(s: &str) -> Result<Self, String> {
                s.parse().map_err(|e| format!("`{s}`: {e}"))
            }
        }
    )*};
}
parse_from_str!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, bool, String
);

impl ParseArg for Duration {
    fn parse_arg(s: &str) -> Result<Self, String> {
        parse_duration(s)
    }
}

/// Parses a time such as `10 ms`, `10ms`, `2 sec` or `0`.
///
/// # Errors
/// A message for a missing number or an unknown unit.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("`{s}`: expected a number and a time unit"))?;
    let scale: u64 = match unit.trim() {
        "" if n == 0 => 0,
        "ns" | "nsec" | "nsecs" => 1,
        "us" | "usec" | "usecs" => 1_000,
        "ms" | "msec" | "msecs" => 1_000_000,
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000_000_000,
        "min" | "mins" | "minute" | "minutes" => 60_000_000_000,
        "h" | "hour" | "hours" => 3_600_000_000_000,
        "d" | "day" | "days" => 86_400_000_000_000,
        "week" | "weeks" => 604_800_000_000_000,
        u => return Err(format!("`{s}`: unknown time unit `{u}`")),
    };
    Ok(Duration::from_nanos(n.saturating_mul(scale)))
}

/// Whether `given` names parameter `param`, whatever the case and separators
/// (`--num-iterations`, `--num_iterations` and `--numIterations` all name `numIterations`).
fn same_name(param: &str, given: &str) -> bool {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    norm(param) == norm(given)
}

/// The command line: run options and parameter values.
#[derive(Debug, Default)]
pub struct Args {
    params: HashMap<String, String>,
}

impl Args {
    /// Parses `args` (without the program name) against the main reactor's parameter names,
    /// updating `config`.
    ///
    /// # Errors
    /// A message for an unknown option or a missing or malformed value.
    pub fn parse(
        args: impl IntoIterator<Item = String>,
        params: &[&str],
        config: &mut Config,
    ) -> Result<Args, String> {
        let mut out = Args::default();
        let mut it = args.into_iter().peekable();
        while let Some(a) = it.next() {
            let Some(name) = a.strip_prefix("--") else {
                return Err(format!("unexpected argument `{a}`"));
            };
            let (name, inline) = match name.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (name.to_string(), None),
            };
            if name == "help" {
                let names: Vec<String> = params.iter().map(|p| format!("--{p} VALUE")).collect();
                return Err(format!(
                    "options: --workers N, --fast [true|false], --timeout TIME (`10 ms`), {}",
                    if names.is_empty() {
                        "no parameters".into()
                    } else {
                        names.join(", ")
                    }
                ));
            }
            if name == "fast" {
                let v = match inline {
                    Some(v) => v,
                    None if it.peek().is_some_and(|v| v == "true" || v == "false") => {
                        it.next().unwrap_or_default()
                    }
                    None => "true".into(),
                };
                config.fast = v == "true";
                continue;
            }
            let value = match inline.or_else(|| it.next()) {
                Some(v) => v,
                None => return Err(format!("`--{name}` needs a value")),
            };
            match name.as_str() {
                "workers" | "threads" => {
                    config.workers = value
                        .parse()
                        .map_err(|_| format!("`--workers {value}`: expected a number"))?;
                }
                "timeout" => config.timeout = Some(parse_duration(&value)?),
                n => match params.iter().find(|p| same_name(p, n)) {
                    Some(p) => {
                        out.params.insert((*p).to_string(), value);
                    }
                    None => return Err(format!("unknown option `--{name}`")),
                },
            }
        }
        Ok(out)
    }

    /// The value given for parameter `name`, parsed.
    ///
    /// # Errors
    /// The parse error, naming the parameter.
    pub fn param<T: ParseArg>(&self, name: &str) -> Result<Option<T>, String> {
        match self.params.get(name) {
            Some(v) => T::parse_arg(v)
                .map(Some)
                .map_err(|e| format!("--{name}: {e}")),
            None => Ok(None),
        }
    }
}

/// Builds the program with `build` and runs it as `config` says; the exit code is 1 if the
/// program could not be built or a reaction panicked, as LF's test harness expects.
pub fn run_main(
    config: &Config,
    build: impl FnOnce(&mut ProgramBuilder, &Arc<Shared>),
) -> ExitCode {
    let workers = config.workers.max(1);
    let shared = Shared::new(workers);
    let mut b = ProgramBuilder::new();
    build(&mut b, &shared);
    // Threads spawned by reactions request a stop through this physical action.
    let stopper = b.reactor("__async_stop", ());
    let stop = b.physical_action::<(), _>(stopper, "stop", Duration::ZERO);
    b.reaction(stopper, "stop")
        .trigger(stop)
        .body(|_, ctx| ctx.request_stop());
    let _ = shared.stop.set(b.sender(stop).passive());
    let mut program = match b.build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: the program is not valid: {e}");
            return ExitCode::from(1);
        }
    };
    let mut runner = Runner::new();
    let rt = if workers > 1 {
        match Runtime::builder().workers(workers).build() {
            Ok(rt) => Some(rt),
            Err(e) => {
                eprintln!("error: cannot start {workers} workers: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        None
    };
    if let Some(rt) = &rt {
        runner = Runner::on(rt.handle());
    }
    runner = runner.fast(config.fast);
    if let Some(t) = config.timeout {
        runner = runner.timeout(t);
    }
    let result = runner.run(&mut program);
    mark_finished(&shared);
    match result {
        Ok(report) => {
            // For measurements: the run's figures, on request.
            if std::env::var_os("MOTET_LF_METRICS").is_some() {
                eprintln!(
                    "motet-lf: {} reactions executed in {:?}",
                    report.metrics.reactions_executed, report.elapsed
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10 ms"), Ok(Duration::from_millis(10)));
        assert_eq!(parse_duration("2sec"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("10 parsecs").is_err());
    }

    #[test]
    fn options_and_parameters() {
        let mut c = Config::default();
        let a = Args::parse(
            args(&["--workers", "3", "--fast", "--timeout", "5 ms", "--size=7"]),
            &["size"],
            &mut c,
        )
        .unwrap();
        assert_eq!(c.workers, 3);
        assert!(c.fast);
        assert_eq!(c.timeout, Some(Duration::from_millis(5)));
        assert_eq!(a.param::<u32>("size"), Ok(Some(7)));
        assert_eq!(a.param::<u32>("other"), Ok(None));
        let mut c = Config::default();
        assert!(Args::parse(args(&["--nope", "1"]), &["size"], &mut c).is_err());
        assert!(Args::parse(args(&["--size"]), &["size"], &mut c).is_err());
        let a = Args::parse(args(&["--num-iterations", "2"]), &["numIterations"], &mut c).unwrap();
        assert_eq!(a.param::<u32>("numIterations"), Ok(Some(2)));
        let a = Args::parse(args(&["--size", "x"]), &["size"], &mut c).unwrap();
        assert!(a.param::<u32>("size").unwrap_err().contains("--size"));
    }
}
