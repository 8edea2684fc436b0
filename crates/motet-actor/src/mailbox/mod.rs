//! The lock-free multi-producer, single-consumer mailbox of an actor.
//!
//! Two designs were measured (`cargo bench -p motet-actor --bench mailbox`, results in
//! docs/measurements/2026-11-29-actor.md):
//!
//! - [`Mailbox`] (this module, the one actors use): an intrusive Vyukov queue whose producer end is a
//!   single tagged word, as in Pony's `messageq.c`. A push is one compare-and-swap on the head word
//!   plus a store linking the previous node; a pop is plain loads; the consumer marks the queue idle
//!   with one CAS when it finds it empty. The push that replaces the idle mark learns, from the same
//!   CAS, that the actor must be scheduled: no second atomic per message.
//! - [`CachedStack`](cached_stack::CachedStack): CAF's cached stack. Producers push onto a lock-free
//!   stack; the consumer takes the whole stack with one swap and reverses it into a private FIFO cache.
//!
//! # The head word
//!
//! `head` holds a pointer to the most recently pushed node, with three tag bits (nodes and the stub
//! are 8-aligned): a two-bit *mode* (none, `IDLE`, `BUSY` or `CHECK`) and the `CLOSED` bit.
//!
//! - `IDLE`: set by the consumer when it found the queue empty and gave up its turn
//!   ([`Mailbox::try_mark_idle`]). The push that clears it gets `Pushed { was_idle: true }` and must
//!   schedule the actor. While it is clear, the actor is scheduled or running, and pushes need not do
//!   anything more.
//! - `CLOSED` (bit 2), the *gate*: a push that finds it set leaves the fast path. It is set on a
//!   closed mailbox and, from the start, on a *gated* one ([`Mailbox::set_gate`], a bounded
//!   mailbox, whose pushes must be counted): then [`Mailbox::push`] hands the node back as for a
//!   closed mailbox, and the owner, finding the mailbox open ([`Mailbox::is_closed`]), pushes with
//!   [`Mailbox::push_gated`] after its own checks. An ungated mailbox's pushes never test anything
//!   else, so the gate costs them nothing.
//! - Closed: [`Mailbox::close`] replaces the head pointer by a sentinel (with the gate set), in the
//!   same CAS that ends every push: the consumer drains up to the node it replaced, and every later
//!   push (gated or not) fails and hands the message back.
//! - `BUSY` and `CHECK`: the release protocol of the actor's last address (see
//!   `cell/header.rs`). A thread dropping what may be the last address sets `BUSY`
//!   ([`Mailbox::begin_release`]), which also takes over an `IDLE` mark (the releaser then schedules
//!   the actor); it decrements the reference count and replaces `BUSY` by `CHECK`
//!   ([`Mailbox::end_release`]). While either bit is set the consumer cannot mark the mailbox idle:
//!   `CHECK` makes it re-read the reference count first (it clears `CHECK`), `BUSY` makes it wait. So
//!   an actor never goes idle with an unnoticed last-address drop, and the releaser never touches the
//!   cell after the actor could have stopped: [`Mailbox::close`] waits for `BUSY` to clear. Pushes
//!   keep the mode (except `IDLE`, which they clear). A closed mailbox's mode is none or `BUSY`.
//!
//! # The consumer end
//!
//! `tail` is the last node popped (initially the `stub` embedded in the mailbox, so an idle actor's
//! mailbox costs no allocation). Its `next` is the next message. A node stays as the new `tail` after
//! its message has been moved out, and is freed by the following pop. Between a producer's CAS and its
//! store to the previous node's `next`, the queue is *inconsistent*: the consumer sees no next node
//! although `head` has moved. [`Pop::Inconsistent`] reports this; the actor then yields its turn and
//! comes back, since the producer completes its push in a few instructions.

pub mod cached_stack;

use std::mem::MaybeUninit;
use std::ptr;

#[cfg(not(loom))]
use motet_runtime::alloc::BlockCache;

#[cfg(not(loom))]
use crate::blocks::Blocks;
use crate::sync::atomic::{AtomicPtr, Ordering};
use crate::sync::UnsafeCell;

