//! Connecting ports: the [`Connection`] options, the pairing of channel lists (with the
//! warnings of uneven widths), the check that a connection is one LF allows, and the reactor
//! generated for each delayed (`after` or physical) connection, as LF generates one.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::time::Duration;

use super::decl::ConnectionDecl;
use super::elements::ActionSpec;
use super::ProgramBuilder;
use crate::error::{BuildError, Warning};
use crate::graph::{ConnectionKind, PortKind};
use crate::ids::{Element, Input, LogicalAction};
use crate::inbox::PhysicalSender;
use crate::ports::Ports;
use crate::time::nanos;

/// Options of a connection: `after` a logical delay, physical, broadcast.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Connection {
    after: Option<u64>,
    physical: bool,
    broadcast: bool,
}

impl Connection {
    /// A plain connection.
    pub fn new() -> Connection {
        Connection::default()
    }

    /// Delivers each value `d` later in logical time (`Duration::ZERO`: one microstep later).
    pub fn after(mut self, d: Duration) -> Connection {
        self.after = Some(nanos(d));
        self
    }

    /// Delivers each value at a tag taken from the physical clock (LF's `~>`).
    pub fn physical(mut self) -> Connection {
        self.physical = true;
        self
    }

    /// Repeats the source list until the destination list is full (LF's `(x)+`).
    pub fn broadcast(mut self) -> Connection {
        self.broadcast = true;
        self
    }
}

