//! Programs declared as tables ([`TableProgram`]) and the scheduler of timed programs
//! ([`run_table`]): a table program runs as the same program declared on the builder, and
//! `run_table` runs as `run_sequential`. Programs of timers, startup and shutdown reactions with
//! stop requests and timeouts are generated from seeds, each built both ways and run by both
//! schedulers, and every reactor's log of (tag, reaction) is compared. Tags entered early (a
//! platform with an entry lead) change nothing but when the wait ends. Bad tables and bad
//! programs give their errors.

use core::time::Duration;
use std::sync::{Arc, Mutex};

use motet_reactor_core::{
    run_sequential, run_table, Clock, Inbox, Metrics, Platform, Program, ProgramBuilder,
    ProgramTable, ReactionRow, ReactorRow, RunError, RunOptions, Shutdown, Startup, TableError,
    TableProgram, Tag, TimerRow, Trigger,
};

mod common;
use common::Virtual;

/// What a reaction appends: (its index, the tag, physical time minus logical time).
type Log = Arc<Mutex<Vec<(usize, Tag, i128)>>>;

/// A generated program: per reactor nothing but its reactions; timers and reactions as the
/// table's rows take them.
struct Spec {
    reactors: usize,
    /// (owner, offset ms, period ms)
    timers: Vec<(u32, u64, u64)>,
    /// (owner, triggers, stop after this many runs)
    reactions: Vec<(u32, Vec<Trigger>, Option<u32>)>,
    timeout: Option<Duration>,
}

/// A small deterministic generator (an LCG), so that every run tests the same programs.
struct Gen(u64);

impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

fn spec(seed: u64) -> Spec {
    let mut g = Gen(seed);
    let reactors = 1 + g.below(3) as usize;
    let timers: Vec<(u32, u64, u64)> = (0..g.below(5))
        .map(|_| (g.below(reactors as u64) as u32, g.below(5), g.below(4)))
        .collect();
    let reactions = (0..1 + g.below(6))
        .map(|_| {
            let owner = g.below(reactors as u64) as u32;
            let mut triggers = Vec::new();
            if g.below(3) == 0 {
                triggers.push(Trigger::Startup);
            }
            if g.below(3) == 0 {
                triggers.push(Trigger::Shutdown);
            }
            for (i, t) in timers.iter().enumerate() {
                if t.0 == owner && g.below(2) == 0 {
                    triggers.push(Trigger::Timer(i as u32));
                }
            }
            let stop = (g.below(3) == 0).then(|| 1 + g.below(6) as u32);
            (owner, triggers, stop)
        })
        .collect();
    // A periodic timer runs forever without a timeout.
    let periodic = timers.iter().any(|t| t.2 > 0);
    let timeout = (periodic || g.below(2) == 0).then(|| Duration::from_millis(g.below(12)));
    Spec {
        reactors,
        timers,
        reactions,
        timeout,
    }
}

