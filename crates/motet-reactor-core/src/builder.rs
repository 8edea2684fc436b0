//! The builder API: declare reactors, ports, actions, timers, modes and reactions, connect ports,
//! then [`build`](ProgramBuilder::build) a checked [`Program`](crate::Program).
//!
//! Everything is declared on one [`ProgramBuilder`], which hands out typed handles. A reusable
//! reactor "class" is a plain Rust function that declares a reactor with its ports and reactions and
//! returns the handles its users need; a bank is a loop over such a function
//! ([`ProgramBuilder::bank`]). Mistakes that types cannot catch (a connection across levels of the
//! hierarchy that LF would reject, a reaction declaring a port outside its scope, a handle of another
//! program) are collected and reported by `build`, so declaring never fails half-way.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::marker::PhantomData;
use core::time::Duration;

use crate::cells::{new_slot, ActionCell, ActionDyn, SlotDyn, SpacingPolicy, StateBox};
use crate::ctx::Ctx;
use crate::error::{BuildError, Warning};
use crate::graph::{ConnectionKind, PortKind};
use crate::ids::{
    next_program_id, Declare, Element, Input, InputMultiport, LogicalAction, ModeId, Output,
    OutputMultiport, PhysicalAction, ReactionId, ReactorId, Timer,
};
use crate::inbox::{Inbox, PhysicalSender};
use crate::ports::Ports;
use crate::program::{Clock, Program, ReactionCell};
use crate::time::nanos;

/// A reaction body or deadline handler with the reactor state's type erased. It gets the parts of
/// its [`Ctx`] (the program, the reaction's cell, the clock) as arguments, which travel in
/// registers, and builds the `Ctx` itself: the body it wraps is inlined there and reads them from
/// registers, where a `&Ctx` built by the caller would be stored to its stack and loaded back
/// (a store-to-load round trip before the first access of every body).
pub(crate) type Body = Box<dyn FnMut(*mut (), &Program, &ReactionCell, &dyn Clock) + Send>;
/// A reset hook with the state's type erased.
pub(crate) type ResetHook = Box<dyn FnMut(*mut ()) + Send>;

pub(crate) struct ReactorDecl {
    pub(crate) name: String,
    pub(crate) parent: Option<u32>,
    pub(crate) mode: Option<u32>,
    pub(crate) hidden: bool,
    pub(crate) state: StateBox,
    pub(crate) modes: Vec<u32>,
    pub(crate) reactions: u32,
}

pub(crate) struct PortDecl {
    pub(crate) name: String,
    pub(crate) owner: u32,
    pub(crate) kind: PortKind,
    pub(crate) multiport: Option<(u32, u32)>,
    pub(crate) upstream: Option<u32>,
    pub(crate) make: fn() -> (Box<dyn SlotDyn>, bool),
    pub(crate) type_name: &'static str,
    pub(crate) required: bool,
}

pub(crate) struct MultiportDecl {
    pub(crate) name: String,
    pub(crate) owner: u32,
    pub(crate) kind: PortKind,
    pub(crate) base: u32,
    pub(crate) width: u32,
}

pub(crate) struct ActionDecl {
    pub(crate) name: String,
    pub(crate) owner: u32,
    pub(crate) mode: Option<u32>,
    pub(crate) physical: bool,
    pub(crate) spec: ActionSpec,
    pub(crate) hidden: bool,
    pub(crate) cell: Box<dyn ActionDyn>,
    pub(crate) needs_drop: bool,
    pub(crate) take: crate::program::TakeFn,
}

pub(crate) struct TimerDecl {
    pub(crate) name: String,
    pub(crate) owner: u32,
    pub(crate) mode: Option<u32>,
    pub(crate) offset: u64,
    pub(crate) period: u64,
}

pub(crate) struct ModeDecl {
    pub(crate) name: String,
    pub(crate) reactor: u32,
}

pub(crate) struct ReactionDecl {
    pub(crate) name: String,
    pub(crate) reactor: u32,
    pub(crate) number: u32,
    pub(crate) mode: Option<u32>,
    pub(crate) triggers: Vec<Element>,
    pub(crate) sources: Vec<Element>,
    pub(crate) effects: Vec<Element>,
    pub(crate) body: Body,
    pub(crate) deadline: Option<(u64, Body)>,
    pub(crate) hidden: bool,
}

