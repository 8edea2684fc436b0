//! What mutations keep between boundaries ([`Dynamic`]): indices from ports to the reactions that
//! read and write them and to the ports connected from them, who created each reactor, what each
//! created reactor holds, and the errors of rejected mutations.
//!
//! The indices are made at the first mutation of a run (one pass over the program) and kept up to
//! date by each one after; a program that never mutates never makes them.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use crate::cells::SlotDyn;
use crate::error::BuildError;
use crate::graph::Graph;

/// Makes a port's slot: the value cell and whether its values need dropping.
pub(crate) type MakeSlot = fn() -> (Box<dyn SlotDyn>, bool);

/// What a created reactor holds, for deleting it.
#[derive(Default, Debug)]
pub(crate) struct Holdings {
    pub(crate) ports: Vec<u32>,
    pub(crate) reactions: Vec<u32>,
    pub(crate) actions: Vec<u32>,
    pub(crate) timers: Vec<u32>,
    pub(crate) children: Vec<u32>,
    pub(crate) hidden: bool,
}

/// See the module docs.
#[derive(Default)]
pub(crate) struct Dynamic {
    built: bool,
    /// Per port: the reactions that declare it as an effect.
    pub(crate) writers: Vec<Vec<u32>>,
    /// Per port: the reactions that declare it as a trigger or source.
    pub(crate) readers: Vec<Vec<u32>>,
    /// Per port: the ports connected from it (plainly: the ports whose `upstream` it is).
    pub(crate) downstream: Vec<Vec<u32>>,
    /// Per reactor: the reactor whose reaction created it, or `u32::MAX`.
    pub(crate) creator: Vec<u32>,
    /// Per reactor: deleted.
    pub(crate) dead: Vec<bool>,
    /// Per reactor (by index): what a created one holds, until it is deleted.
    holdings: Vec<Option<Box<Holdings>>>,
    /// Per port: how to make its slot again when a deletion leaves it without source (for the
    /// created ports; the program's have their slots from the start).
    pub(crate) makes: Vec<Option<MakeSlot>>,
    /// The errors of rejected mutations.
    pub(crate) errors: Vec<BuildError>,
}

impl Dynamic {
    /// Makes the indices from `g` if this is the run's first mutation.
    pub(crate) fn ensure(&mut self, g: &Graph) {
        if self.built {
            return;
        }
        self.built = true;
        let n = g.ports.len();
        self.writers = vec![Vec::new(); n];
        self.readers = vec![Vec::new(); n];
        self.downstream = vec![Vec::new(); n];
        for (ri, r) in g.reactions.iter().enumerate() {
            for &(start, len) in &r.writes {
                for p in start..start + len {
                    self.writers[p as usize].push(ri as u32);
                }
            }
            for &(start, len) in &r.reads {
                for p in start..start + len {
                    let list = &mut self.readers[p as usize];
                    if list.last() != Some(&(ri as u32)) {
                        list.push(ri as u32);
                    }
                }
            }
        }
        for (p, port) in g.ports.iter().enumerate() {
            if let Some(up) = port.upstream {
                self.downstream[up as usize].push(p as u32);
            }
        }
        self.makes = vec![None; n];
        self.creator = vec![u32::MAX; g.reactors.len()];
        self.dead = vec![false; g.reactors.len()];
    }

    /// Whether reactor `r` was deleted.
    pub(crate) fn is_dead(&self, r: u32) -> bool {
        self.dead.get(r as usize).copied().unwrap_or(false)
    }

    /// What created reactor `r` holds (`None` for the program's reactors and deleted ones).
    pub(crate) fn holding(&self, r: u32) -> Option<&Holdings> {
        self.holdings.get(r as usize).and_then(Option::as_deref)
    }

    /// Takes what created reactor `r` holds, as it is deleted.
    pub(crate) fn take_holding(&mut self, r: u32) -> Option<Holdings> {
        self.holdings
            .get_mut(r as usize)
            .and_then(Option::take)
            .map(|h| *h)
    }

    /// Records what created reactor `r` holds.
    pub(crate) fn put_holding(&mut self, r: u32, h: Holdings) {
        let ix = r as usize;
        if self.holdings.len() <= ix {
            self.holdings.resize_with(ix + 1, || None);
        }
        self.holdings[ix] = Some(Box::new(h));
    }

    /// Port `p` and every port downstream of it (its connection chain from `p` on).
    pub(crate) fn chain_from(&self, p: u32) -> Vec<u32> {
        let mut out = vec![p];
        let mut i = 0;
        while i < out.len() {
            let q = out[i];
            if let Some(down) = self.downstream.get(q as usize) {
                out.extend_from_slice(down);
            }
            i += 1;
        }
        out
    }
}
