//! Session types: channels whose protocol the compiler checks.
//!
//! A session is a pair of endpoints, [`Chan<P>`] and [`Chan<P::Dual>`](Session::Dual), made by
//! [`session`]. The protocol `P` is a type built from
//!
//! - [`Send<T, P>`]: send a `T`, then continue as `P`;
//! - [`Recv<T, P>`]: receive a `T`, then continue as `P`;
//! - [`Choose<P, Q>`]: pick a branch ([`Chan::left`] continues as `P`, [`Chan::right`] as `Q`);
//! - [`Offer<P, Q>`]: let the peer pick ([`Chan::offer`] returns a [`Branch`]);
//! - [`Rec<P>`] and [`Var<N>`]: recursion, with de Bruijn indices ([`Z`], [`S<N>`]): `Var<Z>` jumps
//!   back to the innermost enclosing `Rec`;
//! - [`End`]: the session is over ([`Chan::close`]).
//!
//! The dual of a protocol (what the other endpoint must do) is computed by the type system:
//! `Send` and `Recv` swap, so do `Choose` and `Offer`. Each operation consumes the endpoint and
//! returns it at its next protocol state, so a process that deviates from its protocol (sends the
//! wrong type, sends when it should receive, skips a choice, uses the endpoint after `End`) does not
//! compile.
//!
//! ```
//! use motet_process::session::{session, Branch, Choose, End, Offer, Rec, Recv, Send, Var, Z};
//! use motet_process::ProcessSystem;
//!
//! // The server offers, repeatedly: add two numbers, or stop.
//! type Server = Rec<Offer<Recv<u64, Recv<u64, Send<u64, Var<Z>>>>, End>>;
//! type Client = <Server as motet_process::session::Session>::Dual;
//!
//! let rt = motet_runtime::Runtime::builder().workers(2).build().unwrap();
//! let system = ProcessSystem::new(rt.handle());
//! let (server, client): (_, motet_process::session::Chan<Client>) = session::<Server>();
//! system.spawn(async move {
//!     let mut chan = server.enter();
//!     loop {
//!         match chan.offer().await.unwrap() {
//!             Branch::Left(add) => {
//!                 let (a, add) = add.recv().await.unwrap();
//!                 let (b, add) = add.recv().await.unwrap();
//!                 chan = add.send(a + b).unwrap().zero();
//!             }
//!             Branch::Right(end) => return end.close(),
//!         }
//!     }
//! });
//! let sum = system
//!     .block_on(async move {
//!         let chan = client.enter().left().unwrap().send(2).unwrap().send(3).unwrap();
//!         let (sum, chan) = chan.recv().await.unwrap();
//!         chan.zero().right().unwrap().close();
//!         sum
//!     })
//!     .unwrap();
//! assert_eq!(sum, 5);
//! system.wait().unwrap();
//! ```
//!
//! # Dropping a session early
//!
//! An endpoint dropped before `End` disconnects the session: the peer's next receive or offer
//! returns [`Disconnected`], and its sends return the value in a [`Disconnected`]. That is how the
//! error is made visible (a `Drop` cannot tell `End` from other states without specialisation, so it
//! cannot panic or log selectively); in addition [`Chan`] is `#[must_use]`, so discarding the
//! endpoint an operation returns is a compiler warning.
//!
//! Messages travel boxed over a pair of unbounded channels (one box per value; choices are sent
//! unboxed), so sessions are for protocols, not for the hottest paths.

use std::any::Any;
use std::fmt;
use std::marker::PhantomData;

use crate::channel::{self, Receiver, Sender};

/// A protocol state. Implemented by [`End`], [`Send`], [`Recv`], [`Choose`], [`Offer`], [`Rec`] and
/// [`Var`]; `Dual` is what the peer does at the same point.
pub trait Session: 'static {
    /// The peer's protocol.
    type Dual: Session<Dual = Self>;
}

/// The session is over.
pub struct End;

/// Send a `T`, then continue as `P`.
pub struct Send<T, P>(PhantomData<fn() -> (T, P)>);

/// Receive a `T`, then continue as `P`.
pub struct Recv<T, P>(PhantomData<fn() -> (T, P)>);

/// Choose between continuing as `P` (left) or `Q` (right).
pub struct Choose<P, Q>(PhantomData<fn() -> (P, Q)>);

/// Let the peer choose between `P` (left) and `Q` (right).
pub struct Offer<P, Q>(PhantomData<fn() -> (P, Q)>);

