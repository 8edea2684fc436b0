//! The physical-action inbox: how values scheduled from other threads (or interrupt handlers) reach
//! the scheduler, and what keeps a program alive while they may still come.
//!
//! # Protocol
//!
//! The inbox is a lock-free multi-producer, single-consumer stack (Treiber): a sender allocates a
//! node and pushes it with a compare-and-swap on `head`; the scheduler takes the whole stack with one
//! swap and reverses it, so values arrive in the order they were pushed. Nothing is ever popped one at
//! a time, so there is no ABA problem.
//!
//! **Wake-up.** The scheduler may sleep while it waits for physical time or for input. Before it
//! sleeps it installs a *notifier* (once, [`Inbox::set_notify`]) and, under its own lock, checks
//! that the inbox is empty; a sender pushes, then calls the notifier, which takes the same lock. The
//! push and the notifier load are `SeqCst`, as are the notifier store and the emptiness check, so
//! either the sender sees the notifier (and wakes the scheduler) or the scheduler's check sees the
//! node: a value is never left unnoticed while the scheduler sleeps (the loom model checks this).
//!
//! **Rings.** An [`IrqSender`](crate::IrqSender) does not push nodes: it fills a ring of its own
//! (see `ring.rs`), registered here once when the sender is made, and then sets `rings_pending`
//! and calls the notifier. The flag is `SeqCst` like the push, and the emptiness check reads it
//! beside `head`, so the wake-up argument above holds for rings too.
//!
//! **Keepalive.** Each live [`PhysicalSender`] that keeps the program alive counts in `senders`
//! (as does each [`IrqSender`](crate::IrqSender)).
//! While the count is above zero, a program whose event queue is empty waits for input instead of
//! shutting down; the last sender to go calls the notifier so a waiting scheduler re-evaluates.

use alloc::boxed::Box;
use alloc::sync::Arc;
use core::any::Any;
use core::fmt;
use core::marker::PhantomData;
use core::ptr;

use crate::ring::RingDrain;
use crate::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::SeqCst};
use crate::time::Tag;

/// One value in flight from a sender to the scheduler.
struct Node {
    next: *mut Node,
    action: u32,
    program: u32,
    /// When it was sent (platform clock, nanoseconds), if the sender knew.
    sent_at: Option<u64>,
    /// The exact tag it is for, when the sender gave one ([`PhysicalSender::send_at_tag`]).
    at: Option<Tag>,
    value: Box<dyn Any + Send>,
}

type Notify = Box<dyn Fn() + Send + Sync>;

/// One registered ring, in a list that only grows while the inbox lives.
struct RingNode {
    next: *mut RingNode,
    ring: Arc<dyn RingDrain>,
}

/// The inbox of one program (see the module docs).
pub struct Inbox {
    head: AtomicPtr<Node>,
    senders: AtomicUsize,
    notify: AtomicPtr<Notify>,
    /// The rings of the program's [`IrqSender`](crate::IrqSender)s (pushed, never popped).
    rings: AtomicPtr<RingNode>,
    /// Set by a ring's sender after each send; cleared by the scheduler before it drains.
    rings_pending: AtomicBool,
}

// SAFETY: the raw pointers are owned nodes handed over through atomics; values are `Send`.
unsafe impl Send for Inbox {}
// SAFETY: all shared access goes through atomics; the notifier is `Sync`.
unsafe impl Sync for Inbox {}

/// A value taken from the inbox.
pub(crate) struct Arrival {
    pub(crate) action: u32,
    pub(crate) program: u32,
    pub(crate) sent_at: Option<u64>,
    pub(crate) at: Option<Tag>,
    pub(crate) value: Box<dyn Any + Send>,
}

impl Inbox {
    pub(crate) fn new() -> Inbox {
        Inbox {
            head: AtomicPtr::new(ptr::null_mut()),
            senders: AtomicUsize::new(0),
            notify: AtomicPtr::new(ptr::null_mut()),
            rings: AtomicPtr::new(ptr::null_mut()),
            rings_pending: AtomicBool::new(false),
        }
    }

    /// Registers a ring (when an [`IrqSender`](crate::IrqSender) is made).
    pub(crate) fn add_ring(&self, ring: Arc<dyn RingDrain>) {
        let node = Box::into_raw(Box::new(RingNode {
            next: ptr::null_mut(),
            ring,
        }));
        let mut head = self.rings.load(SeqCst);
        loop {
            // SAFETY: `node` is ours until the CAS publishes it.
            unsafe { (*node).next = head };
            match self.rings.compare_exchange_weak(head, node, SeqCst, SeqCst) {
                Ok(_) => break,
                Err(h) => head = h,
            }
        }
    }

