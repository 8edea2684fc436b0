//! Shared pieces of the peer runtimes' benchmark programs (actix, ractor, kameo).
//!
//! Each micro benchmark has one program per peer crate, written with that crate's own actors,
//! typed messages and mailboxes (`src/benchmarks/<name>/peers/`). This module holds what those
//! programs share:
//!
//! - **Thread limits.** ractor and kameo run on a tokio multi-thread runtime with exactly
//!   `threads` workers ([`tokio_runtime`]). actix runs every actor on a single-threaded
//!   [`Arbiter`], so its programs get `threads` arbiters ([`Arbiters`]) and place
//!   the actors on them round-robin ([`Placement`]), in creation order (model `actix`), or all on
//!   the first arbiter (model `actix-one`), as a user whose actors talk mostly among themselves
//!   would place them: the report gives the better of the two as the fastest peer. Both are built in `prepare`,
//!   outside the timed region, as Verona and LF build their schedulers before the clock starts.
//! - **The main thread.** As in Savina, the benchmark's "main thread" (the harness thread) creates
//!   the first actors and sends the kick-off messages, then waits. For ractor and kameo it does so
//!   in `Runtime::block_on`, which runs the driver future on the calling thread while the actors run
//!   on the workers; for actix it sends actor constructors to the arbiters and blocks.
//! - **Completion.** Every actor holds a [`Reporter`]; the actor that finishes the program sends the
//!   result through it. The main thread's [`Reports`] then waits until every `Reporter` is dropped,
//!   which happens when the last actor has stopped and its state has been dropped. This is Savina's
//!   exit latch (SPEC.md section 1.1: run until every actor has exited), and it guarantees that no
//!   actor outlives its iteration.
//! - **Mailboxes.** Savina's Akka actors have unbounded mailboxes. ractor's are unbounded; kameo's
//!   programs ask for `mailbox::unbounded()` (its default is bounded at 64, where a producer would
//!   wait on a full mailbox) and send with `tell(..).try_send()`, which never waits on an unbounded
//!   mailbox; actix's `do_send` ignores the mailbox capacity.
//! - **actix addresses.** An actix actor also stops when no [`Addr`](actix::Addr) to it is left
//!   and its mailbox looks empty, and that check can race with a message sent just before the last
//!   address was dropped (the actor sees the mailbox empty, then the address gone, and stops with
//!   the message unread). So every actix program keeps the address of every actor until the
//!   iteration ends: the main thread holds those it created, and an actor those it created
//!   (Chameneos' mall). Every actor still exits explicitly (`ctx.stop()`) where Savina's does.
//! - **Failures.** A panic or handler error stops the actor and drops its `Reporter`, so the main
//!   thread never waits forever: the missing report fails the benchmark's check instead.
//! - **The program frame.** [`tokio_program`] and [`actix_program`] build a program's
//!   [`Iteration`] from its decoded parameters and two functions: one that creates the first actors
//!   and sends the kick-off messages (the only per-benchmark part of an iteration), and one that
//!   checks the reports. [`variants`] lists a benchmark's three programs.
//! - **ractor actors.** Most ractor actors are spawned with their initial state: they implement
//!   [`RactorState`] on that state, and [`ractor_spawn`] runs them as a [`StateActor`], whose
//!   `pre_start` hands the state back. Actors that build their state in `pre_start` (Chameneos'
//!   mall, actorcreation's nodes) implement ractor's `Actor` themselves.

use std::cell::Cell;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;
use std::thread;

use actix::Addr;
use actix_rt::{Arbiter, ArbiterHandle, System};
use ractor::{ActorProcessingErr, ActorRef, SpawnErr};
use tokio::sync::mpsc;

use crate::bench::{Iteration, Model, Outcome, Prepare, Prepared, Variant};

/// A benchmark's actix (round-robin and one-arbiter placement), ractor and kameo variants, in
/// that order, from their `prepare` functions.
pub fn variants(actix: Prepare, ractor: Prepare, kameo: Prepare) -> Vec<Variant> {
    vec![
        Variant::new(Model::Actix, actix),
        // The same program: `Variant::build` prepares it with every actor on one arbiter.
        Variant::new(Model::ActixOne, actix),
        Variant::new(Model::Ractor, ractor),
        Variant::new(Model::Kameo, kameo),
    ]
}

