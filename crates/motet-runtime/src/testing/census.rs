//! Values that count themselves, for the leak tests of every crate: a scenario makes its
//! messages, states and results [`Tracked`] through one [`Census`], and checks at the end that
//! every one was dropped.

use std::sync::atomic::{AtomicIsize, Ordering::SeqCst};
use std::sync::Arc;

/// The live [`Tracked`] values of one scenario.
///
/// ```
/// use motet_runtime::testing::Census;
///
/// let census = Census::default();
/// let kept = census.track();
/// let dropped = census.track();
/// drop(dropped);
/// assert_eq!(census.live(), 1);
/// drop(kept);
/// assert_eq!(census.live(), 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Census(Arc<AtomicIsize>);

impl Census {
    /// A new value counted in this census until it is dropped.
    pub fn track(&self) -> Tracked {
        self.0.fetch_add(1, SeqCst);
        Tracked(self.0.clone())
    }

    /// How many of this census's values are alive.
    pub fn live(&self) -> isize {
        self.0.load(SeqCst)
    }
}

/// A value that counts itself in its [`Census`] while it exists.
#[derive(Debug)]
pub struct Tracked(Arc<AtomicIsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_sub(1, SeqCst);
    }
}
