//! Reference banks: a thread takes counted references to a shared object in batches, hands them
//! out one by one, and takes them back one by one.
//!
//! Some objects are referenced by every task: every actor holds a [`Handle`](crate::Handle) to
//! its runtime, every process a reference to its process system. Counted one at a time, the
//! shared count is a cache line that every spawn and every free writes: on a pool, a driver
//! spawning on one worker while another worker finishes and frees what was spawned moves that
//! line between the two workers twice per task. With a bank, a worker takes `BATCH` references
//! in one atomic addition and hands them out one by one to what it spawns; references given up
//! on the worker go back into its bank, and a bank that holds more than twice `BATCH` gives
//! `BATCH` back in one atomic subtraction. The shared count is touched once per `BATCH` spawns
//! or frees, and it never undercounts: it is the references held plus those banked, so the
//! object is freed with its last reference, as with an `Arc`.
//!
//! A bank is a thread-local ([`RefBank`]) and serves one object at a time, the one it holds
//! references to; the references of any other object are counted directly. Whether a thread may
//! bank at all is the caller's to say (`may_fill`, `may_adopt`): the models bank only on the
//! worker threads of the object's runtime, whose banks are emptied when the worker exits (a hook
//! registered when the bank is first filled gives the references back at thread exit), so that
//! no bank keeps an object alive once its handles and tasks are gone.
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use motet_runtime::bank::{Counted, RefBank};
//!
//! struct Shared {
//!     refs: AtomicUsize,
//! }
//!
//! // SAFETY: `acquire` and `release` add to and subtract from the count that keeps a `Shared`
//! // alive (this one is leaked, so nothing frees it).
//! unsafe impl Counted for Shared {
//!     fn acquire(&self, n: usize) {
//!         self.refs.fetch_add(n, Ordering::Relaxed);
//!     }
//!     unsafe fn release(this: *const Shared, n: usize) {
//!         // SAFETY: the caller gives up `n` references it holds, so `this` is alive.
//!         unsafe { (*this).refs.fetch_sub(n, Ordering::Release) };
//!     }
//! }
//!
//! thread_local! {
//!     static BANK: RefBank<Shared, 64> = const { RefBank::new() };
//! }
//!
//! let shared: &'static Shared = Box::leak(Box::new(Shared { refs: AtomicUsize::new(1) }));
//! RefBank::take(&BANK, shared, || true); // fills the bank: 64 references, one handed out
//! assert_eq!(shared.refs.load(Ordering::Relaxed), 65);
//! RefBank::take(&BANK, shared, || true); // from the bank
//! assert_eq!(shared.refs.load(Ordering::Relaxed), 65);
//! // SAFETY: the two references taken above are given up, once each.
//! unsafe {
//!     RefBank::give(&BANK, shared, || true);
//!     RefBank::give(&BANK, shared, || true);
//! }
//! RefBank::flush(&BANK); // gives every banked reference back
//! assert_eq!(shared.refs.load(Ordering::Relaxed), 1);
//! ```

use std::cell::Cell;
use std::ptr;
use std::thread::LocalKey;

use crate::thread_exit::at_thread_exit;

/// An object with a shared reference count that a [`RefBank`] can take references from in bulk.
///
/// # Safety
/// `acquire(n)` adds `n` references to the count that keeps the object alive, and `release(this,
/// n)` removes `n`, freeing the object when they were the last.
pub unsafe trait Counted {
    /// Adds `n` references to this object's count (the caller holds one, so it is alive).
    fn acquire(&self, n: usize);

    /// Gives up `n` references to `*this`, freeing it if they were the last.
    ///
    /// # Safety
    /// The caller holds `n` counted references to `*this` and uses none of them afterwards.
    unsafe fn release(this: *const Self, n: usize);
}

/// Whether a bank's exit hook is registered.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Hook {
    /// Not yet: the bank is empty.
    None,
    /// The hook will give the bank's references back when the thread exits.
    Registered,
    /// The hook has run, or the thread was exiting: the bank stays empty.
    Closed,
}

/// A thread's bank of counted references to one `T` at a time, taken from its count `BATCH` at a
/// time (see the [module docs](self)). Declare it as a thread-local with a `const` initialiser (so
/// that it has no destructor and its accesses no registration check) and pass that to the
/// associated functions.
pub struct RefBank<T: Counted + 'static, const BATCH: usize> {
    /// The object the references are to; meaningful only while `refs` is non-zero.
    owner: Cell<*const T>,
    /// How many counted references to `owner` the bank holds.
    refs: Cell<usize>,
    hook: Cell<Hook>,
}

