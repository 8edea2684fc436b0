//! Declaring what a reactor holds besides its reactions: input and output ports, multiports,
//! timers, and logical and physical actions. Each declaration records a [`decl`](super::decl)
//! entry and returns the element's typed handle.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use core::time::Duration;

use super::decl::{ActionDecl, MultiportDecl, PortDecl, TimerDecl};
use super::{ProgramBuilder, Scope};
use crate::cells::{new_slot, ActionCell, SpacingPolicy};
use crate::error::BuildError;
use crate::graph::PortKind;
use crate::ids::{
    Declare, Element, Input, InputMultiport, LogicalAction, Output, OutputMultiport,
    PhysicalAction, ReactorId, Timer,
};
use crate::inbox::PhysicalSender;
use crate::ring::IrqSender;
use crate::time::nanos;

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

impl ProgramBuilder {
    fn add_port<T: Send + Sync + 'static>(
        &mut self,
        owner: u32,
        name: String,
        kind: PortKind,
        multiport: Option<(u32, u32)>,
    ) -> u32 {
        let ix = self.base.ports + self.ports.len() as u32;
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

    /// The full name of port `name` of `reactor`, or `None` (recording the error) for a reactor
    /// of another program.
    fn port_name<S>(&mut self, reactor: ReactorId<S>, name: &str) -> Option<String> {
        if !self.check(reactor.prog, name) {
            return None;
        }
        let Some(local) = self.local_reactor(reactor.ix) else {
            self.errors.push(BuildError::ForeignHandle(format!(
                "port {name} of a reactor this builder did not declare"
            )));
            return None;
        };
        Some(super::dotted(&self.reactors[local].name, name))
    }

    /// Declares port `name` of `reactor`, of kind `kind`: its index.
    fn named_port<T: Send + Sync + 'static, S>(
        &mut self,
        reactor: ReactorId<S>,
        name: &str,
        kind: PortKind,
    ) -> u32 {
        let full = self.port_name(reactor, name).unwrap_or_default();
        self.add_port::<T>(reactor.ix, full, kind, None)
    }

    /// Declares an input port of `reactor`.
    pub fn input<T: Send + Sync + 'static, S>(
        &mut self,
        reactor: ReactorId<S>,
        name: &str,
    ) -> Input<T> {
        Input::at(
            self.prog,
            self.named_port::<T, S>(reactor, name, PortKind::Input),
        )
    }

    /// Declares an output port of `reactor`.
    pub fn output<T: Send + Sync + 'static, S>(
        &mut self,
        reactor: ReactorId<S>,
        name: &str,
    ) -> Output<T> {
        Output::at(
            self.prog,
            self.named_port::<T, S>(reactor, name, PortKind::Output),
        )
    }

    fn add_multiport<T: Send + Sync + 'static, S>(
        &mut self,
        reactor: ReactorId<S>,
        name: &str,
        width: usize,
        kind: PortKind,
    ) -> (u32, u32, u32) {
        let full = self.port_name(reactor, name).unwrap_or_default();
        let mp = self.base.multiports + self.multiports.len() as u32;
        let base = self.base.ports + self.ports.len() as u32;
        let width = width as u32;
        for c in 0..width {
            self.add_port::<T>(reactor.ix, super::indexed(&full, c), kind, Some((mp, c)));
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
        InputMultiport::at(self.prog, ix, base, width)
    }

    /// Declares an output multiport of `width` channels.
    pub fn output_multiport<T: Send + Sync + 'static, S>(
        &mut self,
        reactor: ReactorId<S>,
        name: &str,
        width: usize,
    ) -> OutputMultiport<T> {
        let (ix, base, width) = self.add_multiport::<T, S>(reactor, name, width, PortKind::Output);
        OutputMultiport::at(self.prog, ix, base, width)
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
                let local = self.local_port(p);
                if let Some(port) = self.ports.get_mut(local) {
                    port.required = true;
                }
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
        let ix = self.base.timers + self.timers.len() as u32;
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

    pub(crate) fn add_action<T: Send + Sync + 'static, S>(
        &mut self,
        scope: Scope<S>,
        name: &str,
        physical: bool,
        spec: ActionSpec,
        hidden: bool,
    ) -> u32 {
        self.check(scope.prog, name);
        let full = self.scoped_name(&scope, name);
        let ix = self.base.actions + self.actions.len() as u32;
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
        LogicalAction::at(self.prog, ix)
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
        PhysicalAction::at(self.prog, ix)
    }

    /// A sender for `action`, usable from any thread; it keeps the program alive while it exists.
    /// Each send allocates: from an interrupt handler use [`ProgramBuilder::irq_sender`].
    pub fn sender<T: Send + Sync + 'static>(&self, action: PhysicalAction<T>) -> PhysicalSender<T> {
        PhysicalSender::new(self.inbox.clone(), action.prog, action.ix, true)
    }

    /// An interrupt-safe sender for `action`, with a ring of `capacity` values (rounded up to a
    /// power of two) reserved now: sending allocates nothing and takes no lock, and a full ring
    /// is a counted fault that fails the run ([`IrqSender`]). It keeps the program alive while
    /// it (or a clone) exists.
    ///
    /// # Panics
    /// If `action` belongs to another program.
    pub fn irq_sender<T: Send + Sync + 'static>(
        &self,
        action: PhysicalAction<T>,
        capacity: usize,
    ) -> IrqSender<T> {
        assert_eq!(
            action.prog, self.prog,
            "a physical action of another program"
        );
        IrqSender::new(self.inbox.clone(), action.prog, action.ix, capacity)
    }
}
