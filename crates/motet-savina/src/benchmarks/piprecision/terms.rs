//! The Master's account of the terms, which the actor and floor programs share: the sum so far,
//! the terms handed out and returned, and whether a term below the tolerance has stopped the
//! hand-outs.

use num_bigint::BigUint;

use super::{below_tolerance, Sum};

/// What the Master has handed out and got back.
#[derive(Debug, Default)]
pub(crate) struct Terms {
    /// The returned terms, summed.
    sum: BigUint,
    /// Terms handed out; the next one's index.
    requested: u64,
    /// Terms returned.
    received: u64,
    /// Whether a returned term fell below the tolerance (no more hand-outs).
    stopped: bool,
}

impl Terms {
    /// Counts a term handed out and returns its index.
    #[inline]
    pub(crate) fn hand_out(&mut self) -> u32 {
        let index = self.requested as u32;
        self.requested += 1;
        index
    }

    /// Adds a returned term; returns whether its worker gets another one (no term has yet fallen
    /// below the tolerance).
    #[inline]
    pub(crate) fn receive(&mut self, term: BigUint) -> bool {
        self.received += 1;
        if below_tolerance(&term) {
            self.stopped = true;
        }
        self.sum += term;
        !self.stopped
    }

    /// Whether every term handed out has come back.
    #[inline]
    pub(crate) fn all_back(&self) -> bool {
        self.received == self.requested
    }

    /// The sum and the number of terms returned, leaving the sum at zero.
    pub(crate) fn take_sum(&mut self) -> Sum {
        Sum {
            value: std::mem::take(&mut self.sum),
            terms: self.received,
        }
    }
}