pub(crate) struct HookDecl {
    pub(crate) reactor: u32,
    pub(crate) mode: Option<u32>,
    pub(crate) hook: ResetHook,
}

pub(crate) struct ConnectionDecl {
    pub(crate) from: u32,
    pub(crate) to: u32,
    pub(crate) kind: ConnectionKind,
}

/// The delay, spacing and spacing policy of a logical action.
///
/// ```
/// use core::time::Duration;
/// use motet_reactor_core::{ActionSpec, SpacingPolicy};
/// let spec = ActionSpec::delay(Duration::from_millis(1))
///     .spacing(Duration::from_millis(300), SpacingPolicy::Drop);
/// # let _ = spec;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ActionSpec {
    pub(crate) min_delay: u64,
    pub(crate) min_spacing: u64,
    pub(crate) policy: SpacingPolicy,
}

impl ActionSpec {
    /// An action with minimum delay `d` and no spacing.
    pub fn delay(d: Duration) -> ActionSpec {
        ActionSpec {
            min_delay: nanos(d),
            ..ActionSpec::default()
        }
    }

    /// Events must be at least `spacing` apart; `policy` says what happens to one that is not.
    pub fn spacing(mut self, spacing: Duration, policy: SpacingPolicy) -> ActionSpec {
        self.min_spacing = nanos(spacing);
        self.policy = policy;
        self
    }
}

/// Where an element is declared: a reactor, or one of its modes.
pub struct Scope<S> {
    pub(crate) prog: u32,
    pub(crate) reactor: u32,
    pub(crate) mode: Option<u32>,
    _s: PhantomData<fn() -> S>,
}

impl<S> From<ReactorId<S>> for Scope<S> {
    fn from(r: ReactorId<S>) -> Scope<S> {
        Scope {
            prog: r.prog,
            reactor: r.ix,
            mode: None,
            _s: PhantomData,
        }
    }
}

impl<S> From<ModeId<S>> for Scope<S> {
    fn from(m: ModeId<S>) -> Scope<S> {
        Scope {
            prog: m.prog,
            reactor: m.reactor,
            mode: Some(m.ix),
            _s: PhantomData,
        }
    }
}

/// Options of a connection: `after` a logical delay, physical, broadcast.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Connection {
    after: Option<u64>,
    physical: bool,
    broadcast: bool,
}

impl Connection {
    /// A plain connection.
    pub fn new() -> Connection {
        Connection::default()
    }

    /// Delivers each value `d` later in logical time (`Duration::ZERO`: one microstep later).
    pub fn after(mut self, d: Duration) -> Connection {
        self.after = Some(nanos(d));
        self
    }

    /// Delivers each value at a tag taken from the physical clock (LF's `~>`).
    pub fn physical(mut self) -> Connection {
        self.physical = true;
        self
    }

    /// Repeats the source list until the destination list is full (LF's `(x)+`).
    pub fn broadcast(mut self) -> Connection {
        self.broadcast = true;
        self
    }
}

/// Declares a program (see the module docs and the crate example).
pub struct ProgramBuilder {
    pub(crate) prog: u32,
    pub(crate) reactors: Vec<ReactorDecl>,
    pub(crate) ports: Vec<PortDecl>,
    pub(crate) multiports: Vec<MultiportDecl>,
    pub(crate) actions: Vec<ActionDecl>,
    pub(crate) timers: Vec<TimerDecl>,
    pub(crate) modes: Vec<ModeDecl>,
    pub(crate) reactions: Vec<ReactionDecl>,
    pub(crate) hooks: Vec<HookDecl>,
    pub(crate) connections: Vec<ConnectionDecl>,
    pub(crate) errors: Vec<BuildError>,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) inbox: Arc<Inbox>,
}

impl Default for ProgramBuilder {
    fn default() -> Self {
        ProgramBuilder::new()
    }
}

impl core::fmt::Debug for ProgramBuilder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ProgramBuilder")
            .field("reactors", &self.reactors.len())
            .field("reactions", &self.reactions.len())
            .finish_non_exhaustive()
    }
}

impl ProgramBuilder {
    /// An empty program.
    pub fn new() -> ProgramBuilder {
        ProgramBuilder {
            prog: next_program_id(),
            reactors: Vec::new(),
            ports: Vec::new(),
            multiports: Vec::new(),
            actions: Vec::new(),
            timers: Vec::new(),
            modes: Vec::new(),
            reactions: Vec::new(),
            hooks: Vec::new(),
            connections: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
            inbox: Arc::new(Inbox::new()),
        }
    }

