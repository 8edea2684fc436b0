//! The Markdown report of a run (`--markdown FILE`).
//!
//! It opens with where and how the run was made (machine, compiler, date, iterations, the
//! command), the chart if one was drawn, and a few lines "at a glance" (geometric means of the
//! ratios, how often motet's actors beat the fastest peer). Then three tables:
//!
//! - **Times**: one row per (benchmark, thread count), a column per model with the median in
//!   milliseconds and its spread (`±`: half of max − min over the timed iterations, relative to
//!   the median); the fastest model of the row (the floor aside) in bold; then `actor/floor`
//!   (motet actors' median over the floor's: lower is better), the fastest peer and `peer/actor`
//!   (its median over motet actors': above 1, motet is faster).
//! - **Peak memory**: the same grid with each cell's peak resident memory in MiB, the lowest in
//!   bold, and `peer/actor` (the smallest peer footprint over motet actors').
//! - **Reactor programs** (when the run has any): LF's Table 1 figures of each reactor cell
//!   (reactors, reactions, tags processed, reactions executed, ports set, actions scheduled) and
//!   the time per executed reaction, from the median.
//! - **Parameters** of each benchmark.
//!
//! The sequential floor runs once, on one thread, and is shown at every thread count. Ratios and
//! bold marks use validated runs only; a failed run shows its median and "failed".

use std::fmt::Write as _;

use crate::bench::Model;
use crate::record::Record;
use crate::report::{lookup, mib, row_keys, Setting, PEERS};
use crate::runner::{Isolation, Plan};

/// The Markdown report of `records`, measured with `plan` in `setting`; `chart` is the path of the
/// SVG chart relative to the report, if one was drawn.
pub fn markdown(records: &[Record], plan: &Plan, setting: &Setting, chart: Option<&str>) -> String {
    let mut out = String::from("# motet-savina results\n\n");
    header(&mut out, plan, setting);
    if let Some(path) = chart {
        let _ = writeln!(
            out,
            "![Each model's median time over the sequential floor's, per benchmark, log \
             scale]({path})\n"
        );
    }
    let models = models_of(records);
    glance(&mut out, records);
    times(&mut out, records, &models);
    memory(&mut out, records, &models);
    reactor_metrics(&mut out, records);
    out.push_str("## Parameters\n\n| benchmark | parameters |\n| --- | --- |\n");
    for (benchmark, params) in &plan.benchmarks {
        let _ = writeln!(out, "| {} | `{}` |", benchmark.name, params);
    }
    out
}

/// The table of where and how.
fn header(out: &mut String, plan: &Plan, setting: &Setting) {
    let m = &setting.machine;
    let isolation = match plan.isolation {
        Isolation::Process(_) => "each cell (benchmark, model, threads) in a process of its own",
        Isolation::InProcess => "every cell in one process",
    };
    let _ = writeln!(out, "| | |\n| --- | --- |");
    let _ = writeln!(out, "| machine | {} |", m.summary());
    let _ = writeln!(out, "| compiler | {} |", m.rustc);
    let _ = writeln!(out, "| date | {} (UTC) |", m.date);
    let more = if plan.min_time.is_zero() {
        String::new()
    } else {
        format!(
            " (more, to at most {}, until they add up to {} s per cell; the JSON gives each cell's count)",
            crate::runner::MAX_TIMED_ITERATIONS,
            plan.min_time.as_secs_f64()
        )
    };
    let _ = writeln!(
        out,
        "| iterations | {} timed{more} after {} warm-up, {isolation} |",
        plan.iterations, plan.warmup
    );
    let _ = writeln!(out, "| command | `motet-savina {}` |\n", setting.command);
}

/// The models present in `records`, in report order.
fn models_of(records: &[Record]) -> Vec<Model> {
    Model::ALL
        .into_iter()
        .filter(|m| records.iter().any(|r| r.model == *m))
        .collect()
}

/// The validated record of `model` in row (`benchmark`, `threads`).
fn valid<'a>(records: &'a [Record], b: &str, m: Model, t: usize) -> Option<&'a Record> {
    lookup(records, b, m, t).filter(|r| r.validated && !r.median_ms.is_nan())
}

/// The fastest validated peer of a row: (its model, its median).
fn fastest_peer(records: &[Record], b: &str, t: usize) -> Option<(Model, f64)> {
    PEERS
        .iter()
        .filter_map(|&p| valid(records, b, p, t).map(|r| (p, r.median_ms)))
        .min_by(|x, y| x.1.total_cmp(&y.1))
}

/// The smallest validated peer footprint of a row, in KiB.
fn smallest_peer(records: &[Record], b: &str, t: usize) -> Option<u64> {
    PEERS
        .iter()
        .filter_map(|&p| valid(records, b, p, t).and_then(|r| r.peak_rss_kib))
        .min()
}