    /// A ring's sender sent (or overflowed): flags it and wakes the scheduler.
    pub(crate) fn ring_pushed(&self) {
        // A read-modify-write, not a store: the scheduler's swap that reads this `true` must
        // also synchronise with every earlier sender's (release sequences continue through
        // RMWs, not through plain stores), or it could clear the flag and miss their values.
        // SeqCst: pairs with the scheduler's emptiness check (see the module docs).
        self.rings_pending.swap(true, SeqCst);
        self.wake();
    }

    /// Takes what every ring holds, oldest first per ring, clearing the pending flag first (so
    /// that a send after the drain passed its slot flags again); `overflow` gets each ring's
    /// overflows since the last drain, by action, when there are any.
    pub(crate) fn drain_rings(
        &self,
        f: &mut dyn FnMut(u32, u32, Option<u64>, Box<dyn Any + Send>),
        overflow: &mut dyn FnMut(u32, u32),
    ) {
        if !self.rings_pending.swap(false, SeqCst) {
            return;
        }
        let mut node = self.rings.load(SeqCst);
        while !node.is_null() {
            // SAFETY: ring nodes are freed only when the inbox drops.
            let n = unsafe { &*node };
            let lost = n.ring.drain(f);
            if lost > 0 {
                overflow(n.ring.action(), lost);
            }
            node = n.next;
        }
    }

    fn push(&self, node: Box<Node>) {
        let node = Box::into_raw(node);
        let mut head = self.head.load(SeqCst);
        loop {
            // SAFETY: `node` is ours until the CAS publishes it.
            unsafe { (*node).next = head };
            // SeqCst: pairs with the scheduler's emptiness check (see the module docs).
            match self.head.compare_exchange_weak(head, node, SeqCst, SeqCst) {
                Ok(_) => break,
                Err(h) => head = h,
            }
        }
        self.wake();
    }

    /// Calls the notifier, if one is installed.
    pub(crate) fn wake(&self) {
        let f = self.notify.load(SeqCst);
        if !f.is_null() {
            // SAFETY: the notifier is set once and freed only when the inbox drops, which cannot
            // happen while `self` is borrowed.
            unsafe { (*f)() }
        }
    }

    /// Installs the function that wakes a sleeping scheduler; returns `false` (and drops `f`) if
    /// one was installed already.
    pub fn set_notify(&self, f: Box<dyn Fn() + Send + Sync>) -> bool {
        let p = Box::into_raw(Box::new(f));
        // SeqCst: pairs with the senders' load in `wake` (see the module docs).
        match self
            .notify
            .compare_exchange(ptr::null_mut(), p, SeqCst, SeqCst)
        {
            Ok(_) => true,
            Err(_) => {
                // SAFETY: `p` was not published.
                drop(unsafe { Box::from_raw(p) });
                false
            }
        }
    }

    /// Whether nothing waits in the inbox.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head.load(SeqCst).is_null() && !self.rings_pending.load(SeqCst)
    }

    /// Whether a sender that keeps the program alive exists.
    pub fn keepalive(&self) -> bool {
        self.senders.load(SeqCst) > 0
    }

    /// Takes everything sent so far, oldest first.
    pub(crate) fn take_all(&self) -> Drain {
        let mut node = self.head.swap(ptr::null_mut(), SeqCst);
        // Reverse the stack into arrival order.
        let mut rev: *mut Node = ptr::null_mut();
        while !node.is_null() {
            // SAFETY: the swap made the whole list ours.
            let next = unsafe { (*node).next };
            // SAFETY: as above.
            unsafe { (*node).next = rev };
            rev = node;
            node = next;
        }
        Drain { next: rev }
    }

    pub(crate) fn sender_added(&self) {
        self.senders.fetch_add(1, SeqCst);
    }

    pub(crate) fn sender_dropped(&self) {
        if self.senders.fetch_sub(1, SeqCst) == 1 {
            self.wake();
        }
    }
}

impl Drop for Inbox {
    fn drop(&mut self) {
        drop(self.take_all());
        let f = self.notify.load(SeqCst);
        if !f.is_null() {
            // SAFETY: installed by `set_notify` with `Box::into_raw`; nobody else can reach it now.
            drop(unsafe { Box::from_raw(f) });
        }
        let mut node = self.rings.load(SeqCst);
        while !node.is_null() {
            // SAFETY: installed by `add_ring` with `Box::into_raw`; nobody else can reach it now.
            let n = unsafe { Box::from_raw(node) };
            node = n.next;
        }
    }
}