    fn check(&mut self, prog: u32, what: &str) -> bool {
        if prog == self.prog {
            true
        } else {
            self.errors.push(BuildError::ForeignHandle(what.into()));
            false
        }
    }

    fn add_reactor<S: Send + 'static>(
        &mut self,
        name: &str,
        parent: Option<u32>,
        mode: Option<u32>,
        hidden: bool,
        state: S,
    ) -> ReactorId<S> {
        let full = match parent {
            Some(p) => format!("{}.{}", self.reactors[p as usize].name, name),
            None => name.into(),
        };
        let ix = self.reactors.len() as u32;
        self.reactors.push(ReactorDecl {
            name: full,
            parent,
            mode,
            hidden,
            state: StateBox::new(state),
            modes: Vec::new(),
            reactions: 0,
        });
        ReactorId {
            prog: self.prog,
            ix,
            _s: PhantomData,
        }
    }

    /// Declares a top-level reactor with state `state`.
    pub fn reactor<S: Send + 'static>(&mut self, name: &str, state: S) -> ReactorId<S> {
        self.add_reactor(name, None, None, false, state)
    }

    /// Declares a reactor contained in `parent` (a reactor, or a mode of one: then the child is
    /// active only while that mode is, and is reset when it is entered by a reset transition).
    pub fn child<S: Send + 'static, P>(
        &mut self,
        parent: impl Into<Scope<P>>,
        name: &str,
        state: S,
    ) -> ReactorId<S> {
        let scope = parent.into();
        if !self.check(scope.prog, name) {
            return self.add_reactor(name, None, None, false, state);
        }
        self.add_reactor(name, Some(scope.reactor), scope.mode, false, state)
    }

    /// Calls `f(builder, index)` for `index` in `0..width` and collects the results: a bank. `f`
    /// typically declares one reactor named `name[index]` and returns its handles; `index` is LF's
    /// `bank_index`.
    pub fn bank<X>(&mut self, width: usize, mut f: impl FnMut(&mut Self, usize) -> X) -> Vec<X> {
        (0..width).map(|i| f(self, i)).collect()
    }

    /// Declares a mode of `reactor`; the first mode declared is the initial one.
    pub fn mode<S>(&mut self, reactor: ReactorId<S>, name: &str) -> ModeId<S> {
        self.check(reactor.prog, name);
        let ix = self.modes.len() as u32;
        let r = reactor.ix.min(self.reactors.len().saturating_sub(1) as u32);
        let full = match self.reactors.get(r as usize) {
            Some(decl) => format!("{}.{}", decl.name, name),
            None => name.into(),
        };
        self.modes.push(ModeDecl {
            name: full,
            reactor: r,
        });
        if let Some(decl) = self.reactors.get_mut(r as usize) {
            decl.modes.push(ix);
        }
        ModeId {
            prog: self.prog,
            ix,
            reactor: r,
            _s: PhantomData,
        }
    }

    /// Runs `f` on the reactor's state when `scope` is reset: for a mode, when it is entered by a
    /// reset transition; for a reactor, when a mode containing it is. This is how LF's `reset state`
    /// variables get their initial values back.
    pub fn on_reset<S: 'static>(
        &mut self,
        scope: impl Into<Scope<S>>,
        mut f: impl FnMut(&mut S) + Send + 'static,
    ) {
        let scope = scope.into();
        if !self.check(scope.prog, "reset hook") {
            return;
        }
        self.hooks.push(HookDecl {
            reactor: scope.reactor,
            mode: scope.mode,
            hook: Box::new(move |p| {
                // SAFETY: the scheduler passes the state of `scope.reactor`, whose type is `S`
                // (the scope's type), between tags when no reaction of it runs.
                f(unsafe { &mut *p.cast::<S>() })
            }),
        });
    }

    fn add_port<T: Send + Sync + 'static>(
        &mut self,
        owner: u32,
        name: String,
        kind: PortKind,
        multiport: Option<(u32, u32)>,
    ) -> u32 {
        let ix = self.ports.len() as u32;
        self.ports.push(PortDecl {
            name,
            owner,
            kind,
            multiport,
            upstream: None,
            make: new_slot::<T>,
            type_name: core::any::type_name::<T>(),
            required: false,
        });
        ix
    }

    fn port_name<S>(&mut self, reactor: ReactorId<S>, name: &str) -> Option<String> {
        if !self.check(reactor.prog, name) {
            return None;
        }
        Some(format!(
            "{}.{}",
            self.reactors[reactor.ix as usize].name, name
        ))
    }

    /// Declares an input port of `reactor`.
    pub fn input<T: Send + Sync + 'static, S>(
        &mut self,
        reactor: ReactorId<S>,
        name: &str,
    ) -> Input<T> {
        let full = self.port_name(reactor, name).unwrap_or_default();
        let ix = self.add_port::<T>(reactor.ix, full, PortKind::Input, None);
        Input {
            prog: self.prog,
            ix,
            _t: PhantomData,
        }
    }

    /// Declares an output port of `reactor`.
    pub fn output<T: Send + Sync + 'static, S>(
        &mut self,
        reactor: ReactorId<S>,
        name: &str,
    ) -> Output<T> {
        let full = self.port_name(reactor, name).unwrap_or_default();
        let ix = self.add_port::<T>(reactor.ix, full, PortKind::Output, None);
        Output {
            prog: self.prog,
            ix,
            _t: PhantomData,
        }
    }

    fn add_multiport<T: Send + Sync + 'static, S>(
        &mut self,
        reactor: ReactorId<S>,
        name: &str,
        width: usize,
        kind: PortKind,
    ) -> (u32, u32, u32) {
        let full = self.port_name(reactor, name).unwrap_or_default();
        let mp = self.multiports.len() as u32;
        let base = self.ports.len() as u32;
        let width = width as u32;
        for c in 0..width {
            self.add_port::<T>(reactor.ix, format!("{full}[{c}]"), kind, Some((mp, c)));
        }
        self.multiports.push(MultiportDecl {
            name: full,
            owner: reactor.ix,
            kind,
            base,
            width,
        });
        (mp, base, width)
    }

    /// Declares an input multiport of `width` channels.
    pub fn input_multiport<T: Send + Sync + 'static, S>(
        &mut self,
        reactor: ReactorId<S>,
        name: &str,
        width: usize,
    ) -> InputMultiport<T> {
        let (ix, base, width) = self.add_multiport::<T, S>(reactor, name, width, PortKind::Input);
        InputMultiport {
            prog: self.prog,
            ix,
            base,
            width,
            _t: PhantomData,
        }
    }

    /// Declares an output multiport of `width` channels.
    pub fn output_multiport<T: Send + Sync + 'static, S>(
        &mut self,
        reactor: ReactorId<S>,
        name: &str,
        width: usize,
    ) -> OutputMultiport<T> {
        let (ix, base, width) = self.add_multiport::<T, S>(reactor, name, width, PortKind::Output);
        OutputMultiport {
            prog: self.prog,
            ix,
            base,
            width,
            _t: PhantomData,
        }
    }

    /// Marks an input (or every channel of an input multiport) as required: `build` fails if it is
    /// neither connected nor written by a reaction of the container.
    pub fn require(&mut self, port: impl Declare) {
        let (prog, el) = port.element();
        if prog != Some(self.prog) {
            self.errors
                .push(BuildError::ForeignHandle("required port".into()));
            return;
        }
        if let Element::Ports { start, len } = el {
            for p in start..start + len {
                self.ports[p as usize].required = true;
            }
        }
    }

    /// Declares a timer in `scope`, first firing `offset` after the start (or after the reset entry
    /// into its mode), then every `period` (`Duration::ZERO`: once).
    pub fn timer<S>(
        &mut self,
        scope: impl Into<Scope<S>>,
        name: &str,
        offset: Duration,
        period: Duration,
    ) -> Timer {
        let scope = scope.into();
        self.check(scope.prog, name);
        let full = self.scoped_name(&scope, name);
        let ix = self.timers.len() as u32;
        self.timers.push(TimerDecl {
            name: full,
            owner: scope.reactor,
            mode: scope.mode,
            offset: nanos(offset),
            period: nanos(period),
        });
        Timer {
            prog: self.prog,
            ix,
        }
    }

    fn scoped_name<S>(&self, scope: &Scope<S>, name: &str) -> String {
        match self.reactors.get(scope.reactor as usize) {
            Some(r) if scope.prog == self.prog => format!("{}.{}", r.name, name),
            _ => name.into(),
        }
    }

    fn add_action<T: Send + Sync + 'static, S>(
        &mut self,
        scope: Scope<S>,
        name: &str,
        physical: bool,
        spec: ActionSpec,
        hidden: bool,
    ) -> u32 {
        self.check(scope.prog, name);
        let full = self.scoped_name(&scope, name);
        let ix = self.actions.len() as u32;
        self.actions.push(ActionDecl {
            name: full,
            owner: scope.reactor,
            mode: scope.mode,
            physical,
            spec,
            hidden,
            cell: Box::new(ActionCell::<T>::new()),
            needs_drop: core::mem::needs_drop::<T>(),
            take: crate::cells::take_erased::<T>,
        });
        ix
    }

    /// Declares a logical action with minimum delay `min_delay`.
    pub fn logical_action<T: Send + Sync + 'static, S>(
        &mut self,
        scope: impl Into<Scope<S>>,
        name: &str,
        min_delay: Duration,
    ) -> LogicalAction<T> {
        self.logical_action_with(scope, name, ActionSpec::delay(min_delay))
    }

    /// Declares a logical action with a minimum delay, a minimum spacing and a spacing policy.
    pub fn logical_action_with<T: Send + Sync + 'static, S>(
        &mut self,
        scope: impl Into<Scope<S>>,
        name: &str,
        spec: ActionSpec,
    ) -> LogicalAction<T> {
        let ix = self.add_action::<T, S>(scope.into(), name, false, spec, false);
        LogicalAction {
            prog: self.prog,
            ix,
            _t: PhantomData,
        }
    }

    /// Declares a physical action with minimum delay `min_delay`. Values come from
    /// [`PhysicalSender`]s ([`ProgramBuilder::sender`], [`Program::sender`](crate::Program::sender))
    /// or from reactions that declare it as an effect.
    pub fn physical_action<T: Send + Sync + 'static, S>(
        &mut self,
        scope: impl Into<Scope<S>>,
        name: &str,
        min_delay: Duration,
    ) -> PhysicalAction<T> {
        let ix = self.add_action::<T, S>(
            scope.into(),
            name,
            true,
            ActionSpec::delay(min_delay),
            false,
        );
        PhysicalAction {
            prog: self.prog,
            ix,
            _t: PhantomData,
        }
    }

    /// A sender for `action`, usable from any thread; it keeps the program alive while it exists.
    pub fn sender<T: Send + Sync + 'static>(&self, action: PhysicalAction<T>) -> PhysicalSender<T> {
        PhysicalSender::new(self.inbox.clone(), action.prog, action.ix, true)
    }

    /// Starts declaring a reaction of `scope`'s reactor (in `scope`'s mode, if a mode). Reactions of
    /// one reactor run in the order they are declared when triggered at the same tag.
    pub fn reaction<S: 'static>(
        &mut self,
        scope: impl Into<Scope<S>>,
        name: &str,
    ) -> ReactionBuilder<'_, S> {
        let scope = scope.into();
        self.check(scope.prog, name);
        let reactor = scope
            .reactor
            .min(self.reactors.len().saturating_sub(1) as u32);
        ReactionBuilder {
            name: self.scoped_name(&scope, name),
            reactor,
            mode: scope.mode,
            triggers: Vec::new(),
            sources: Vec::new(),
            effects: Vec::new(),
            deadline: None,
            foreign: false,
            b: self,
            _s: PhantomData,
        }
    }

    /// Connects `from` to `to` channel by channel (LF's `->`); with different widths only the first
    /// `min` channels are connected and a [`Warning`] is recorded.
    pub fn connect<T: Send + Sync + 'static>(
        &mut self,
        from: impl Into<Ports<T>>,
        to: impl Into<Ports<T>>,
    ) {
        let pairs = self.pairs(from.into(), to.into(), false);
        for (a, b) in pairs {
            self.plain(a, b);
        }
    }

    /// Connects `from`, repeated, to every channel of `to` (LF's `(from)+ -> to`).
    pub fn connect_broadcast<T: Send + Sync + 'static>(
        &mut self,
        from: impl Into<Ports<T>>,
        to: impl Into<Ports<T>>,
    ) {
        let pairs = self.pairs(from.into(), to.into(), true);
        for (a, b) in pairs {
            self.plain(a, b);
        }
    }

    /// Connects with a logical delay (LF's `after`): each value arrives `delay` later
    /// (`Duration::ZERO`: one microstep later).
    pub fn connect_after<T: Clone + Send + Sync + 'static>(
        &mut self,
        from: impl Into<Ports<T>>,
        to: impl Into<Ports<T>>,
        delay: Duration,
    ) {
        self.connect_with(from, to, Connection::new().after(delay));
    }

    /// Connects physically (LF's `~>`): each value arrives at a tag from the physical clock.
    pub fn connect_physical<T: Clone + Send + Sync + 'static>(
        &mut self,
        from: impl Into<Ports<T>>,
        to: impl Into<Ports<T>>,
    ) {
        self.connect_with(from, to, Connection::new().physical());
    }

    /// Connects with any combination of [`Connection`] options.
    pub fn connect_with<T: Clone + Send + Sync + 'static>(
        &mut self,
        from: impl Into<Ports<T>>,
        to: impl Into<Ports<T>>,
        options: Connection,
    ) {
        let pairs = self.pairs(from.into(), to.into(), options.broadcast);
        for (a, b) in pairs {
            if options.physical {
                self.delayed::<T>(a, b, None);
            } else if let Some(d) = options.after {
                self.delayed::<T>(a, b, Some(d));
            } else {
                self.plain(a, b);
            }
        }
    }

    fn pairs<T>(&mut self, from: Ports<T>, to: Ports<T>, broadcast: bool) -> Vec<(u32, u32)> {
        for p in [from.prog, to.prog].into_iter().flatten() {
            if !self.check(p, "connected port") {
                return Vec::new();
            }
        }
        let (n, m) = (from.ixs.len(), to.ixs.len());
        let label = || match (from.ixs.first(), to.ixs.first()) {
            (Some(&a), Some(&b)) => format!(
                "{} -> {}",
                self.ports[a as usize].name, self.ports[b as usize].name
            ),
            _ => String::from("(empty)"),
        };
        if broadcast {
            if n == 0 {
                return Vec::new();
            }
            if m % n != 0 {
                let connection = label();
                self.warnings.push(Warning::UnevenBroadcast {
                    connection,
                    from: n,
                    to: m,
                });
            }
            return (0..m).map(|i| (from.ixs[i % n], to.ixs[i])).collect();
        }
        if n != m {
            let connection = label();
            self.warnings.push(Warning::WidthMismatch {
                connection,
                from: n,
                to: m,
            });
        }
        from.ixs
            .iter()
            .copied()
            .zip(to.ixs.iter().copied())
            .collect()
    }

    /// Checks that `a -> b` is a connection LF allows, returning the reactor that contains it.
    fn connection_scope(&mut self, a: u32, b: u32) -> Option<u32> {
        let (pa, pb) = (&self.ports[a as usize], &self.ports[b as usize]);
        let (ra, rb) = (pa.owner, pb.owner);
        let parent = |r: u32| self.reactors[r as usize].parent;
        let ok = match (pa.kind, pb.kind) {
            (PortKind::Output, PortKind::Input) => parent(ra) == parent(rb),
            (PortKind::Input, PortKind::Input) => parent(rb) == Some(ra),
            (PortKind::Output, PortKind::Output) => parent(ra) == Some(rb),
            (PortKind::Input, PortKind::Output) => ra == rb,
        };
        if ok {
            let scope = match (pa.kind, pb.kind) {
                (PortKind::Output, PortKind::Input) => parent(ra),
                (PortKind::Input, _) => Some(ra),
                (PortKind::Output, PortKind::Output) => Some(rb),
            };
            return Some(scope.unwrap_or(u32::MAX));
        }
        let reason = match (pa.kind, pb.kind) {
            (PortKind::Output, PortKind::Input) => {
                "an output connects to an input of a sibling reactor"
            }
            (PortKind::Input, PortKind::Input) => {
                "an input connects down to an input of a contained reactor"
            }
            (PortKind::Output, PortKind::Output) => {
                "an output connects up to an output of its container"
            }
            (PortKind::Input, PortKind::Output) => {
                "an input connects through to an output of the same reactor"
            }
        };
        self.errors.push(BuildError::InvalidConnection {
            from: pa.name.clone(),
            to: pb.name.clone(),
            reason,
        });
        None
    }

    fn plain(&mut self, a: u32, b: u32) {
        if self.connection_scope(a, b).is_none() {
            return;
        }
        let port = &mut self.ports[b as usize];
        if let Some(prev) = port.upstream {
            let sources = alloc::vec![
                self.ports[prev as usize].name.clone(),
                self.ports[a as usize].name.clone()
            ];
            let port = self.ports[b as usize].name.clone();
            self.errors
                .push(BuildError::MultipleSources { port, sources });
            return;
        }
        port.upstream = Some(a);
        self.connections.push(ConnectionDecl {
            from: a,
            to: b,
            kind: ConnectionKind::Plain,
        });
    }

    /// An `after` (`Some(delay)`) or physical (`None`) connection: a generated reactor with an action
    /// and two reactions, as LF generates a delay reactor: one forwards each value into the action,
    /// the other delivers the action's value to the destination.
    fn delayed<T: Clone + Send + Sync + 'static>(&mut self, a: u32, b: u32, delay: Option<u64>) {
        let Some(scope) = self.connection_scope(a, b) else {
            return;
        };
        let parent = (scope != u32::MAX).then_some(scope);
        let name = format!(
            "delay({} -> {})",
            self.ports[a as usize].name, self.ports[b as usize].name
        );
        let reactor = self.add_reactor(&name, parent, None, true, ());
        let physical = delay.is_none();
        let spec = ActionSpec::delay(Duration::from_nanos(delay.unwrap_or(0)));
        let act = self.add_action::<T, ()>(reactor.into(), "action", physical, spec, true);
        let src = Input::<T> {
            prog: self.prog,
            ix: a,
            _t: PhantomData,
        };
        let dst = Input::<T> {
            prog: self.prog,
            ix: b,
            _t: PhantomData,
        };
        let logical = LogicalAction::<T> {
            prog: self.prog,
            ix: act,
            _t: PhantomData,
        };
        self.connections.push(ConnectionDecl {
            from: a,
            to: b,
            kind: match delay {
                Some(d) => ConnectionKind::After(d),
                None => ConnectionKind::Physical,
            },
        });
        // Deliver first: declaring it before the forwarding reaction keeps a feedback loop through
        // the delay acyclic (the forwarder may depend on what the delivered value causes).
        self.hidden_reaction(
            reactor.ix,
            "deliver",
            Element::Action(act),
            Element::Ports { start: b, len: 1 },
            move |ctx| {
                if let Some(v) = ctx.get(logical) {
                    ctx.set(dst, v.clone());
                }
            },
        );
        if physical {
            let sender = PhysicalSender::<T>::new(self.inbox.clone(), self.prog, act, false);
            self.hidden_reaction(
                reactor.ix,
                "forward",
                Element::Ports { start: a, len: 1 },
                Element::Action(act),
                move |ctx| {
                    if let Some(v) = ctx.get(src) {
                        sender.send_at(v.clone(), ctx.physical_now());
                    }
                },
            );
        } else {
            self.hidden_reaction(
                reactor.ix,
                "forward",
                Element::Ports { start: a, len: 1 },
                Element::Action(act),
                move |ctx| {
                    if let Some(v) = ctx.get(src) {
                        ctx.schedule(logical, v.clone(), Duration::ZERO);
                    }
                },
            );
        }
    }

    fn hidden_reaction(
        &mut self,
        reactor: u32,
        name: &str,
        trigger: Element,
        effect: Element,
        mut f: impl FnMut(&Ctx<'_>) + Send + 'static,
    ) {
        let decl = &mut self.reactors[reactor as usize];
        decl.reactions += 1;
        let number = decl.reactions;
        let name = format!("{}.{}", decl.name, name);
        self.reactions.push(ReactionDecl {
            name,
            reactor,
            number,
            mode: None,
            triggers: alloc::vec![trigger],
            sources: Vec::new(),
            effects: alloc::vec![effect],
            body: Box::new(
                move |_, prog: &Program, cell: &ReactionCell, clock: &dyn Clock| {
                    f(&Ctx::new(prog, cell, clock))
                },
            ),
            deadline: None,
            hidden: true,
        });
    }
}