/// Builds a ractor or kameo program: the tokio runtime with `threads` workers (untimed), and an
/// [`Iteration`] whose timed `run`, on the main thread in `Runtime::block_on`, creates the
/// completion channel, awaits `start(cfg, reporter)` (which creates the first actors and sends the
/// kick-off messages), waits for every actor to exit ([`Reports::all`]) and returns
/// `outcome(cfg, reports)`.
///
/// # Errors
/// If the runtime cannot be built ([`tokio_runtime`]).
pub fn tokio_program<C, T, F>(
    cfg: C,
    threads: usize,
    start: fn(C, Reporter<T>) -> F,
    outcome: fn(C, &[T]) -> Outcome,
) -> Prepared
where
    C: Copy + 'static,
    T: 'static,
    F: Future<Output = ()> + 'static,
{
    Ok(Box::new(TokioProgram {
        runtime: tokio_runtime(threads)?,
        cfg,
        start,
        outcome,
    }))
}

/// A ractor or kameo program (see [`tokio_program`]).
struct TokioProgram<C, T, F> {
    runtime: tokio::runtime::Runtime,
    cfg: C,
    start: fn(C, Reporter<T>) -> F,
    outcome: fn(C, &[T]) -> Outcome,
}

impl<C: Copy, T, F: Future<Output = ()>> Iteration for TokioProgram<C, T, F> {
    fn run(&mut self) -> Outcome {
        let (cfg, start, outcome) = (self.cfg, self.start, self.outcome);
        self.runtime.block_on(async move {
            let (reporter, reports) = reports();
            start(cfg, reporter).await;
            outcome(cfg, &reports.all().await)
        })
    }
}

/// Builds an actix program: `threads` arbiters (untimed), and an [`Iteration`] whose timed `run`
/// creates the completion channel, calls `start(cfg, placement, reporter)` on the main thread
/// (which places the first actors on the arbiters round-robin, sends the kick-off messages and
/// returns every address the main thread must keep), waits for every actor to exit
/// ([`Reports::blocking_all`]), only then drops those addresses, and returns
/// `outcome(cfg, reports)`.
///
/// # Errors
/// If the arbiters cannot be started ([`Arbiters::new`]).
pub fn actix_program<C, T, K>(
    cfg: C,
    threads: usize,
    start: fn(C, Placement, Reporter<T>) -> K,
    outcome: fn(C, &[T]) -> Outcome,
) -> Prepared
where
    C: Copy + 'static,
    T: 'static,
    K: 'static,
{
    Ok(Box::new(ActixProgram {
        arbiters: Arbiters::new(threads)?,
        cfg,
        start,
        outcome,
    }))
}

/// An actix program (see [`actix_program`]).
struct ActixProgram<C, T, K> {
    arbiters: Arbiters,
    cfg: C,
    start: fn(C, Placement, Reporter<T>) -> K,
    outcome: fn(C, &[T]) -> Outcome,
}

impl<C: Copy, T, K> Iteration for ActixProgram<C, T, K> {
    fn run(&mut self) -> Outcome {
        let place = self.arbiters.placement();
        let (reporter, reports) = reports();
        let keep = (self.start)(self.cfg, place, reporter);
        // The main thread keeps every address until the end (see the module documentation).
        let reports = reports.blocking_all();
        drop(keep);
        (self.outcome)(self.cfg, &reports)
    }
}

/// Builds the tokio runtime the ractor and kameo programs run on: a multi-thread runtime with
/// exactly `threads` worker threads.
///
/// # Errors
/// If `threads` is zero or the runtime cannot be built.
pub fn tokio_runtime(threads: usize) -> Result<tokio::runtime::Runtime, String> {
    if threads == 0 {
        return Err("the peer runtimes need at least one worker thread".to_string());
    }
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .thread_name("peer-worker")
        .enable_all()
        .build()
        .map_err(|e| format!("cannot build a tokio runtime with {threads} workers: {e}"))
}

/// `threads` actix arbiters (one OS thread and one single-threaded event loop each) under one
/// actix [`System`].
///
/// The `System` lives on a thread of its own, which only waits for the stop command; actors run on
/// the arbiters alone. Dropping `Arbiters` stops the system, which stops every arbiter, and joins
/// all of their threads.
pub struct Arbiters {
    system: System,
    handles: Arc<[ArbiterHandle]>,
    /// Whether every actor goes to the first arbiter (see [`one_arbiter`]).
    one: bool,
    thread: Option<thread::JoinHandle<()>>,
}

