//! The parsed form of an LF file: target properties, imports, preambles and reactor classes.
//! Types and target code are kept as Rust text (LF's `time` becomes `Duration`); positions are
//! byte offsets into the file, for error messages.

/// One `.lf` file.
#[derive(Clone, Debug, Default)]
pub struct File {
    /// The target name (`Rust`).
    pub target: String,
    /// Target properties in order: name, value, position.
    pub properties: Vec<(String, Value, usize)>,
    /// `import A, B as C from "path"`.
    pub imports: Vec<Import>,
    /// Top-level preambles.
    pub preambles: Vec<String>,
    /// The reactor classes.
    pub reactors: Vec<Reactor>,
}

/// A target property's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A literal: number, string (with quotes), `true`, `false`.
    Literal(String),
    /// A bare identifier (`Release`).
    Ident(String),
    /// A time: amount and unit.
    Time(u64, String),
    /// `[a, b]`.
    List(Vec<Value>),
    /// `{ key: value, ... }`.
    Dict(Vec<(String, Value)>),
}

/// An import statement.
#[derive(Clone, Debug)]
pub struct Import {
    /// Imported class names and their aliases.
    pub names: Vec<(String, Option<String>)>,
    /// The path as written.
    pub path: String,
    /// Position.
    pub at: usize,
}

/// A reactor class.
#[derive(Clone, Debug, Default)]
pub struct Reactor {
    /// Name (`None` for an unnamed main reactor).
    pub name: Option<String>,
    /// `main reactor`.
    pub main: bool,
    /// `federated reactor`.
    pub federated: bool,
    /// Type parameters as Rust text (`T: Sync`), and their names.
    pub type_params: Vec<(String, String)>,
    /// Parameters.
    pub params: Vec<Param>,
    /// `extends` list.
    pub extends: Vec<(String, usize)>,
    /// Preambles inside the reactor.
    pub preambles: Vec<String>,
    /// State variables.
    pub state: Vec<StateVar>,
    /// Inputs and outputs.
    pub ports: Vec<PortDecl>,
    /// Timers.
    pub timers: Vec<TimerDecl>,
    /// Actions.
    pub actions: Vec<ActionDecl>,
    /// Reactions, in order.
    pub reactions: Vec<Reaction>,
    /// Contained reactors.
    pub instances: Vec<Instance>,
    /// Connections.
    pub connections: Vec<Connection>,
    /// Position of the first mode, if the reactor has modes.
    pub modes: Option<usize>,
    /// Position.
    pub at: usize,
}

/// An expression (a parameter value, a delay, an initializer).
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A literal, as Rust text.
    Literal(String),
    /// A time: amount and unit.
    Time(String, String),
    /// A parameter (or `bank_index`).
    Ident(String),
    /// Target code.
    Code(String),
    /// `[a, b]`.
    List(Vec<Expr>),
}

/// A reactor parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// Name.
    pub name: String,
    /// Type as Rust text.
    pub ty: Option<String>,
    /// Default value.
    pub default: Option<Expr>,
    /// Position.
    pub at: usize,
}

/// A state variable.
#[derive(Clone, Debug)]
pub struct StateVar {
    /// Name.
    pub name: String,
    /// Type as Rust text.
    pub ty: Option<String>,
    /// Initial value (`Default::default()` if absent).
    pub init: Option<Expr>,
    /// Position.
    pub at: usize,
}

/// An input or output.
#[derive(Clone, Debug)]
pub struct PortDecl {
    /// Name.
    pub name: String,
    /// Input (else output).
    pub input: bool,
    /// Type as Rust text.
    pub ty: String,
    /// Width of a multiport: terms to add.
    pub width: Option<Vec<Expr>>,
    /// Position.
    pub at: usize,
}

/// A timer.
#[derive(Clone, Debug)]
pub struct TimerDecl {
    /// Name.
    pub name: String,
    /// Offset.
    pub offset: Option<Expr>,
    /// Period.
    pub period: Option<Expr>,
    /// Position.
    pub at: usize,
}

/// A logical or physical action.
#[derive(Clone, Debug)]
pub struct ActionDecl {
    /// Name.
    pub name: String,
    /// Physical (else logical).
    pub physical: bool,
    /// Minimum delay.
    pub min_delay: Option<Expr>,
    /// Minimum spacing.
    pub min_spacing: Option<Expr>,
    /// Spacing policy (`"defer"`, `"drop"`, `"replace"`).
    pub policy: Option<String>,
    /// Value type as Rust text (`()` if absent).
    pub ty: Option<String>,
    /// Position.
    pub at: usize,
}

/// A reference to a port, action or timer: `name` or `container.name`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarRef {
    /// The contained reactor, if any.
    pub container: Option<String>,
    /// The element.
    pub name: String,
    /// Position.
    pub at: usize,
}

/// A reaction trigger.
#[derive(Clone, Debug, PartialEq)]
pub enum TriggerRef {
    /// `startup`.
    Startup,
    /// `shutdown`.
    Shutdown,
    /// `reset`.
    Reset,
    /// A port, action or timer.
    Var(VarRef),
}

/// A reaction.
#[derive(Clone, Debug)]
pub struct Reaction {
    /// `@label("...")` or the reaction's name.
    pub label: Option<String>,
    /// Triggers.
    pub triggers: Vec<TriggerRef>,
    /// Sources (read, not triggering).
    pub sources: Vec<VarRef>,
    /// Effects.
    pub effects: Vec<VarRef>,
    /// The body, verbatim.
    pub body: String,
    /// `deadline(d) {= handler =}`.
    pub deadline: Option<(Expr, String)>,
    /// Position.
    pub at: usize,
}

/// A contained reactor: `name = new[width] Class<args>(p = v, ...)`.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Name.
    pub name: String,
    /// Class name.
    pub class: String,
    /// Type arguments as Rust text.
    pub type_args: Vec<String>,
    /// Bank width: terms to add.
    pub width: Option<Vec<Expr>>,
    /// Parameter assignments.
    pub args: Vec<(String, Expr)>,
    /// Position.
    pub at: usize,
}

/// One side's element of a connection.
#[derive(Clone, Debug)]
pub struct PortRef {
    /// The port.
    pub var: VarRef,
    /// Within `interleaved(...)`.
    pub interleaved: bool,
}

/// A connection.
#[derive(Clone, Debug)]
pub struct Connection {
    /// Sources.
    pub lhs: Vec<PortRef>,
    /// Destinations.
    pub rhs: Vec<PortRef>,
    /// `(lhs)+`.
    pub broadcast: bool,
    /// `~>`.
    pub physical: bool,
    /// `after` delay.
    pub after: Option<Expr>,
    /// Position.
    pub at: usize,
}
