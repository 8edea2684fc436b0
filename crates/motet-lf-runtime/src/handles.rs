//! The handles a reaction body receives for what it declared, under reactor-rs's names: [`Port`],
//! [`Multiport`], [`Timer`], [`LogicalAction`], [`PhysicalActionRef`]. Each wraps motet handles;
//! [`Declarable`] declares one on a reaction as a trigger, source or effect, and [`Trigger`] reads
//! it through a motet [`Ctx`]. Actions carry `Option<T>`, since LF schedules actions without a
//! value too.

use std::ops::{Index, IndexMut};

use crate::ctx::{with_current, ShadowValue, Shared};
use std::time::Duration;

use motet_reactor::{
    ActionSpec, Ctx, Input, InputMultiport, Output, OutputMultiport, PhysicalAction,
    PhysicalSender, ProgramBuilder, ReactionBuilder, ReactorId, SpacingPolicy,
};

/// How a reaction declares an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Triggers the reaction.
    Trigger,
    /// Read without triggering.
    Source,
    /// Set or scheduled.
    Effect,
}

/// An element a reaction can declare.
pub trait Declarable {
    /// Declares `self` on `rb` in `role`.
    fn declare<'b, S: 'static>(
        &self,
        rb: ReactionBuilder<'b, S>,
        role: Role,
    ) -> ReactionBuilder<'b, S>;
}

fn declare_one<'b, S: 'static>(
    rb: ReactionBuilder<'b, S>,
    role: Role,
    x: impl motet_reactor::Declare,
) -> ReactionBuilder<'b, S> {
    match role {
        Role::Trigger => rb.trigger(x),
        Role::Source => rb.source(x),
        Role::Effect => rb.effect(x),
    }
}

/// An element whose presence and value a body reads (`ctx.get`, `ctx.is_present`).
pub trait Trigger<T> {
    /// The value present at the current tag, if any.
    fn value<'c>(&self, ctx: &'c Ctx<'_>) -> Option<&'c T>;
    /// Whether the element is present at the current tag.
    fn present(&self, ctx: &Ctx<'_>) -> bool;
    /// A copy of the value present at the current tag, if any.
    fn copied(&self, ctx: &Ctx<'_>, _shared: &Shared) -> Option<T>
    where
        T: Copy,
    {
        self.value(ctx).copied()
    }
}

/// Startup and shutdown as declarations.
impl Declarable for motet_reactor::Startup {
    fn declare<'b, S: 'static>(
        &self,
        rb: ReactionBuilder<'b, S>,
        role: Role,
    ) -> ReactionBuilder<'b, S> {
        declare_one(rb, role, motet_reactor::Startup)
    }
}

impl Declarable for motet_reactor::Shutdown {
    fn declare<'b, S: 'static>(
        &self,
        rb: ReactionBuilder<'b, S>,
        role: Role,
    ) -> ReactionBuilder<'b, S> {
        declare_one(rb, role, motet_reactor::Shutdown)
    }
}

/// A port: an input or output of a reactor (its own, or a contained reactor's).
pub struct Port<T> {
    h: PortHandle<T>,
    /// For a shadowed port ([`Port::shadowed`]): boxes a copy of what is set.
    shadow: Option<fn(&T) -> ShadowValue>,
}

fn copy_box<T: Copy + Send + 'static>(v: &T) -> ShadowValue {
    Box::new(*v)
}

enum PortHandle<T> {
    In(Input<T>),
    Out(Output<T>),
}

impl<T> Clone for Port<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Port<T> {}
impl<T> Clone for PortHandle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for PortHandle<T> {}

