//! One SOR cell's state and rules, shared by the actors and the floor.

use super::OMEGA;

/// A cell's neighbours: positions in its half's array, 2 to 4 of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Neighbours {
    at: [usize; 4],
    len: usize,
}

impl Neighbours {
    fn of(list: &[usize]) -> Neighbours {
        let mut n = Neighbours::default();
        n.at[..list.len()].copy_from_slice(list);
        n.len = list.len();
        n
    }

    /// The positions, in Savina's order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &usize> {
        self.at[..self.len].iter()
    }

    /// How many.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

/// The neighbours of the cell at `pos` in an `nx × ny` row-major array, as Savina's `SorActor`
/// lists them: (x, y+1), (x+1, y), (x, y−1), (x−1, y) inside; the two inward ones at a corner;
/// the three that exist on an edge. A half's array includes the other half's border column, so
/// its cells see their neighbours across the middle; that column's own entries are never asked.
pub(crate) fn neighbours(pos: usize, nx: usize, ny: usize) -> Neighbours {
    let (x, y) = (pos / ny, pos % ny);
    let at = |x1: usize, y1: usize| x1 * ny + y1;
    let x_edge = x == 0 || x == nx - 1;
    let y_edge = y == 0 || y == ny - 1;
    let inward_x = || if x == 0 { at(x + 1, y) } else { at(x - 1, y) };
    let inward_y = || if y == 0 { at(x, y + 1) } else { at(x, y - 1) };
    match (x_edge, y_edge) {
        (false, false) => Neighbours::of(&[at(x, y + 1), at(x + 1, y), at(x, y - 1), at(x - 1, y)]),
        (true, true) => Neighbours::of(&[inward_x(), inward_y()]),
        (true, false) => Neighbours::of(&[inward_x(), at(x, y + 1), at(x, y - 1)]),
        (false, true) => Neighbours::of(&[inward_y(), at(x + 1, y), at(x - 1, y)]),
    }
}

/// What a cell does after a value arrives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Update {
    /// Nothing yet: more values are due this iteration.
    Wait,
    /// Send this new value to every neighbour.
    Send(f64),
    /// Send this new value to every neighbour, then report the final value and exit.
    SendAndFinish(f64),
}

/// A cell's value and progress.
#[derive(Clone, Debug)]
pub(crate) struct CellState {
    value: f64,
    colour: u8,
    degree: usize,
    iter: u32,
    max_iter: u32,
    received: usize,
    sum: f64,
}

impl CellState {
    /// A cell at (global row `i`, global column `j`) with `degree` neighbours.
    pub(crate) fn new(value: f64, i: usize, j: usize, degree: usize, max_iter: u32) -> CellState {
        debug_assert!(
            max_iter >= 2,
            "a colour-1 cell only checks for its end on a value"
        );
        CellState {
            value,
            colour: Self::colour_of(i, j),
            degree,
            iter: 0,
            max_iter,
            received: 0,
            sum: 0.0,
        }
    }

    /// Colour 1 when `i + j` is even, else 0.
    pub(crate) fn colour_of(i: usize, j: usize) -> u8 {
        u8::from((i + j).is_multiple_of(2))
    }

    /// `(ω/4)·sum + (1 − ω)·value`; ω/4 also at the edges, as in Savina.
    pub(crate) fn relax(value: f64, sum: f64) -> f64 {
        (0.25 * OMEGA) * sum + (1.0 - OMEGA) * value
    }

    /// On `Start`: the value a colour-1 cell sends to its neighbours (its first iteration).
    pub(crate) fn start(&mut self) -> Option<f64> {
        (self.colour == 1).then(|| {
            self.iter = 1;
            self.value
        })
    }

    /// A neighbour's value arrived.
    pub(crate) fn receive(&mut self, v: f64) -> Update {
        if self.iter >= self.max_iter {
            return Update::Wait;
        }
        self.received += 1;
        self.sum += v;
        if self.received < self.degree {
            return Update::Wait;
        }
        self.value = Self::relax(self.value, self.sum);
        self.sum = 0.0;
        self.received = 0;
        self.iter += 1;
        if self.iter == self.max_iter {
            Update::SendAndFinish(self.value)
        } else {
            Update::Send(self.value)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{neighbours, CellState, Update};

    #[test]
    fn neighbours_are_clipped_to_the_grid() {
        // 3 × 4: corner, edges, inside.
        let list = |p| neighbours(p, 3, 4).iter().copied().collect::<Vec<_>>();
        assert_eq!(list(0), [4, 1]);
        assert_eq!(list(11), [7, 10]);
        assert_eq!(list(1), [5, 2, 0]);
        assert_eq!(list(4), [5, 8, 0]);
        assert_eq!(list(5), [6, 9, 4, 1]);
    }

    #[test]
    fn a_cell_updates_when_every_neighbour_has_sent() {
        let mut c = CellState::new(1.0, 0, 0, 2, 3);
        assert_eq!(c.start(), Some(1.0));
        assert_eq!(c.receive(2.0), Update::Wait);
        let v = CellState::relax(1.0, 4.0);
        assert_eq!(c.receive(2.0), Update::Send(v));
        c.receive(0.0);
        assert_eq!(
            c.receive(0.0),
            Update::SendAndFinish(CellState::relax(v, 0.0))
        );
        assert_eq!(c.receive(5.0), Update::Wait, "finished cells ignore values");
        let mut c0 = CellState::new(1.0, 0, 1, 1, 2);
        assert_eq!(c0.start(), None, "colour-0 cells wait for their neighbours");
    }
}