impl fmt::Debug for Inbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inbox")
            .field("empty", &self.is_empty())
            .field("senders", &self.senders.load(SeqCst))
            .finish()
    }
}

/// The values taken by one [`Inbox::take_all`], oldest first; frees what is not consumed.
pub(crate) struct Drain {
    next: *mut Node,
}

impl Iterator for Drain {
    type Item = Arrival;
    fn next(&mut self) -> Option<Arrival> {
        if self.next.is_null() {
            return None;
        }
        // SAFETY: the drain owns the list; each node is taken once.
        let node = unsafe { Box::from_raw(self.next) };
        self.next = node.next;
        Some(Arrival {
            action: node.action,
            program: node.program,
            sent_at: node.sent_at,
            at: node.at,
            value: node.value,
        })
    }
}

impl Drop for Drain {
    fn drop(&mut self) {
        for _ in self.by_ref() {}
    }
}

/// The platform clock used to stamp physical actions when they are sent, in nanoseconds; installed
/// once by the platform layer (motet-reactor installs `std::time::Instant`). Without one, values
/// are stamped when the scheduler takes them.
/// (A plain atomic even under loom: it is a process-wide setting, not part of the modelled protocol.)
static CLOCK: core::sync::atomic::AtomicPtr<()> =
    core::sync::atomic::AtomicPtr::new(ptr::null_mut());

/// Installs the platform's monotonic clock (nanoseconds) for stamping physical actions at send time.
/// It must be the clock the scheduler's platform reads.
pub fn set_clock(now: fn() -> u64) {
    CLOCK.store(now as *mut (), core::sync::atomic::Ordering::SeqCst);
}

pub(crate) fn clock_now() -> Option<u64> {
    let p = CLOCK.load(core::sync::atomic::Ordering::SeqCst);
    if p.is_null() {
        None
    } else {
        // SAFETY: only `set_clock` stores into CLOCK, always a `fn() -> u64`.
        let f: fn() -> u64 = unsafe { core::mem::transmute::<*mut (), fn() -> u64>(p) };
        Some(f())
    }
}

/// Schedules a [`PhysicalAction`](crate::PhysicalAction) from any thread: a timer callback, an
/// actor, an I/O thread. Cheap to clone. While a sender lives, a program with nothing else to do
/// waits for it instead of shutting down (keepalive).
///
/// **Not for interrupt handlers.** Each send allocates (a node and a box for the value), and an
/// allocator may lock or be unavailable in an interrupt handler; the notifier it calls may lock
/// too. From an interrupt handler use an [`IrqSender`](crate::IrqSender), which fills a ring
/// reserved in advance and allocates nothing.
pub struct PhysicalSender<T> {
    inbox: Arc<Inbox>,
    program: u32,
    action: u32,
    keepalive: bool,
    _t: PhantomData<fn(T)>,
}

impl<T: Send + 'static> PhysicalSender<T> {
    pub(crate) fn new(inbox: Arc<Inbox>, program: u32, action: u32, keepalive: bool) -> Self {
        if keepalive {
            inbox.sender_added();
        }
        PhysicalSender {
            inbox,
            program,
            action,
            keepalive,
            _t: PhantomData,
        }
    }

    /// Schedules the action with `value`, tagged from the physical clock now (plus the action's
    /// minimum delay). Allocates: not for interrupt handlers (see the type's docs).
    pub fn send(&self, value: T) {
        self.push(value, clock_now());
    }

    /// Schedules the action with `value`, tagged as if sent at `now` (platform clock, nanoseconds).
    pub fn send_at(&self, value: T, now: u64) {
        self.push(value, Some(now));
    }

    /// Schedules the action with `value` at exactly `tag`, not at a tag taken from the clock:
    /// for values whose tag is decided elsewhere, such as messages between the federates of a
    /// federated program, which arrive at the tag they were sent at plus the connection's delay.
    /// The scheduler must not have passed `tag` when it takes the value in
    /// ([`RunError::LateArrival`](crate::RunError::LateArrival) otherwise); a coordinator that
    /// grants tags only once every value for them has arrived ensures that.
    pub fn send_at_tag(&self, value: T, tag: Tag) {
        self.push_node(value, None, Some(tag));
    }

    /// A sender for the same action that does not keep the program alive (whatever this one
    /// does): for a handle stored in a reactor, which the program itself owns, while the threads
    /// that send hold senders that do ([`PhysicalSender::keeping_alive`]).
    pub fn passive(&self) -> PhysicalSender<T> {
        PhysicalSender::new(self.inbox.clone(), self.program, self.action, false)
    }

    /// A sender for the same action that keeps the program alive while it exists.
    pub fn keeping_alive(&self) -> PhysicalSender<T> {
        PhysicalSender::new(self.inbox.clone(), self.program, self.action, true)
    }

    fn push(&self, value: T, sent_at: Option<u64>) {
        self.push_node(value, sent_at, None);
    }

    fn push_node(&self, value: T, sent_at: Option<u64>, at: Option<Tag>) {
        self.inbox.push(Box::new(Node {
            next: ptr::null_mut(),
            action: self.action,
            program: self.program,
            sent_at,
            at,
            value: Box::new(value),
        }));
    }
}

