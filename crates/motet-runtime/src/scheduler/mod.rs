//! The two schedulers behind one [`Handle`](crate::Handle): the work-stealing [`pool`] and the seeded
//! single-thread [`deterministic`] mode that tests run every scenario under as well.

pub(crate) mod deterministic;
pub(crate) mod idle;
pub(crate) mod pool;

use deterministic::Deterministic;
use pool::Pool;

/// Which scheduler a runtime uses.
pub(crate) enum Flavor {
    /// Worker threads with work stealing.
    Pool(Pool),
    /// One thread, seeded choices, virtual time.
    Deterministic(Deterministic),
}