/// The geometric mean of `values` (`None` if there are none).
fn geomean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    Some((values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp())
}

/// The lines "at a glance": per thread count, motet actors against the fastest peer and the floor.
fn glance(out: &mut String, records: &[Record]) {
    let rows = row_keys(records);
    let mut threads: Vec<usize> = rows.iter().map(|&(_, t)| t).collect();
    threads.sort_unstable();
    threads.dedup();
    let mut lines = Vec::new();
    for t in threads {
        let workers = if t == 1 { "1 worker" } else { "workers" };
        let workers = if t == 1 {
            workers.to_string()
        } else {
            format!("{t} {workers}")
        };
        let mut peer_ratios = Vec::new();
        let mut floor_ratios = Vec::new();
        let mut lighter = 0;
        let mut weighed = 0;
        for &(b, _) in rows.iter().filter(|&&(_, rt)| rt == t) {
            let Some(actor) = valid(records, b, Model::Actor, t) else {
                continue;
            };
            if let Some((_, peer)) = fastest_peer(records, b, t) {
                peer_ratios.push(peer / actor.median_ms);
            }
            if let Some(floor) = valid(records, b, Model::Floor, t) {
                floor_ratios.push(actor.median_ms / floor.median_ms);
            }
            if let (Some(peer), Some(own)) = (smallest_peer(records, b, t), actor.peak_rss_kib) {
                weighed += 1;
                lighter += usize::from(own < peer);
            }
        }
        if let Some(g) = geomean(&peer_ratios) {
            let wins = peer_ratios.iter().filter(|&&r| r > 1.0).count();
            lines.push(format!(
                "- **{workers}**: motet actors are faster than every peer on {wins} of {} \
                 benchmarks; the fastest peer takes {} as long as motet (geometric mean).",
                peer_ratios.len(),
                times_fmt(g)
            ));
        }
        if let Some(g) = geomean(&floor_ratios) {
            lines.push(format!(
                "- **{workers}**: motet actors take {} the sequential floor's time (geometric \
                 mean over {} benchmarks).",
                times_fmt(g),
                floor_ratios.len()
            ));
        }
        if weighed > 0 {
            lines.push(format!(
                "- **{workers}**: motet actors' peak memory is below every peer's on {lighter} \
                 of {weighed} benchmarks."
            ));
        }
    }
    if !lines.is_empty() {
        out.push_str("## At a glance\n\n");
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
        out.push('\n');
    }
}

/// The times table.
fn times(out: &mut String, records: &[Record], models: &[Model]) {
    let has = |m: Model| models.contains(&m);
    let actor_floor = has(Model::Actor) && has(Model::Floor);
    let peer_actor = has(Model::Actor) && PEERS.iter().any(|&p| has(p));
    out.push_str("## Times\n\nMedian milliseconds per iteration; `±` is half the spread (max − min) of the timed iterations, relative to the median. Bold: the fastest in the row, the sequential floor aside.\n\n");
    let mut head: Vec<String> = vec!["benchmark".into(), "threads".into()];
    head.extend(models.iter().map(|m| m.name().to_string()));
    if actor_floor {
        head.push("actor/floor".into());
    }
    if peer_actor {
        head.push("fastest peer".into());
        head.push("peer/actor".into());
    }
    table_head(out, &head);
    for (b, t) in row_keys(records) {
        let candidates: Vec<f64> = models
            .iter()
            .filter(|m| !m.is_sequential())
            .filter_map(|&m| valid(records, b, m, t).map(|r| r.median_ms))
            .collect();
        // Bold only where there is something to compare.
        let best = (candidates.len() > 1)
            .then(|| candidates.iter().copied().min_by(f64::total_cmp))
            .flatten();
        let mut row = vec![b.to_string(), t.to_string()];
        for &m in models {
            row.push(match lookup(records, b, m, t) {
                None => "–".into(),
                Some(r) if !r.validated => format!("{} failed", ms_fmt(r.median_ms)),
                Some(r) if !m.is_sequential() && Some(r.median_ms) == best => {
                    format!("**{}** {}", ms_fmt(r.median_ms), spread(r))
                }
                Some(r) => format!("{} {}", ms_fmt(r.median_ms), spread(r)),
            });
        }
        let actor = valid(records, b, Model::Actor, t).map(|r| r.median_ms);
        if actor_floor {
            let floor = valid(records, b, Model::Floor, t).map(|r| r.median_ms);
            row.push(ratio_cell(actor, floor));
        }
        if peer_actor {
            let peer = fastest_peer(records, b, t);
            row.push(peer.map_or_else(|| "–".into(), |(m, _)| m.name().to_string()));
            row.push(ratio_cell(peer.map(|p| p.1), actor));
        }
        table_row(out, &row);
    }
    out.push('\n');
}

