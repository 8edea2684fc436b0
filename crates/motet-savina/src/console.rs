//! The console observer: the per-run table on stdout as it goes, notes and failures on stderr, and a
//! progress bar on stderr when stderr is a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use crate::bench::{Benchmark, Model};
use crate::record::Record;
use crate::report::{table_header, table_row};
use crate::runner::{Job, Observer};

/// Prints a run as it goes.
pub struct Console {
    bar: ProgressBar,
    header_printed: bool,
}

/// The progress bar of the run and sweep consoles: iterations done out of those planned, drawn
/// only if stderr is a terminal.
pub(crate) fn progress_bar() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    let style =
        ProgressStyle::with_template("{bar:30} {pos}/{len} iterations, {elapsed} elapsed, {msg}")
            .expect("the template is valid");
    bar.set_style(style);
    bar
}

impl Console {
    /// A console; the progress bar is drawn only if stderr is a terminal.
    pub fn new() -> Console {
        let bar = progress_bar();
        Console {
            bar,
            header_printed: false,
        }
    }

    /// Removes the progress bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    /// Prints a line on stdout without tearing the progress bar.
    fn out(&self, line: &str) {
        self.bar.suspend(|| println!("{line}"));
    }

    /// Prints a line on stderr without tearing the progress bar.
    fn err(&self, line: &str) {
        self.bar.suspend(|| eprintln!("{line}"));
    }
}

impl Default for Console {
    fn default() -> Console {
        Console::new()
    }
}

impl Observer for Console {
    fn planned(&mut self, jobs: usize, iterations_per_job: usize) {
        self.bar.set_length((jobs * iterations_per_job) as u64);
    }

    fn skipped(&mut self, benchmark: &Benchmark, model: Model) {
        self.err(&format!(
            "note: {} has no {} version; skipped",
            benchmark.name, model
        ));
    }

    fn started(&mut self, job: &Job<'_>) {
        if !self.header_printed {
            self.header_printed = true;
            self.out(&table_header());
        }
        self.bar.set_message(format!(
            "{} {} threads={}",
            job.benchmark.name, job.variant.model, job.threads
        ));
    }

    fn progressed(&mut self, n: usize) {
        self.bar.inc(n as u64);
    }

    fn failed(&mut self, job: &Job<'_>, what: &str) {
        self.err(&format!(
            "FAILED: {} {} threads={} ({}): {what}",
            job.benchmark.name, job.variant.model, job.threads, job.params
        ));
    }

    fn note(&mut self, job: &Job<'_>, text: &str) {
        self.err(&format!(
            "  {} {} threads={}: {text}",
            job.benchmark.name, job.variant.model, job.threads
        ));
    }

    fn finished(&mut self, record: &Record) {
        self.out(&table_row(record));
    }
}