/// A recursion point: `P`, in which [`Var<Z>`] continues as this `Rec<P>` again.
pub struct Rec<P>(PhantomData<fn() -> P>);

/// A jump back to an enclosing [`Rec`]: `Var<Z>` to the innermost, `Var<S<Z>>` to the one around
/// it, and so on.
pub struct Var<N>(PhantomData<fn() -> N>);

/// De Bruijn index zero (the innermost [`Rec`]).
pub struct Z;

/// The index after `N`.
pub struct S<N>(PhantomData<fn() -> N>);

/// A de Bruijn index ([`Z`], [`S<N>`]).
pub trait Nat: 'static {}
impl Nat for Z {}
impl<N: Nat> Nat for S<N> {}

impl Session for End {
    type Dual = End;
}

impl<T: std::marker::Send + 'static, P: Session> Session for Send<T, P> {
    type Dual = Recv<T, P::Dual>;
}

impl<T: std::marker::Send + 'static, P: Session> Session for Recv<T, P> {
    type Dual = Send<T, P::Dual>;
}

impl<P: Session, Q: Session> Session for Choose<P, Q> {
    type Dual = Offer<P::Dual, Q::Dual>;
}

impl<P: Session, Q: Session> Session for Offer<P, Q> {
    type Dual = Choose<P::Dual, Q::Dual>;
}

impl<P: Session> Session for Rec<P> {
    type Dual = Rec<P::Dual>;
}

impl<N: Nat> Session for Var<N> {
    type Dual = Var<N>;
}

/// What travels between the two endpoints.
enum Carrier {
    Value(Box<dyn Any + std::marker::Send>),
    Left,
    Right,
}

/// The peer's endpoint was dropped before the protocol reached [`End`]. A failed send holds the
/// value it could not deliver; a failed receive or offer holds `()`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Disconnected<T = ()>(pub T);

impl<T> fmt::Debug for Disconnected<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Disconnected(..)")
    }
}

impl<T> fmt::Display for Disconnected<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the peer dropped its session endpoint before the end of the protocol")
    }
}

impl<T> std::error::Error for Disconnected<T> {}

/// What [`Chan::offer`] returns: the endpoint in the branch the peer chose.
pub type Offered<P, Q, E> = Branch<Chan<P, E>, Chan<Q, E>>;

/// The branch the peer chose at an [`Offer`].
#[derive(Debug)]
pub enum Branch<L, R> {
    /// The peer chose the left protocol.
    Left(L),
    /// The peer chose the right protocol.
    Right(R),
}

/// One endpoint of a session, at protocol state `P`; `E` is the stack of enclosing [`Rec`] bodies
/// (managed by [`Chan::enter`], [`Chan::zero`] and [`Chan::succ`]; `()` outside any recursion).
#[must_use = "dropping a session endpoint before `End` disconnects the peer"]
pub struct Chan<P, E = ()> {
    tx: Sender<Carrier>,
    rx: Receiver<Carrier>,
    _protocol: PhantomData<fn() -> (P, E)>,
}

impl<P, E> fmt::Debug for Chan<P, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chan")
            .field("protocol", &std::any::type_name::<P>())
            .finish()
    }
}

/// A new session: an endpoint following `P` and one following its dual.
pub fn session<P: Session>() -> (Chan<P>, Chan<P::Dual>) {
    let (a_tx, a_rx) = channel::unbounded();
    let (b_tx, b_rx) = channel::unbounded();
    (Chan::new(a_tx, b_rx), Chan::new(b_tx, a_rx))
}

impl<P, E> Chan<P, E> {
    fn new(tx: Sender<Carrier>, rx: Receiver<Carrier>) -> Chan<P, E> {
        Chan {
            tx,
            rx,
            _protocol: PhantomData,
        }
    }

    fn advance<Q, F>(self) -> Chan<Q, F> {
        Chan::new(self.tx, self.rx)
    }

    async fn receive(&self) -> Result<Carrier, Disconnected> {
        self.rx.recv().await.map_err(|_| Disconnected(()))
    }

    fn receive_blocking(&self) -> Result<Carrier, Disconnected> {
        self.rx.recv_blocking().map_err(|_| Disconnected(()))
    }
}