impl<T> Clone for PhysicalSender<T> {
    fn clone(&self) -> Self {
        if self.keepalive {
            self.inbox.sender_added();
        }
        PhysicalSender {
            inbox: self.inbox.clone(),
            program: self.program,
            action: self.action,
            keepalive: self.keepalive,
            _t: PhantomData,
        }
    }
}

impl<T> Drop for PhysicalSender<T> {
    fn drop(&mut self) {
        if self.keepalive {
            self.inbox.sender_dropped();
        }
    }
}

impl<T> fmt::Debug for PhysicalSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PhysicalSender")
            .field("action", &self.action)
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn take_all_is_fifo_and_frees() {
        let inbox = Arc::new(Inbox::new());
        let s = PhysicalSender::<u32>::new(inbox.clone(), 1, 0, true);
        assert!(inbox.keepalive());
        for i in 0..5 {
            s.send_at(i, i as u64);
        }
        let got: Vec<u32> = inbox
            .take_all()
            .map(|a| *a.value.downcast::<u32>().unwrap())
            .collect();
        assert_eq!(got, [0, 1, 2, 3, 4]);
        assert!(inbox.is_empty());
        s.send_at(9, 0); // left in the inbox: freed by its drop
        drop(s);
        assert!(!inbox.keepalive());
    }

    #[test]
    fn passive_senders_do_not_keep_alive() {
        let inbox = Arc::new(Inbox::new());
        let root = PhysicalSender::<u32>::new(inbox.clone(), 1, 0, true).passive();
        assert!(
            !inbox.keepalive(),
            "the keepalive sender it came from is gone"
        );
        let live = root.keeping_alive();
        assert!(inbox.keepalive());
        let passive_clone = live.passive();
        drop(live);
        assert!(!inbox.keepalive());
        passive_clone.send_at(7, 0);
        root.send_at(8, 0);
        let got: Vec<u32> = inbox
            .take_all()
            .map(|a| *a.value.downcast::<u32>().unwrap())
            .collect();
        assert_eq!(got, [7, 8]);
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use alloc::vec::Vec;
    use loom::sync::{Arc as LArc, Condvar, Mutex};

    /// Two senders push while the scheduler alternates between draining and sleeping on a condition
    /// variable with the lock-check protocol of the module docs: every value is taken exactly once,
    /// in per-sender order, and the scheduler never sleeps forever with a value waiting (loom
    /// reports a deadlock if it would).
    #[test]
    fn loom_no_lost_value_or_wakeup() {
        loom::model(|| {
            let inbox = Arc::new(Inbox::new());
            let lock = LArc::new((Mutex::new(()), Condvar::new()));
            let l2 = lock.clone();
            assert!(inbox.set_notify(Box::new(move || {
                let _g = l2.0.lock().unwrap();
                l2.1.notify_all();
            })));
            let senders: Vec<_> = (0..2u32)
                .map(|k| {
                    let s = PhysicalSender::<u32>::new(inbox.clone(), 1, k, true);
                    loom::thread::spawn(move || {
                        s.send_at(k * 10, 0);
                        s.send_at(k * 10 + 1, 0);
                    })
                })
                .collect();
            let mut got: Vec<u32> = Vec::new();
            while got.len() < 4 {
                for a in inbox.take_all() {
                    got.push(*a.value.downcast::<u32>().unwrap());
                }
                if got.len() == 4 {
                    break;
                }
                let g = lock.0.lock().unwrap();
                if inbox.is_empty() && inbox.keepalive() {
                    drop(lock.1.wait(g).unwrap());
                }
            }
            for t in senders {
                t.join().unwrap();
            }
            for k in 0..2 {
                let mine: Vec<u32> = got.iter().copied().filter(|v| v / 10 == k).collect();
                assert_eq!(mine, [k * 10, k * 10 + 1]);
            }
        });
    }
}
