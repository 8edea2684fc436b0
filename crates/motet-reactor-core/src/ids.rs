//! Typed handles to the elements of a program: reactors, ports, multiports, actions, timers, modes.
//!
//! Handles are small `Copy` values returned by the [`ProgramBuilder`](crate::ProgramBuilder). They are
//! what reaction bodies capture to name what they read and write, and what connections join. The value
//! type of a port or action is part of its handle's type, so connecting ports of different types, or
//! setting a port with a value of the wrong type, does not compile. Each handle also carries the id of
//! the program that made it, so a handle from another program is rejected (at build or when used)
//! instead of reaching the wrong slot.

use core::fmt;
use core::marker::PhantomData;
use core::sync::atomic::{AtomicU32, Ordering};

/// Ids of programs under construction, so that handles of one program are never used in another.
static NEXT_PROGRAM: AtomicU32 = AtomicU32::new(1);

/// A fresh program id. Ids are never reused: the engine's unchecked look-ups rely on a program
/// id naming one program's tables, so the counter stops (and this panics) instead of wrapping.
pub(crate) fn next_program_id() -> u32 {
    NEXT_PROGRAM
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1))
        .expect("more than 4,294,967,294 programs built in one process")
}

macro_rules! copy_handle {
    ($name:ident) => {
        impl<T> Clone for $name<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<T> {}
        impl<T> PartialEq for $name<T> {
            fn eq(&self, other: &Self) -> bool {
                self.prog == other.prog && self.ix == other.ix
            }
        }
        impl<T> Eq for $name<T> {}
        impl<T> fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "#{}"), self.ix)
            }
        }
    };
}

/// A reactor whose state has type `S`.
pub struct ReactorId<S> {
    pub(crate) prog: u32,
    pub(crate) ix: u32,
    pub(crate) _s: PhantomData<fn() -> S>,
}
copy_handle!(ReactorId);

impl<S> ReactorId<S> {
    /// The reactor's index in its program (declaration order).
    pub fn index(self) -> usize {
        self.ix as usize
    }
}

/// A mode of a modal reactor whose state has type `S`. Reactions, timers, actions and contained
/// reactors declared in a mode are active only while the mode is.
pub struct ModeId<S> {
    pub(crate) prog: u32,
    pub(crate) ix: u32,
    pub(crate) reactor: u32,
    pub(crate) _s: PhantomData<fn() -> S>,
}
copy_handle!(ModeId);

/// Declares a handle to an element that carries values of type `T`: the program's id and the
/// element's index, `Copy` whatever `T` is, made with `at(prog, ix)`.
macro_rules! value_handle {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        pub struct $name<T> {
            pub(crate) prog: u32,
            pub(crate) ix: u32,
            pub(crate) _t: PhantomData<fn() -> T>,
        }
        copy_handle!($name);

        impl<T> $name<T> {
            /// The handle of element `ix` of program `prog`.
            pub(crate) fn at(prog: u32, ix: u32) -> Self {
                $name {
                    prog,
                    ix,
                    _t: PhantomData,
                }
            }

            /// The element's index in its program (declaration order among its kind: the
            /// index into [`Graph::ports`](crate::graph::Graph::ports) for a port, into
            /// [`Graph::actions`](crate::graph::Graph::actions) for an action).
            pub fn index(self) -> usize {
                self.ix as usize
            }
        }
    };
}

/// Declares a multiport handle whose channels are `$channel` handles: the multiport's index, its
/// first channel's port index and its width, with `width`, `channel` and `channels`.
macro_rules! multiport_handle {
    ($(#[$doc:meta])* $name:ident of $channel:ident) => {
        $(#[$doc])*
        pub struct $name<T> {
            pub(crate) prog: u32,
            pub(crate) ix: u32,
            pub(crate) base: u32,
            pub(crate) width: u32,
            pub(crate) _t: PhantomData<fn() -> T>,
        }
        copy_handle!($name);

        impl<T> $name<T> {
            /// The handle of multiport `ix` of program `prog`, whose channels are the ports
            /// `base..base + width`.
            pub(crate) fn at(prog: u32, ix: u32, base: u32, width: u32) -> Self {
                $name {
                    prog,
                    ix,
                    base,
                    width,
                    _t: PhantomData,
                }
            }

            /// The number of channels.
            pub fn width(self) -> usize {
                self.width as usize
            }

            /// Channel `i` as a port.
            ///
            /// # Panics
            /// If `i` is not below the width.
            pub fn channel(self, i: usize) -> $channel<T> {
                assert!(
                    i < self.width as usize,
                    "channel {i} of a multiport of width {}",
                    self.width
                );
                $channel::at(self.prog, self.base + i as u32)
            }

            /// The channels, in order.
            pub fn channels(self) -> impl Iterator<Item = $channel<T>> {
                (0..self.width as usize).map(move |i| self.channel(i))
            }
        }
    };
}

value_handle!(
    /// An input port carrying values of type `T`.
    Input
);

value_handle!(
    /// An output port carrying values of type `T`.
    Output
);

multiport_handle!(
    /// A multiport of `width` input channels, each an [`Input<T>`].
    InputMultiport of Input
);

multiport_handle!(
    /// A multiport of `width` output channels, each an [`Output<T>`].
    OutputMultiport of Output
);

value_handle!(
    /// A logical action carrying values of type `T` (use `()` for none): scheduled by reactions
    /// with a delay relative to the current tag.
    LogicalAction
);

value_handle!(
    /// A physical action carrying values of type `T`: scheduled from any thread (through a
    /// [`PhysicalSender`](crate::PhysicalSender)) or from a reaction, tagged from the physical
    /// clock.
    PhysicalAction
);

/// A timer: fires at start + offset, then every period (if the period is not zero).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Timer {
    pub(crate) prog: u32,
    pub(crate) ix: u32,
}

/// A reaction, as returned by [`ReactionBuilder::body`](crate::ReactionBuilder::body).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ReactionId {
    pub(crate) prog: u32,
    pub(crate) ix: u32,
}

