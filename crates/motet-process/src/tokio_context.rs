//! Tokio's futures inside a process (feature `tokio`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::runtime::Handle;

/// Runs `future` inside `handle`'s runtime context at each poll, so that tokio's timers and sockets
/// work in a process.
///
/// A process runs on motet's workers, where there is no tokio runtime: a tokio timer, socket or
/// other future backed by tokio's drivers panics when first polled there ("there is no reactor
/// running"). Two ways out:
///
/// - Wrap the future in [`in_tokio`]: each poll of it enters the given tokio runtime's context, so
///   the future registers with that runtime's drivers, which then wake the process like any other
///   waker. Some of tokio's constructors need the context too (`tokio::time::sleep` does, an
///   `async fn` such as `TcpStream::connect` does not): pass an `async` block, which makes them
///   inside the context at its first poll. The runtime must drive its I/O and timers by itself (a multi-thread runtime does; a
///   current-thread one only while some thread runs `block_on` on it). The future runs on the
///   process's worker; only the wake-ups come from tokio.
/// - Without this feature: `handle.spawn(future)` runs the future on tokio, and the process awaits
///   the `JoinHandle` it returns (a plain future, which wakes the process when the task ends).
///
/// ```text
/// system.spawn(async move {
///     in_tokio(&tokio_handle, async { tokio::time::sleep(Duration::from_millis(5)).await }).await;
///     let socket = in_tokio(&tokio_handle, tokio::net::TcpStream::connect(addr)).await.unwrap();
///     // ...
/// });
/// ```
///
/// (Tokio's timers and sockets are features of tokio that this crate does not turn on; the
/// facade crate's test `process_in_tokio` runs these uses: a timer, a TCP client, a `JoinHandle`.)
pub fn in_tokio<F: Future>(handle: &Handle, future: F) -> InTokio<F> {
    InTokio {
        handle: handle.clone(),
        future,
    }
}

/// The future of [`in_tokio`].
#[must_use = "futures do nothing unless awaited"]
pub struct InTokio<F> {
    handle: Handle,
    future: F,
}

impl<F: Future> Future for InTokio<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `future` is structurally pinned: it is never moved out of `self`, and `InTokio`
        // has no `Drop` and no `Unpin` impl of its own that could move it.
        let (handle, future) = unsafe {
            let this = self.get_unchecked_mut();
            (&this.handle, Pin::new_unchecked(&mut this.future))
        };
        let _enter = handle.enter();
        future.poll(cx)
    }
}