const MODE: usize = 0b011;
const IDLE: usize = 0b001;
const BUSY: usize = 0b010;
const CHECK: usize = 0b011;
const CLOSED: usize = 0b100;
const TAGS: usize = MODE | CLOSED;

/// What the head of a closed mailbox points to: never a node, never dereferenced.
#[repr(align(8))]
struct Sentinel(#[allow(dead_code)] u8);
static SENTINEL: Sentinel = Sentinel(0);

fn sentinel() -> *mut Link {
    ptr::addr_of!(SENTINEL).cast::<Link>().cast_mut()
}

/// Whether a head word is that of a closed mailbox.
fn is_closed<T>(p: *mut T) -> bool {
    p.cast::<Link>().map_addr(|a| a & !TAGS) == sentinel()
}

fn mode<T>(p: *mut T) -> usize {
    p.addr() & MODE
}

fn with_tags<T>(p: *mut T, tags: usize) -> *mut T {
    p.map_addr(|a| (a & !TAGS) | tags)
}

/// The link part of a node; the stub is a bare link. 8-aligned: the head word's tags take 3 bits.
#[repr(C, align(8))]
pub(crate) struct Link {
    next: AtomicPtr<Link>,
}

/// A queued message: a link followed by the value. Allocated by the sender, freed by the consumer.
#[repr(C, align(8))]
pub struct Node<T> {
    link: Link,
    value: MaybeUninit<T>,
}

impl<T> Node<T> {
    /// A node holding `value`, ready to push.
    #[inline]
    pub fn new(value: T) -> Box<Node<T>> {
        let node = Node {
            link: Link {
                next: AtomicPtr::new(ptr::null_mut()),
            },
            value: MaybeUninit::new(value),
        };
        #[cfg(not(loom))]
        {
            let p = Blocks::allocate(std::alloc::Layout::new::<Node<T>>()).cast::<Node<T>>();
            // SAFETY: `p` is a fresh block with `Node<T>`'s layout (from the global allocator,
            // possibly recycled by the node cache), so writing a node and owning it as a Box is sound.
            unsafe {
                p.as_ptr().write(node);
                Box::from_raw(p.as_ptr())
            }
        }
        #[cfg(loom)]
        Box::new(node)
    }

    /// Frees a node whose value has been moved out.
    ///
    /// # Safety
    /// `node` points to a `Node<T>` allocated by [`Node::new`] (or as a `Box`), its value already
    /// moved out, and nothing refers to it any more.
    #[inline]
    unsafe fn free_empty(node: *mut Node<T>) {
        #[cfg(not(loom))]
        // SAFETY: the caller's contract; the value is MaybeUninit and needs no drop.
        unsafe {
            Blocks::release(
                std::ptr::NonNull::new_unchecked(node.cast()),
                std::alloc::Layout::new::<Node<T>>(),
            )
        };
        #[cfg(loom)]
        // SAFETY: the caller's contract.
        drop(unsafe { Box::from_raw(node) });
    }

    /// The value of a node that was not pushed.
    pub fn value(&self) -> &T {
        // SAFETY: an unpushed node owns its initialised value (set in `new`); a pushed one is no
        // longer reachable as a `Box` by its sender.
        unsafe { self.value.assume_init_ref() }
    }

    /// Takes the value back out of a node that was never pushed (a failed push).
    #[allow(clippy::boxed_local)] // nodes only exist boxed; this frees the box
    pub fn into_value(self: Box<Node<T>>) -> T {
        // SAFETY: a node that was not pushed still owns its initialised value (set in `new`).
        unsafe { self.value.assume_init_read() }
    }
}

/// What a push did.
pub enum Push<T> {
    /// The message is queued. If `was_idle`, the consumer had given up its turn: the caller must
    /// schedule it.
    Pushed {
        /// The queue was marked idle: schedule the consumer.
        was_idle: bool,
    },
    /// The mailbox is closed, or (from [`Mailbox::push`], if [`Mailbox::is_closed`] says it is
    /// open) gated ([`Mailbox::set_gate`]): not pushed; here is the node back.
    Closed(Box<Node<T>>),
}

/// What [`Mailbox::try_mark_idle`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkIdle {
    /// The mailbox is idle: the consumer's turn is over.
    Idle,
    /// An address was released meanwhile (`CHECK`, now cleared): re-read the reference count, then
    /// try again.
    Recheck,
    /// A message arrived, or a release is in progress: pop again.
    Retry,
}

