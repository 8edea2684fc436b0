//! Declaring reactions: [`ProgramBuilder::reaction`] starts a [`ReactionBuilder`], which collects
//! the reaction's triggers, sources, effects and deadline, and declares it when it is given its
//! body. The body is stored with the reactor state's type erased ([`Body`]); the generated
//! reactions of delayed connections are declared here too.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::marker::PhantomData;
use core::time::Duration;

use super::decl::{Body, ReactionDecl};
use super::{ProgramBuilder, Scope};
use crate::ctx::Ctx;
use crate::error::BuildError;
use crate::ids::{Declare, Element, ReactionId};
use crate::program::{Clock, Program, ReactionCell};
use crate::time::nanos;

impl ProgramBuilder {
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
            .min((self.base.reactors as usize + self.reactors.len()).saturating_sub(1) as u32);
        ReactionBuilder {
            name: self.scoped_name(&scope, name),
            reactor,
            mode: scope.mode,
            triggers: Vec::new(),
            sources: Vec::new(),
            effects: Vec::new(),
            deadline: None,
            foreign: false,
            mutates: false,
            b: self,
            _s: PhantomData,
        }
    }

    /// Declares a reaction the runtime generates (see `connect`): triggered by `trigger`, with
    /// the one effect `effect`, and a body that needs no reactor state.
    pub(super) fn hidden_reaction(
        &mut self,
        reactor: u32,
        name: &str,
        trigger: Element,
        effect: Element,
        mut f: impl FnMut(&Ctx<'_>) + Send + 'static,
    ) {
        let Some(local) = self.local_reactor(reactor) else {
            return;
        };
        let decl = &mut self.reactors[local];
        decl.reactions += 1;
        let number = decl.reactions;
        let name = super::dotted(&decl.name, name);
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
            mutates: false,
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
    mutates: bool,
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

    /// Declares that the reaction may request mutations ([`Ctx::mutate`]): reactors created and
    /// deleted at the next tag boundary (see the `mutation` module of the crate docs). A reaction
    /// that requests one without this declaration faults, as for any undeclared access.
    pub fn mutates(mut self) -> Self {
        self.mutates = true;
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
        let ix = b.base.reactions + b.reactions.len() as u32;
        let number = match b.local_reactor(self.reactor).map(|l| &mut b.reactors[l]) {
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
            mutates: self.mutates,
        });
        ReactionId { prog: b.prog, ix }
    }
}

pub(crate) fn erase<S: 'static>(mut f: impl FnMut(&mut S, &Ctx<'_>) + Send + 'static) -> Body {
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
