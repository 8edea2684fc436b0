//! Lists of ports for connections, after LF's connection syntax.
//!
//! A connection joins a list of source ports to a list of destination ports, channel by channel: the
//! `n`th port on the left to the `n`th on the right. [`Ports`] builds such lists from single ports,
//! multiports (all channels in order), banks (slices, arrays or vectors of any of these, flattened in
//! order: `a.out, b.out -> c.in, d.in` for cascades), and [`Ports::interleaved`] (LF's
//! `interleaved(...)`: channel 0 of every multiport, then channel 1, ... — how a bank of nodes gets
//! fully connected so that node `i` addresses node `j` on channel `j`). Broadcast (`(x)+`) is a
//! property of the connection ([`ProgramBuilder::connect_broadcast`](crate::ProgramBuilder::connect_broadcast)).
//!
//! The value type is part of the list's type: mixing types, or connecting lists of different types,
//! does not compile.

use alloc::vec::Vec;
use core::marker::PhantomData;

use crate::ids::{Input, InputMultiport, Multiport, Output, OutputMultiport};

/// An ordered list of ports (channels) carrying `T`.
pub struct Ports<T> {
    /// The program of the ports; `None` while empty. `Some(0)` marks a mix of programs.
    pub(crate) prog: Option<u32>,
    pub(crate) ixs: Vec<u32>,
    _t: PhantomData<fn() -> T>,
}

impl<T> Default for Ports<T> {
    fn default() -> Self {
        Ports::new()
    }
}

impl<T> core::fmt::Debug for Ports<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(&self.ixs).finish()
    }
}

impl<T> Ports<T> {
    /// An empty list.
    pub fn new() -> Ports<T> {
        Ports {
            prog: None,
            ixs: Vec::new(),
            _t: PhantomData,
        }
    }

    /// The list followed by `more` (LF's comma: `a.out, b.out`).
    pub fn and(mut self, more: impl Into<Ports<T>>) -> Ports<T> {
        let more = more.into();
        self.prog = match (self.prog, more.prog) {
            (None, p) | (p, None) => p,
            (Some(a), Some(b)) if a == b => Some(a),
            _ => Some(0),
        };
        self.ixs.extend(more.ixs);
        self
    }

    /// Channel `c` of every multiport, for `c` = 0, 1, ... (LF's `interleaved(bank.port)`). With
    /// multiports of different widths, a multiport without channel `c` is skipped.
    pub fn interleaved<M: Multiport<T>>(multiports: impl IntoIterator<Item = M>) -> Ports<T> {
        let mps: Vec<(u32, u32, u32, u32)> =
            multiports.into_iter().map(|m| m.multiport()).collect();
        let max = mps.iter().map(|m| m.3).max().unwrap_or(0);
        let mut out = Ports::new();
        for c in 0..max {
            for &(prog, _, base, width) in &mps {
                if c < width {
                    out = out.and(Ports::one(prog, base + c));
                }
            }
        }
        out
    }

    /// The number of channels.
    pub fn len(&self) -> usize {
        self.ixs.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.ixs.is_empty()
    }

    fn one(prog: u32, ix: u32) -> Ports<T> {
        Ports {
            prog: Some(prog),
            ixs: alloc::vec![ix],
            _t: PhantomData,
        }
    }

    fn range(prog: u32, base: u32, width: u32) -> Ports<T> {
        Ports {
            prog: Some(prog),
            ixs: (base..base + width).collect(),
            _t: PhantomData,
        }
    }
}

impl<T> From<Input<T>> for Ports<T> {
    fn from(p: Input<T>) -> Ports<T> {
        Ports::one(p.prog, p.ix)
    }
}

impl<T> From<Output<T>> for Ports<T> {
    fn from(p: Output<T>) -> Ports<T> {
        Ports::one(p.prog, p.ix)
    }
}

impl<T> From<InputMultiport<T>> for Ports<T> {
    fn from(m: InputMultiport<T>) -> Ports<T> {
        Ports::range(m.prog, m.base, m.width)
    }
}

impl<T> From<OutputMultiport<T>> for Ports<T> {
    fn from(m: OutputMultiport<T>) -> Ports<T> {
        Ports::range(m.prog, m.base, m.width)
    }
}

impl<T, X: Into<Ports<T>>> From<Vec<X>> for Ports<T> {
    fn from(v: Vec<X>) -> Ports<T> {
        v.into_iter().fold(Ports::new(), Ports::and)
    }
}

impl<'a, T, X: Copy + Into<Ports<T>>> From<&'a [X]> for Ports<T> {
    fn from(v: &'a [X]) -> Ports<T> {
        v.iter().copied().fold(Ports::new(), Ports::and)
    }
}

impl<T, X: Into<Ports<T>>, const N: usize> From<[X; N]> for Ports<T> {
    fn from(v: [X; N]) -> Ports<T> {
        v.into_iter().fold(Ports::new(), Ports::and)
    }
}

impl<T, X: Into<Ports<T>>> FromIterator<X> for Ports<T> {
    fn from_iter<I: IntoIterator<Item = X>>(iter: I) -> Ports<T> {
        iter.into_iter().fold(Ports::new(), Ports::and)
    }
}
