//! Bitonic Sort as reactors: the sorting network assembled before the run, a bank of `n/2`
//! compare-exchange reactors per step, wired by connections (LF has no port; the network's shape
//! depends only on `n`, so the program is static, as LF ports its other fixed-size networks).
//!
//! In the actor network every value passes, at each step, through a splitter, a partition (its
//! splitter, a compare-exchange, its joiner and adapter), the step's joiner and adapter, and the
//! composite actors forward whatever reaches them to their first part. Only the
//! compare-exchanges compute; the rest route values, and the routes are fixed: in a step of
//! partitions of length L, partition k takes the k-th run of L values, and its compare-exchange
//! j takes the values at positions kL + j and kL + j + L/2 (its first and second) and gives them
//! back at the same positions, in the partition's direction. So each step of the stages 2, 4, …,
//! n/2 and of the last merge (in the order the values pass them) is a bank of `n/2`
//! compare-exchanges, each with a two-channel input and a two-channel output, and the
//! splitters, joiners, adapters and composites are the connections between the banks (as an LF
//! program would write them: a composite's ports forwarded to its parts, `interleaved(...)` for a
//! round-robin splitter). The source sets its `n` values on a multiport at the start tag, and the
//! whole wave crosses the network at that one tag, a step a level (every compare-exchange of a
//! bank in parallel); the validation reactor reads them in position order. No `Exit` wave: the
//! run ends when nothing is left to do (as LF's ports end), and the validation's report is its
//! state. The compare-exchanges and the validation run the network's own code
//! ([`Kind::receive`]) on their values.

use motet_reactor::Startup;
use motet_reactor::{InputMultiport, Output, OutputMultiport, Program, ProgramBuilder, ReactorId};

use super::network::{draw, After, Kind, Msg, Net, Report};
use super::{check, Config, Expected};
use crate::bench::{Model, Outcome, Prepared};
use crate::params::Params;
use crate::random::PseudoRandom;
use crate::reactor_support::{self, Built};

/// Prepares the program for `model` (`reactor` or `reactor-level`) on `threads` workers.
/// The expected sum and checksum are computed once, untimed, for every iteration's program.
pub(super) fn prepare(params: &Params, threads: usize, model: Model) -> Prepared {
    let cfg = Config::from_params(params)?;
    reactor_support::prepare((cfg, Expected::new(&cfg)), threads, model, build)
}

/// One step of the network: partitions of `length` positions; with a direction counter `d`
/// (a merge stage's step) partition k sorts up when `(k / d)` is even, without one (the last
/// merge) all sort up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Step {
    length: usize,
    direction_counter: Option<usize>,
}

impl Step {
    /// Whether partition `k` sorts up.
    fn up(self, k: usize) -> bool {
        self.direction_counter
            .is_none_or(|d| (k / d).is_multiple_of(2))
    }
}

/// The steps of the kernel for `n` values, in the order the values pass them: the merge stages
/// p = 2, 4, …, n/2 (steps of lengths p, p/2, …, 2), then the last merge (n, n/2, …, 2).
pub(super) fn steps(n: usize) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut p = 2;
    while p <= n / 2 {
        let mut i = 1;
        while i <= p / 2 {
            steps.push(Step {
                length: p / i,
                direction_counter: Some(i),
            });
            i *= 2;
        }
        p *= 2;
    }
    let mut i = 1;
    while i <= n / 2 {
        steps.push(Step {
            length: n / i,
            direction_counter: None,
        });
        i *= 2;
    }
    steps
}

/// The network code's view of a reaction: the values a node sends, in order (two at most: a
/// compare-exchange sends its pair). No node spawns here: the composites are connections.
#[derive(Default)]
struct Sent {
    values: [i64; 2],
    len: usize,
}

impl Net for Sent {
    type Addr = ();

    fn spawn(&mut self, _: Kind<()>) {}

    fn send(&mut self, _: &(), msg: Msg) {
        if let Msg::Value(v) | Msg::Data { value: v, .. } = msg {
            self.values[self.len] = v;
            self.len += 1;
        }
    }
}

/// The validation reactor's state: the network's validation node and, after its tag, its report.
struct Validation {
    node: Kind<()>,
    report: Option<Report>,
}

/// What reads the result of a built program: the validation reactor.
pub(super) struct Bitonic {
    cfg: Config,
    expected: Expected,
    validation: ReactorId<Validation>,
}

