//! Giving the worker away voluntarily.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Lets the other processes of the worker run: the process goes to the back of its worker's queue
/// and continues when its turn comes again. Useful in a loop that only sends on unbounded channels
/// (sends never wait, so such a loop would otherwise keep its worker until it ends).
///
/// ```
/// # let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
/// # let system = motet_process::ProcessSystem::new(rt.handle());
/// let (tx, rx) = motet_process::channel::unbounded();
/// system.spawn(async move {
///     for i in 0..1_000u32 {
///         tx.send(i).unwrap();
///         if i % 100 == 99 {
///             motet_process::yield_now().await;
///         }
///     }
/// });
/// # system.wait().unwrap();
/// # assert_eq!(rx.len(), 1_000);
/// ```
pub fn yield_now() -> YieldNow {
    YieldNow { yielded: false }
}

/// The future of [`yield_now`].
#[must_use = "futures do nothing unless awaited"]
#[derive(Debug)]
pub struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        // Spend the rest of the step budget, so that the process yields rather than re-polls.
        crate::context::exhaust();
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