impl ProgramBuilder {
    /// Connects `from` to `to` channel by channel (LF's `->`); with different widths only the first
    /// `min` channels are connected and a [`Warning`] is recorded.
    pub fn connect<T: Send + Sync + 'static>(
        &mut self,
        from: impl Into<Ports<T>>,
        to: impl Into<Ports<T>>,
    ) {
        self.connect_plain(from.into(), to.into(), false);
    }

    /// Connects `from`, repeated, to every channel of `to` (LF's `(from)+ -> to`).
    pub fn connect_broadcast<T: Send + Sync + 'static>(
        &mut self,
        from: impl Into<Ports<T>>,
        to: impl Into<Ports<T>>,
    ) {
        self.connect_plain(from.into(), to.into(), true);
    }

    /// Connects with a logical delay (LF's `after`): each value arrives `delay` later
    /// (`Duration::ZERO`: one microstep later).
    pub fn connect_after<T: Clone + Send + Sync + 'static>(
        &mut self,
        from: impl Into<Ports<T>>,
        to: impl Into<Ports<T>>,
        delay: Duration,
    ) {
        self.connect_with(from, to, Connection::new().after(delay));
    }

    /// Connects physically (LF's `~>`): each value arrives at a tag from the physical clock.
    pub fn connect_physical<T: Clone + Send + Sync + 'static>(
        &mut self,
        from: impl Into<Ports<T>>,
        to: impl Into<Ports<T>>,
    ) {
        self.connect_with(from, to, Connection::new().physical());
    }

    /// Connects with any combination of [`Connection`] options.
    pub fn connect_with<T: Clone + Send + Sync + 'static>(
        &mut self,
        from: impl Into<Ports<T>>,
        to: impl Into<Ports<T>>,
        options: Connection,
    ) {
        let pairs = self.pairs(from.into(), to.into(), options.broadcast);
        for (a, b) in pairs {
            if options.physical {
                self.delayed::<T>(a, b, None);
            } else if let Some(d) = options.after {
                self.delayed::<T>(a, b, Some(d));
            } else {
                self.plain(a, b);
            }
        }
    }

    /// Connects the channel pairs of `from` and `to` (see [`ProgramBuilder::pairs`]) plainly.
    fn connect_plain<T>(&mut self, from: Ports<T>, to: Ports<T>, broadcast: bool) {
        for (a, b) in self.pairs(from, to, broadcast) {
            self.plain(a, b);
        }
    }

    /// The channel pairs that connecting `from` to `to` joins: channel by channel up to the
    /// shorter list (with a warning if the widths differ), or, with `broadcast`, `from` repeated
    /// until `to` is full (with a warning if it does not divide `to`'s width).
    fn pairs<T>(&mut self, from: Ports<T>, to: Ports<T>, broadcast: bool) -> Vec<(u32, u32)> {
        for p in [from.prog, to.prog].into_iter().flatten() {
            if !self.check(p, "connected port") {
                return Vec::new();
            }
        }
        // A mutation's builder holds only the ports it declares; those of the running program
        // are connected by `Mutation::connect`.
        let outside = from.ixs.iter().chain(&to.ixs).copied();
        if let Some(p) = outside
            .into_iter()
            .find(|&p| self.local_port(p) >= self.ports.len())
        {
            self.errors.push(BuildError::Mutation {
                element: format!("port #{p}"),
                reason: "a port of the running program is connected with Mutation::connect",
            });
            return Vec::new();
        }
        let (n, m) = (from.ixs.len(), to.ixs.len());
        let label = || match (from.ixs.first(), to.ixs.first()) {
            (Some(&a), Some(&b)) => format!(
                "{} -> {}",
                self.ports[self.local_port(a)].name,
                self.ports[self.local_port(b)].name
            ),
            _ => String::from("(empty)"),
        };
        if broadcast {
            if n == 0 {
                return Vec::new();
            }
            if m % n != 0 {
                let connection = label();
                self.warnings.push(Warning::UnevenBroadcast {
                    connection,
                    from: n,
                    to: m,
                });
            }
            return (0..m).map(|i| (from.ixs[i % n], to.ixs[i])).collect();
        }
        if n != m {
            let connection = label();
            self.warnings.push(Warning::WidthMismatch {
                connection,
                from: n,
                to: m,
            });
        }
        from.ixs
            .iter()
            .copied()
            .zip(to.ixs.iter().copied())
            .collect()
    }

    /// Checks that `a -> b` is a connection LF allows, returning the reactor that contains it.
    fn connection_scope(&mut self, a: u32, b: u32) -> Option<u32> {
        let (pa, pb) = (
            &self.ports[self.local_port(a)],
            &self.ports[self.local_port(b)],
        );
        let (ra, rb) = (pa.owner, pb.owner);
        let parent = |r: u32| self.local_reactor(r).and_then(|l| self.reactors[l].parent);
        let ok = match (pa.kind, pb.kind) {
            (PortKind::Output, PortKind::Input) => parent(ra) == parent(rb),
            (PortKind::Input, PortKind::Input) => parent(rb) == Some(ra),
            (PortKind::Output, PortKind::Output) => parent(ra) == Some(rb),
            (PortKind::Input, PortKind::Output) => ra == rb,
        };
        if ok {
            let scope = match (pa.kind, pb.kind) {
                (PortKind::Output, PortKind::Input) => parent(ra),
                (PortKind::Input, _) => Some(ra),
                (PortKind::Output, PortKind::Output) => Some(rb),
            };
            return Some(scope.unwrap_or(u32::MAX));
        }
        let reason = match (pa.kind, pb.kind) {
            (PortKind::Output, PortKind::Input) => {
                "an output connects to an input of a sibling reactor"
            }
            (PortKind::Input, PortKind::Input) => {
                "an input connects down to an input of a contained reactor"
            }
            (PortKind::Output, PortKind::Output) => {
                "an output connects up to an output of its container"
            }
            (PortKind::Input, PortKind::Output) => {
                "an input connects through to an output of the same reactor"
            }
        };
        self.errors.push(BuildError::InvalidConnection {
            from: pa.name.clone(),
            to: pb.name.clone(),
            reason,
        });
        None
    }

    /// The mode of the container that a connection from port `a` to port `b` lies in: the mode
    /// its contained endpoints are placed in (both, for a connection between siblings), or none.
    /// The reactor generated for a delayed connection is placed there, so that its events follow
    /// the mode as the endpoints' do: held while it is inactive, resumed by a history entry,
    /// dropped by a reset entry (LF's `after` inside a mode).
    fn connection_mode(&self, a: u32, b: u32) -> Option<u32> {
        let (pa, pb) = (&self.ports[a as usize], &self.ports[b as usize]);
        let placed = |r: u32| self.reactors[r as usize].mode;
        match (pa.kind, pb.kind) {
            (PortKind::Output, PortKind::Input) => match (placed(pa.owner), placed(pb.owner)) {
                (Some(x), Some(y)) if x != y => None,
                (x, y) => x.or(y),
            },
            (PortKind::Input, PortKind::Input) => placed(pb.owner),
            (PortKind::Output, PortKind::Output) => placed(pa.owner),
            (PortKind::Input, PortKind::Output) => None,
        }
    }

    /// A plain connection from port `a` to port `b`: `b` reads `a`'s value (its slot); a port has
    /// one source at most.
    fn plain(&mut self, a: u32, b: u32) {
        if self.connection_scope(a, b).is_none() {
            return;
        }
        let (la, lb) = (self.local_port(a), self.local_port(b));
        let port = &mut self.ports[lb];
        if let Some(prev) = port.upstream {
            let sources = alloc::vec![
                self.ports[self.local_port(prev)].name.clone(),
                self.ports[la].name.clone()
            ];
            let port = self.ports[lb].name.clone();
            self.errors
                .push(BuildError::MultipleSources { port, sources });
            return;
        }
        port.upstream = Some(a);
        self.connections.push(ConnectionDecl {
            from: a,
            to: b,
            kind: ConnectionKind::Plain,
        });
    }

    /// An `after` (`Some(delay)`) or physical (`None`) connection: a generated reactor with an action
    /// and two reactions, as LF generates a delay reactor: one forwards each value into the action,
    /// the other delivers the action's value to the destination.
    fn delayed<T: Clone + Send + Sync + 'static>(&mut self, a: u32, b: u32, delay: Option<u64>) {
        let Some(scope) = self.connection_scope(a, b) else {
            return;
        };
        let parent = (scope != u32::MAX).then_some(scope);
        let name = format!(
            "delay({} -> {})",
            self.ports[self.local_port(a)].name,
            self.ports[self.local_port(b)].name
        );
        let mode = self.connection_mode(a, b);
        let reactor = self.add_reactor(&name, parent, mode, true, ());
        let physical = delay.is_none();
        let spec = ActionSpec::delay(Duration::from_nanos(delay.unwrap_or(0)));
        let act = self.add_action::<T, ()>(reactor.into(), "action", physical, spec, true);
        // Handles for the generated bodies: a port is read and set through its index, whatever
        // its kind, and the action is scheduled as a logical one when the connection is not
        // physical.
        let src = Input::<T>::at(self.prog, a);
        let dst = Input::<T>::at(self.prog, b);
        let logical = LogicalAction::<T>::at(self.prog, act);
        self.connections.push(ConnectionDecl {
            from: a,
            to: b,
            kind: match delay {
                Some(d) => ConnectionKind::After(d),
                None => ConnectionKind::Physical,
            },
        });
        // Deliver first: declaring it before the forwarding reaction keeps a feedback loop through
        // the delay acyclic (the forwarder may depend on what the delivered value causes).
        self.hidden_reaction(
            reactor.ix,
            "deliver",
            Element::Action(act),
            Element::Ports { start: b, len: 1 },
            move |ctx| {
                if let Some(v) = ctx.get(logical) {
                    ctx.set(dst, v.clone());
                }
            },
        );
        let sender =
            physical.then(|| PhysicalSender::<T>::new(self.inbox.clone(), self.prog, act, false));
        self.hidden_reaction(
            reactor.ix,
            "forward",
            Element::Ports { start: a, len: 1 },
            Element::Action(act),
            move |ctx| {
                if let Some(v) = ctx.get(src) {
                    match &sender {
                        Some(sender) => sender.send_at(v.clone(), ctx.physical_now()),
                        None => ctx.schedule(logical, v.clone(), Duration::ZERO),
                    }
                }
            },
        );
    }
}