impl Arbiters {
    /// Starts a system with `threads` arbiters.
    ///
    /// # Errors
    /// If `threads` is zero or a thread or event loop cannot be started.
    pub fn new(threads: usize) -> Result<Arbiters, String> {
        if threads == 0 {
            return Err("actix needs at least one arbiter".to_string());
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = thread::Builder::new()
            .name("actix-system".to_string())
            .spawn(move || {
                let runner = System::new();
                let arbiters: Result<Vec<Arbiter>, _> =
                    (0..threads).map(|_| Arbiter::try_new()).collect();
                let arbiters = match arbiters {
                    Ok(a) => a,
                    Err(e) => {
                        let _ = tx.send(Err(format!("cannot start an actix arbiter: {e}")));
                        return;
                    }
                };
                let handles: Vec<ArbiterHandle> = arbiters.iter().map(Arbiter::handle).collect();
                if tx.send(Ok((System::current(), handles))).is_err() {
                    return;
                }
                // Runs until `System::stop`, which also stops every arbiter.
                let _ = runner.run();
                for arbiter in arbiters {
                    let _ = arbiter.join();
                }
            })
            .map_err(|e| format!("cannot start the actix system thread: {e}"))?;
        match rx.recv() {
            Ok(Ok((system, handles))) => Ok(Arbiters {
                system,
                handles: handles.into(),
                one: ONE_ARBITER.with(Cell::get),
                thread: Some(thread),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err("the actix system thread failed to start".to_string())
            }
        }
    }

    /// A fresh placement: round-robin over the arbiters, starting at the first, or every actor on
    /// the first if these arbiters were started under [`one_arbiter`].
    pub fn placement(&self) -> Placement {
        let handles = if self.one {
            Arc::from(&self.handles[..1])
        } else {
            Arc::clone(&self.handles)
        };
        Placement { handles, next: 0 }
    }
}

thread_local! {
    /// Set while [`one_arbiter`] runs: the arbiters started then place every actor on the first.
    static ONE_ARBITER: Cell<bool> = const { Cell::new(false) };
}

/// Runs `prepare` (an actix program's) so that its arbiters place every actor on the first one:
/// model `actix-one`.
pub(crate) fn one_arbiter<R>(prepare: impl FnOnce() -> R) -> R {
    /// Clears the flag, also if `prepare` panics.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            ONE_ARBITER.with(|one| one.set(false));
        }
    }
    ONE_ARBITER.with(|one| one.set(true));
    let _reset = Reset;
    prepare()
}