impl ReactionId {
    /// The reaction's index in its program (declaration order).
    pub fn index(self) -> usize {
        self.ix as usize
    }
}

/// The startup trigger: present at the start tag (T0, 0).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Startup;

/// The shutdown trigger: present at the last tag of the run, exactly once.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Shutdown;

/// The reset trigger of a mode: present when the mode (or the mode containing the reactor) is
/// entered by a reset transition.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Reset;

/// What a reaction can name as a trigger, source or effect, without its value type (internal).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[doc(hidden)]
pub enum Element {
    /// Ports `start..start + len` (one port, or the channels of a multiport).
    Ports {
        start: u32,
        len: u32,
    },
    Action(u32),
    Timer(u32),
    Startup,
    Shutdown,
    Reset,
    Mode(u32),
}

/// Anything a reaction can declare: ports, multiports, actions, timers, startup, shutdown, reset,
/// modes. Which role (trigger, source, effect) is allowed for which element is checked when the
/// program is built.
pub trait Declare: sealed::Sealed {
    #[doc(hidden)]
    fn element(&self) -> (Option<u32>, Element);
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

macro_rules! declare {
    ($ty:ident<T>, |$h:ident| $e:expr) => {
        impl<T> sealed::Sealed for $ty<T> {}
        impl<T> Declare for $ty<T> {
            fn element(&self) -> (Option<u32>, Element) {
                let $h = self;
                (Some($h.prog), $e)
            }
        }
    };
}

impl sealed::Sealed for Timer {}
impl Declare for Timer {
    fn element(&self) -> (Option<u32>, Element) {
        (Some(self.prog), Element::Timer(self.ix))
    }
}

macro_rules! declare_unit {
    ($ty:ident, $el:ident) => {
        impl sealed::Sealed for $ty {}
        impl Declare for $ty {
            fn element(&self) -> (Option<u32>, Element) {
                (None, Element::$el)
            }
        }
    };
}
declare_unit!(Startup, Startup);
declare_unit!(Shutdown, Shutdown);
declare_unit!(Reset, Reset);

/// A single port that reactions read or write by value: an [`Input`] or an [`Output`].
pub trait Port<T>: Copy + sealed::Sealed {
    #[doc(hidden)]
    fn port(&self) -> (u32, u32);
}

/// A multiport, input or output: what sparse iteration over present channels works on.
pub trait Multiport<T>: Copy + sealed::Sealed {
    #[doc(hidden)]
    fn multiport(&self) -> (u32, u32, u32, u32);
}

/// An action, logical or physical: what reactions schedule and read.
pub trait Action<T>: Copy + sealed::Sealed {
    #[doc(hidden)]
    fn action(&self) -> (u32, u32);
}

/// What [`Ctx::is_present`](crate::Ctx::is_present) asks about: any trigger.
pub trait Presence: Declare {}
impl Presence for Timer {}
impl Presence for Startup {}
impl Presence for Shutdown {}
impl Presence for Reset {}

/// What [`Ctx::get`](crate::Ctx::get) reads: a port (input of the reactor, output of a contained
/// reactor) or an action.
pub trait Readable<T>: Copy + sealed::Sealed {
    #[doc(hidden)]
    fn readable(&self) -> (u32, ReadRef);
}

#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum ReadRef {
    Port(u32),
    Action(u32),
}

/// The traits of a handle to one port: declared as that port, tested for presence, read and set
/// as a [`Port`].
macro_rules! port_traits {
    ($ty:ident) => {
        declare!($ty<T>, |h| Element::Ports {
            start: h.ix,
            len: 1
        });
        impl<T> Presence for $ty<T> {}
        impl<T> Port<T> for $ty<T> {
            fn port(&self) -> (u32, u32) {
                (self.prog, self.ix)
            }
        }
        impl<T> Readable<T> for $ty<T> {
            fn readable(&self) -> (u32, ReadRef) {
                (self.prog, ReadRef::Port(self.ix))
            }
        }
    };
}

/// The traits of a handle to an action: declared as that action, tested for presence, read, and
/// scheduled as an [`Action`].
macro_rules! action_traits {
    ($ty:ident) => {
        declare!($ty<T>, |h| Element::Action(h.ix));
        impl<T> Presence for $ty<T> {}
        impl<T> Action<T> for $ty<T> {
            fn action(&self) -> (u32, u32) {
                (self.prog, self.ix)
            }
        }
        impl<T> Readable<T> for $ty<T> {
            fn readable(&self) -> (u32, ReadRef) {
                (self.prog, ReadRef::Action(self.ix))
            }
        }
    };
}

/// The traits of a multiport handle: declared as all its channels, iterated as a [`Multiport`].
macro_rules! multiport_traits {
    ($ty:ident) => {
        declare!($ty<T>, |h| Element::Ports {
            start: h.base,
            len: h.width
        });
        impl<T> Multiport<T> for $ty<T> {
            fn multiport(&self) -> (u32, u32, u32, u32) {
                (self.prog, self.ix, self.base, self.width)
            }
        }
    };
}

port_traits!(Input);
port_traits!(Output);
multiport_traits!(InputMultiport);
multiport_traits!(OutputMultiport);
action_traits!(LogicalAction);
action_traits!(PhysicalAction);
declare!(ModeId<T>, |h| Element::Mode(h.ix));
