//! Execution traces in the Chrome trace format, viewable in Perfetto (ui.perfetto.dev) or
//! `chrome://tracing`: one complete event per reaction execution (start and duration, on the row of
//! the worker thread that ran it, with its tag and level), and one instant event per tag.

use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

use motet_reactor_core::{Program, Tag};

use crate::clock::now_ns;

/// One recorded reaction execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReactionSpan {
    /// The reaction (declaration index).
    pub reaction: u32,
    /// Its tag.
    pub tag: Tag,
    /// The thread that ran it (a small number per thread).
    pub worker: u32,
    /// Start, nanoseconds since the run started.
    pub start: u64,
    /// End, nanoseconds since the run started.
    pub end: u64,
}

/// A recorded run: reaction spans and tag starts.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Reaction executions, in completion order.
    pub spans: Vec<ReactionSpan>,
    /// Tag starts: (tag, nanoseconds since the run started).
    pub tags: Vec<(Tag, u64)>,
    names: Vec<String>,
    levels: Vec<u32>,
}

impl Trace {
    /// The trace as Chrome trace JSON (`{"traceEvents": [...]}`), timestamps in microseconds.
    ///
    /// Written by hand rather than with `serde_json`: a dependency of this crate is a dependency
    /// of every program built on it, and `serde_json`'s `PartialEq` impls for integers against its
    /// `Value` make comparisons such as `assert_eq!(v, vec![])` ambiguous in user code (Lingua
    /// Franca's own tests have one).
    pub fn to_chrome_json(&self) -> String {
        let mut out = String::from("{\"traceEvents\": [");
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !std::mem::take(&mut first) {
                out.push(',');
            }
        };
        for s in &self.spans {
            sep(&mut out);
            let name = self
                .names
                .get(s.reaction as usize)
                .map_or("?", String::as_str);
            let _ = write!(
                out,
                "{{\"name\": {}, \"cat\": \"reaction\", \"ph\": \"X\", \"pid\": 1, \"tid\": {}, \
                 \"ts\": {}, \"dur\": {}, \"args\": {{\"tag\": {}, \"level\": {}}}}}",
                json_string(name),
                s.worker,
                micros(s.start),
                micros(s.end.saturating_sub(s.start)),
                json_string(&s.tag.to_string()),
                self.levels.get(s.reaction as usize).copied().unwrap_or(0),
            );
        }
        for (tag, at) in &self.tags {
            sep(&mut out);
            let _ = write!(
                out,
                "{{\"name\": {}, \"cat\": \"tag\", \"ph\": \"i\", \"s\": \"g\", \"pid\": 1, \
                 \"tid\": 0, \"ts\": {}}}",
                json_string(&format!("tag {tag}")),
                micros(*at),
            );
        }
        out.push_str("], \"displayTimeUnit\": \"ns\"}");
        out
    }

    /// A one-line summary per worker: reactions run and busy time.
    pub fn summary(&self) -> String {
        let mut per: std::collections::BTreeMap<u32, (u64, u64)> = Default::default();
        for s in &self.spans {
            let e = per.entry(s.worker).or_default();
            e.0 += 1;
            e.1 += s.end.saturating_sub(s.start);
        }
        let mut out = String::new();
        for (w, (n, busy)) in per {
            let _ = writeln!(out, "worker {w}: {n} reactions, {busy} ns busy");
        }
        out
    }
}

/// Nanoseconds as microseconds, a JSON number with up to three decimals.
fn micros(ns: u64) -> String {
    if ns.is_multiple_of(1000) {
        (ns / 1000).to_string()
    } else {
        format!("{}.{:03}", ns / 1000, ns % 1000)
    }
}

/// `s` as a JSON string literal (quoted, with `"`, `\\` and control characters escaped).
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Collects spans during a run (only when tracing is on).
#[derive(Debug)]
pub(crate) struct Recorder {
    start: u64,
    spans: Mutex<Vec<ReactionSpan>>,
    tags: Mutex<Vec<(Tag, u64)>>,
}

thread_local! {
    static THREAD_ROW: Cell<u32> = const { Cell::new(0) };
}
static NEXT_ROW: AtomicU32 = AtomicU32::new(1);

/// A small per-thread number for the trace's rows.
pub(crate) fn thread_row() -> u32 {
    THREAD_ROW.with(|c| {
        if c.get() == 0 {
            c.set(NEXT_ROW.fetch_add(1, Ordering::Relaxed));
        }
        c.get()
    })
}

impl Recorder {
    pub(crate) fn new() -> Recorder {
        Recorder {
            start: now_ns(),
            spans: Mutex::new(Vec::new()),
            tags: Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn now(&self) -> u64 {
        now_ns().saturating_sub(self.start)
    }

    pub(crate) fn tag(&self, tag: Tag) {
        let at = self.now();
        self.tags
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((tag, at));
    }

    pub(crate) fn span(&self, reaction: u32, tag: Tag, start: u64) {
        let span = ReactionSpan {
            reaction,
            tag,
            worker: thread_row(),
            start,
            end: self.now(),
        };
        self.spans
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(span);
    }

    pub(crate) fn finish(self, prog: &Program) -> Trace {
        let g = prog.graph();
        Trace {
            spans: self.spans.into_inner().unwrap_or_else(|e| e.into_inner()),
            tags: self.tags.into_inner().unwrap_or_else(|e| e.into_inner()),
            names: g.reactions.iter().map(|r| r.name.clone()).collect(),
            levels: g.reactions.iter().map(|r| r.level).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{json_string, micros};

    #[test]
    fn strings_and_numbers_are_valid_json() {
        for s in [
            "plain",
            "a \"quoted\" name",
            "back\\slash",
            "line\nbreak\ttab\r",
            "\u{1}\u{1f}",
            "ünï",
        ] {
            let parsed: String = serde_json::from_str(&json_string(s)).unwrap();
            assert_eq!(parsed, s);
        }
        for (ns, us) in [
            (0u64, 0.0),
            (1_000, 1.0),
            (1_234, 1.234),
            (5, 0.005),
            (7_000_001, 7000.001),
        ] {
            let parsed: f64 = serde_json::from_str(&micros(ns)).unwrap();
            assert_eq!(parsed, us);
        }
    }
}
