//! The contract between the harness and each benchmark program.
//!
//! A [`Benchmark`] names its parameters (SPEC.md's flag names, with Savina's default and the "small"
//! value) and lists one [`Variant`] per model it has. The harness calls a variant's `prepare` once per
//! (benchmark, model, thread count) — building a runtime or thread pool is untimed, as in Verona's and
//! LF's harnesses — then, for every warm-up and timed iteration, [`Iteration::setup`] (untimed) and
//! [`Iteration::run`] (timed: creating the actors and running to completion).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::params::{ParamSpec, Params};

/// A programming model (or peer runtime) a benchmark can be written in.
///
/// The default models (`actor`, `boc`, `reactor`, `reactor-level`, `process`, `floor`) run each
/// program as SPEC.md gives it, with the runtime's default settings. A `-tuned` model runs the same
/// benchmark with named deviations from SPEC.md (a faster kernel, a per-benchmark setting, another
/// message flow; see [`crate::deviation`]); it is reported apart and never counts in a headline
/// ratio. `floor-loop` is the fastest sequential program where that is a different algorithm (a
/// plain loop) from the actor program's message flow, which `floor` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Model {
    /// motet actors (motet-actor).
    Actor,
    /// motet actors with deviations from SPEC.md.
    ActorTuned,
    /// motet behaviour-oriented concurrency (motet-boc).
    Boc,
    /// motet BoC with deviations from SPEC.md.
    BocTuned,
    /// motet reactors.
    Reactor,
    /// motet reactors on LF's level scheduler.
    ReactorLevel,
    /// motet processes and channels.
    Process,
    /// motet processes with deviations from SPEC.md.
    ProcessTuned,
    /// The sequential floor: the actor program's message flow on one thread, with plain calls and
    /// `VecDeque` mailboxes.
    Floor,
    /// The sequential floor with deviations from SPEC.md.
    FloorTuned,
    /// The fastest sequential program where it is a different algorithm from the message flow (a
    /// plain loop).
    FloorLoop,
    /// The actix crate, actors placed round-robin on `threads` arbiters.
    Actix,
    /// The actix crate, every actor on one of `threads` arbiters.
    ActixOne,
    /// The ractor crate.
    Ractor,
    /// The kameo crate.
    Kameo,
}

