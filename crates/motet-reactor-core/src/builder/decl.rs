//! What the builder records for each declaration, in declaration order: plain records, with
//! indices where they refer to one another, that [`build`](super::ProgramBuilder::build) checks
//! and turns into the program's graph and cells (see `assemble`).

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::ActionSpec;
use crate::cells::{ActionDyn, SlotDyn, StateBox};
use crate::graph::{ConnectionKind, PortKind};
use crate::ids::Element;
use crate::program::{Clock, Program, ReactionCell};

/// A reaction body or deadline handler with the reactor state's type erased. It gets the parts of
/// its [`Ctx`](crate::Ctx) (the program, the reaction's cell, the clock) as arguments, which travel in
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
    /// Its index in the bank that declared it (0 outside a bank).
    pub(crate) bank_index: u32,
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
    /// Declared able to request mutations.
    pub(crate) mutates: bool,
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