impl<T: Send + Sync + 'static> Port<T> {
    /// Wraps an input.
    pub fn input(p: Input<T>) -> Port<T> {
        Port {
            h: PortHandle::In(p),
            shadow: None,
        }
    }

    /// Wraps an output.
    pub fn output(p: Output<T>) -> Port<T> {
        Port {
            h: PortHandle::Out(p),
            shadow: None,
        }
    }

    /// The port as a one-element list of channels (see [`Multiport::channels`]).
    pub fn channels(&self) -> Vec<Port<T>> {
        vec![*self]
    }

    /// The port as a connection list.
    pub fn ports(&self) -> motet_reactor::Ports<T> {
        match self.h {
            PortHandle::In(p) => p.into(),
            PortHandle::Out(p) => p.into(),
        }
    }

    /// The handle a reaction gets for a port it only sets, where other reactions of its reactor
    /// set it too: what it sets is also kept aside, so that a reaction that sets the port after
    /// another at the same tag reads that value back with `ctx.get` (LF allows it; motet lets no
    /// reaction read a port it writes).
    pub fn shadowed(mut self) -> Port<T>
    where
        T: Copy,
    {
        self.shadow = Some(copy_box::<T>);
        self
    }

    #[inline]
    fn index(&self) -> usize {
        match self.h {
            PortHandle::In(p) => p.index(),
            PortHandle::Out(p) => p.index(),
        }
    }

    #[inline(always)]
    pub(crate) fn set(&self, ctx: &Ctx<'_>, shared: &Shared, v: T) {
        if let Some(copy) = self.shadow {
            shared.shadow_set(self.index(), ctx.tag(), copy(&v));
        }
        match self.h {
            PortHandle::In(p) => ctx.set(p, v),
            PortHandle::Out(p) => ctx.set(p, v),
        }
    }
}

impl<T: Send + Sync + 'static> Declarable for Port<T> {
    fn declare<'b, S: 'static>(
        &self,
        rb: ReactionBuilder<'b, S>,
        role: Role,
    ) -> ReactionBuilder<'b, S> {
        match self.h {
            PortHandle::In(p) => declare_one(rb, role, p),
            PortHandle::Out(p) => declare_one(rb, role, p),
        }
    }
}

impl<T: Send + Sync + 'static> Trigger<T> for Port<T> {
    #[inline]
    fn value<'c>(&self, ctx: &'c Ctx<'_>) -> Option<&'c T> {
        match self.h {
            PortHandle::In(p) => ctx.get(p),
            PortHandle::Out(p) => ctx.get(p),
        }
    }
    #[inline]
    fn copied(&self, ctx: &Ctx<'_>, shared: &Shared) -> Option<T>
    where
        T: Copy,
    {
        if self.shadow.is_some() {
            return shared.shadow_get(self.index(), ctx.tag());
        }
        self.value(ctx).copied()
    }
    #[inline]
    fn present(&self, ctx: &Ctx<'_>) -> bool {
        match self.h {
            PortHandle::In(p) => ctx.is_present(p),
            PortHandle::Out(p) => ctx.is_present(p),
        }
    }
}

/// A list of ports: a multiport, or the same port of every reactor of a bank, in order.
pub struct Multiport<T> {
    ports: Vec<Port<T>>,
}

impl<T> Clone for Multiport<T> {
    fn clone(&self) -> Self {
        Multiport {
            ports: self.ports.clone(),
        }
    }
}