impl<T: Counted + 'static, const BATCH: usize> RefBank<T, BATCH> {
    /// An empty bank.
    #[allow(clippy::new_without_default)] // only ever a thread-local, built in a const context
    pub const fn new() -> RefBank<T, BATCH> {
        assert!(BATCH > 0);
        RefBank {
            owner: Cell::new(ptr::null()),
            refs: Cell::new(0),
            hook: Cell::new(Hook::None),
        }
    }

    /// Takes a counted reference to `owner` for the caller: from this thread's bank if it holds
    /// references to `owner`; otherwise, if `may_fill()` says this thread may bank them, from a
    /// batch of `BATCH` the bank takes (giving back what it held of another object); otherwise
    /// straight from the count.
    #[inline]
    pub fn take(bank: &'static LocalKey<Self>, owner: &T, may_fill: impl FnOnce() -> bool) {
        let banked = bank.with(|b| {
            let refs = b.refs.get();
            let hit = refs > 0 && ptr::eq(b.owner.get(), owner);
            if hit {
                b.refs.set(refs - 1);
            }
            hit
        });
        // `may_fill` is asked here, inline, rather than in `refill`: a thread that may not bank
        // (off the workers) then pays no call on top of its atomic addition.
        if banked || (may_fill() && Self::refill(bank, owner)) {
            return;
        }
        owner.acquire(1);
    }

    /// Gives up the caller's counted reference to `*owner`: into this thread's bank if it holds
    /// references to it, or holds none and `may_adopt()` says this thread may bank them (a bank
    /// holding more than twice `BATCH` gives `BATCH` back to the count); otherwise straight to
    /// the count, which frees `*owner` if that was the last reference. A worker that frees what
    /// another worker spawned thereby banks those references too.
    ///
    /// # Safety
    /// The caller holds a counted reference to `*owner` and does not use it afterwards.
    /// `may_adopt` may use `*owner` (it runs before the reference is given up).
    #[inline]
    pub unsafe fn give(
        bank: &'static LocalKey<Self>,
        owner: *const T,
        may_adopt: impl FnOnce() -> bool,
    ) {
        let banked = bank.with(|b| {
            let refs = b.refs.get();
            let hit = refs > 0 && ptr::eq(b.owner.get(), owner);
            if hit {
                if refs < 2 * BATCH {
                    b.refs.set(refs + 1);
                } else {
                    b.give_back(refs);
                }
            }
            hit
        });
        // As in `take`: `may_adopt` inline, so that a thread that may not bank pays no call.
        if banked || (may_adopt() && Self::adopt(bank, owner)) {
            return;
        }
        // SAFETY: the caller's reference, given up here (`may_adopt` has run and is dropped).
        unsafe { T::release(owner, 1) };
    }

    /// Gives every reference this thread's bank holds back to its object's count (which may free
    /// the object). A worker calls this when it stops, so that its runtime's count is exact at
    /// once; the exit hook does it anyway when the thread exits.
    // Out of line: a worker calls it once, after its loop, whose registers it should not disturb.
    #[inline(never)]
    pub fn flush(bank: &'static LocalKey<Self>) {
        bank.with(RefBank::flush_held);
    }

    /// How many references this thread's bank holds, and to what (for tests).
    pub fn held(bank: &'static LocalKey<Self>) -> (*const T, usize) {
        bank.with(|b| (b.owner.get(), b.refs.get()))
    }

    /// Fills this thread's bank with `BATCH` references to `owner` (giving back those it holds to
    /// another object) and takes one; false, leaving the bank alone, if the thread is exiting. Out
    /// of line: it runs once per `BATCH` takes.
    #[cold]
    #[inline(never)]
    fn refill(bank: &'static LocalKey<Self>, owner: &T) -> bool {
        bank.with(|b| {
            if !b.hooked(bank) {
                return false;
            }
            b.flush_held();
            b.owner.set(owner);
            owner.acquire(BATCH);
            b.refs.set(BATCH - 1);
            true
        })
    }

    /// Starts banking `owner`'s references with the one being given, if this thread's bank is
    /// empty (and the thread not exiting). Out of line: it runs when a thread first gives one up.
    #[cold]
    #[inline(never)]
    fn adopt(bank: &'static LocalKey<Self>, owner: *const T) -> bool {
        bank.with(|b| {
            if b.refs.get() != 0 || !b.hooked(bank) {
                return false;
            }
            b.owner.set(owner);
            b.refs.set(1);
            true
        })
    }

    /// Takes a reference into a bank holding `refs` (at least `2 * BATCH`): gives `BATCH` of them
    /// back. Out of line: it runs once per `BATCH` gives.
    #[cold]
    #[inline(never)]
    fn give_back(&self, refs: usize) {
        // Keeps `refs + 1 - BATCH` (more than `BATCH`), so this never frees the object.
        self.refs.set(refs + 1 - BATCH);
        // SAFETY: the bank held `refs + 1` counted references (with the one given), and gives
        // `BATCH` of them up.
        unsafe { T::release(self.owner.get(), BATCH) };
    }

    /// Gives every held reference back.
    fn flush_held(&self) {
        let refs = self.refs.replace(0);
        if refs > 0 {
            // SAFETY: the bank held `refs` counted references to `owner`, given up here (the
            // count is zero before the release, so a release that frees the object and comes
            // back here finds the bank empty).
            unsafe { T::release(self.owner.get(), refs) };
        }
    }

    /// Registers the hook that gives the bank's references back when the thread exits, before
    /// the bank first holds one; false if the thread is exiting (the bank must stay empty).
    fn hooked(&self, bank: &'static LocalKey<Self>) -> bool {
        match self.hook.get() {
            Hook::Registered => true,
            Hook::Closed => false,
            Hook::None => {
                let data = ptr::from_ref(bank).cast::<()>();
                // SAFETY: `exit_hook::<T, BATCH>` reads `data` as the `'static` key it is.
                let hook = if unsafe { at_thread_exit(exit_hook::<T, BATCH>, data) } {
                    Hook::Registered
                } else {
                    Hook::Closed
                };
                self.hook.set(hook);
                hook == Hook::Registered
            }
        }
    }
}