/// The body of reaction `i`: logs, and requests a stop at its `stop`-th run.
fn body<S>(
    log: &Log,
    i: usize,
    stop: Option<u32>,
) -> impl FnMut(&mut S, &motet_reactor_core::Ctx<'_>) + Send + 'static {
    let log = log.clone();
    let mut runs = 0;
    move |_, ctx| {
        runs += 1;
        let logical = ctx.tag().nanos() as i128;
        let physical = ctx.physical_time().as_nanos() as i128;
        log.lock().unwrap().push((i, ctx.tag(), physical - logical));
        if stop == Some(runs) {
            ctx.request_stop();
        }
    }
}

fn on_builder(s: &Spec, log: &Log) -> Program {
    let mut b = ProgramBuilder::new();
    let reactors: Vec<_> = (0..s.reactors)
        .map(|r| b.reactor(&format!("r{r}"), ()))
        .collect();
    let timers: Vec<_> = s
        .timers
        .iter()
        .enumerate()
        .map(|(i, &(owner, offset, period))| {
            b.timer(
                reactors[owner as usize],
                &format!("t{i}"),
                Duration::from_millis(offset),
                Duration::from_millis(period),
            )
        })
        .collect();
    for (i, (owner, triggers, stop)) in s.reactions.iter().enumerate() {
        let mut r = b.reaction(reactors[*owner as usize], &format!("n{i}"));
        for t in triggers {
            r = match *t {
                Trigger::Startup => r.trigger(Startup),
                Trigger::Shutdown => r.trigger(Shutdown),
                Trigger::Timer(x) => r.trigger(timers[x as usize]),
            };
        }
        r.body(body::<()>(log, i, *stop));
    }
    b.build().unwrap()
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

fn on_table(s: &Spec, log: &Log) -> Program {
    let names: Vec<&'static str> = (0..s.reactors)
        .map(|r| &*Box::leak(format!("r{r}").into_boxed_str()))
        .collect();
    let table: &'static ProgramTable = Box::leak(Box::new(ProgramTable::new(
        leak(names.iter().map(|&n| ReactorRow::new(n)).collect()),
        leak(
            s.timers
                .iter()
                .enumerate()
                .map(|(i, &(owner, offset, period))| {
                    TimerRow::new(
                        Box::leak(format!("t{i}").into_boxed_str()),
                        owner,
                        Duration::from_millis(offset),
                        Duration::from_millis(period),
                    )
                })
                .collect(),
        ),
        leak(
            s.reactions
                .iter()
                .enumerate()
                .map(|(i, (owner, triggers, _))| {
                    ReactionRow::new(
                        Box::leak(format!("n{i}").into_boxed_str()),
                        *owner,
                        leak(triggers.clone()),
                    )
                })
                .collect(),
        ),
    )));
    let mut t = TableProgram::new(table).unwrap();
    let ids: Vec<_> = (0..s.reactors)
        .map(|r| t.state(r as u32, ()).unwrap())
        .collect();
    for (i, (owner, _, stop)) in s.reactions.iter().enumerate() {
        t.body(i as u32, ids[*owner as usize], body::<()>(log, i, *stop))
            .unwrap();
    }
    t.build().unwrap()
}

/// Virtual time with an entry lead: waits end `lead` early, and `spin_until` moves the clock to
/// the tag's time (counting the calls).
struct Early {
    now: u64,
    lead: u64,
    spins: u32,
}

impl Clock for Early {
    fn now(&self) -> u64 {
        self.now
    }
}

