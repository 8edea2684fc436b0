//! Declaring a federated program: the whole program on one [`ProgramBuilder`] (reached through
//! [`FederatedBuilder`]'s `Deref`), plus the federates, which top-level reactor runs in which,
//! and the connections between federates.
//!
//! The same builder function runs in every process. Built for the whole program
//! ([`Role::Whole`]), connections between federates are ordinary connections and the program
//! runs in one process: the reference run. Built for one federate ([`Role::Federate`]), each such
//! connection becomes two generated top-level reactors: on the source side, one whose reaction
//! sends each value to the coordinator with its tag (plus the `after` delay); on the receiving
//! side, one whose physical action takes the value at exactly that tag
//! ([`PhysicalSender::send_at_tag`]) and sets the destination input. Every process builds both;
//! a federate's run switches off the reactors that are not its own.
//!
//! For a connection without delay, the sending reaction also has an output of its own connected
//! to an input that the receiving reaction reads without being triggered by it: a dependency
//! with no value, so that the levels of the reaction graph are those of the whole program, the
//! receiving reaction above the sending one. A federate that processes a tag provisionally stops
//! at the level of the reactions that read an input still unknown (see `federate.rs`); with
//! levels of the whole program, a zero-delay cycle between federates that is not a causality
//! loop of the whole program lets each federate run what the others wait for. A cycle that is a
//! causality loop is refused when building, in every role, as in one process.

use core::any::Any;
use core::ops::{Deref, DerefMut};
use core::time::Duration;
use std::sync::{Arc, Mutex};

use motet_reactor_core::{Input, Output, PhysicalSender, ProgramBuilder, ReactorId, Tag};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::FederatedError;
use crate::program::{Decoder, FederatedProgram, Injector, LinkEnds, Outgoing};
use crate::topology::{Link, Topology};
use crate::wire::{self, WireTag};

/// Which part of a federated program a process builds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// The whole program in one process; connections between federates are ordinary ones.
    Whole,
    /// The federate of this name.
    Federate(String),
}

/// A federate of a program being declared (see [`FederatedBuilder::federate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FederateId(pub(crate) u32);

/// A connection between federates, as declared.
pub(crate) struct LinkDecl {
    pub(crate) from_port: usize,
    pub(crate) to_port: usize,
    pub(crate) after: Option<u64>,
    pub(crate) physical: bool,
    /// The generated sending and receiving reactors (federate builds only).
    pub(crate) sender: Option<usize>,
    pub(crate) receiver: Option<usize>,
    /// The ports of the ordering connection from the sending reaction to the receiving one
    /// (federate builds, connections without delay).
    pub(crate) order: Option<(usize, usize)>,
}

/// Declares a federated program (see the module docs and the crate example).
pub struct FederatedBuilder {
    b: ProgramBuilder,
    role: Role,
    federates: Vec<String>,
    /// (top-level reactor, federate).
    assigned: Vec<(usize, u32)>,
    links: Vec<LinkDecl>,
    injectors: Vec<Option<Injector>>,
    ends: Vec<Option<LinkEnds>>,
    outbox: Arc<Mutex<Vec<Outgoing>>>,
    errors: Vec<String>,
}

impl Deref for FederatedBuilder {
    type Target = ProgramBuilder;
    fn deref(&self) -> &ProgramBuilder {
        &self.b
    }
}

impl DerefMut for FederatedBuilder {
    fn deref_mut(&mut self) -> &mut ProgramBuilder {
        &mut self.b
    }
}

impl core::fmt::Debug for FederatedBuilder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FederatedBuilder")
            .field("role", &self.role)
            .field("federates", &self.federates)
            .finish_non_exhaustive()
    }
}

impl FederatedBuilder {
    /// An empty federated program, built for `role`.
    pub fn new(role: Role) -> FederatedBuilder {
        FederatedBuilder {
            b: ProgramBuilder::new(),
            role,
            federates: Vec::new(),
            assigned: Vec::new(),
            links: Vec::new(),
            injectors: Vec::new(),
            ends: Vec::new(),
            outbox: Arc::new(Mutex::new(Vec::new())),
            errors: Vec::new(),
        }
    }

    /// What this process builds.
    pub fn role(&self) -> &Role {
        &self.role
    }

    /// Declares a federate (a process of the federated run); names are unique.
    pub fn federate(&mut self, name: &str) -> FederateId {
        if let Some(i) = self.federates.iter().position(|f| f == name) {
            self.errors
                .push(format!("federate {name} is declared twice"));
            return FederateId(i as u32);
        }
        self.federates.push(name.into());
        FederateId(self.federates.len() as u32 - 1)
    }

