//! The builder API: declare reactors, ports, actions, timers, modes and reactions, connect ports,
//! then [`build`](ProgramBuilder::build) a checked [`Program`](crate::Program).
//!
//! Everything is declared on one [`ProgramBuilder`], which hands out typed handles. A reusable
//! reactor "class" is a plain Rust function that declares a reactor with its ports and reactions and
//! returns the handles its users need; a bank is a loop over such a function
//! ([`ProgramBuilder::bank`]). Mistakes that types cannot catch (a connection across levels of the
//! hierarchy that LF would reject, a reaction declaring a port outside its scope, a handle of another
//! program) are collected and reported by `build`, so declaring never fails half-way.
//!
//! This module holds the builder itself and the reactors and modes it declares; the other
//! declarations have a file each: [`elements`] (ports, multiports, timers, actions), [`reaction`]
//! (the [`ReactionBuilder`]) and [`connect`] (connections, with the reactors generated for
//! delayed ones). What they record is in [`decl`], which `assemble` turns into the program.

mod connect;
mod decl;
mod elements;
mod reaction;

use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::marker::PhantomData;

use crate::cells::StateBox;
use crate::error::{BuildError, Warning};
use crate::ids::{next_program_id, ModeId, ReactorId};
use crate::inbox::Inbox;

pub use connect::Connection;
pub(crate) use decl::{
    ActionDecl, Body, ConnectionDecl, HookDecl, ModeDecl, MultiportDecl, PortDecl, ReactionDecl,
    ReactorDecl, ResetHook, TimerDecl,
};
pub use elements::ActionSpec;
pub(crate) use reaction::erase;
pub use reaction::ReactionBuilder;

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

/// Declares a program (see the module docs and the crate example): reactors with their state,
/// ports, actions and timers, reactions with their triggers, sources and effects, and the
/// connections; [`build`](ProgramBuilder::build) checks it (causality cycles, port widths,
/// scopes) and assembles the [`Program`](crate::Program) that a scheduler runs.
///
/// ```
/// use motet_reactor_core::{ProgramBuilder, Startup};
///
/// let mut b = ProgramBuilder::new();
/// let counter = b.reactor("counter", 0u32);
/// let count = b.output::<u32, _>(counter, "count");
/// b.reaction(counter, "start")
///     .trigger(Startup)
///     .effect(count)
///     .body(move |n: &mut u32, ctx| {
///         *n += 1;
///         ctx.set(count, *n);
///     });
/// let printer = b.reactor("printer", ());
/// let seen = b.input::<u32, _>(printer, "seen");
/// b.reaction(printer, "print")
///     .trigger(seen)
///     .body(move |_, ctx| assert_eq!(ctx.get(seen), Some(&1)));
/// b.connect(count, seen);
/// let program = b.build();
/// assert!(program.is_ok());
/// ```
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
    /// While [`ProgramBuilder::bank`] calls its function: the first reactor index of the call and
    /// the bank index it is for.
    pub(crate) bank_scope: Option<(u32, u32)>,
    /// The watchdogs declared: (hidden action, timeout in nanoseconds); see `crate::watchdog`.
    pub(crate) watchdogs: Vec<(u32, u64)>,
    /// The index of the first element of each kind this builder declares: zero for a program,
    /// the running program's counts for a mutation (see `crate::mutation`), whose handles name
    /// elements of the running program. Declarations store these program-wide indices; the
    /// vectors above hold the builder's own declarations from index 0.
    pub(crate) base: Bases,
}