/// What [`Mailbox::begin_release`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReleaseStart {
    /// `BUSY` is set by the caller; if `was_idle`, the caller also took over the idle mark and must
    /// schedule the consumer after [`Mailbox::end_release`].
    Acquired {
        /// The consumer was idle.
        was_idle: bool,
    },
    /// Another release is in progress: retry shortly.
    Busy,
    /// The mailbox is closed: the consumer is stopping.
    Closed,
}

/// What a pop found.
#[derive(Debug, PartialEq, Eq)]
pub enum Pop<T> {
    /// The next message.
    Item(T),
    /// Nothing queued.
    Empty,
    /// A producer is halfway through a push: try again shortly.
    Inconsistent,
}

/// An intrusive MPSC queue with an idle mark and a close mark in its head word (see the module docs).
pub struct Mailbox<T> {
    head: AtomicPtr<Link>,
    /// Consumer-owned: the last node popped (or the stub).
    tail: UnsafeCell<*mut Link>,
    stub: Link,
    _marker: std::marker::PhantomData<Box<Node<T>>>,
}

// SAFETY: values of type T move between threads through the queue (so T: Send); the consumer-only
// fields are only touched through the `unsafe` consumer methods, whose contract is a single consumer.
unsafe impl<T: Send> Send for Mailbox<T> {}
// SAFETY: as above; producers only use the atomic head and the `next` links.
unsafe impl<T: Send> Sync for Mailbox<T> {}

impl<T> Mailbox<T> {
    /// A mailbox to be [`link`](Mailbox::link)ed where it will stay, for a mailbox built by value
    /// inside a larger value that is moved into place first (an actor's cell).
    ///
    /// # Safety
    /// [`Mailbox::link`] must run once the mailbox is at its final place, before any other method,
    /// and the mailbox must not move afterwards.
    pub unsafe fn unlinked() -> Mailbox<T> {
        Mailbox {
            head: AtomicPtr::new(ptr::null_mut()),
            tail: UnsafeCell::new(ptr::null_mut()),
            stub: Link {
                next: AtomicPtr::new(ptr::null_mut()),
            },
            _marker: std::marker::PhantomData,
        }
    }

    /// Points an [`unlinked`](Mailbox::unlinked) mailbox at its own stub, *idle* (the first push
    /// reports `was_idle`) or *active* (the owner will run the consumer without being told).
    pub fn link(&mut self, idle: bool) {
        let stub = ptr::addr_of_mut!(self.stub);
        let tag = if idle { IDLE } else { 0 };
        self.head = AtomicPtr::new(stub.map_addr(|a| a | tag));
        self.tail = UnsafeCell::new(stub);
    }

    /// A mailbox that starts *idle* (the first push reports `was_idle`) or *active* (the owner will run
    /// the consumer without being told).
    ///
    /// The mailbox points to its own stub, so it must be initialised in place where it will stay: see
    /// [`Mailbox::init`].
    ///
    /// # Safety
    /// `this` is valid for writes and will not move until dropped.
    pub unsafe fn init(this: *mut Mailbox<T>, idle: bool) {
        // SAFETY: the caller guarantees `this` is writable and stable.
        unsafe {
            let stub = ptr::addr_of_mut!((*this).stub);
            stub.write(Link {
                next: AtomicPtr::new(ptr::null_mut()),
            });
            let tag = if idle { IDLE } else { 0 };
            ptr::addr_of_mut!((*this).head).write(AtomicPtr::new(stub.map_addr(|a| a | tag)));
            ptr::addr_of_mut!((*this).tail).write(UnsafeCell::new(stub));
            ptr::addr_of_mut!((*this)._marker).write(std::marker::PhantomData);
        }
    }

    /// Gates the mailbox: [`Mailbox::push`] hands every node back, for the owner to count (a
    /// bounded mailbox) before [`Mailbox::push_gated`]. Before any push.
    pub fn set_gate(&mut self) {
        let head = self.head.load(Ordering::Relaxed);
        self.head = AtomicPtr::new(head.map_addr(|a| a | CLOSED));
    }