/// Gives a bank's references back when its thread exits.
///
/// # Safety
/// `data` is a `&'static LocalKey<RefBank<T, BATCH>>`.
unsafe fn exit_hook<T: Counted + 'static, const BATCH: usize>(data: *const ()) {
    // SAFETY: the caller's contract.
    let bank = unsafe { &*data.cast::<LocalKey<RefBank<T, BATCH>>>() };
    let _ = bank.try_with(|b| {
        b.hook.set(Hook::Closed);
        b.flush_held();
    });
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};

    use super::*;

    struct Object {
        refs: AtomicUsize,
        freed: AtomicBool,
    }

    // SAFETY: the count is the object's (objects are leaked; `freed` records the last release).
    unsafe impl Counted for Object {
        fn acquire(&self, n: usize) {
            self.refs.fetch_add(n, SeqCst);
        }

        unsafe fn release(this: *const Object, n: usize) {
            // SAFETY: the tests leak their objects, so `this` stays valid.
            let this = unsafe { &*this };
            if this.refs.fetch_sub(n, SeqCst) == n {
                this.freed.store(true, SeqCst);
            }
        }
    }

    fn object() -> &'static Object {
        Box::leak(Box::new(Object {
            refs: AtomicUsize::new(1),
            freed: AtomicBool::new(false),
        }))
    }

    thread_local! {
        static BANK: RefBank<Object, 4> = const { RefBank::new() };
    }

    /// Takes and gives on a banking thread touch the count once per batch; the count is always
    /// the references held plus those banked; another object's references are counted directly;
    /// the bank's references come back when the thread exits.
    #[test]
    fn a_bank_counts_in_batches() {
        let a = object();
        let b = object();
        std::thread::spawn(move || {
            let count = |o: &Object| o.refs.load(SeqCst);
            for _ in 0..3 {
                RefBank::take(&BANK, a, || true);
            }
            assert_eq!(count(a), 1 + 4);
            assert_eq!(RefBank::held(&BANK).1, 1);
            // Another object while the bank holds `a`'s: refilled with `b`'s, `a`'s given back.
            RefBank::take(&BANK, b, || true);
            assert_eq!(count(a), 1 + 3);
            assert_eq!(count(b), 1 + 4);
            // `a`'s references now go straight to its count.
            for _ in 0..3 {
                // SAFETY: each reference taken above is given up once.
                unsafe { RefBank::give(&BANK, a, || true) };
            }
            assert_eq!(count(a), 1);
            // Three from the bank, five counted directly (this thread may not fill it now).
            for _ in 0..8 {
                RefBank::take(&BANK, b, || false);
            }
            assert_eq!(RefBank::held(&BANK).1, 0);
            assert_eq!(count(b), 1 + 9);
            // The empty bank adopts `b`'s references; past twice the batch it gives a batch back.
            for _ in 0..9 {
                // SAFETY: as above.
                unsafe { RefBank::give(&BANK, b, || true) };
            }
            assert_eq!(RefBank::held(&BANK).1, 9 - 4);
            assert_eq!(count(b), 1 + 9 - 4);
        })
        .join()
        .unwrap();
        assert_eq!(a.refs.load(SeqCst), 1);
        assert_eq!(b.refs.load(SeqCst), 1, "the exit hook gave the bank back");
        assert!(!a.freed.load(SeqCst) && !b.freed.load(SeqCst));
    }

    /// A thread that may not bank counts every reference directly, and the last one frees.
    #[test]
    fn a_thread_that_may_not_bank_counts_directly() {
        let a = object();
        std::thread::spawn(move || {
            RefBank::take(&BANK, a, || false);
            assert_eq!(a.refs.load(SeqCst), 2);
            // SAFETY: the reference taken above, and the object's first one, given up once each.
            unsafe {
                RefBank::give(&BANK, a, || false);
                RefBank::give(&BANK, a, || false);
            }
            assert!(a.freed.load(SeqCst));
            assert_eq!(RefBank::held(&BANK).1, 0);
        })
        .join()
        .unwrap();
    }
}
