//! What the BoC variants share: running a program's start inside a behaviour, and reading a result
//! out of a cown.
//!
//! Verona's BoC ports build their graph of behaviours in `run()` on the scheduler's own thread
//! (its main thread is one of the workers); here the start runs as a behaviour on a driver cown of
//! its own, so that everything a variant does runs on the runtime's `threads` workers, as the actor
//! versions' first actor does. The harness's thread only waits.

use motet_boc::{when, Cown, WhenError};
use motet_runtime::{Handle, Runtime};

/// Runs `start` as a behaviour on a fresh driver cown of `rt` and waits for what it returns.
pub(crate) fn start<R, F>(rt: &Runtime, start: F) -> Result<R, String>
where
    F: FnOnce(&Handle) -> R + Send + 'static,
    R: Send + 'static,
{
    let handle = rt.handle().clone();
    let driver = Cown::new(rt.handle(), ());
    when(&driver, move |_| start(&handle))
        .wait()
        .map_err(|e| format!("the driver behaviour failed: {e}"))
}

/// Reads a value out of `cown` once the behaviours spawned before on it have run.
pub(crate) fn read<T, R>(
    cown: &Cown<T>,
    f: impl FnOnce(&mut T) -> R + Send + 'static,
) -> Result<R, String>
where
    T: Send + 'static,
    R: Send + 'static,
{
    when(cown, f)
        .wait()
        .map_err(|e: WhenError| format!("reading the result failed: {e}"))
}