/// The peak memory table.
fn memory(out: &mut String, records: &[Record], models: &[Model]) {
    if records.iter().all(|r| r.peak_rss_kib.is_none()) {
        return;
    }
    let peer_actor = models.contains(&Model::Actor) && PEERS.iter().any(|p| models.contains(p));
    out.push_str("## Peak memory\n\nPeak resident memory of each cell's process, in MiB (the binary and the runtime included). Bold: the lowest in the row, the sequential floor aside.\n\n");
    let mut head: Vec<String> = vec!["benchmark".into(), "threads".into()];
    head.extend(models.iter().map(|m| m.name().to_string()));
    if peer_actor {
        head.push("peer/actor".into());
    }
    table_head(out, &head);
    for (b, t) in row_keys(records) {
        let candidates: Vec<u64> = models
            .iter()
            .filter(|m| !m.is_sequential())
            .filter_map(|&m| valid(records, b, m, t).and_then(|r| r.peak_rss_kib))
            .collect();
        let least = (candidates.len() > 1)
            .then(|| candidates.iter().copied().min())
            .flatten();
        let mut row = vec![b.to_string(), t.to_string()];
        for &m in models {
            row.push(
                match lookup(records, b, m, t).and_then(|r| r.peak_rss_kib) {
                    None => "–".into(),
                    Some(kib) if !m.is_sequential() && Some(kib) == least => {
                        format!("**{}**", mib(kib))
                    }
                    Some(kib) => mib(kib),
                },
            );
        }
        if peer_actor {
            let own = valid(records, b, Model::Actor, t).and_then(|r| r.peak_rss_kib);
            let peer = smallest_peer(records, b, t);
            row.push(ratio_cell(peer.map(|k| k as f64), own.map(|k| k as f64)));
        }
        table_row(out, &row);
    }
    out.push('\n');
}

/// A Markdown table's head: the titles and the alignment row (first column left, others right).
/// LF's Table 1 for the reactor cells, if there are any.
fn reactor_metrics(out: &mut String, records: &[Record]) {
    let rows: Vec<&Record> = records.iter().filter(|r| r.metrics.is_some()).collect();
    if rows.is_empty() {
        return;
    }
    out.push_str(
        "## Reactor programs\n\nLF's Table 1 figures (paper section 5.2) of each reactor cell's \
         last iteration, and the median iteration's time per executed reaction.\n\n",
    );
    let head = [
        "benchmark",
        "model",
        "threads",
        "reactors",
        "reactions",
        "tags",
        "reactions executed",
        "ports set",
        "actions scheduled",
        "ns/reaction",
    ];
    table_head(out, &head.map(String::from));
    for r in rows {
        let Some(m) = r.metrics else { continue };
        let ns = match m.ns_per_reaction {
            Some(ns) if r.validated => format!("{ns:.1}"),
            Some(ns) => format!("{ns:.1} failed"),
            None => "–".into(),
        };
        table_row(
            out,
            &[
                r.benchmark.to_string(),
                r.model.name().to_string(),
                r.threads.to_string(),
                m.reactors.to_string(),
                m.reactions.to_string(),
                m.tags.to_string(),
                m.reactions_executed.to_string(),
                m.ports_set.to_string(),
                m.actions_scheduled.to_string(),
                ns,
            ],
        );
    }
    out.push('\n');
}

fn table_head(out: &mut String, head: &[String]) {
    table_row(out, head);
    let rule: Vec<String> = (0..head.len())
        .map(|c| if c == 0 { "---" } else { "---:" }.to_string())
        .collect();
    table_row(out, &rule);
}

/// One Markdown table row.
fn table_row(out: &mut String, cells: &[String]) {
    let _ = writeln!(out, "| {} |", cells.join(" | "));
}

/// Milliseconds to three significant digits (at least one decimal below 1000).
fn ms_fmt(v: f64) -> String {
    if v.is_nan() {
        "–".into()
    } else if v < 1.0 {
        format!("{v:.3}")
    } else if v < 10.0 {
        format!("{v:.2}")
    } else if v < 1000.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

/// `±x%`: half of a record's range over its median.
fn spread(r: &Record) -> String {
    let half = (r.max_ms - r.min_ms) / 2.0 / r.median_ms * 100.0;
    if !half.is_finite() {
        String::new()
    } else if half < 1.0 {
        "±<1%".into()
    } else {
        format!("±{half:.0}%")
    }
}

/// A ratio such as `3.1×`.
fn times_fmt(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2}×")
    } else if v < 100.0 {
        format!("{v:.1}×")
    } else {
        format!("{v:.0}×")
    }
}

