//! Deferred values: Verona's promises, as cowns that behaviours wait on.
//!
//! [`Deferred::new`] returns a value that will be set later and the [`Resolver`] that sets it. A
//! `Deferred` can be named in [`when`](crate::when) like a read-only cown: the behaviour runs once
//! the value is set, and gets `Result<&T, Broken>` (`Err(Broken)` if the resolver was dropped
//! without a value). Any number of behaviours may wait on one deferred value; they run together,
//! as readers do.
//!
//! Underneath, a deferred value is a cown of `Option<T>` whose queue starts with a *blocker*: a
//! writer request owned by the resolver, at the head of the queue from the start. Behaviours that
//! name the deferred value queue up behind it; resolving writes the value (the blocker holds the
//! cown exclusively) and releases the blocker, which grants all of them at once.
//!
//! A behaviour waiting on an unresolved value is not runnable, so it does not keep the runtime
//! from being quiescent; resolving the value later (from anywhere) runs it then.

use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

use motet_runtime::Handle;

use crate::behaviour::schedule_ready;
use crate::cown::{Cown, CownBox, CownHeader, CownId};
use crate::protocol::{self, Slot};
use crate::{when, Promise};

/// A deferred value's allocation: a cown of `Option<T>`, then the blocker request.
#[repr(C)]
struct DeferredBox<T> {
    cown: CownBox<Option<T>>,
    blocker: Slot,
}

unsafe fn free_deferred<T>(queue: NonNull<protocol::Queue>) {
    // SAFETY: called once, by the last reference, on a box allocated by `Deferred::new`.
    drop(unsafe { Box::from_raw(queue.cast::<DeferredBox<T>>().as_ptr()) });
}

/// The resolver of a [`Deferred`] value was dropped without setting it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Broken;

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the deferred value's resolver was dropped without a value")
    }
}

impl std::error::Error for Broken {}

/// A value that will be set later by its [`Resolver`]; behaviours that name it wait for it.
///
/// ```
/// use motet_boc::{when, Deferred};
/// let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
/// let (price, resolver) = Deferred::<u64>::new(rt.handle());
/// let doubled = when(&price, |p| p.map(|p| p * 2));
/// resolver.resolve(21);
/// assert_eq!(doubled.wait().unwrap(), Ok(42));
/// ```
pub struct Deferred<T> {
    cown: Cown<Option<T>>,
}

impl<T: Send + Sync + 'static> Deferred<T> {
    /// A deferred value whose waiting behaviours run on `runtime`, and its resolver.
    pub fn new(runtime: &Handle) -> (Deferred<T>, Resolver<T>) {
        let boxed = Box::new(DeferredBox {
            cown: CownBox {
                header: CownHeader::new(runtime, free_deferred::<T>, None),
                value: UnsafeCell::new(None::<T>),
            },
            // A placeholder until the box has its address.
            blocker: Slot::first(NonNull::dangling(), false, true),
        });
        let ptr = NonNull::from(Box::leak(boxed));
        // SAFETY: the box is ours and not shared yet; its queue is at offset 0.
        let blocker = unsafe {
            let b = &mut *ptr.as_ptr();
            b.blocker = Slot::first(ptr.cast(), false, true);
            NonNull::from(&b.blocker)
        };
        // SAFETY: the blocker is the first request of a fresh queue, whose box is alive (our
        // reference, handed to the `Deferred` below).
        unsafe { protocol::enqueue_blocker(blocker) };
        let deferred = Deferred {
            // SAFETY: a live cown box of `Option<T>` at offset 0, freed by `free_deferred::<T>`;
            // the one reference goes to this handle.
            cown: unsafe { Cown::from_raw(ptr.cast()) },
        };
        let resolver = Resolver {
            ptr: Some(ptr),
            marker: PhantomData,
        };
        (deferred, resolver)
    }

    /// A promise of a copy of the value, once it is set: await it or wait for it.
    pub fn get(&self) -> Promise<Result<T, Broken>>
    where
        T: Clone,
    {
        when(self, |v: Result<&T, Broken>| v.cloned())
    }
}

impl<T> Deferred<T> {
    /// This deferred value's identity (a deferred value is a cown underneath: a behaviour that
    /// names it and panics lists this id among its cowns, see
    /// [`BehaviourPanic::cowns`](crate::BehaviourPanic::cowns)).
    pub fn id(&self) -> CownId {
        self.cown.id()
    }

    pub(crate) fn cown(&self) -> &Cown<Option<T>> {
        &self.cown
    }
}

impl<T> Clone for Deferred<T> {
    fn clone(&self) -> Deferred<T> {
        Deferred {
            cown: self.cown.clone(),
        }
    }
}

impl<T> fmt::Debug for Deferred<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Deferred").field(&self.cown).finish()
    }
}

/// Sets a [`Deferred`] value, once. Dropping it without a value releases the waiting behaviours
/// with `Err(Broken)`.
pub struct Resolver<T> {
    ptr: Option<NonNull<DeferredBox<T>>>,
    marker: PhantomData<T>,
}

// SAFETY: the resolver only writes the value (a `T: Send`) while its blocker holds the cown
// exclusively, then releases the blocker; the box is kept alive by the queue's hold.
unsafe impl<T: Send> Send for Resolver<T> {}
// SAFETY: `&Resolver` gives no access.
unsafe impl<T: Send> Sync for Resolver<T> {}

impl<T> Resolver<T> {
    /// Sets the value and runs the behaviours waiting for it.
    pub fn resolve(mut self, value: T) {
        self.finish(Some(value));
    }

    fn finish(&mut self, value: Option<T>) {
        let Some(ptr) = self.ptr.take() else {
            return;
        };
        // SAFETY: the blocker still holds the cown exclusively (it is released just below), and
        // the queue's hold keeps the box alive.
        unsafe {
            if value.is_some() {
                *(*ptr.as_ptr()).cown.value.get() = value;
            }
            let blocker = NonNull::from(&(*ptr.as_ptr()).blocker);
            protocol::release(blocker, &mut |f| schedule_ready(f));
        }
    }
}

impl<T> Drop for Resolver<T> {
    fn drop(&mut self) {
        self.finish(None);
    }
}

impl<T> fmt::Debug for Resolver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Resolver(..)")
    }
}