impl<T: Send + Sync + 'static> Multiport<T> {
    /// The channels of an input multiport.
    pub fn inputs(m: InputMultiport<T>) -> Multiport<T> {
        Multiport {
            ports: m.channels().map(Port::input).collect(),
        }
    }

    /// The channels of an output multiport.
    pub fn outputs(m: OutputMultiport<T>) -> Multiport<T> {
        Multiport {
            ports: m.channels().map(Port::output).collect(),
        }
    }

    /// A multiport of the given channels.
    pub fn from_ports(ports: Vec<Port<T>>) -> Multiport<T> {
        Multiport { ports }
    }

    /// The channels.
    pub fn channels(&self) -> Vec<Port<T>> {
        self.ports.clone()
    }

    /// The number of channels.
    pub fn len(&self) -> usize {
        self.ports.len()
    }

    /// Whether there are no channels.
    pub fn is_empty(&self) -> bool {
        self.ports.is_empty()
    }

    /// The channels, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Port<T>> {
        self.ports.iter()
    }

    /// The channels, in order, for setting.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Port<T>> {
        self.ports.iter_mut()
    }

    /// The channels present at the current tag, with their indices (inside a reaction body).
    pub fn enumerate_set(&self) -> std::vec::IntoIter<(usize, &Port<T>)> {
        with_current(|ctx| match ctx {
            Some(ctx) => self
                .ports
                .iter()
                .enumerate()
                .filter(|(_, p)| p.present(ctx))
                .collect(),
            None => Vec::new(),
        })
        .into_iter()
    }

    /// The channels present at the current tag (inside a reaction body).
    pub fn iterate_set(&self) -> std::vec::IntoIter<&Port<T>> {
        self.enumerate_set()
            .map(|(_, p)| p)
            .collect::<Vec<_>>()
            .into_iter()
    }

    /// The values present at the current tag, with their channel indices (inside a reaction body).
    pub fn enumerate_values(&self) -> std::vec::IntoIter<(usize, T)>
    where
        T: Copy,
    {
        with_current(|ctx| match ctx {
            Some(ctx) => self
                .ports
                .iter()
                .enumerate()
                .filter_map(|(i, p)| p.value(ctx).map(|v| (i, *v)))
                .collect(),
            None => Vec::new(),
        })
        .into_iter()
    }

    /// The values present at the current tag (inside a reaction body).
    pub fn iterate_values(&self) -> std::vec::IntoIter<T>
    where
        T: Copy,
    {
        self.enumerate_values()
            .map(|(_, v)| v)
            .collect::<Vec<_>>()
            .into_iter()
    }

    /// References to the values present at the current tag, with their channel indices (inside
    /// a reaction body).
    pub fn enumerate_values_ref(&self) -> std::vec::IntoIter<(usize, &T)> {
        with_current(|ctx| match ctx {
            Some(ctx) => self
                .ports
                .iter()
                .enumerate()
                .filter_map(|(i, p)| {
                    p.value(ctx).map(|v| {
                        // `v` points into the slot of a port this reaction declared; the slot
                        // holds that value, unchanged, until the reaction completes (its writers
                        // ran before it, and values are cleared between tags only). The returned
                        // lifetime is that of the borrow of the multiport, which a body receives
                        // as a parameter of its call: it cannot keep the reference past its
                        // return, when the reaction completes.
                        // SAFETY: the slot outlives the reference, as said above.
                        let value = unsafe { &*(v as *const T) };
                        (i, value)
                    })
                })
                .collect(),
            None => Vec::new(),
        })
        .into_iter()
    }

    /// References to the values present at the current tag (inside a reaction body).
    pub fn iterate_values_ref(&self) -> std::vec::IntoIter<&T> {
        self.enumerate_values_ref()
            .map(|(_, v)| v)
            .collect::<Vec<_>>()
            .into_iter()
    }

    /// Clones of the values present at the current tag (inside a reaction body).
    pub fn iterate_values_cloned(&self) -> std::vec::IntoIter<T>
    where
        T: Clone,
    {
        with_current(|ctx| match ctx {
            Some(ctx) => self
                .ports
                .iter()
                .filter_map(|p| p.value(ctx).cloned())
                .collect(),
            None => Vec::new(),
        })
        .into_iter()
    }
}

impl<T: Send + Sync + 'static> Declarable for Multiport<T> {
    fn declare<'b, S: 'static>(
        &self,
        mut rb: ReactionBuilder<'b, S>,
        role: Role,
    ) -> ReactionBuilder<'b, S> {
        for p in &self.ports {
            rb = p.declare(rb, role);
        }
        rb
    }
}

impl<T> Index<usize> for Multiport<T> {
    type Output = Port<T>;
    fn index(&self, i: usize) -> &Port<T> {
        &self.ports[i]
    }
}

impl<T> IndexMut<usize> for Multiport<T> {
    fn index_mut(&mut self, i: usize) -> &mut Port<T> {
        &mut self.ports[i]
    }
}