/// Declares one reaction: its triggers, sources, effects, an optional deadline, then its body.
///
/// ```
/// use motet_reactor_core::{ProgramBuilder, Startup};
/// let mut b = ProgramBuilder::new();
/// let r = b.reactor("counter", 0u32);
/// let out = b.output::<u32, _>(r, "out");
/// b.reaction(r, "emit").trigger(Startup).effect(out).body(move |n, ctx| {
///     *n += 1;
///     ctx.set(out, *n);
/// });
/// let program = b.build().unwrap();
/// assert_eq!(program.graph().reactions.len(), 1);
/// ```
#[must_use = "a reaction is declared only when its body is given"]
pub struct ReactionBuilder<'b, S> {
    b: &'b mut ProgramBuilder,
    name: String,
    reactor: u32,
    mode: Option<u32>,
    triggers: Vec<Element>,
    sources: Vec<Element>,
    effects: Vec<Element>,
    deadline: Option<(u64, Body)>,
    foreign: bool,
    _s: PhantomData<fn() -> S>,
}

impl<S: 'static> ReactionBuilder<'_, S> {
    fn element(&mut self, x: &dyn Declare) -> Option<Element> {
        let (prog, el) = x.element();
        if prog.is_some_and(|p| p != self.b.prog) {
            self.foreign = true;
            return None;
        }
        Some(el)
    }

