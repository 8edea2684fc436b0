//! A filter's primes, which the actor and floor programs share: the filter's place in the chain,
//! how many primes it may hold, and the primes it holds.

use super::{is_locally_prime, Prime, Report};

/// The primes one filter holds, up to `m`.
pub(crate) struct Held {
    /// The filter's place in the chain, from 0.
    id: u64,
    m: usize,
    primes: Vec<Prime>,
}

impl Held {
    /// Filter `id`'s primes, `first_prime` alone, with room for `m`.
    pub(crate) fn new(id: u64, m: usize, first_prime: u64) -> Held {
        let mut primes = Vec::with_capacity(m);
        primes.push(Prime::new(first_prime));
        Held { id, m, primes }
    }

    /// Whether `candidate` passes this filter: no prime held divides it.
    #[inline]
    pub(crate) fn passes(&self, candidate: u64) -> bool {
        is_locally_prime(candidate, &self.primes)
    }

    /// Holds `candidate` if there is room; returns whether there was.
    #[inline]
    pub(crate) fn hold(&mut self, candidate: u64) -> bool {
        let room = self.primes.len() < self.m;
        if room {
            self.primes.push(Prime::new(candidate));
        }
        room
    }

    /// The next filter's primes, `first_prime` alone.
    pub(crate) fn successor(&self, first_prime: u64) -> Held {
        Held::new(self.id + 1, self.m, first_prime)
    }

    /// What the last filter reports.
    pub(crate) fn report(&self) -> Report {
        Report::of(self.id, self.primes.len(), self.m)
    }
}
