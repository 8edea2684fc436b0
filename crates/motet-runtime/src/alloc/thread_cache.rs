//! A thread's part of a block cache: a bin per class, and the cache's life on the thread.
//!
//! The bins live in a thread-local without a destructor, so that every access is a plain
//! thread-local access, without the registration check a thread-local with a destructor pays on
//! each use. Blocks are kept only once the thread has registered (with the first block it keeps)
//! a hook that empties its bins when it exits (see `thread_exit`); a thread already exiting
//! registers nothing, and its blocks go straight to the allocator.

use std::cell::UnsafeCell;
use std::mem::ManuallyDrop;
use std::ptr;

use super::bin::Bin;
use super::cache::BlockCache;
use super::config::MAX_CLASSES;
use crate::thread_exit::at_thread_exit;

/// A thread's bins of one cache: the thread-local that [`block_cache!`](crate::block_cache)
/// declares. Nothing else needs to name it.
pub struct ThreadCache(UnsafeCell<ManuallyDrop<LocalCache>>);

impl ThreadCache {
    /// No blocks, no bin open, no hook registered.
    #[allow(clippy::new_without_default)] // only ever a thread-local, built in a const context
    pub const fn new() -> ThreadCache {
        ThreadCache(UnsafeCell::new(ManuallyDrop::new(LocalCache {
            bins: [const { Bin::EMPTY }; MAX_CLASSES],
            state: State::Unguarded,
        })))
    }

    /// The thread's bins.
    ///
    /// # Safety
    /// Only the owning thread calls this (a thread-local is only reachable from its thread), and
    /// not while another reference from it is alive: nothing that holds one calls back into the
    /// cache (the global allocator is not this cache).
    #[inline(always)]
    #[allow(clippy::mut_from_ref)] // a thread-local cell, see the safety contract
    pub(crate) unsafe fn get(&self) -> &mut LocalCache {
        // SAFETY: the caller's contract: this is the only reference.
        unsafe { &mut *self.0.get() }
    }
}

/// The cache's life on its thread: blocks are kept only while a hook will free them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum State {
    /// Nothing kept yet, no hook registered.
    Unguarded,
    /// The thread's exit hook will empty the cache.
    Guarded,
    /// The hook has run (the thread is exiting), or could not be registered: blocks go straight
    /// to the allocator.
    Closed,
}

/// A thread's bins and state.
pub(crate) struct LocalCache {
    /// A bin per class (the first `class_count` are used). A bin's capacity is its room (see
    /// [`Bin`]): 0 until the thread is guarded and the class used, and again once it is closed.
    pub(crate) bins: [Bin; MAX_CLASSES],
    pub(crate) state: State,
}

impl LocalCache {
    /// Registers the hook that empties this cache when the thread exits, before it keeps its first
    /// block; false once the thread is exiting (the block must go to the allocator).
    #[cold]
    pub(crate) fn guard<C: BlockCache>(&mut self) -> bool {
        match self.state {
            State::Guarded => true,
            State::Closed => false,
            State::Unguarded => {
                // SAFETY: `close_at_exit::<C>` reads nothing through its argument, and touches only
                // `C`'s thread-local (without a destructor, so alive as long as the thread) and
                // its static.
                if !unsafe { at_thread_exit(close_at_exit::<C>, ptr::null()) } {
                    self.state = State::Closed;
                    return false;
                }
                self.state = State::Guarded;
                if C::CONFIG.sharing.is_some() {
                    C::shared_bins().thread_started();
                }
                true
            }
        }
    }

    /// Frees every cached block; the bins keep their room.
    pub(crate) fn clear<C: BlockCache>(&mut self) {
        let config = &C::CONFIG;
        for (class, bin) in self.bins.iter_mut().enumerate().take(config.class_count()) {
            bin.free_all(config.class_layout(class));
        }
    }

    /// Frees every cached block and the bins' own buffers; later frees bypass the cache. The last
    /// guarded thread to close frees the shared bins' blocks.
    fn close<C: BlockCache>(&mut self) {
        self.clear::<C>();
        self.bins = [const { Bin::EMPTY }; MAX_CLASSES];
        let was_guarded = self.state == State::Guarded;
        self.state = State::Closed;
        if was_guarded && C::CONFIG.sharing.is_some() {
            C::shared_bins().thread_ended(&C::CONFIG);
        }
    }
}

/// The exit hook of `C`'s cache on this thread.
///
/// # Safety
/// Called by `thread_exit`, on the exiting thread.
unsafe fn close_at_exit<C: BlockCache>(_: *const ()) {
    // SAFETY: on the owning thread, and no other reference to the cache is alive (the hook runs
    // from a thread-local's destructor, not from inside the cache).
    let _ = C::thread_cache().try_with(|c| unsafe { c.get().close::<C>() });
}