/// Builds the network for `cfg.n` values.
fn build(&(cfg, expected): &(Config, Expected)) -> (Program, Bitonic) {
    let n = cfg.n;
    let mut b = ProgramBuilder::new();
    let source = b.reactor("source", ());
    let values = b.output_multiport::<i64, _>(source, "values", n);
    b.reaction(source, "send")
        .trigger(Startup)
        .effect(values)
        .body(move |_, ctx| {
            let mut random = PseudoRandom::new(cfg.seed);
            for p in 0..n {
                ctx.set(values.channel(p), draw(&mut random, cfg.m));
            }
        });
    // The output channel that carries each position into the next step.
    let mut at: Vec<Output<i64>> = values.channels().collect();
    for (s, step) in steps(n).into_iter().enumerate() {
        let half = step.length / 2;
        let bank = b.bank(n / 2, |b, c| {
            exchange(b, &format!("step[{s}].exchange[{c}]"), step.up(c / half))
        });
        for (c, &(input, output)) in bank.iter().enumerate() {
            let first = (c / half) * step.length + c % half;
            for (channel, p) in [first, first + half].into_iter().enumerate() {
                b.connect(at[p], input.channel(channel));
                at[p] = output.channel(channel);
            }
        }
    }
    let validation = b.reactor(
        "validation",
        Validation {
            node: Kind::validation(),
            report: None,
        },
    );
    let sorted = b.input_multiport::<i64, _>(validation, "values", n);
    b.reaction(validation, "check")
        .trigger(sorted)
        .body(move |v: &mut Validation, ctx| {
            for (_, &value) in ctx.present(sorted) {
                v.node.receive(Msg::Value(value), &mut Sent::default());
            }
            if let After::Report(report) = v.node.receive(Msg::Exit, &mut Sent::default()) {
                v.report = Some(report);
            }
        });
    b.connect(at, sorted);
    (
        b.build().expect("the bitonicsort program is well formed"),
        Bitonic {
            cfg,
            expected,
            validation,
        },
    )
}

/// Declares a compare-exchange sorting its pair up (or down): its `in` and `out` multiports of
/// two channels, first and second.
fn exchange(
    b: &mut ProgramBuilder,
    name: &str,
    up: bool,
) -> (InputMultiport<i64>, OutputMultiport<i64>) {
    let node = Kind::CompareExchange {
        order: 0,
        up,
        first: None,
        next: (),
    };
    let r = b.reactor(name, node);
    let input = b.input_multiport::<i64, _>(r, "in", 2);
    let output = b.output_multiport::<i64, _>(r, "out", 2);
    b.reaction(r, "exchange")
        .trigger(input)
        .effect(output)
        .body(move |node: &mut Kind<()>, ctx| {
            let mut sent = Sent::default();
            for (_, &v) in ctx.present(input) {
                node.receive(Msg::Value(v), &mut sent);
            }
            for (channel, &v) in sent.values[..sent.len].iter().enumerate() {
                ctx.set(output.channel(channel), v);
            }
        });
    (input, output)
}

impl Built for Bitonic {
    fn outcome(&mut self, program: &mut Program) -> Outcome {
        let report = program.state_mut(self.validation).report;
        check(&self.cfg, &self.expected, report)
    }
}

#[cfg(test)]
mod tests {
    use motet_reactor::{Runner, SchedulerKind};

    use super::{build, steps, Built};
    use crate::bench::Model;
    use crate::benchmarks::bitonicsort::{checksum, source_values, Config, Expected, BENCHMARK};
    use crate::benchmarks::testing;
    use crate::motet_support::runtime;

    /// The kernel has log n (log n + 1) / 2 steps (SPEC.md: 78 at the defaults).
    #[test]
    fn the_kernel_has_the_networks_steps() {
        assert_eq!(steps(4096).len(), 78);
        assert_eq!(steps(64).len(), 21);
        assert!(steps(1).is_empty());
        assert_eq!(steps(2).len(), 1);
    }

    /// The validation reactor sees the drawn values sorted by the standard library, at two sizes
    /// and two moduli, on both schedulers and one and two workers, in one tag of one reaction per
    /// compare-exchange (n/2 per step), the source and the validation (the figures count the
    /// shutdown tag too).
    #[test]
    fn the_output_is_the_values_sorted_in_one_tag() {
        for cfg in [
            Config {
                n: 64,
                m: 1 << 60,
                seed: 2048,
            },
            Config {
                n: 256,
                m: 1000,
                seed: 7,
            },
        ] {
            let mut sorted = source_values(&cfg);
            sorted.sort();
            let exchanges = steps(cfg.n).len() * cfg.n / 2;
            for (threads, kind) in [
                (1, SchedulerKind::Readiness),
                (2, SchedulerKind::Readiness),
                (2, SchedulerKind::Level),
            ] {
                let rt = runtime(threads).unwrap();
                let (mut program, mut built) = build(&(cfg, Expected::new(&cfg)));
                let runner = Runner::on(rt.handle()).scheduler(kind).fast(true);
                let m = runner.run(&mut program).unwrap().metrics;
                assert_eq!(
                    (m.tags, m.reactors, m.reactions_executed),
                    (2, exchanges + 2, exchanges as u64 + 2),
                    "{cfg:?} {kind:?} t={threads}"
                );
                let report = program.state_mut(built.validation).report.unwrap();
                assert_eq!(report.count, cfg.n as u64);
                assert_eq!(report.out_of_order, None);
                assert_eq!(report.checksum, checksum(&sorted), "{cfg:?}");
                assert_eq!(built.outcome(&mut program).check, Ok(()));
            }
        }
    }

    #[test]
    fn validates_at_reduced_sizes() {
        let cells = testing::on_one_and_two(&[Model::Reactor, Model::ReactorLevel], 2);
        for sets in [
            &[("n", 128.0)][..],
            &[("n", 1.0)],
            &[("n", 2.0), ("m", 3.0)],
        ] {
            testing::cells(&BENCHMARK, &cells, sets);
        }
    }
}
