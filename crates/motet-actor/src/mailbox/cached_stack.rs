//! CAF's cached-stack mailbox, kept for the comparison bench (`benches/mailbox.rs`); actors use the
//! Vyukov queue of the parent module, which measured faster (see
//! docs/measurements/2026-11-29-actor.md).
//!
//! Producers push onto a lock-free LIFO stack with a CAS. The consumer takes the whole stack with one
//! swap, reverses it into a private FIFO cache, and pops from the cache. The stack word is a node
//! pointer, null (empty, consumer active) or the tag `BLOCKED` (the consumer found nothing and gave up
//! its turn; the push that replaces it must schedule the consumer). Closing is not implemented: this
//! variant exists to be measured against the Vyukov queue.

use std::ptr;

#[cfg(not(loom))]
use motet_runtime::alloc::BlockCache;

use super::Pop;
#[cfg(not(loom))]
use crate::blocks::Blocks;
use crate::sync::atomic::{AtomicPtr, Ordering};
use crate::sync::UnsafeCell;

const BLOCKED: usize = 1;

/// A node of the stack.
pub struct StackNode<T> {
    next: *mut StackNode<T>,
    value: T,
}

impl<T> StackNode<T> {
    /// A node holding `value`, allocated like the Vyukov queue's nodes (through the per-thread node
    /// cache), so that the comparison measures the queues, not the allocator.
    pub fn new(value: T) -> Box<StackNode<T>> {
        let node = StackNode {
            next: ptr::null_mut(),
            value,
        };
        #[cfg(not(loom))]
        {
            let layout = std::alloc::Layout::new::<StackNode<T>>();
            let p = Blocks::allocate(layout).cast::<StackNode<T>>();
            // SAFETY: a fresh block with this node's layout, owned as a Box from here on.
            unsafe {
                p.as_ptr().write(node);
                Box::from_raw(p.as_ptr())
            }
        }
        #[cfg(loom)]
        Box::new(node)
    }
}

/// CAF's cached stack (see the module docs).
pub struct CachedStack<T> {
    top: AtomicPtr<StackNode<T>>,
    /// Consumer-owned FIFO list, oldest first.
    cache: UnsafeCell<*mut StackNode<T>>,
}

// SAFETY: T moves between threads through the stack; the cache is consumer-only by the unsafe contract.
unsafe impl<T: Send> Send for CachedStack<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for CachedStack<T> {}

fn tag<T>(t: usize) -> *mut StackNode<T> {
    ptr::without_provenance_mut(t)
}

impl<T> CachedStack<T> {
    /// An empty stack, idle (`BLOCKED`) if `idle`.
    pub fn new(idle: bool) -> CachedStack<T> {
        CachedStack {
            top: AtomicPtr::new(if idle { tag(BLOCKED) } else { ptr::null_mut() }),
            cache: UnsafeCell::new(ptr::null_mut()),
        }
    }

    /// Pushes a node; returns true if the consumer was blocked and the caller must schedule it.
    pub fn push(&self, node: Box<StackNode<T>>) -> bool {
        let node = Box::into_raw(node);
        let mut top = self.top.load(Ordering::Relaxed);
        loop {
            let blocked = top.addr() == BLOCKED;
            // SAFETY: `node` is ours until the CAS publishes it.
            unsafe { (*node).next = if blocked { ptr::null_mut() } else { top } };
            // Release publishes the node; Acquire pairs with the consumer's Release on blocking.
            match self
                .top
                .compare_exchange_weak(top, node, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return blocked,
                Err(actual) => top = actual,
            }
        }
    }

    /// Pops the oldest message.
    ///
    /// # Safety
    /// Single consumer.
    pub unsafe fn pop(&self) -> Pop<T> {
        self.cache.with_mut(|cache| {
            // SAFETY: single consumer.
            unsafe {
                if (*cache).is_null() {
                    let top = self.top.load(Ordering::Relaxed);
                    if top.is_null() || top.addr() == BLOCKED {
                        return Pop::Empty;
                    }
                    // Acquire pairs with the producers' Release CAS.
                    let mut stack = self.top.swap(ptr::null_mut(), Ordering::Acquire);
                    let mut fifo: *mut StackNode<T> = ptr::null_mut();
                    while !stack.is_null() {
                        let next = (*stack).next;
                        (*stack).next = fifo;
                        fifo = stack;
                        stack = next;
                    }
                    *cache = fifo;
                }
                let node = *cache;
                *cache = (*node).next;
                let value = ptr::read(&(*node).value);
                #[cfg(not(loom))]
                Blocks::release(
                    std::ptr::NonNull::new_unchecked(node.cast()),
                    std::alloc::Layout::new::<StackNode<T>>(),
                );
                #[cfg(loom)]
                drop(Box::from_raw(
                    node.cast::<std::mem::ManuallyDrop<StackNode<T>>>(),
                ));
                Pop::Item(value)
            }
        })
    }

    /// Gives up the consumer's turn if nothing is queued; false if something arrived.
    ///
    /// # Safety
    /// Single consumer, cache empty.
    pub unsafe fn try_mark_idle(&self) -> bool {
        self.top
            .compare_exchange(
                ptr::null_mut(),
                tag(BLOCKED),
                Ordering::Release,
                Ordering::Relaxed,
            )
            .is_ok()
    }
}

impl<T> Drop for CachedStack<T> {
    fn drop(&mut self) {
        // SAFETY: exclusive access.
        unsafe {
            while let Pop::Item(v) = self.pop() {
                drop(v);
            }
        }
    }
}