    /// Runs top-level reactor `reactor` (and everything it contains) in federate `fed`.
    pub fn assign<S>(&mut self, reactor: ReactorId<S>, fed: FederateId) {
        self.assigned.push((reactor.index(), fed.0));
    }

    /// Connects an output of one federate's top-level reactor to an input of another's (LF's
    /// `->` between federates): values arrive at the tag they were sent at.
    pub fn connect_federated<T>(&mut self, from: Output<T>, to: Input<T>)
    where
        T: Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
    {
        self.link(from, to, None);
    }

    /// As [`FederatedBuilder::connect_federated`] with a logical delay (LF's `after`): values
    /// arrive `delay` later (`Duration::ZERO`: one microstep later).
    pub fn connect_federated_after<T>(&mut self, from: Output<T>, to: Input<T>, delay: Duration)
    where
        T: Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
    {
        let ns = u64::try_from(delay.as_nanos()).unwrap_or(u64::MAX);
        self.link(from, to, Some(ns));
    }

    /// Connects physically (LF's `~>` between federates): each value goes straight to the
    /// receiving federate, not through the coordinator, and arrives at a tag taken from the
    /// receiver's clock. Such connections do not constrain grants, and their values' tags are not
    /// deterministic.
    pub fn connect_federated_physical<T>(&mut self, from: Output<T>, to: Input<T>)
    where
        T: Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
    {
        self.link_as(from, to, None, true);
    }

    fn link<T>(&mut self, from: Output<T>, to: Input<T>, after: Option<u64>)
    where
        T: Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
    {
        self.link_as(from, to, after, false);
    }

    fn link_as<T>(&mut self, from: Output<T>, to: Input<T>, after: Option<u64>, physical: bool)
    where
        T: Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
    {
        let k = self.links.len();
        let mut decl = LinkDecl {
            from_port: from.index(),
            to_port: to.index(),
            after,
            physical,
            sender: None,
            receiver: None,
            order: None,
        };
        if self.role == Role::Whole {
            match (physical, after) {
                (true, _) => self.b.connect_physical(from, to),
                (false, None) => self.b.connect(from, to),
                (false, Some(d)) => self.b.connect_after(from, to, Duration::from_nanos(d)),
            }
            self.injectors.push(None);
            self.ends.push(None);
            self.links.push(decl);
            return;
        }
        // Ordering ports (see the module docs): a connection without delay orders the receiving
        // reaction after the sending one.
        let ordered = !physical && after.is_none();
        // The sending side: a reaction that queues each value with its arrival tag.
        let sender = self.b.reactor(&format!("federated_out[{k}]"), ());
        let inp = self.b.input::<T, _>(sender, "in");
        self.b.connect(from, inp);
        let outbox = self.outbox.clone();
        let delay = crate::topology::Delay::of_connection(after);
        let order_out = ordered.then(|| self.b.output::<(), _>(sender, "order"));
        let mut send = self.b.reaction(sender, "send").trigger(inp);
        if let Some(o) = order_out {
            send = send.effect(o);
        }
        let send = send.body(move |_, ctx| {
            if let Some(v) = ctx.get(inp) {
                let tag = delay.apply(WireTag::from(ctx.tag()));
                let payload = wire::encode(v);
                if let Ok(mut q) = outbox.lock() {
                    q.push(Outgoing {
                        link: k as u32,
                        tag,
                        payload,
                    });
                }
            }
        });
        // The receiving side: a physical action fed at exact tags, forwarded to the input.
        let receiver = self.b.reactor(&format!("federated_in[{k}]"), ());
        let action = self
            .b
            .physical_action::<T, _>(receiver, "arrival", Duration::ZERO);
        let out = self.b.output::<T, _>(receiver, "out");
        self.b.connect(out, to);
        let order_in = ordered.then(|| self.b.input::<(), _>(receiver, "order"));
        let mut deliver = self
            .b
            .reaction(receiver, "deliver")
            .trigger(action)
            .effect(out);
        if let Some(i) = order_in {
            deliver = deliver.source(i);
        }
        let deliver = deliver.body(move |_, ctx| {
            if let Some(v) = ctx.get(action) {
                ctx.set(out, v.clone());
            }
        });
        if let (Some(o), Some(i)) = (order_out, order_in) {
            self.b.connect(o, i);
            decl.order = Some((o.index(), i.index()));
        }
        let tx: PhysicalSender<T> = self.b.sender(action);
        let inject: Injector = Box::new(move |tag: Tag, bytes: &[u8]| {
            let v: T = wire::decode(bytes)?;
            if physical {
                // Tagged from this federate's clock, as a physical action's value is.
                tx.send_at(v, crate::program::unix_now());
            } else {
                tx.send_at_tag(v, tag);
            }
            Ok(())
        });
        self.injectors.push(Some(inject));
        let decode: Option<Decoder> = (!physical).then(|| {
            Box::new(|bytes: &[u8]| {
                let v: T = wire::decode(bytes)?;
                Ok(Box::new(v) as Box<dyn Any + Send>)
            }) as Decoder
        });
        self.ends.push(Some(LinkEnds {
            send: send.index() as u32,
            deliver: deliver.index() as u32,
            action: action.index() as u32,
            decode,
        }));
        decl.sender = Some(sender.index());
        decl.receiver = Some(receiver.index());
        self.links.push(decl);
    }