fn unbox<T: 'static>(carrier: Carrier) -> T {
    match carrier {
        Carrier::Value(b) => *b
            .downcast::<T>()
            .unwrap_or_else(|_| unreachable!("the dual protocol sends exactly this type here")),
        _ => unreachable!("the dual protocol sends a value here, not a choice"),
    }
}

impl<P, Q, E> Chan<Offer<P, Q>, E> {
    fn branch(self, carrier: Carrier) -> Offered<P, Q, E> {
        match carrier {
            Carrier::Left => Branch::Left(self.advance()),
            Carrier::Right => Branch::Right(self.advance()),
            Carrier::Value(_) => unreachable!("the dual protocol sends a choice here, not a value"),
        }
    }
}

impl<T: std::marker::Send + 'static, P, E> Chan<Send<T, P>, E> {
    /// Sends `value` and continues as `P`. Never waits.
    ///
    /// # Errors
    /// [`Disconnected`] with the value if the peer's endpoint is gone.
    pub fn send(self, value: T) -> Result<Chan<P, E>, Disconnected<T>> {
        match self.tx.send(Carrier::Value(Box::new(value))) {
            Ok(()) => Ok(self.advance()),
            Err(e) => Err(Disconnected(unbox(e.0))),
        }
    }
}

impl<T: std::marker::Send + 'static, P, E> Chan<Recv<T, P>, E> {
    /// Receives the value and continues as `P`.
    ///
    /// # Errors
    /// [`Disconnected`] if the peer's endpoint was dropped before sending it.
    pub async fn recv(self) -> Result<(T, Chan<P, E>), Disconnected> {
        let carrier = self.receive().await?;
        Ok((unbox(carrier), self.advance()))
    }

    /// As [`recv`](Chan::recv), blocking the calling thread (outside the runtime).
    ///
    /// # Errors
    /// As for [`recv`](Chan::recv).
    pub fn recv_blocking(self) -> Result<(T, Chan<P, E>), Disconnected> {
        let carrier = self.receive_blocking()?;
        Ok((unbox(carrier), self.advance()))
    }
}

impl<P, Q, E> Chan<Choose<P, Q>, E> {
    /// Chooses the left protocol.
    ///
    /// # Errors
    /// [`Disconnected`] if the peer's endpoint is gone.
    pub fn left(self) -> Result<Chan<P, E>, Disconnected> {
        match self.tx.send(Carrier::Left) {
            Ok(()) => Ok(self.advance()),
            Err(_) => Err(Disconnected(())),
        }
    }

    /// Chooses the right protocol.
    ///
    /// # Errors
    /// [`Disconnected`] if the peer's endpoint is gone.
    pub fn right(self) -> Result<Chan<Q, E>, Disconnected> {
        match self.tx.send(Carrier::Right) {
            Ok(()) => Ok(self.advance()),
            Err(_) => Err(Disconnected(())),
        }
    }
}

impl<P, Q, E> Chan<Offer<P, Q>, E> {
    /// Waits for the peer's choice; both branches must be handled (a `match` on the [`Branch`]).
    ///
    /// # Errors
    /// [`Disconnected`] if the peer's endpoint was dropped before choosing.
    pub async fn offer(self) -> Result<Offered<P, Q, E>, Disconnected> {
        let carrier = self.receive().await?;
        Ok(self.branch(carrier))
    }

    /// As [`offer`](Chan::offer), blocking the calling thread (outside the runtime).
    ///
    /// # Errors
    /// As for [`offer`](Chan::offer).
    pub fn offer_blocking(self) -> Result<Offered<P, Q, E>, Disconnected> {
        let carrier = self.receive_blocking()?;
        Ok(self.branch(carrier))
    }
}

impl<P, E> Chan<Rec<P>, E> {
    /// Enters the recursion: continues as `P`, with `P` remembered for [`Var<Z>`].
    pub fn enter(self) -> Chan<P, (P, E)> {
        self.advance()
    }
}

impl<P, E> Chan<Var<Z>, (P, E)> {
    /// Jumps back to the innermost recursion's body.
    pub fn zero(self) -> Chan<P, (P, E)> {
        self.advance()
    }
}

impl<N, P, E> Chan<Var<S<N>>, (P, E)> {
    /// Leaves the innermost recursion, towards an outer one.
    pub fn succ(self) -> Chan<Var<N>, E> {
        self.advance()
    }
}

impl<E> Chan<End, E> {
    /// Ends the session. Consumes the endpoint: nothing can be done with it afterwards.
    pub fn close(self) {}
}