impl Model {
    /// Every model, in report order.
    pub const ALL: [Model; 15] = [
        Model::Actor,
        Model::Boc,
        Model::Reactor,
        Model::ReactorLevel,
        Model::Process,
        Model::Floor,
        Model::FloorLoop,
        Model::Actix,
        Model::ActixOne,
        Model::Ractor,
        Model::Kameo,
        Model::ActorTuned,
        Model::BocTuned,
        Model::ProcessTuned,
        Model::FloorTuned,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Model::Actor => "actor",
            Model::ActorTuned => "actor-tuned",
            Model::Boc => "boc",
            Model::BocTuned => "boc-tuned",
            Model::Reactor => "reactor",
            Model::ReactorLevel => "reactor-level",
            Model::Process => "process",
            Model::ProcessTuned => "process-tuned",
            Model::Floor => "floor",
            Model::FloorTuned => "floor-tuned",
            Model::FloorLoop => "floor-loop",
            Model::Actix => "actix",
            Model::ActixOne => "actix-one",
            Model::Ractor => "ractor",
            Model::Kameo => "kameo",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(name: &str) -> Option<Model> {
        Model::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether the model is sequential (runs on one thread whatever `--threads` says).
    pub fn is_sequential(self) -> bool {
        matches!(self, Model::Floor | Model::FloorTuned | Model::FloorLoop)
    }

    /// The default model a tuned model varies (itself for any other).
    pub fn untuned(self) -> Model {
        match self {
            Model::ActorTuned => Model::Actor,
            Model::BocTuned => Model::Boc,
            Model::ProcessTuned => Model::Process,
            Model::FloorTuned => Model::Floor,
            m => m,
        }
    }

    /// Whether the model runs programs with deviations from SPEC.md (shown apart from the
    /// headline comparisons).
    pub fn is_tuned(self) -> bool {
        matches!(
            self,
            Model::ActorTuned | Model::BocTuned | Model::ProcessTuned | Model::FloorTuned
        )
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one iteration computed, and whether it passed the benchmark's check.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The checked output (a count, a sum, a checksum), recorded in the JSON `result` field.
    pub result: serde_json::Value,
    /// `Ok` if the result validates as SPEC.md says; otherwise what was wrong.
    pub check: Result<(), String>,
}

impl Outcome {
    /// An outcome that failed before the program had a result to check: no result, and `what`
    /// went wrong as the check's error.
    pub fn failed(what: impl Into<String>) -> Outcome {
        Outcome {
            result: serde_json::Value::Null,
            check: Err(what.into()),
        }
    }

    /// An outcome whose validity is `expected == actual`, recording `actual`.
    pub fn expect_eq<T>(what: &str, expected: T, actual: T) -> Outcome
    where
        T: PartialEq + fmt::Debug + Into<serde_json::Value>,
    {
        let check = if expected == actual {
            Ok(())
        } else {
            Err(format!("{what}: expected {expected:?}, got {actual:?}"))
        };
        Outcome {
            result: actual.into(),
            check,
        }
    }

    /// An outcome whose validity is `actual` within `tolerance` of `expected` (for a float the
    /// program sums in an order it does not fix), recording `actual`.
    pub fn expect_near(what: &str, expected: f64, actual: f64, tolerance: f64) -> Outcome {
        let check = if (actual - expected).abs() <= tolerance {
            Ok(())
        } else {
            Err(format!("{what}: expected {expected}, got {actual}"))
        };
        Outcome {
            result: actual.into(),
            check,
        }
    }
}

/// The figures of LF's Table 1 for one run of a reactor program (paper section 5.2): the program's
/// size and what the run did. Reactor variants report them through [`Iteration::metrics`]; the
/// record of a cell carries those of its last iteration, with the time per reaction computed from
/// the median.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReactorMetrics {
    /// Reactors declared.
    pub reactors: u64,
    /// Reactions declared.
    pub reactions: u64,
    /// Actions declared.
    pub actions: u64,
    /// Ports declared (multiport channels counted one by one).
    pub ports: u64,
    /// Connections (channel pairs).
    pub connections: u64,
    /// Tags processed.
    pub tags: u64,
    /// Reactions executed.
    pub reactions_executed: u64,
    /// Ports set (the first set of a port at a tag).
    pub ports_set: u64,
    /// Actions scheduled.
    pub actions_scheduled: u64,
    /// The median iteration's time over `reactions_executed`, in nanoseconds (set by the harness).
    pub ns_per_reaction: Option<f64>,
    /// Reactors created by mutations during the run (0 for a static program). The record carries
    /// it as a key of its own, `reactors_created`, rather than in `metrics`.
    #[serde(skip)]
    pub reactors_created: u64,
    /// A digest of the run's trace of tags (each tag with the reactions executed at it), when
    /// tag traces are recorded (see [`record_tag_traces`]); for determinism checks, not recorded
    /// in the JSON records.
    #[serde(skip)]
    pub tag_trace: Option<u64>,
}

/// Makes the reactor variants prepared from now on record a trace of each run and report its
/// digest in [`ReactorMetrics::tag_trace`] (off by default: tracing costs time). Process-wide.
pub fn record_tag_traces(on: bool) {
    crate::reactor_support::TRACE_TAGS.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// One prepared benchmark program for one model and thread count.
pub trait Iteration {
    /// Untimed work before each iteration (data generation Savina keeps untimed).
    fn setup(&mut self) {}

    /// One timed iteration: create the actors (cowns, processes…), run to completion, and return the
    /// checked result.
    fn run(&mut self) -> Outcome;

    /// LF's Table 1 figures of the last run, for reactor programs (`None` for other models). A
    /// method beside [`Outcome`] rather than a field of it, so that the many programs that build
    /// an `Outcome` literally need not name it.
    fn metrics(&self) -> Option<ReactorMetrics> {
        None
    }
}

/// Builds the program of one variant; called once per thread count, untimed.
pub type Prepare = fn(&Params, usize) -> Prepared;

/// What a variant's `prepare` gives: the program, or why the parameters are rejected.
pub type Prepared = Result<Box<dyn Iteration>, String>;

/// One model's implementation of a benchmark.
#[derive(Clone, Copy)]
pub struct Variant {
    /// The model the variant is written in.
    pub model: Model,
    /// Builds the program for the given parameters and worker-thread count.
    pub prepare: Prepare,
    /// The names of the program's deviations from SPEC.md, each explained in
    /// [`crate::deviation::ALL`]: empty for every model but a `-tuned` one.
    pub deviations: &'static [&'static str],
    /// Whether the program's protocol differs from the actor program's by design (BoC's
    /// multi-cown behaviours, LF's batched reactions), so that it may run below the floor.
    pub own_protocol: bool,
}

/// A Savina benchmark: its name, parameters and implementations.
pub struct Benchmark {
    /// SPEC.md's short name (`pingpong`, `count`, …).
    pub name: &'static str,
    /// Savina's id (1 to 30), or 0 for extra programs.
    pub id: u32,
    /// A one-line description.
    pub title: &'static str,
    /// Parameters, by SPEC.md's flag names.
    pub params: &'static [ParamSpec],
    /// The implementations, one per model.
    pub variants: fn() -> Vec<Variant>,
}

impl Benchmark {
    /// The variant for `model`, if the benchmark has one.
    pub fn variant(&self, model: Model) -> Option<Variant> {
        (self.variants)().into_iter().find(|v| v.model == model)
    }
}

impl Variant {
    /// The variant of `model` that `prepare` builds, following SPEC.md exactly (no deviations),
    /// with the actor program's protocol.
    pub const fn new(model: Model, prepare: Prepare) -> Variant {
        Variant {
            model,
            prepare,
            deviations: &[],
            own_protocol: false,
        }
    }

    /// This variant, with the protocol of its own that `own_protocol` says it has (see
    /// [`Variant::own_protocol`]).
    pub const fn with_own_protocol(mut self, own_protocol: bool) -> Variant {
        self.own_protocol = own_protocol;
        self
    }

    /// This variant, with the deviations from SPEC.md named (see [`crate::deviation`]).
    pub const fn with_deviations(mut self, deviations: &'static [&'static str]) -> Variant {
        self.deviations = deviations;
        self
    }
}

impl Variant {
    /// Builds the program for `params` on `threads` workers (untimed): what [`Variant::prepare`]
    /// gives, set up for the variant's model where a model shares its program with another
    /// (`actix-one` is `actix`'s program with every actor on one arbiter).
    pub fn build(&self, params: &Params, threads: usize) -> Prepared {
        #[cfg(feature = "peers")]
        if self.model == Model::ActixOne {
            return crate::peers::one_arbiter(|| (self.prepare)(params, threads));
        }
        (self.prepare)(params, threads)
    }
}

impl fmt::Debug for Benchmark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Benchmark")
            .field("name", &self.name)
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}