    fn stub_ptr(&self) -> *mut Link {
        ptr::addr_of!(self.stub).cast_mut()
    }

    /// Enqueues a node. Any thread may push.
    #[inline]
    pub fn push(&self, node: Box<Node<T>>) -> Push<T> {
        self.push_tagged::<false>(node)
    }

    /// Enqueues a node into a gated mailbox ([`Mailbox::set_gate`]), keeping the gate; hands it
    /// back if the mailbox is closed. Any thread may push.
    pub fn push_gated(&self, node: Box<Node<T>>) -> Push<T> {
        self.push_tagged::<true>(node)
    }

    /// The push loop of [`Mailbox::push`] and, with `GATED`, of [`Mailbox::push_gated`]: a gated
    /// mailbox keeps the `CLOSED` bit as its gate and is closed only when its head is the
    /// sentinel. Inlined into both, so each compiles to its own loop.
    #[inline(always)]
    fn push_tagged<const GATED: bool>(&self, node: Box<Node<T>>) -> Push<T> {
        let gate = if GATED { CLOSED } else { 0 };
        let node = Box::into_raw(node).cast::<Link>();
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            let closed = if GATED {
                is_closed(head)
            } else {
                head.addr() & CLOSED != 0
            };
            if closed {
                // SAFETY: `node` came from Box::into_raw just above and was not published.
                return Push::Closed(unsafe { Box::from_raw(node.cast::<Node<T>>()) });
            }
            // AcqRel: Release publishes the node's initialisation to whoever reaches it through `head`
            // (close's drain); Acquire pairs with the consumer's Release in `try_mark_idle`, so a
            // producer that clears IDLE and schedules the actor carries the end of its last turn to
            // the next one.
            let keep = if mode(head) == IDLE { 0 } else { mode(head) };
            let new = with_tags(node, keep | gate);
            match self
                .head
                .compare_exchange_weak(head, new, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(prev) => {
                    let prev_link = prev.map_addr(|a| a & !TAGS);
                    // SAFETY: `prev_link` was the head, so the consumer cannot have freed it: it frees
                    // a node only after moving past it, which needs this very `next` to be set.
                    // Release publishes the node's contents to the consumer's Acquire load of `next`.
                    unsafe { (*prev_link).next.store(node, Ordering::Release) };
                    return Push::Pushed {
                        was_idle: mode(prev) == IDLE,
                    };
                }
                Err(actual) => head = actual,
            }
        }
    }

    /// Dequeues the next message.
    ///
    /// # Safety
    /// Only the single consumer calls this (and the other consumer methods), never concurrently.
    #[inline]
    pub unsafe fn pop(&self) -> Pop<T> {
        // SAFETY: the caller's contract.
        unsafe { self.pop_until(None) }
    }

    /// [`Mailbox::pop`], where an empty queue is one whose tail is `end` (the last node pushed
    /// before a close) or, with `None`, the head.
    ///
    /// # Safety
    /// As for [`Mailbox::pop`].
    #[inline]
    unsafe fn pop_until(&self, end: Option<*mut Link>) -> Pop<T> {
        self.tail.with_mut(|tail_slot| {
            // SAFETY: single consumer (caller's contract), so the tail slot is ours.
            let tail = unsafe { *tail_slot };
            // SAFETY: `tail` is the stub or a node we have not freed. Acquire pairs with the
            // producer's Release store of `next`, making the node's value visible.
            let next = unsafe { (*tail).next.load(Ordering::Acquire) };
            if next.is_null() {
                let head = end
                    .unwrap_or_else(|| self.head.load(Ordering::Acquire).map_addr(|a| a & !TAGS));
                return if head == tail {
                    Pop::Empty
                } else {
                    Pop::Inconsistent
                };
            }
            // SAFETY: single consumer.
            unsafe { *tail_slot = next };
            // SAFETY: every non-stub link is the first field of a `Node<T>` (repr(C)) whose value was
            // initialised by `Node::new` and is moved out exactly once, here.
            let value = unsafe { (*next.cast::<Node<T>>()).value.assume_init_read() };
            if tail != self.stub_ptr() {
                // SAFETY: the old tail is a `Node<T>` whose value was moved out when it was popped;
                // no producer still refers to it (its `next` is set, so it is not the head).
                unsafe { Node::free_empty(tail.cast::<Node<T>>()) };
            }
            Pop::Item(value)
        })
    }

    /// Dequeues the next message if one is completely pushed; `None` if the queue is empty or a
    /// producer is halfway through a push ([`Mailbox::pop`] tells the two apart). The hot path of a
    /// turn: [`Mailbox::try_mark_idle`] fails on either kind of `None` that is not a true empty.
    ///
    /// # Safety
    /// Single consumer, as for [`Mailbox::pop`].
    #[inline]
    pub unsafe fn try_pop(&self) -> Option<T> {
        // SAFETY: single consumer (caller's contract); the value is moved out at once, before
        // any other pop.
        unsafe { self.try_pop_in_place().map(|value| value.read()) }
    }

    /// Like [`Mailbox::try_pop`], but leaves the value where it is: returns a pointer to it in the
    /// node just popped, which stays allocated until the next pop (it is the new consumer end).
    /// Reading the value from there, rather than out of a returned `Option<T>`, spares the hot
    /// loop of a turn the copies of the value through the stack that the compiler makes for the
    /// `Option` (measured on threadring; see docs/measurements/2026-11-29-hot-path-choices.md).
    ///
    /// # Safety
    /// Single consumer, as for [`Mailbox::pop`]. The caller moves the value out of the returned
    /// pointer exactly once (`ptr::read`), before the next pop, and does not touch it afterwards.
    #[inline]
    pub unsafe fn try_pop_in_place(&self) -> Option<ptr::NonNull<T>> {
        self.tail.with_mut(|tail_slot| {
            // SAFETY: single consumer (caller's contract), so the tail slot is ours.
            let tail = unsafe { *tail_slot };
            // SAFETY: as in `pop`.
            let next = unsafe { (*tail).next.load(Ordering::Acquire) };
            if next.is_null() {
                return None;
            }
            // SAFETY: as in `pop`.
            unsafe { *tail_slot = next };
            if tail != self.stub_ptr() {
                // SAFETY: as in `pop`.
                unsafe { Node::free_empty(tail.cast::<Node<T>>()) };
            }
            // SAFETY: every non-stub link is the first field of a `Node<T>` whose value was
            // initialised by `Node::new`; the caller moves it out once (its contract), and the node
            // is freed only by the next pop.
            Some(unsafe {
                ptr::NonNull::new_unchecked((*next.cast::<Node<T>>()).value.as_mut_ptr())
            })
        })
    }

    /// Marks an empty queue idle: the consumer gives up its turn and the next push will report
    /// `was_idle`. Fails if a message arrived or an address release is pending (see [`MarkIdle`]).
    ///
    /// # Safety
    /// Single consumer, as for [`Mailbox::pop`], which last returned [`Pop::Empty`] (or
    /// [`Mailbox::try_pop`] `None`: if a push is then halfway, the head has moved and this returns
    /// [`MarkIdle::Retry`]).
    #[inline]
    pub unsafe fn try_mark_idle(&self) -> MarkIdle {
        // SAFETY: single consumer.
        let tail = self.tail.with_mut(|t| unsafe { *t });
        // Release: the actor's turn (its state changes) happens-before the next turn, which starts
        // after a producer's Acquire CAS clears the mark.
        let mut actual = match self.head.compare_exchange(
            tail,
            with_tags(tail, IDLE),
            Ordering::Release,
            Ordering::Relaxed,
        ) {
            Ok(_) => return MarkIdle::Idle,
            Err(actual) => actual,
        };
        if actual == with_tags(tail, CLOSED) {
            // A gated mailbox, empty: mark it idle keeping the gate (never a closed one: only the
            // consumer closes, and it does not mark idle afterwards).
            return match self.head.compare_exchange(
                actual,
                with_tags(tail, IDLE | CLOSED),
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => MarkIdle::Idle,
                Err(_) => MarkIdle::Retry,
            };
        }
        loop {
            if mode(actual) != CHECK {
                return MarkIdle::Retry;
            }
            // Acquire pairs with `end_release`'s Release: the reference count the caller re-reads
            // includes the releaser's decrement.
            match self.head.compare_exchange_weak(
                actual,
                actual.map_addr(|a| a & !MODE),
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => return MarkIdle::Recheck,
                Err(now) => actual = now,
            }
        }
    }

    /// Starts releasing (what may be) the last address: sets `BUSY`, taking over an idle mark. See
    /// the module docs.
    pub fn begin_release(&self) -> ReleaseStart {
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            if is_closed(head) {
                return ReleaseStart::Closed;
            }
            if mode(head) == BUSY {
                return ReleaseStart::Busy;
            }
            // BUSY replaces IDLE (taken over) or CHECK (`end_release` sets it again); the gate stays.
            // Acquire: like a push that clears IDLE, taking over the consumer's last turn.
            match self.head.compare_exchange_weak(
                head,
                with_tags(head, BUSY | (head.addr() & CLOSED)),
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(prev) => {
                    return ReleaseStart::Acquired {
                        was_idle: mode(prev) == IDLE,
                    }
                }
                Err(actual) => head = actual,
            }
        }
    }

    /// Ends a release begun with [`Mailbox::begin_release`]: clears `BUSY` and, unless the caller took
    /// over the idle mark (it will schedule the consumer, which checks on its own), sets `CHECK`.
    /// After this the caller must not touch the mailbox's owner unless it took over the idle mark.
    pub fn end_release(&self, was_idle: bool) {
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            let gate = head.addr() & CLOSED;
            let tags = if is_closed(head) || was_idle {
                gate
            } else {
                CHECK | gate
            };
            // Release publishes the caller's decrement of the reference count.
            match self.head.compare_exchange_weak(
                head,
                with_tags(head, tags),
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => return,
                Err(actual) => head = actual,
            }
        }
    }

    /// Closes the mailbox: later pushes fail. Then hands every queued message to `f`, in order.
    ///
    /// # Safety
    /// Single consumer, as for [`Mailbox::pop`].
    #[inline(always)]
    pub unsafe fn close(&self, f: impl FnMut(T)) {
        if self.is_closed() {
            // Closed before: drained then.
            return;
        }
        // SAFETY: the caller's contract; open, and only the consumer closes.
        unsafe { self.close_open(f) }
    }

    /// [`Mailbox::close`] for a consumer that knows the mailbox is open (an actor's stop, which
    /// happens once): the same, without the test.
    ///
    /// # Safety
    /// Single consumer, as for [`Mailbox::pop`], and the mailbox is not closed yet.
    #[inline(always)]
    pub(crate) unsafe fn close_open(&self, mut f: impl FnMut(T)) {
        let mut head = self.head.load(Ordering::Relaxed);
        debug_assert!(!is_closed(head), "a mailbox closed twice");
        let last = loop {
            // Acquire: the drain below reads nodes published by earlier pushes.
            match self.head.compare_exchange_weak(
                head,
                with_tags(
                    sentinel(),
                    CLOSED | if mode(head) == BUSY { BUSY } else { 0 },
                ),
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(prev) => break prev.map_addr(|a| a & !TAGS),
                Err(actual) => head = actual,
            }
        };
        loop {
            // SAFETY: single consumer (caller's contract).
            match unsafe { self.pop_until(Some(last)) } {
                Pop::Item(v) => f(v),
                Pop::Empty => break,
                Pop::Inconsistent => crate::sync::spin(),
            }
        }
        // A release in progress still uses the owner; it ends in a few instructions.
        while mode(self.head.load(Ordering::Acquire)) == BUSY {
            crate::sync::spin();
        }
    }

    /// Whether the mailbox was closed.
    pub fn is_closed(&self) -> bool {
        is_closed(self.head.load(Ordering::Acquire))
    }
}

impl<T> Drop for Mailbox<T> {
    fn drop(&mut self) {
        // SAFETY: `&mut self`: no producer or consumer is left.
        unsafe {
            while let Pop::Item(v) = self.pop() {
                drop(v);
            }
            // The last node popped (its value already moved out) goes back where nodes come from:
            // an actor that stops after its last message leaves it here, and the next message sent
            // on this thread reuses it.
            let tail = self.tail.with_mut(|t| *t);
            if tail != self.stub_ptr() {
                Node::free_empty(tail.cast::<Node<T>>());
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests;

#[cfg(all(test, loom))]
mod loom_models;
