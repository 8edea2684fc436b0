//! [`TaskRc`]: a counted handle to a task's shared part.

use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::ptr::NonNull;

use super::cell;
use super::raw::{Header, HANDLE, RUNNABLE};
use crate::sync::atomic::Ordering;

/// A counted handle to a task: it keeps the task's cell alive and dereferences to its shared part
/// (an actor's address holds one and pushes into the mailbox it reaches). It does not schedule the
/// task; that takes the task's [`Runnable`](super::Runnable).
pub struct TaskRc<S> {
    header: NonNull<Header>,
    _shared: PhantomData<S>,
}

// SAFETY: a handle gives `&S` on any thread and may drop the cell (the shared part, and the
// private part, which `Task` requires to be `Send`) on any thread.
unsafe impl<S: Send + Sync> Send for TaskRc<S> {}
// SAFETY: as above.
unsafe impl<S: Send + Sync> Sync for TaskRc<S> {}

impl<S> TaskRc<S> {
    /// A handle for a count already included in the cell's count.
    ///
    /// # Safety
    /// `header` heads a live cell whose shared part is an `S`, and the caller gives one handle's
    /// count of it to the result.
    #[inline]
    pub(crate) unsafe fn from_header(header: NonNull<Header>) -> TaskRc<S> {
        TaskRc {
            header,
            _shared: PhantomData,
        }
    }

    /// A new handle to the live cell at `header`.
    ///
    /// # Safety
    /// The caller holds a count of that cell (its shared part an `S`) for the duration of the call.
    #[inline]
    pub(crate) unsafe fn retain(header: NonNull<Header>) -> TaskRc<S> {
        // SAFETY: the caller's count keeps the cell alive.
        let refs = &unsafe { header.as_ref() }.refs;
        // Relaxed: a handle is made from a live reference, as `Arc::clone` does.
        if refs.fetch_add(HANDLE, Ordering::Relaxed) > i32::MAX as u32 {
            // As `Arc` does: a count this high means leaked handles; wrapping would free too early.
            std::process::abort();
        }
        // SAFETY: the count now includes this handle.
        unsafe { TaskRc::from_header(header) }
    }

    #[inline(always)]
    pub(crate) fn header(&self) -> NonNull<Header> {
        self.header
    }

    /// Whether two handles are to the same task.
    #[inline]
    pub fn ptr_eq(a: &TaskRc<S>, b: &TaskRc<S>) -> bool {
        a.header == b.header
    }

    /// The task's address, for identity only (ordering, hashing, printing): stable while any
    /// handle or the runnable exists.
    #[inline]
    pub fn as_ptr(&self) -> *const () {
        self.header.as_ptr().cast_const().cast()
    }

    /// Gives up this handle, unless it is the task's last one while the task's runnable still
    /// exists: then it is returned, untouched. A model whose task must notice that it became
    /// unreachable (an actor whose last address goes) takes that case apart, under its own
    /// protocol, and then drops the handle.
    #[inline]
    pub fn try_release(self) -> Result<(), TaskRc<S>> {
        // SAFETY: this handle's count keeps the cell alive.
        let refs = &unsafe { self.header.as_ref() }.refs;
        let mut current = refs.load(Ordering::Relaxed);
        loop {
            if current == RUNNABLE + HANDLE {
                return Err(self);
            }
            // Release: this thread's uses of the task precede the freeing, by whoever frees it.
            match refs.compare_exchange_weak(
                current,
                current - HANDLE,
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    let header = ManuallyDrop::new(self).header;
                    if current == HANDLE {
                        // Acquire: the other holders' uses precede this freeing. A load rather
                        // than a fence: ThreadSanitizer models the one and not the other.
                        refs.load(Ordering::Acquire);
                        // SAFETY: the count reached zero: nothing else refers to the cell.
                        unsafe { (header.as_ref().vtable.drop_cell)(header) };
                    }
                    return Ok(());
                }
                Err(actual) => current = actual,
            }
        }
    }
}

impl<S> Clone for TaskRc<S> {
    #[inline]
    fn clone(&self) -> TaskRc<S> {
        // SAFETY: this handle's count keeps the cell alive during the call.
        unsafe { TaskRc::retain(self.header) }
    }
}

impl<S> Deref for TaskRc<S> {
    type Target = S;

    #[inline(always)]
    fn deref(&self) -> &S {
        // SAFETY: this handle's count keeps the cell alive; its shared part is an `S`.
        unsafe { cell::shared(self.header) }
    }
}

impl<S> Drop for TaskRc<S> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: this handle's count keeps the cell alive until given up.
        let h = unsafe { self.header.as_ref() };
        // The only reference left: nobody can make another (no runnable, no other handle), so the
        // cell is ours to free without a read-modify-write. Acquire: the others' releases
        // happened before.
        if h.refs.load(Ordering::Acquire) == HANDLE {
            // SAFETY: nothing else refers to the cell.
            unsafe { (h.vtable.drop_cell)(self.header) };
            return;
        }
        // Release: this thread's uses precede the freeing.
        if h.refs.fetch_sub(HANDLE, Ordering::Release) == HANDLE {
            // Acquire: the other holders' uses precede this freeing. A load rather than a fence:
            // ThreadSanitizer models the one and not the other.
            h.refs.load(Ordering::Acquire);
            // SAFETY: the count reached zero: nothing else refers to the cell.
            unsafe { (h.vtable.drop_cell)(self.header) };
        }
    }
}

impl<S> fmt::Debug for TaskRc<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TaskRc({:p})", self.header)
    }
}
