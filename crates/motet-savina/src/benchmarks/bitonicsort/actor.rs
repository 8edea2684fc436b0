//! Bitonic Sort as motet actors: every node of the network is an actor; composite ones spawn
//! their parts from their `started` hook, on a worker, during the timed run.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_runtime::Runtime;

use super::network::{After, Kind, Msg, Net, Report};
use super::{check, Config, Expected};
use crate::bench::{Outcome, Prepared};
use crate::motet_support::{self, ResultSlot};
use crate::params::Params;

/// Computes the expected sum and checksum and builds the runtime (untimed); `threads` workers.
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    let cfg = Config::from_params(params)?;
    let program = Program {
        cfg,
        expected: Expected::new(&cfg),
    };
    motet_support::prepare(program, threads, run)
}

/// The parameters and what a correct run reports.
struct Program {
    cfg: Config,
    expected: Expected,
}

/// One timed iteration: creates the validation actor, the adapter, the kernel and the source,
/// starts the source and runs to quiescence.
fn run(program: &Program, rt: &Runtime) -> Outcome {
    check(&program.cfg, &program.expected, sort(&program.cfg, rt))
}

/// Runs the network to quiescence; the validation actor's report.
pub(super) fn sort(cfg: &Config, rt: &Runtime) -> Option<Report> {
    let result = ResultSlot::new();
    let h = rt.handle();
    let validation = spawn(
        h,
        Node {
            kind: Kind::validation(),
            report: Some(result.clone()),
        },
    );
    let adapter = spawn(h, Node::new(Kind::DataValueAdapter { next: validation }));
    let kernel = spawn(
        h,
        Node::new(Kind::Kernel {
            n: cfg.n,
            up: true,
            next: adapter,
            entry: None,
        }),
    );
    let source = spawn(
        h,
        Node::new(Kind::Source {
            n: cfg.n,
            m: cfg.m,
            seed: cfg.seed,
            next: kernel,
        }),
    );
    let _ = source.send(Msg::Start);
    rt.wait_quiescent();
    result.take()
}

/// An actor of the network.
struct Node {
    kind: Kind<Addr<Msg>>,
    /// Where the validation actor puts its report.
    report: Option<ResultSlot<Report>>,
}

impl Node {
    fn new(kind: Kind<Addr<Msg>>) -> Node {
        Node { kind, report: None }
    }
}

/// The network's view of a motet actor's context.
struct MotetNet<'c, 'a> {
    ctx: &'c mut Context<'a, Node>,
}

impl Net for MotetNet<'_, '_> {
    type Addr = Addr<Msg>;

    fn spawn(&mut self, kind: Kind<Addr<Msg>>) -> Addr<Msg> {
        self.ctx.spawn(Node::new(kind))
    }

    fn send(&mut self, to: &Addr<Msg>, msg: Msg) {
        let _ = to.tell(msg);
    }
}

impl Actor for Node {
    type Msg = Msg;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        self.kind.started(&mut MotetNet { ctx });
    }

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match self.kind.receive(msg, &mut MotetNet { ctx }) {
            After::Continue => {}
            After::Exit => ctx.stop(),
            After::Report(report) => {
                if let Some(slot) = &self.report {
                    slot.set(report);
                }
                ctx.stop();
            }
        }
    }
}
