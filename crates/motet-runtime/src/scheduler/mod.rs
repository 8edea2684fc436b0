//! The two schedulers behind one [`Handle`](crate::Handle): the work-stealing [`pool`] and the seeded
//! single-thread [`deterministic`] mode that tests run every scenario under as well.

pub(crate) mod deterministic;
pub(crate) mod idle;
pub(crate) mod local_queue;
pub(crate) mod pool;
pub(crate) mod slot;

use deterministic::Deterministic;
use pool::Pool;

/// Which scheduler a runtime uses. There is one per runtime, inside its shared `Arc`, so the size
/// difference between the variants costs nothing, while boxing the pool would add an indirection to
/// every schedule.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Flavor {
    /// Worker threads with work stealing.
    Pool(Pool),
    /// One thread, seeded choices, virtual time.
    Deterministic(Deterministic),
}
