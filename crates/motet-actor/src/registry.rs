//! A registry of named actors: [`Registry`].
//!
//! [`Registry::register`] binds a name to a typed address (an error if the name is taken),
//! [`Registry::lookup`] gives the typed address back (an error if the name is unknown or bound to
//! an actor of another message type), and an actor's names are removed when it stops (an exit
//! hook, as [`Addr::watch`] uses). A registry is a value: make one per application, subsystem or
//! runtime, and clone it to share it.
//!
//! A registered actor stays reachable while it is registered (the registry holds its [`Addr`]):
//! anyone may look it up and send to it, so it does not stop as
//! [`ExitReason::Unreachable`](crate::ExitReason::Unreachable). Unregister it to let it go.
//!
//! # The seam for a remote layer
//!
//! Each entry records the actor's id, the name of its message type and an erased typed address;
//! [`Registry::entries`] lists them. A remote layer extends the registry across nodes in two
//! places, without changing its callers: it publishes the local entries (names and message type
//! names) to its peers, and it registers the peers' actors locally under their names, as addresses
//! of the remote representation of [`Addr<M>`] (which forwards to the node). `lookup::<M>` then
//! answers for remote names exactly as for local ones, type check included; an entry's removal on
//! exit is, for a remote actor, the remote layer's to trigger when its node reports the exit.
//!
//! ```
//! use motet_actor::{spawn, Actor, Context, Registry, RegistryError};
//!
//! struct Logger;
//! impl Actor for Logger {
//!     type Msg = String;
//!     fn handle(&mut self, _: &mut Context<'_, Self>, _: String) {}
//! }
//!
//! let rt = motet_runtime::Runtime::builder().workers(1).build().unwrap();
//! let registry = Registry::new();
//! let logger = spawn(rt.handle(), Logger);
//! registry.register("logger", &logger).unwrap();
//! assert!(matches!(registry.register("logger", &logger), Err(RegistryError::Taken { .. })));
//! let found = registry.lookup::<String>("logger").unwrap();
//! assert_eq!(found, logger);
//! assert!(matches!(registry.lookup::<u32>("logger"), Err(RegistryError::WrongType { .. })));
//! ```

use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use crate::addr::Addr;
use crate::exit::ActorId;
use crate::weak::on_exit;

/// Why a registry operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegistryError {
    /// The name is bound to another registration.
    Taken {
        /// The name.
        name: String,
        /// The actor it is bound to.
        holder: ActorId,
    },
    /// No actor is registered under the name.
    NotFound(String),
    /// The name is bound to an actor of another message type.
    WrongType {
        /// The name.
        name: String,
        /// The message type asked for.
        expected: &'static str,
        /// The message type of the registered actor.
        found: &'static str,
    },
    /// The actor to register has stopped.
    Stopped,
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::Taken { name, holder } => {
                write!(f, "the name {name:?} is already registered by {holder}")
            }
            RegistryError::NotFound(name) => write!(f, "no actor is registered as {name:?}"),
            RegistryError::WrongType {
                name,
                expected,
                found,
            } => write!(
                f,
                "{name:?} accepts messages of type {found}, not {expected}"
            ),
            RegistryError::Stopped => f.write_str("the actor has stopped"),
        }
    }
}

impl std::error::Error for RegistryError {}

struct Entry {
    id: ActorId,
    type_name: &'static str,
    /// An `Addr<M>` of the message type named by `type_name`.
    addr: Box<dyn Any + Send + Sync>,
}

/// One registered name, as [`Registry::entries`] lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistryEntry {
    /// The name.
    pub name: String,
    /// The registered actor.
    pub id: ActorId,
    /// The name of its message type.
    pub type_name: &'static str,
}

#[derive(Default)]
struct Names {
    by_name: HashMap<String, Entry>,
    /// Actors with an exit hook of this registry that has not run yet: one hook per actor, however
    /// many names it gets.
    hooked: HashSet<ActorId>,
}

