//! The Markdown report of a run (`--markdown FILE`).
//!
//! It opens with where and how the run was made (machine, compiler, date, iterations, the
//! command), the chart if one was drawn, and a few lines "at a glance" (geometric means of the
//! ratios, how often motet's actors beat the fastest peer). Then three tables:
//!
//! - **Times**: one row per (benchmark, thread count), a column per model with the median in
//!   milliseconds and its spread (`±`: half the width of the median's 95% confidence interval,
//!   relative to the median); the fastest model of the row (the floor aside) in bold; then `actor/floor`
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
    let (tuned, models): (Vec<Model>, Vec<Model>) =
        models_of(records).into_iter().partition(|m| m.is_tuned());
    glance(&mut out, records);
    times(&mut out, records, &models);
    tuned_programs(&mut out, records, &tuned);
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
    let rounds = if plan.rounds > 1 {
        format!(
            "; in {} rounds: each cell's timed iterations and time split over that many runs of it, \
             each with its own warm-up, a benchmark's cells taking turns in alternating order, \
             the samples pooled",
            plan.rounds
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "| iterations | {} timed{more} after {} warm-up, {isolation}{rounds} |",
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

/// The fastest validated peer of a row.
fn fastest_peer<'a>(records: &'a [Record], b: &str, t: usize) -> Option<&'a Record> {
    PEERS
        .iter()
        .filter_map(|&p| valid(records, b, p, t))
        .min_by(|x, y| x.median_ms.total_cmp(&y.median_ms))
}

/// The smallest validated peer footprint of a row, in KiB.
fn smallest_peer(records: &[Record], b: &str, t: usize) -> Option<u64> {
    PEERS
        .iter()
        .filter_map(|&p| valid(records, b, p, t).and_then(|r| r.peak_rss_kib))
        .min()
}

