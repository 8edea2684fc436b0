//! Long runs of fine-grained tags, which the readiness scheduler on two or more workers runs
//! sequentially on one thread, as one worker does (`parallel::sequential_tags`): every
//! configuration agrees with one worker, with a panic late in the run, and in real time (where
//! the sequential loop hands the waits to the driver).

mod common;

use std::time::Duration;

use common::fan::{checksum_sink, workers};
use common::{agree_across, agree_with_first, configs, run_with, Log};
use motet_reactor::{Program, ProgramBuilder, RunError, Startup};

/// A source that fans out to `WIDTH` tiny reactions and gathers them, `tags` times: one
/// microstep after another (fast mode), or every `period` of a timer (real time). The gathering
/// reaction logs a checksum every 100 tags; a worker panics at tag `panic_at`, if given.
fn fan(log: &Log, tags: u64, period: Option<Duration>, panic_at: Option<u64>) -> Program {
    const WIDTH: usize = 8;
    let mut b = ProgramBuilder::new();
    let src = b.reactor("src", 0u64);
    let o = b.output_multiport::<u64, _>(src, "out", WIDTH);
    let again = b.logical_action::<(), _>(src, "again", Duration::ZERO);
    let timer = period.map(|p| b.timer(src, "t", Duration::ZERO, p));
    let emit = b.reaction(src, "emit").effect(o).effect(again);
    let emit = match timer {
        None => emit.trigger(Startup).trigger(again),
        Some(t) => emit.trigger(t),
    };
    let fast = period.is_none();
    emit.body(move |k, ctx| {
        *k += 1;
        for c in 0..WIDTH {
            ctx.set(o.channel(c), *k * 13 + c as u64);
        }
        if fast && *k < tags {
            ctx.schedule(again, (), Duration::ZERO);
        }
    });
    let (ins, outs) = workers(&mut b, WIDTH, |i| {
        move |acc: &mut u64, x| {
            if i == 3 && Some(x / 13) == panic_at {
                panic!("worker 3 at tag {}", x / 13);
            }
            *acc = acc.wrapping_mul(31).wrapping_add(x);
            *acc
        }
    });
    let (si, _) = checksum_sink(&mut b, log, WIDTH, |m| m % 100 == 0);
    b.connect(o, ins);
    b.connect(outs, si);
    b.build().unwrap()
}

#[test]
fn long_fine_grained_runs_agree_with_one_worker() {
    let build = |log: &Log| fan(log, 3_000, None, None);
    let log = agree_across(&[1, 2, 8], 3, true, None, Some(3_001), &build);
    assert_eq!(log.len(), 30);
}

#[test]
fn a_panic_late_in_a_long_run_stops_it_at_the_end_of_its_tag() {
    let build = |log: &Log| fan(log, 3_000, None, Some(2_500));
    let mut reference = None;
    for cfg in configs(&[1, 2]) {
        let (lines, report) = run_with(cfg, true, None, &build);
        match report {
            Err(RunError::Panicked { reaction, message }) => {
                assert_eq!(reaction, "w[3].work", "{cfg:?}");
                assert_eq!(message, "worker 3 at tag 2500", "{cfg:?}");
            }
            other => panic!("{cfg:?}: {other:?}"),
        }
        agree_with_first(&mut reference, lines, &cfg);
    }
    // Tags 0, 100, ..., 2,400 logged; the tag of the panic ran to its end (a microstep of
    // 2,499, not a multiple of 100) and nothing after it.
    assert_eq!(reference.unwrap().len(), 25);
}

#[test]
fn long_runs_in_real_time_agree_with_one_worker() {
    // A timer every 20 us for 6 ms: 300 tags, each waited for.
    let period = Duration::from_micros(20);
    let build = |log: &Log| fan(log, 0, Some(period), None);
    let timeout = Some(Duration::from_millis(6));
    agree_across(&[1, 2], 1, false, timeout, Some(301), &build);
}