/// `num / den` as a ratio, or `–` if either is missing.
fn ratio_cell(num: Option<f64>, den: Option<f64>) -> String {
    match (num, den) {
        (Some(n), Some(d)) if d > 0.0 => times_fmt(n / d),
        _ => "–".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::{markdown, ms_fmt, spread};
    use crate::bench::Model;
    use crate::params::Params;
    use crate::registry::find;
    use crate::report::{test_record as rec, test_setting, Setting};
    use crate::runner::{Isolation, Plan};

    fn setting() -> Setting {
        test_setting(Some(8 * 1024 * 1024), "run count --markdown r.md")
    }

    fn plan() -> Plan {
        let b = find("count").unwrap();
        Plan {
            benchmarks: vec![(b, Params::small(b.params))],
            models: vec![Model::Actor, Model::Floor, Model::Kameo],
            threads: vec![1, 2],
            iterations: 3,
            warmup: 1,
            min_time: std::time::Duration::ZERO,
            isolation: Isolation::InProcess,
        }
    }

    #[test]
    fn the_report_has_the_setting_the_tables_and_the_chart() {
        let records = [
            rec("count", Model::Actor, 1, 10.0),
            rec("count", Model::Floor, 1, 2.0),
            rec("count", Model::Kameo, 1, 40.0),
            rec("count", Model::Actor, 2, 20.0),
            rec("count", Model::Kameo, 2, 15.0),
        ];
        let md = markdown(&records, &plan(), &setting(), Some("r.svg"));
        assert!(md.contains("| machine | Test CPU, 2 cores, 8.0 GiB memory, linux x86_64 |"));
        assert!(md.contains("| compiler | rustc 1.95.0 |"));
        assert!(md.contains("| date | 2026-01-02 (UTC) |"));
        assert!(md.contains("| command | `motet-savina run count --markdown r.md` |"));
        assert!(md.contains("](r.svg)"));
        // Times: bold fastest (floor aside), spread, ratios, fastest peer.
        assert!(
            md.contains(
                "| count | 1 | **10.0** ±10% | 2.00 ±10% | 40.0 ±10% | 5.00× | kameo | 4.00× |"
            ),
            "{md}"
        );
        assert!(
            md.contains(
                "| count | 2 | 20.0 ±10% | 2.00 ±10% | **15.0** ±10% | 10.0× | kameo | 0.75× |"
            ),
            "{md}"
        );
        // Memory: MiB, the lowest in bold, peer/actor.
        assert!(
            md.contains("| count | 1 | **10.0** | 2.0 | 40.0 | 4.00× |"),
            "{md}"
        );
        assert!(
            md.contains("faster than every peer on 1 of 1 benchmarks"),
            "{md}"
        );
        assert!(
            md.contains("| count | `c=100000` |") || md.contains("| count | `n="),
            "{md}"
        );
    }

    #[test]
    fn failed_runs_are_marked_and_not_bold() {
        let mut failed = rec("count", Model::Actor, 1, 1.0);
        failed.validated = false;
        let records = [failed, rec("count", Model::Floor, 1, 2.0)];
        let md = markdown(&records, &plan(), &setting(), None);
        assert!(
            md.contains("| count | 1 | 1.00 failed | 2.00 ±10% | – |"),
            "{md}"
        );
        assert!(!md.contains("!["));
    }

    #[test]
    fn reactor_cells_get_their_table_1_row() {
        let mut reactor = rec("count", Model::Reactor, 1, 4.0);
        reactor.metrics = Some(crate::bench::ReactorMetrics {
            reactors: 2,
            reactions: 5,
            tags: 100_002,
            reactions_executed: 200_004,
            ports_set: 100_001,
            actions_scheduled: 100_001,
            ns_per_reaction: Some(20.0),
            ..Default::default()
        });
        let records = [reactor, rec("count", Model::Floor, 1, 2.0)];
        let md = markdown(&records, &plan(), &setting(), None);
        assert!(
            md.contains(
                "| count | reactor | 1 | 2 | 5 | 100002 | 200004 | 100001 | 100001 | 20.0 |"
            ),
            "{md}"
        );
        let plain = markdown(
            &[rec("count", Model::Floor, 1, 2.0)],
            &plan(),
            &setting(),
            None,
        );
        assert!(!plain.contains("Reactor programs"));
    }

    #[test]
    fn numbers_keep_three_digits() {
        assert_eq!(ms_fmt(0.01234), "0.012");
        assert_eq!(ms_fmt(4.56789), "4.57");
        assert_eq!(ms_fmt(456.789), "456.8");
        assert_eq!(ms_fmt(45678.9), "45679");
        let mut r = rec("count", Model::Actor, 1, 100.0);
        (r.min_ms, r.max_ms) = (99.9, 100.1);
        assert_eq!(spread(&r), "±<1%");
    }
}