/// A comparison that is a tie, among the ratios of "at a glance": neither a win nor in the mean.
const TIE: f64 = f64::NAN;

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
        let mut ties = 0;
        let mut floor_ratios = Vec::new();
        let mut lighter = 0;
        let mut weighed = 0;
        for &(b, _) in rows.iter().filter(|&&(_, rt)| rt == t) {
            let Some(actor) = valid(records, b, Model::Actor, t) else {
                continue;
            };
            if let Some(peer) = fastest_peer(records, b, t) {
                if peer.ties(actor) {
                    ties += 1;
                    peer_ratios.push(TIE);
                } else {
                    peer_ratios.push(peer.median_ms / actor.median_ms);
                }
            }
            if let Some(floor) = valid(records, b, Model::Floor, t) {
                floor_ratios.push(actor.median_ms / floor.median_ms);
            }
            if let (Some(peer), Some(own)) = (smallest_peer(records, b, t), actor.peak_rss_kib) {
                weighed += 1;
                lighter += usize::from(own < peer);
            }
        }
        let compared = peer_ratios.len();
        let wins = peer_ratios.iter().filter(|&&r| r > 1.0).count();
        peer_ratios.retain(|r| !r.is_nan());
        if compared > 0 {
            let mean = geomean(&peer_ratios).map_or_else(String::new, |g| {
                format!(
                    "; the fastest peer takes {} as long as motet (geometric mean over the {} \
                     that are not ties)",
                    times_fmt(g),
                    peer_ratios.len()
                )
            });
            lines.push(format!(
                "- **{workers}**: motet actors are faster than every peer on {wins} of {compared} \
                 benchmarks, and tie on {ties} (the 95% confidence intervals of the medians \
                 overlap){mean}."
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
    out.push_str("## Times\n\nMedian milliseconds per iteration; `±` is half the width of the median's 95% confidence interval (order statistics, in the JSON records), relative to the median; a ratio marked \"tie\" compares two cells whose intervals overlap. Bold: the fastest in the row, the sequential floor aside.\n\n");
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
        let actor = valid(records, b, Model::Actor, t);
        if actor_floor {
            row.push(compared(actor, valid(records, b, Model::Floor, t)));
        }
        if peer_actor {
            let peer = fastest_peer(records, b, t);
            row.push(peer.map_or_else(|| "–".into(), |p| p.model.name().to_string()));
            row.push(compared(peer, actor));
        }
        table_row(out, &row);
    }
    out.push('\n');
}

/// The table of the tuned programs, apart from the headline tables: each beside its model's
/// program as SPEC.md gives it, with the deviations that make the difference.
fn tuned_programs(out: &mut String, records: &[Record], tuned: &[Model]) {
    if tuned.is_empty() {
        return;
    }
    out.push_str(
        "## Tuned programs\n\nPrograms with deviations from SPEC.md (named in the Savina README's \
         deviations table), beside the same model's default program. They count in no headline \
         ratio.\n\n",
    );
    table_head(
        out,
        &[
            "benchmark".into(),
            "threads".into(),
            "model".into(),
            "median ms".into(),
            "default".into(),
            "default/tuned".into(),
            "deviations".into(),
        ],
    );
    for (b, t) in row_keys(records) {
        for &m in tuned {
            let Some(r) = lookup(records, b, m, t) else {
                continue;
            };
            let default = valid(records, b, m.untuned(), t);
            let time = if r.validated {
                format!("{} {}", ms_fmt(r.median_ms), spread(r))
            } else {
                format!("{} failed", ms_fmt(r.median_ms))
            };
            let names: Vec<String> = r.deviations.iter().map(|d| format!("`{d}`")).collect();
            table_row(
                out,
                &[
                    b.to_string(),
                    t.to_string(),
                    m.name().to_string(),
                    time,
                    default.map_or_else(|| "–".into(), |d| ms_fmt(d.median_ms)),
                    compared(default, Some(r).filter(|r| r.validated)),
                    names.join(", "),
                ],
            );
        }
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
    let half = (r.ci95_high_ms - r.ci95_low_ms) / 2.0 / r.median_ms * 100.0;
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

/// The ratio of two cells' medians, `num / den`, marked "tie" where their confidence intervals
/// overlap; `–` if either is missing.
fn compared(num: Option<&Record>, den: Option<&Record>) -> String {
    match (num, den) {
        (Some(n), Some(d)) if n.ties(d) => {
            format!("{} tie", ratio_cell(Some(n.median_ms), Some(d.median_ms)))
        }
        (n, d) => ratio_cell(n.map(|r| r.median_ms), d.map(|r| r.median_ms)),
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
    use crate::runner::{test_plan, Plan};

    fn setting() -> Setting {
        test_setting(Some(8 * 1024 * 1024), "run count --markdown r.md")
    }

    fn plan() -> Plan {
        let b = find("count").unwrap();
        test_plan(
            vec![(b, Params::small(b.params))],
            vec![Model::Actor, Model::Floor, Model::Kameo],
        )
    }

    #[test]
    fn overlapping_intervals_are_ties_not_wins() {
        let mut actor = rec("count", Model::Actor, 1, 10.0);
        let mut kameo = rec("count", Model::Kameo, 1, 11.0);
        // 10 ± 10% and 11 ± 10% overlap: a tie, neither a win nor in the mean.
        let md = markdown(&[actor.clone(), kameo.clone()], &plan(), &setting(), None);
        assert!(
            md.contains("faster than every peer on 0 of 1 benchmarks, and tie on 1"),
            "{md}"
        );
        assert!(md.contains("| 1.10× tie |"), "{md}");
        // Narrow intervals apart: a win.
        (actor.ci95_low_ms, actor.ci95_high_ms) = (9.9, 10.1);
        (kameo.ci95_low_ms, kameo.ci95_high_ms) = (10.9, 11.1);
        let md = markdown(&[actor, kameo], &plan(), &setting(), None);
        assert!(
            md.contains("faster than every peer on 1 of 1 benchmarks, and tie on 0"),
            "{md}"
        );
        assert!(md.contains("| 1.10× |"), "{md}");
    }

    #[test]
    fn tuned_programs_are_shown_apart() {
        let mut tuned = rec("mailbox", Model::ActorTuned, 1, 5.0);
        tuned.deviations = &["batch"];
        let records = [
            rec("mailbox", Model::Actor, 1, 10.0),
            tuned,
            rec("mailbox", Model::Floor, 1, 8.0),
        ];
        let md = markdown(&records, &plan(), &setting(), None);
        let times = &md[md.find("## Times").unwrap()..md.find("## Tuned programs").unwrap()];
        assert!(!times.contains("actor-tuned"), "{times}");
        assert!(
            md.contains("| mailbox | 1 | actor-tuned | 5.00 ±10% | 10.0 | 2.00× | `batch` |"),
            "{md}"
        );
        // The headline ratio is the default program's.
        assert!(md.contains("| 1.25× |"), "{md}");
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
        assert!(!md.contains("rounds"), "one round is not mentioned");
        let mut in_rounds = plan();
        in_rounds.rounds = 3;
        let md3 = markdown(&records, &in_rounds, &setting(), None);
        assert!(
            md3.contains("in one process; in 3 rounds: each cell's timed iterations"),
            "{md3}"
        );
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
        (r.ci95_low_ms, r.ci95_high_ms) = (99.9, 100.1);
        assert_eq!(spread(&r), "±<1%");
        // The interval, not the range: a wide range with a narrow interval is a narrow spread.
        (r.min_ms, r.max_ms) = (50.0, 200.0);
        assert_eq!(spread(&r), "±<1%");
        (r.ci95_low_ms, r.ci95_high_ms) = (95.0, 105.0);
        assert_eq!(spread(&r), "±5%");
    }
}