#[derive(Default)]
struct Shared {
    names: Mutex<Names>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Names> {
        self.names.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The actor `id` stopped: removes its names. The entries (addresses) are dropped after the
    /// lock is released: dropping an address may stop an actor on this thread.
    fn exited(&self, id: ActorId) {
        let removed: Vec<Entry> = {
            let mut names = self.lock();
            names.hooked.remove(&id);
            let gone: Vec<String> = names
                .by_name
                .iter()
                .filter(|(_, e)| e.id == id)
                .map(|(n, _)| n.clone())
                .collect();
            gone.iter()
                .filter_map(|n| names.by_name.remove(n))
                .collect()
        };
        drop(removed);
    }
}

/// Named actors, removed when they stop (see the module docs). Cloning gives another handle to the
/// same names.
#[derive(Clone, Default)]
pub struct Registry {
    shared: Arc<Shared>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Binds `name` to the actor behind `addr`, until it stops or [`Registry::unregister`].
    ///
    /// # Errors
    /// [`RegistryError::Taken`] if the name is bound (even to the same actor);
    /// [`RegistryError::Stopped`] if the actor has stopped.
    pub fn register<M: Send + 'static>(
        &self,
        name: impl Into<String>,
        addr: &Addr<M>,
    ) -> Result<(), RegistryError> {
        let name = name.into();
        if addr.is_stopped() {
            return Err(RegistryError::Stopped);
        }
        let id = addr.id();
        let hook = {
            let mut names = self.shared.lock();
            if let Some(entry) = names.by_name.get(&name) {
                return Err(RegistryError::Taken {
                    name,
                    holder: entry.id,
                });
            }
            let entry = Entry {
                id,
                type_name: std::any::type_name::<M>(),
                addr: Box::new(addr.clone()),
            };
            names.by_name.insert(name, entry);
            names.hooked.insert(id)
        };
        // Registered after the entry is in, so that an actor that stopped meanwhile is removed at
        // once by its hook. The hook holds the registry weakly: an actor does not keep it.
        if hook {
            let registry: Weak<Shared> = Arc::downgrade(&self.shared);
            on_exit(addr, move |_| {
                if let Some(shared) = registry.upgrade() {
                    shared.exited(id);
                }
            });
        }
        Ok(())
    }

    /// The typed address registered as `name`.
    ///
    /// # Errors
    /// [`RegistryError::NotFound`] if nothing is registered under the name;
    /// [`RegistryError::WrongType`] if the actor accepts another message type than `M`.
    pub fn lookup<M: Send + 'static>(&self, name: &str) -> Result<Addr<M>, RegistryError> {
        let names = self.shared.lock();
        let entry = names
            .by_name
            .get(name)
            .ok_or_else(|| RegistryError::NotFound(name.to_owned()))?;
        match entry.addr.downcast_ref::<Addr<M>>() {
            Some(addr) => Ok(addr.clone()),
            None => Err(RegistryError::WrongType {
                name: name.to_owned(),
                expected: std::any::type_name::<M>(),
                found: entry.type_name,
            }),
        }
    }

    /// Removes `name`; false if it was not registered.
    pub fn unregister(&self, name: &str) -> bool {
        let removed = self.shared.lock().by_name.remove(name);
        removed.is_some()
    }

    /// Every registered name, with its actor and message type (what a remote layer would publish).
    pub fn entries(&self) -> Vec<RegistryEntry> {
        let names = self.shared.lock();
        let mut list: Vec<RegistryEntry> = names
            .by_name
            .iter()
            .map(|(name, e)| RegistryEntry {
                name: name.clone(),
                id: e.id,
                type_name: e.type_name,
            })
            .collect();
        drop(names);
        list.sort_by(|a, b| a.name.cmp(&b.name));
        list
    }

    /// Whether `name` is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.shared.lock().by_name.contains_key(name)
    }

    /// The number of registered names.
    pub fn len(&self) -> usize {
        self.shared.lock().by_name.len()
    }

    /// Whether no name is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Registry({} names)", self.len())
    }
}
