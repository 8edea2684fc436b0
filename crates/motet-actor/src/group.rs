//! Publish/subscribe groups (CAF's groups, the topics of Akka's receptionist): [`Group<M>`].
//!
//! Actors join and leave a group; [`Group::publish`] sends a clone of a message to every member.
//! A member leaves by itself when it stops (an exit hook, as [`Addr::watch`] uses, removes it).
//!
//! # Linearisation
//!
//! The member list is behind a reader-writer lock. A publish holds the read lock while it pushes to
//! every member; [`Group::join`] and [`Group::leave`] take the write lock. So each operation takes
//! effect at the moment it acquires the lock, and once `leave` has returned no publish can push
//! to the member any more: a publish either finished its pushes before the leave (its messages may
//! still be in the member's mailbox) or starts after it and skips the member. Publishes from one
//! thread reach each member in the order they were made; concurrent publishes run side by side.
//!
//! A member stopping is applied as soon as possible: its exit hook removes it at once unless a
//! publish holds the lock on that thread or another, in which case it is recorded and removed by
//! the next `join`, `leave`, [`Group::len`] or [`Group::members`]. A stopped member never receives
//! anything anyway (its mailbox is closed), so `publish` does not count it.
//!
//! Membership holds an [`Addr`]: a member stays reachable while it is in a group (it does not stop
//! as [`ExitReason::Unreachable`](crate::ExitReason::Unreachable)); leave the group, or drop it, to
//! let it go. A group costs each actor that ever joined it one exit watch until the actor stops.
//!
//! ```
//! use std::sync::atomic::{AtomicU32, Ordering};
//! use std::sync::Arc;
//! use motet_actor::{spawn, Actor, Context, Group};
//!
//! struct Listener(Arc<AtomicU32>);
//! impl Actor for Listener {
//!     type Msg = u32;
//!     fn handle(&mut self, _: &mut Context<'_, Self>, n: u32) {
//!         self.0.fetch_add(n, Ordering::SeqCst);
//!     }
//! }
//!
//! let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
//! let sum = Arc::new(AtomicU32::new(0));
//! let group = Group::new();
//! for _ in 0..3 {
//!     group.join(&spawn(rt.handle(), Listener(sum.clone())));
//! }
//! assert_eq!(group.publish(2), 3);
//! rt.wait_quiescent();
//! assert_eq!(sum.load(Ordering::SeqCst), 6);
//! ```

use std::collections::HashSet;
use std::fmt;
use std::sync::{
    Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError, Weak,
};

use crate::addr::Addr;
use crate::exit::ActorId;
use crate::weak::on_exit;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

struct Shared<M: Send + 'static> {
    members: RwLock<Vec<Addr<M>>>,
    /// Members whose exit hook could not take the write lock (a publish held the read lock).
    departed: Mutex<Vec<ActorId>>,
    /// Actors with an exit hook of this group that has not run yet: one hook per actor, however
    /// often it joins and leaves.
    hooked: Mutex<HashSet<ActorId>>,
}

impl<M: Send + 'static> Shared<M> {
    fn read(&self) -> RwLockReadGuard<'_, Vec<Addr<M>>> {
        self.members.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The write lock, with the departures recorded meanwhile applied. The removed addresses are
    /// handed back to be dropped after the lock is released (dropping an address may stop an actor
    /// on this thread, whose exit hook takes the lock).
    fn write(&self) -> (RwLockWriteGuard<'_, Vec<Addr<M>>>, Vec<Addr<M>>) {
        let mut members = self.members.write().unwrap_or_else(|e| e.into_inner());
        let departed = std::mem::take(&mut *lock(&self.departed));
        let mut removed = Vec::new();
        for id in departed {
            if let Some(i) = members.iter().position(|m| m.id() == id) {
                removed.push(members.swap_remove(i));
            }
        }
        (members, removed)
    }

    /// A member stopped: remove it now if the lock is free, otherwise record it.
    fn depart(&self, id: ActorId) {
        let removed = match self.members.try_write() {
            Ok(mut members) => members
                .iter()
                .position(|m| m.id() == id)
                .map(|i| members.swap_remove(i)),
            Err(TryLockError::Poisoned(e)) => {
                let mut members = e.into_inner();
                members
                    .iter()
                    .position(|m| m.id() == id)
                    .map(|i| members.swap_remove(i))
            }
            Err(TryLockError::WouldBlock) => {
                lock(&self.departed).push(id);
                None
            }
        };
        drop(removed);
    }
}

