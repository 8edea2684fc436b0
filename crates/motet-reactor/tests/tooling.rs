//! Tooling: diagrams (DOT, Mermaid), Chrome traces and LF's Table 1 metrics.

mod common;

use std::time::Duration;

use common::micro::pingpong;
use common::{configs, runner};
use motet_reactor::diagram::{to_dot, to_mermaid};
use motet_reactor::ProgramBuilder;

#[test]
fn metrics_match_lf_table_1_for_pingpong() {
    for cfg in configs(&[1, 2]) {
        let (mut p, pong) = pingpong(1000);
        let report = runner(cfg, true, None).run(&mut p).unwrap();
        let m = report.metrics;
        assert_eq!((m.reactors, m.reactions, m.actions), (2, 4, 1), "{cfg:?}");
        assert_eq!(m.ports, 4);
        assert_eq!(m.connections, 2);
        // startup, then one tag per round trip, then shutdown after starvation
        assert_eq!(m.tags, 1000 + 2);
        assert_eq!(m.reactions_executed, 1 + 3 * 1000);
        assert_eq!(m.ports_set, 2000);
        assert_eq!(m.actions_scheduled, 1000);
        assert!(report.ns_per_reaction() > 0.0);
        assert_eq!(*p.state_mut(pong), 1000, "pong's count after the run");
    }
}

#[test]
fn chrome_trace_has_every_reaction_and_tag() {
    for cfg in configs(&[1, 2]) {
        let (mut p, _) = pingpong(10);
        let report = runner(cfg, true, None).trace(true).run(&mut p).unwrap();
        let trace = report.trace.expect("tracing was on");
        assert_eq!(trace.spans.len() as u64, report.metrics.reactions_executed);
        assert_eq!(trace.tags.len() as u64, report.metrics.tags);
        assert!(trace.spans.iter().all(|s| s.end >= s.start));
        let json: serde_json::Value = serde_json::from_str(&trace.to_chrome_json()).unwrap();
        let events = json["traceEvents"].as_array().unwrap();
        let complete = events.iter().filter(|e| e["ph"] == "X").count();
        assert_eq!(complete as u64, report.metrics.reactions_executed);
        let first = events.iter().find(|e| e["ph"] == "X").unwrap();
        assert_eq!(first["name"], "ping.start");
        assert_eq!(first["args"]["tag"], "(0, 0)");
        assert!(trace.summary().contains("reactions"));
    }
}

#[test]
fn dot_and_mermaid_show_reactors_ports_reactions_actions_and_connections() {
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", ());
    let o = b.output::<u32, _>(src, "out");
    let t = b.timer(src, "tick", Duration::ZERO, Duration::from_millis(1));
    b.reaction(src, "emit").trigger(t).effect(o).body(|_, _| {});
    let box_ = b.reactor("box", ());
    let bi = b.input::<u32, _>(box_, "in");
    let inner = b.child(box_, "inner", ());
    let ii = b.input::<u32, _>(inner, "in");
    let a = b.logical_action::<u32, _>(inner, "later", Duration::ZERO);
    b.reaction(inner, "recv")
        .trigger(ii)
        .effect(a)
        .body(|_, _| {});
    b.reaction(inner, "done").trigger(a).body(|_, _| {});
    b.connect_after(o, bi, Duration::from_millis(10));
    b.connect(bi, ii);
    let p = b.build().unwrap();
    let dot = to_dot(&p);
    for needle in [
        "digraph",
        "cluster_",
        "label=\"inner\"",
        "1 emit",
        "2 done",
        "L later",
        "timer tick",
        "after 10 ms",
    ] {
        assert!(dot.contains(needle), "DOT lacks {needle}:\n{dot}");
    }
    assert!(
        !dot.contains("delay("),
        "generated delay reactors are drawn as labelled edges"
    );
    let mm = to_mermaid(&p);
    for needle in [
        "flowchart LR",
        "subgraph",
        "\"inner\"",
        ">\"1 emit\"]",
        "\"L later\"",
        "after 10 ms",
        "-->",
        "end",
    ] {
        assert!(mm.contains(needle), "Mermaid lacks {needle}:\n{mm}");
    }
}
