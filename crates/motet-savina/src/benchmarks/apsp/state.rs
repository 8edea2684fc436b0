//! A block's state in Savina's protocol, shared by the actors and the floor: the step it has
//! done, its current block, and the neighbours' blocks of the step it waits for.
//!
//! Savina keys the neighbours' blocks by sender only, so that a neighbour one step ahead would
//! overwrite the block the current step still needs (SPEC.md sections 3.25 and 6). Here they are
//! kept by `(step parity, sender)`: a neighbour is never more than one step ahead (its next step
//! needs this block's next result first), so two sets of slots suffice.

use std::ops::Deref;

use super::blocks::step;
use super::{Dist, Layout};

/// The state of block `id`; `P` is how a block is shared (`Arc` between actors, `Rc` on the
/// floor).
pub(super) struct BlockState<P> {
    id: usize,
    layout: Layout,
    /// The last step done (−1: none yet).
    k: i32,
    /// The block after step `k`, shared with the neighbours it was sent to.
    current: P,
    /// The neighbours' blocks of the steps with an even (0) and an odd (1) `k`, by their slot in
    /// [`Layout::neighbours`], and how many have come.
    steps: [(Vec<Option<P>>, usize); 2],
}

impl<P: Clone + Deref<Target = [Dist]> + From<Vec<Dist>>> BlockState<P> {
    /// Block `id` before any step, holding `initial`.
    pub(super) fn new(id: usize, layout: Layout, initial: Vec<Dist>) -> BlockState<P> {
        let neighbours = layout.neighbours(id).len();
        BlockState {
            id,
            layout,
            k: -1,
            current: initial.into(),
            steps: [(vec![None; neighbours], 0), (vec![None; neighbours], 0)],
        }
    }

    /// The last step done (−1: none yet).
    pub(super) fn k(&self) -> i32 {
        self.k
    }

    /// The block after step `k`.
    pub(super) fn current(&self) -> &P {
        &self.current
    }

    /// Files block `from`'s result of step `k`, which must be a neighbour's result of this step or
    /// the next, and new.
    pub(super) fn store(&mut self, k: i32, from: usize, data: P) -> Result<(), String> {
        let ahead = k.wrapping_sub(self.k);
        let neighbour = from < self.layout.blocks() && {
            let ((bi, bj), (fi, fj)) = (self.layout.coords(self.id), self.layout.coords(from));
            (bi == fi) != (bj == fj)
        };
        if !(ahead == 0 || ahead == 1) || !neighbour {
            return Err(format!(
                "block {} at step {}: unexpected result of step {k} from block {from}",
                self.id, self.k
            ));
        }
        let (slots, count) = &mut self.steps[(k & 1) as usize];
        let slot = &mut slots[self.layout.slot(self.id, from)];
        if slot.replace(data).is_some() {
            return Err(format!(
                "block {}: a second result of step {k} from block {from}",
                self.id
            ));
        }
        *count += 1;
        Ok(())
    }

    /// Whether every neighbour's result of step `k` is here and a step is left to do.
    pub(super) fn ready(&self) -> bool {
        let (slots, count) = &self.steps[(self.k & 1) as usize];
        self.k < self.last() && *count == slots.len()
    }

    /// Whether the block has done its last step, `n − 1`.
    pub(super) fn done(&self) -> bool {
        self.k == self.last()
    }

    fn last(&self) -> i32 {
        self.layout.n() as i32 - 1
    }

    /// Does step `k + 1` (the block must be [`ready`](BlockState::ready)): a new block from the
    /// current one and the neighbours' blocks holding row and column `k + 1`, which becomes the
    /// current one; the neighbours' blocks of the step are then dropped.
    pub(super) fn step(&mut self) {
        let k = (self.k + 1) as usize;
        let (column_source, row_source) = self.layout.sources(self.id, k);
        let parity = (self.k & 1) as usize;
        let slots = &self.steps[parity].0;
        let block = |source: usize| -> &[Dist] {
            if source == self.id {
                &self.current
            } else {
                slots[self.layout.slot(self.id, source)]
                    .as_deref()
                    .expect("every neighbour's block is here")
            }
        };
        let next = step(
            &self.layout,
            k,
            &self.current,
            block(column_source),
            block(row_source),
        );
        let (slots, count) = &mut self.steps[parity];
        slots.iter_mut().for_each(|s| *s = None);
        *count = 0;
        self.current = next.into();
        self.k += 1;
    }
}