impl Platform for Early {
    fn wait(&mut self, _: &Inbox, deadline: Option<u64>) {
        self.now = deadline.unwrap_or(self.now);
    }
    fn entry_lead(&self) -> u64 {
        self.lead
    }
    fn spin_until(&mut self, deadline: u64) {
        self.spins += 1;
        self.now = self.now.max(deadline);
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Scheduler {
    Sequential,
    Table,
}

/// Runs `program`; the log of each reactor, in order, and the metrics.
fn run(
    s: &Spec,
    program: &mut Program,
    log: &Log,
    scheduler: Scheduler,
    lead: u64,
) -> (Vec<Vec<(usize, Tag)>>, Metrics) {
    let options = RunOptions {
        fast: false,
        timeout: s.timeout,
    };
    let mut platform = Early {
        now: 0,
        lead,
        spins: 0,
    };
    let metrics = match scheduler {
        Scheduler::Sequential => run_sequential(program, &mut platform, &options, &mut ()),
        Scheduler::Table => run_table(program, &mut platform, &options, &mut ()),
    }
    .unwrap();
    let mut per_reactor = vec![Vec::new(); s.reactors];
    for &(i, tag, lag) in log.lock().unwrap().iter() {
        assert!(lag >= 0, "reaction {i} started before its tag {tag:?}");
        per_reactor[s.reactions[i].0 as usize].push((i, tag));
    }
    if lead > 0 && metrics.reactions_executed > 0 {
        assert!(platform.spins > 0, "entered early, the scheduler spins");
    }
    (per_reactor, metrics)
}

#[test]
fn table_programs_and_run_table_agree_with_the_builder_and_run_sequential() {
    let mut nonempty = 0;
    for seed in 0..300 {
        let s = spec(seed);
        let mut outcomes = Vec::new();
        for scheduler in [Scheduler::Sequential, Scheduler::Table] {
            for table in [false, true] {
                for lead in [0, 300_000] {
                    let log = Log::default();
                    let mut p = if table {
                        on_table(&s, &log)
                    } else {
                        on_builder(&s, &log)
                    };
                    outcomes.push((
                        (scheduler, table, lead),
                        run(&s, &mut p, &log, scheduler, lead),
                    ));
                }
            }
        }
        let (first, expected) = &outcomes[0];
        for (how, got) in &outcomes[1..] {
            assert_eq!(got, expected, "seed {seed}: {how:?} differs from {first:?}");
        }
        if expected.1.reactions_executed > 2 {
            nonempty += 1;
        }
    }
    assert!(nonempty > 100, "the generated programs run reactions");
}

#[test]
fn a_timer_program_runs_to_its_stop() {
    static TABLE: ProgramTable = ProgramTable::new(
        &[ReactorRow::new("blink")],
        &[TimerRow::new(
            "t",
            0,
            Duration::from_millis(1),
            Duration::from_millis(2),
        )],
        &[
            ReactionRow::new("toggle", 0, &[Trigger::Timer(0)]),
            ReactionRow::new("last", 0, &[Trigger::Shutdown]),
        ],
    );
    let mut t = TableProgram::new(&TABLE).unwrap();
    let blink = t.state(0, Vec::new()).unwrap();
    let timer = t.timer(0).unwrap();
    assert!(t.timer(1).is_none());
    t.body(0, blink, move |seen: &mut Vec<u64>, ctx| {
        assert!(ctx.is_present(timer));
        seen.push(ctx.tag().nanos());
        if seen.len() == 3 {
            ctx.request_stop();
        }
    })
    .unwrap();
    t.body(1, blink, |seen: &mut Vec<u64>, ctx| {
        seen.push(u64::MAX - u64::from(ctx.microstep()));
    })
    .unwrap();
    let mut program = t.build().unwrap();
    assert_eq!(program.graph().reactions[1].name, "blink.last");
    assert_eq!(program.graph().reactions[1].predecessors, vec![0]);
    let m = run_table(
        &mut program,
        &mut Virtual(0),
        &RunOptions::default(),
        &mut (),
    )
    .unwrap();
    assert_eq!(
        *program.state_mut(blink),
        vec![1_000_000, 3_000_000, 5_000_000, u64::MAX - 1]
    );
    assert_eq!(m.tags, 5, "startup, three timer tags, the stop tag");
    assert_eq!(m.reactions_executed, 4);
}

#[test]
fn bad_tables_are_reported() {
    static NO_REACTOR: ProgramTable = ProgramTable::new(
        &[],
        &[TimerRow::new("t", 0, Duration::ZERO, Duration::ZERO)],
        &[],
    );
    assert_eq!(
        TableProgram::new(&NO_REACTOR).unwrap_err(),
        TableError::NoSuchReactor(0)
    );
    static NO_TIMER: ProgramTable = ProgramTable::new(
        &[ReactorRow::new("a")],
        &[],
        &[ReactionRow::new("r", 0, &[Trigger::Timer(3)])],
    );
    assert_eq!(
        TableProgram::new(&NO_TIMER).unwrap_err(),
        TableError::NoSuchTimer(3)
    );
    static FOREIGN: ProgramTable = ProgramTable::new(
        &[ReactorRow::new("a"), ReactorRow::new("b")],
        &[TimerRow::new("t", 1, Duration::ZERO, Duration::ZERO)],
        &[ReactionRow::new("r", 0, &[Trigger::Timer(0)])],
    );
    assert_eq!(
        TableProgram::new(&FOREIGN).unwrap_err(),
        TableError::ForeignTimer {
            reaction: 0,
            timer: 0
        }
    );
    static TWO: ProgramTable = ProgramTable::new(
        &[ReactorRow::new("a"), ReactorRow::new("b")],
        &[],
        &[
            ReactionRow::new("r", 0, &[Trigger::Startup]),
            ReactionRow::new("s", 1, &[Trigger::Startup]),
        ],
    );
    let mut t = TableProgram::new(&TWO).unwrap();
    let a = t.state(0, 0u8).unwrap();
    assert_eq!(t.state(0, 0u8).unwrap_err(), TableError::StateTwice(0));
    assert_eq!(t.state(2, 0u8).unwrap_err(), TableError::NoSuchReactor(2));
    assert_eq!(
        t.body(1, a, |_, _| {}).unwrap_err(),
        TableError::WrongReactor(1)
    );
    assert_eq!(
        t.body(5, a, |_, _| {}).unwrap_err(),
        TableError::NoSuchReaction(5)
    );
    t.body(0, a, |_, _| {}).unwrap();
    assert_eq!(
        t.body(0, a, |_, _| {}).unwrap_err(),
        TableError::BodyTwice(0)
    );
    assert_eq!(t.build().unwrap_err(), TableError::MissingState(1));

    let mut t = TableProgram::new(&TWO).unwrap();
    let a = t.state(0, 0u8).unwrap();
    t.state(1, 0u8).unwrap();
    t.body(0, a, |_, _| {}).unwrap();
    assert_eq!(t.build().unwrap_err(), TableError::MissingBody(1));

    // A handle of another table program is refused.
    let mut other = TableProgram::new(&TWO).unwrap();
    let foreign = other.state(0, 0u8).unwrap();
    let mut t = TableProgram::new(&TWO).unwrap();
    t.state(0, 0u8).unwrap();
    assert_eq!(
        t.body(0, foreign, |_, _| {}).unwrap_err(),
        TableError::WrongReactor(0)
    );
    assert!(!TableError::MissingBody(1).to_string().is_empty());
}

#[test]
fn run_table_refuses_programs_with_ports() {
    let mut b = ProgramBuilder::new();
    let a = b.reactor("a", ());
    let out = b.output::<u32, _>(a, "out");
    b.reaction(a, "emit")
        .trigger(Startup)
        .effect(out)
        .body(move |_, ctx| ctx.set(out, 1));
    let mut program = b.build().unwrap();
    let err = run_table(
        &mut program,
        &mut Virtual(0),
        &RunOptions::default(),
        &mut (),
    )
    .unwrap_err();
    assert_eq!(err, RunError::NotTimed);
    // Refused before anything ran: the program can still run on the general scheduler.
    run_sequential(
        &mut program,
        &mut Virtual(0),
        &RunOptions::default(),
        &mut (),
    )
    .unwrap();
}

#[test]
fn a_timer_handle_of_another_program_fails_the_run() {
    static ONE: ProgramTable = ProgramTable::new(
        &[ReactorRow::new("a")],
        &[TimerRow::new("t", 0, Duration::ZERO, Duration::ZERO)],
        &[ReactionRow::new("r", 0, &[Trigger::Timer(0)])],
    );
    let other = TableProgram::new(&ONE).unwrap();
    let foreign = other.timer(0).unwrap();
    let mut t = TableProgram::new(&ONE).unwrap();
    let a = t.state(0, ()).unwrap();
    t.body(0, a, move |_, ctx| {
        ctx.is_present(foreign);
    })
    .unwrap();
    let mut program = t.build().unwrap();
    let err = run_table(
        &mut program,
        &mut Virtual(0),
        &RunOptions::default(),
        &mut (),
    )
    .unwrap_err();
    assert!(
        matches!(err, RunError::ForeignHandle { ref reaction } if reaction == "a.r"),
        "{err:?}"
    );
}