    /// Adds a trigger: a port, multiport, action, timer, [`Startup`](crate::Startup),
    /// [`Shutdown`](crate::Shutdown) or [`Reset`](crate::Reset). The reaction runs at a tag where at
    /// least one trigger is present.
    pub fn trigger(mut self, x: impl Declare) -> Self {
        if let Some(el) = self.element(&x) {
            self.triggers.push(el);
        }
        self
    }

    /// Adds a source: a port, multiport or action the reaction reads without being triggered by it.
    pub fn source(mut self, x: impl Declare) -> Self {
        if let Some(el) = self.element(&x) {
            self.sources.push(el);
        }
        self
    }

    /// Adds an effect: an output (or a contained reactor's input) it may set, an action it may
    /// schedule, or a mode it may switch to.
    pub fn effect(mut self, x: impl Declare) -> Self {
        if let Some(el) = self.element(&x) {
            self.effects.push(el);
        }
        self
    }

    /// Gives the reaction a deadline: if it starts more than `deadline` of physical time after its
    /// tag's logical time, `handler` runs instead of the body (with the same declarations).
    pub fn deadline(
        mut self,
        deadline: Duration,
        handler: impl FnMut(&mut S, &Ctx<'_>) + Send + 'static,
    ) -> Self {
        self.deadline = Some((nanos(deadline), erase(handler)));
        self
    }

    /// Gives the body and declares the reaction. The body gets the reactor's state and a [`Ctx`]
    /// through which it reads and writes what it declared.
    pub fn body(self, f: impl FnMut(&mut S, &Ctx<'_>) + Send + 'static) -> ReactionId {
        let b = self.b;
        if self.foreign {
            b.errors.push(BuildError::ForeignHandle(format!(
                "an element declared by reaction {}",
                self.name
            )));
        }
        let ix = b.reactions.len() as u32;
        let number = match b.reactors.get_mut(self.reactor as usize) {
            Some(decl) => {
                decl.reactions += 1;
                decl.reactions
            }
            None => 0,
        };
        b.reactions.push(ReactionDecl {
            name: self.name,
            reactor: self.reactor,
            number,
            mode: self.mode,
            triggers: self.triggers,
            sources: self.sources,
            effects: self.effects,
            body: erase(f),
            deadline: self.deadline,
            hidden: false,
        });
        ReactionId { prog: b.prog, ix }
    }
}

fn erase<S: 'static>(mut f: impl FnMut(&mut S, &Ctx<'_>) + Send + 'static) -> Body {
    Box::new(
        move |p: *mut (), prog: &Program, cell: &ReactionCell, clock: &dyn Clock| {
            // SAFETY: the scheduler passes the state of the reaction's own reactor, whose type is
            // `S` (the `ReactorId<S>`/`ModeId<S>` the reaction was declared on), and never runs
            // two reactions of one reactor at once.
            let s = unsafe { &mut *p.cast::<S>() };
            f(s, &Ctx::new(prog, cell, clock))
        },
    )
}