/// A publish/subscribe group of actors accepting `M` (see the module docs). Cloning a group gives
/// another handle to the same members.
pub struct Group<M: Send + 'static> {
    shared: Arc<Shared<M>>,
}

impl<M: Send + 'static> Group<M> {
    /// An empty group.
    pub fn new() -> Group<M> {
        Group {
            shared: Arc::new(Shared {
                members: RwLock::new(Vec::new()),
                departed: Mutex::new(Vec::new()),
                hooked: Mutex::new(HashSet::new()),
            }),
        }
    }

    /// Adds the actor behind `addr`; false if it already was a member or has stopped.
    pub fn join(&self, addr: &Addr<M>) -> bool {
        if addr.is_stopped() {
            return false;
        }
        {
            let (mut members, removed) = self.shared.write();
            if members.iter().any(|m| m == addr) {
                drop(members);
                drop(removed);
                return false;
            }
            members.push(addr.clone());
            drop(members);
            drop(removed);
        }
        // Registered after the member is in the list, so that a member that has stopped meanwhile
        // is removed at once by its hook. The hook forgets the actor before it removes it: a join
        // between the two then installs a hook of its own, which runs at once.
        let id = addr.id();
        if !lock(&self.shared.hooked).insert(id) {
            return true;
        }
        let group: Weak<Shared<M>> = Arc::downgrade(&self.shared);
        on_exit(addr, move |_| {
            if let Some(shared) = group.upgrade() {
                lock(&shared.hooked).remove(&id);
                shared.depart(id);
            }
        });
        true
    }

    /// Removes the actor behind `addr`; false if it was not a member. Once this returns, no
    /// publish reaches it (see the module docs).
    pub fn leave(&self, addr: &Addr<M>) -> bool {
        self.leave_id(addr.id())
    }

    /// Removes the member with identity `id`; false if there was none.
    pub fn leave_id(&self, id: ActorId) -> bool {
        let (mut members, mut removed) = self.shared.write();
        let found = members.iter().position(|m| m.id() == id);
        if let Some(i) = found {
            removed.push(members.swap_remove(i));
        }
        drop(members);
        drop(removed);
        found.is_some()
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        let (members, removed) = self.shared.write();
        let n = members.len();
        drop(members);
        drop(removed);
        n
    }

    /// Whether the group has no member.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The members' identities.
    pub fn members(&self) -> Vec<ActorId> {
        let (members, removed) = self.shared.write();
        let ids = members.iter().map(Addr::id).collect();
        drop(members);
        drop(removed);
        ids
    }
}

impl<M: Clone + Send + 'static> Group<M> {
    /// Sends a clone of `msg` to every member; returns how many accepted it (a member that stopped
    /// and is not removed yet does not).
    pub fn publish(&self, msg: M) -> usize {
        let members = self.shared.read();
        let Some((last, rest)) = members.split_last() else {
            return 0;
        };
        let mut sent = 0;
        for member in rest {
            sent += usize::from(member.tell(msg.clone()).is_ok());
        }
        sent += usize::from(last.tell(msg).is_ok());
        sent
    }
}

impl<M: Send + 'static> Default for Group<M> {
    fn default() -> Group<M> {
        Group::new()
    }
}

impl<M: Send + 'static> Clone for Group<M> {
    fn clone(&self) -> Group<M> {
        Group {
            shared: self.shared.clone(),
        }
    }
}

impl<M: Send + 'static> fmt::Debug for Group<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Group({} members)", self.shared.read().len())
    }
}