impl Drop for Arbiters {
    fn drop(&mut self) {
        self.system.stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Places actix actors on arbiters round-robin: the `i`-th actor placed goes to arbiter
/// `i mod threads`.
///
/// A `Placement` can be moved into an actor that creates actors itself (Chameneos' mall).
#[derive(Clone)]
pub struct Placement {
    handles: Arc<[ArbiterHandle]>,
    next: usize,
}

impl Placement {
    /// The arbiter for the next actor.
    pub fn next_arbiter(&mut self) -> &ArbiterHandle {
        let i = self.next;
        self.next = (i + 1) % self.handles.len();
        &self.handles[i]
    }

    /// Starts the actor `make` builds on the next arbiter and returns its address. `make` runs on
    /// that arbiter, as with actix's `start_in_arbiter`.
    pub fn start<A, F>(&mut self, make: F) -> Addr<A>
    where
        A: actix::Actor<Context = actix::Context<A>>,
        F: FnOnce() -> A + Send + 'static,
    {
        A::start_in_arbiter(self.next_arbiter(), move |_| make())
    }
}

/// Creates the completion channel of one iteration: the [`Reporter`] goes to the actors (cloned,
/// one per actor), the [`Reports`] stays with the main thread.
pub fn reports<T>() -> (Reporter<T>, Reports<T>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (Reporter(tx), Reports(rx))
}

/// An actor's handle on the completion channel: it reports results through it, and dropping it
/// (with the actor's state) tells the main thread that the actor has exited.
pub struct Reporter<T>(mpsc::UnboundedSender<T>);

impl<T> Clone for Reporter<T> {
    fn clone(&self) -> Self {
        Reporter(self.0.clone())
    }
}

impl<T> Reporter<T> {
    /// Sends a result to the main thread.
    pub fn report(&self, value: T) {
        // The main thread holds the receiver until every reporter is gone, so this cannot fail.
        let _ = self.0.send(value);
    }
}

/// The main thread's end of the completion channel.
pub struct Reports<T>(mpsc::UnboundedReceiver<T>);

impl<T> Reports<T> {
    /// Waits until every [`Reporter`] has been dropped (every actor has exited) and returns what was
    /// reported, in arrival order. For programs driven from a tokio runtime.
    pub async fn all(mut self) -> Vec<T> {
        let mut out = Vec::new();
        while let Some(v) = self.0.recv().await {
            out.push(v);
        }
        out
    }

    /// Like [`Reports::all`], blocking the calling thread, which must not be a runtime worker
    /// (actix programs, whose main thread is outside every event loop).
    pub fn blocking_all(mut self) -> Vec<T> {
        let mut out = Vec::new();
        while let Some(v) = self.0.blocking_recv() {
            out.push(v);
        }
        out
    }
}

/// Makes each named type an actix actor with the plain [`Context`](actix::Context), for the actors
/// whose `Actor` implementation has nothing else in it: `actix_actors!(Ping, Pong);`.
macro_rules! actix_actors {
    ($($actor:ty),+ $(,)?) => {
        $(
            impl ::actix::Actor for $actor {
                type Context = ::actix::Context<Self>;
            }
        )+
    };
}
pub(crate) use actix_actors;

/// Spawns `actor` on the tokio runtime with an unbounded mailbox (see the module documentation)
/// and returns its reference.
pub fn kameo_spawn<A>(actor: A) -> kameo::actor::ActorRef<A>
where
    A: kameo::Actor<Args = A>,
{
    use kameo::actor::Spawn;
    A::spawn_with_mailbox(actor, kameo::mailbox::unbounded())
}

/// A ractor actor's state that handles the actor's messages itself, for actors spawned with their
/// initial state (see [`ractor_spawn`]).
pub trait RactorState: ractor::State {
    /// The messages the actor handles.
    type Msg: ractor::Message;

    /// Handles one message, as ractor's `Actor::handle` does; an error stops the actor.
    fn handle(
        &mut self,
        myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
    ) -> impl Future<Output = Result<(), ActorProcessingErr>> + Send;
}

/// The ractor actor of a [`RactorState`]: its arguments are its initial state, and its handler is
/// the state's. Generic over the state, so every message reaches the state's `handle` directly.
pub struct StateActor<S>(PhantomData<fn() -> S>);

impl<S: RactorState> ractor::Actor for StateActor<S> {
    type Msg = S::Msg;
    type State = S;
    type Arguments = S;

    async fn pre_start(&self, _: ActorRef<S::Msg>, state: S) -> Result<S, ActorProcessingErr> {
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<S::Msg>,
        msg: S::Msg,
        state: &mut S,
    ) -> Result<(), ActorProcessingErr> {
        state.handle(myself, msg).await
    }
}

/// Spawns an unnamed ractor actor with initial state `state` (see [`RactorState`]), as
/// `Actor::spawn` does.
///
/// # Errors
/// If ractor cannot start the actor.
pub async fn ractor_spawn<S: RactorState>(
    state: S,
) -> Result<(ActorRef<S::Msg>, tokio::task::JoinHandle<()>), SpawnErr> {
    ractor::Actor::spawn(None, StateActor(PhantomData), state).await
}

#[cfg(test)]
mod tests {
    use super::{one_arbiter, Arbiters};

    #[test]
    fn one_arbiter_placement_puts_every_actor_on_the_first() {
        let spread = Arbiters::new(2).unwrap();
        assert_eq!(spread.placement().handles.len(), 2);
        let one = one_arbiter(|| Arbiters::new(2)).unwrap();
        assert_eq!(one.placement().handles.len(), 1);
        // The flag is only set while `one_arbiter` runs.
        assert_eq!(Arbiters::new(2).unwrap().placement().handles.len(), 2);
    }
}