    /// Builds the program and checks the federation: every user top-level reactor assigned to
    /// one federate, no plain connection between federates, the role's federate declared. A
    /// cycle of federated connections without delay is accepted (its federates process tags
    /// provisionally) unless it is a causality loop of the program's reactions, which fails as
    /// [`FederatedError::Build`] in every role.
    ///
    /// # Errors
    /// [`FederatedError::Build`] for the program's own errors, [`FederatedError::Federation`] for
    /// the federation's.
    pub fn build(self) -> Result<FederatedProgram, FederatedError> {
        let FederatedBuilder {
            b,
            role,
            federates,
            assigned,
            links,
            injectors,
            ends,
            outbox,
            mut errors,
        } = self;
        let program = b.build().map_err(FederatedError::Build)?;
        let g = program.graph();
        let n = g.reactors.len();
        // The federate of every reactor: top-level ones by assignment, generated ones by their
        // link, contained ones by their top-level ancestor.
        let mut fed_of: Vec<Option<u32>> = vec![None; n];
        for &(r, f) in &assigned {
            if r >= n {
                continue;
            }
            if g.reactors[r].parent.is_some() {
                errors.push(format!(
                    "{} is not a top-level reactor: only those are assigned to federates",
                    g.reactors[r].name
                ));
            }
            if fed_of[r].is_some_and(|x| x != f) {
                errors.push(format!("{} is assigned twice", g.reactors[r].name));
            }
            fed_of[r] = Some(f);
        }
        let top = |mut r: usize| {
            while let Some(p) = g.reactors[r].parent {
                r = p as usize;
            }
            r
        };
        let mut topo_links = Vec::new();
        for l in &links {
            let from = fed_of[top(g.ports[l.from_port].owner as usize)];
            let to = fed_of[top(g.ports[l.to_port].owner as usize)];
            let name = format!(
                "{} -> {}",
                g.ports[l.from_port].name, g.ports[l.to_port].name
            );
            match (from, to) {
                (Some(from), Some(to)) => {
                    if let Some(s) = l.sender {
                        fed_of[s] = Some(from);
                    }
                    if let Some(r) = l.receiver {
                        fed_of[r] = Some(to);
                    }
                    topo_links.push(Link {
                        from,
                        to,
                        after: l.after,
                        physical: l.physical,
                        name,
                    });
                }
                _ => errors.push(format!(
                    "federated connection {name}: both ends must lie in reactors assigned to federates"
                )),
            }
        }
        for (r, info) in g.reactors.iter().enumerate() {
            if info.parent.is_none() && !info.hidden && fed_of[r].is_none() {
                errors.push(format!("top-level reactor {} has no federate", info.name));
            }
        }
        // Connections not declared as federated must stay inside one federate.
        let federated_ports: Vec<(usize, usize)> = links
            .iter()
            .map(|l| (l.from_port, l.to_port))
            .chain(links.iter().filter_map(|l| l.order))
            .collect();
        for c in &g.connections {
            let (a, b) = (c.from as usize, c.to as usize);
            if federated_ports.contains(&(a, b)) {
                continue;
            }
            let fa = fed_of[top(g.ports[a].owner as usize)];
            let fb = fed_of[top(g.ports[b].owner as usize)];
            if let (Some(x), Some(y)) = (fa, fb) {
                if x != y {
                    errors.push(format!(
                        "connection {} -> {} crosses federates {} and {}: declare it with connect_federated",
                        g.ports[a].name, g.ports[b].name, federates[x as usize], federates[y as usize]
                    ));
                }
            }
        }
        let topology = Topology {
            federates,
            links: topo_links,
        };
        let me = match &role {
            Role::Whole => None,
            Role::Federate(name) => match topology.index(name) {
                Some(i) => Some(i),
                None => {
                    errors.push(format!("no federate is named {name}"));
                    None
                }
            },
        };
        if !errors.is_empty() {
            errors.dedup();
            return Err(FederatedError::Federation(errors.join("; ")));
        }
        Ok(FederatedProgram::new(
            program, topology, me, fed_of, injectors, ends, outbox,
        ))
    }
}