/// See [`ProgramBuilder::base`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Bases {
    pub(crate) reactors: u32,
    pub(crate) ports: u32,
    pub(crate) multiports: u32,
    pub(crate) actions: u32,
    pub(crate) timers: u32,
    pub(crate) modes: u32,
    pub(crate) reactions: u32,
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
            ..ProgramBuilder::empty()
        }
    }

    /// The fields of an empty builder, with no program id yet.
    fn empty() -> ProgramBuilder {
        ProgramBuilder {
            prog: 0,
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
            bank_scope: None,
            watchdogs: Vec::new(),
            base: Bases::default(),
        }
    }

    /// A builder of a mutation of the running program `prog`: its handles name elements of that
    /// program, numbered from `base`.
    pub(crate) fn extending(prog: u32, inbox: Arc<Inbox>, base: Bases) -> ProgramBuilder {
        ProgramBuilder {
            prog,
            inbox,
            base,
            ..ProgramBuilder::empty()
        }
    }

    /// The position in `reactors` of reactor `ix` (a program-wide index), if this builder
    /// declared it.
    pub(crate) fn local_reactor(&self, ix: u32) -> Option<usize> {
        ix.checked_sub(self.base.reactors)
            .map(|i| i as usize)
            .filter(|&i| i < self.reactors.len())
    }

    /// The position in `ports` of port `ix` (as `local_reactor`); every port a builder method
    /// looks up by handle was declared by this builder (a mutation connects to the running
    /// program's ports through its own methods).
    pub(crate) fn local_port(&self, ix: u32) -> usize {
        ix.wrapping_sub(self.base.ports) as usize
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
        let full = match parent.and_then(|p| self.local_reactor(p)) {
            Some(p) => dotted(&self.reactors[p].name, name),
            None => name.into(),
        };
        let ix = self.base.reactors + self.reactors.len() as u32;
        // A member of the bank being declared: declared by its function, not inside a reactor
        // that function declared.
        let bank_index = match self.bank_scope {
            Some((first, i)) if parent.is_none_or(|p| p < first) => i,
            _ => 0,
        };
        self.reactors.push(ReactorDecl {
            name: full,
            parent,
            mode,
            hidden,
            state: StateBox::new(state),
            modes: Vec::new(),
            reactions: 0,
            bank_index,
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
    /// `bank_index`. The reactors `f` declares directly (not inside another reactor it declared)
    /// are the members of the bank at `index`: their reactions read it with
    /// [`Ctx::bank_index`](crate::Ctx::bank_index). Banks nest: inside an inner bank's function,
    /// the inner index applies.
    ///
    /// ```
    /// use motet_reactor_core::{ProgramBuilder, Startup};
    /// let mut b = ProgramBuilder::new();
    /// b.bank(3, |b, i| {
    ///     let w = b.reactor(&format!("w[{i}]"), 0usize);
    ///     b.reaction(w, "id").trigger(Startup).body(|id, ctx| *id = ctx.bank_index());
    /// });
    /// # let _ = b.build().unwrap();
    /// ```
    pub fn bank<X>(&mut self, width: usize, mut f: impl FnMut(&mut Self, usize) -> X) -> Vec<X> {
        (0..width)
            .map(|i| {
                let first = self.base.reactors + self.reactors.len() as u32;
                let outer = self.bank_scope.replace((first, i as u32));
                let x = f(self, i);
                self.bank_scope = outer;
                x
            })
            .collect()
    }

    /// Declares a mode of `reactor`; the first mode declared is the initial one.
    pub fn mode<S>(&mut self, reactor: ReactorId<S>, name: &str) -> ModeId<S> {
        self.check(reactor.prog, name);
        let ix = self.base.modes + self.modes.len() as u32;
        let r = reactor
            .ix
            .min((self.base.reactors as usize + self.reactors.len()).saturating_sub(1) as u32);
        let full = match self.local_reactor(r).map(|l| &self.reactors[l]) {
            Some(decl) => dotted(&decl.name, name),
            None => name.into(),
        };
        self.modes.push(ModeDecl {
            name: full,
            reactor: r,
        });
        if let Some(decl) = self.local_reactor(r).map(|l| &mut self.reactors[l]) {
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

    /// The full name of `name` declared in `scope`: its reactor's name, a dot, then `name`.
    fn scoped_name<S>(&self, scope: &Scope<S>, name: &str) -> String {
        match self.local_reactor(scope.reactor).map(|l| &self.reactors[l]) {
            Some(r) if scope.prog == self.prog => dotted(&r.name, name),
            _ => name.into(),
        }
    }
}

/// `outer.inner`: an element's full name from its reactor's (built without the formatting
/// machinery, as a mutation names every element it creates).
pub(crate) fn dotted(outer: &str, inner: &str) -> String {
    let mut full = String::with_capacity(outer.len() + 1 + inner.len());
    full.push_str(outer);
    full.push('.');
    full.push_str(inner);
    full
}

/// `name[i]`: the full name of a channel of a multiport or of a bank's member.
pub(crate) fn indexed(name: &str, i: u32) -> String {
    // Integers convert without the formatting machinery.
    let digits = i.to_string();
    let mut full = String::with_capacity(name.len() + digits.len() + 2);
    full.push_str(name);
    full.push('[');
    full.push_str(&digits);
    full.push(']');
    full
}
