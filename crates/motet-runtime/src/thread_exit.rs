//! Work to do when a thread exits, for thread-local state that has no destructor of its own.
//!
//! A thread-local whose type needs dropping pays, on every access, a check that its destructor is
//! registered. The hot thread-locals of the allocation layer (a block cache's bins, see
//! [`alloc`](crate::alloc)) and of the reference banks ([`bank`](crate::bank)) are accessed on
//! every spawn, message or free, so they are declared without one, and register here, on a cold
//! path and once per thread, the function that empties them when the thread exits.
//!
//! Once the thread has begun destroying its thread-locals, nothing more can be registered
//! ([`at_thread_exit`] returns false): the caller must then leave its state empty, as nothing
//! would empty it.

use std::cell::RefCell;

/// A function to call when the thread exits, with its argument.
struct Hook {
    run: unsafe fn(*const ()),
    data: *const (),
}

/// The hooks registered on this thread; its destructor runs them.
struct Hooks(RefCell<Vec<Hook>>);

impl Drop for Hooks {
    fn drop(&mut self) {
        // No hook can be added any more: `HOOKS` is being destroyed, so `at_thread_exit` fails.
        for hook in self.0.get_mut().drain(..) {
            // SAFETY: `at_thread_exit`'s caller promised that `run(data)` may be called once when
            // the thread exits, which is now.
            unsafe { (hook.run)(hook.data) };
        }
    }
}

thread_local! {
    static HOOKS: Hooks = const { Hooks(RefCell::new(Vec::new())) };
}

/// Registers `run(data)` to be called once when the calling thread exits; false, with nothing
/// registered, if the thread is already exiting (its thread-locals are being destroyed).
///
/// # Safety
/// Calling `run(data)` on this thread, once, while its thread-locals are being destroyed, is
/// sound: `data` stays valid until then (a `'static` item, or a thread-local without a
/// destructor, which lives as long as the thread).
pub(crate) unsafe fn at_thread_exit(run: unsafe fn(*const ()), data: *const ()) -> bool {
    HOOKS
        .try_with(|hooks| hooks.0.borrow_mut().push(Hook { run, data }))
        .is_ok()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

    static RAN: AtomicUsize = AtomicUsize::new(0);

    /// Adds the address of `data` (an amount, not a pointer to read) to `RAN`.
    unsafe fn bump(data: *const ()) {
        RAN.fetch_add(data.addr(), SeqCst);
    }

    /// Hooks run once each when their thread exits, and not before.
    #[test]
    fn hooks_run_when_the_thread_exits() {
        std::thread::spawn(|| {
            // SAFETY: `bump` reads no memory through its argument.
            assert!(unsafe { at_thread_exit(bump, std::ptr::without_provenance(1)) });
            // SAFETY: as above.
            assert!(unsafe { at_thread_exit(bump, std::ptr::without_provenance(10)) });
            assert_eq!(RAN.load(SeqCst), 0);
        })
        .join()
        .unwrap();
        assert_eq!(RAN.load(SeqCst), 11);
    }
}