impl<'a, T> IntoIterator for &'a Multiport<T> {
    type Item = &'a Port<T>;
    type IntoIter = std::slice::Iter<'a, Port<T>>;
    fn into_iter(self) -> Self::IntoIter {
        self.ports.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut Multiport<T> {
    type Item = &'a mut Port<T>;
    type IntoIter = std::slice::IterMut<'a, Port<T>>;
    fn into_iter(self) -> Self::IntoIter {
        self.ports.iter_mut()
    }
}

/// A timer.
#[derive(Clone, Copy, Debug)]
pub struct Timer(pub motet_reactor::Timer);

impl Declarable for Timer {
    fn declare<'b, S: 'static>(
        &self,
        rb: ReactionBuilder<'b, S>,
        role: Role,
    ) -> ReactionBuilder<'b, S> {
        declare_one(rb, role, self.0)
    }
}

impl Trigger<()> for Timer {
    fn value<'c>(&self, ctx: &'c Ctx<'_>) -> Option<&'c ()> {
        ctx.is_present(self.0).then_some(&())
    }
    #[inline]
    fn present(&self, ctx: &Ctx<'_>) -> bool {
        ctx.is_present(self.0)
    }
}

/// Parses LF's spacing policy names (`"defer"`, `"drop"`, `"replace"`).
pub fn spacing_policy(name: &str) -> SpacingPolicy {
    match name {
        "drop" => SpacingPolicy::Drop,
        "replace" => SpacingPolicy::Replace,
        _ => SpacingPolicy::Defer,
    }
}

/// A logical action with values of type `T`.
pub struct LogicalAction<T> {
    pub(crate) h: motet_reactor::LogicalAction<Option<T>>,
}

impl<T> Clone for LogicalAction<T> {
    fn clone(&self) -> Self {
        LogicalAction { h: self.h }
    }
}

impl<T: Send + Sync + 'static> LogicalAction<T> {
    /// Declares a logical action of `reactor`.
    pub fn declare<S: 'static>(
        b: &mut ProgramBuilder,
        reactor: ReactorId<S>,
        name: &str,
        min_delay: Duration,
        spacing: Option<(Duration, SpacingPolicy)>,
    ) -> LogicalAction<T> {
        let mut spec = ActionSpec::delay(min_delay);
        if let Some((d, p)) = spacing {
            spec = spec.spacing(d, p);
        }
        LogicalAction {
            h: b.logical_action_with::<Option<T>, S>(reactor, name, spec),
        }
    }
}

impl<T: Send + Sync + 'static> Declarable for LogicalAction<T> {
    fn declare<'b, S: 'static>(
        &self,
        rb: ReactionBuilder<'b, S>,
        role: Role,
    ) -> ReactionBuilder<'b, S> {
        declare_one(rb, role, self.h)
    }
}

impl<T: Send + Sync + 'static> Trigger<T> for LogicalAction<T> {
    #[inline]
    fn value<'c>(&self, ctx: &'c Ctx<'_>) -> Option<&'c T> {
        ctx.get(self.h).and_then(Option::as_ref)
    }
    #[inline]
    fn present(&self, ctx: &Ctx<'_>) -> bool {
        ctx.is_present(self.h)
    }
}

/// A physical action with values of type `T`. Clones may be sent to other threads, which schedule
/// it through an [`AsyncCtx`](crate::AsyncCtx).
pub struct PhysicalActionRef<T> {
    pub(crate) h: PhysicalAction<Option<T>>,
    pub(crate) sender: PhysicalSender<Option<T>>,
}

impl<T> Clone for PhysicalActionRef<T> {
    fn clone(&self) -> Self {
        PhysicalActionRef {
            h: self.h,
            sender: self.sender.clone(),
        }
    }
}

impl<T: Send + Sync + 'static> PhysicalActionRef<T> {
    /// Declares a physical action of `reactor`. Its handles do not keep the program alive: the
    /// threads spawned with `spawn_physical_thread` do, while they run.
    pub fn declare<S: 'static>(
        b: &mut ProgramBuilder,
        reactor: ReactorId<S>,
        name: &str,
        min_delay: Duration,
    ) -> PhysicalActionRef<T> {
        let h = b.physical_action::<Option<T>, S>(reactor, name, min_delay);
        let sender = b.sender(h).passive();
        PhysicalActionRef { h, sender }
    }

    /// Sends `value` from any thread, stamped with the physical clock plus `delay`.
    pub(crate) fn send(&self, value: Option<T>, delay: Duration) {
        match motet_reactor::clock::now_ns().checked_add(delay.as_nanos() as u64) {
            Some(at) if !delay.is_zero() => self.sender.send_at(value, at),
            _ => self.sender.send(value),
        }
    }
}

impl<T: Send + Sync + 'static> Declarable for PhysicalActionRef<T> {
    fn declare<'b, S: 'static>(
        &self,
        rb: ReactionBuilder<'b, S>,
        role: Role,
    ) -> ReactionBuilder<'b, S> {
        declare_one(rb, role, self.h)
    }
}

impl<T: Send + Sync + 'static> Trigger<T> for PhysicalActionRef<T> {
    #[inline]
    fn value<'c>(&self, ctx: &'c Ctx<'_>) -> Option<&'c T> {
        ctx.get(self.h).and_then(Option::as_ref)
    }
    #[inline]
    fn present(&self, ctx: &Ctx<'_>) -> bool {
        ctx.is_present(self.h)
    }
}
