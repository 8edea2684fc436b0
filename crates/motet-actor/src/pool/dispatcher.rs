//! The pool's dispatcher: the actor behind the pool's address, which owns the worker list.
//!
//! The dispatcher learns that a worker stopped from the worker's exit hook, which signals it a
//! [`Down`] through a weak address: the workers do not keep the pool reachable.
//!
//! The worker list is the dispatcher's own state, so routing a message costs no lock and no
//! atomic operation beyond the send to the worker. The handles reach it only through the command
//! queue of [`Shared`] (applied when the dispatcher is woken, see `Pool::command`) and read the
//! list it publishes after every change.

use std::sync::Arc;

use motet_runtime::Handle;

use super::{Command, Factory, Shared};
use crate::actor::{Actor, Context};
use crate::addr::{Addr, SendError};
use crate::envelope::Signal;
use crate::exit::{Down, ExitReason};
use crate::supervisor::Supervisor;
use crate::weak::{on_exit, WeakAddr};

/// The reason a pool stops with when no worker is left.
pub(crate) const NO_WORKER: &str = "pool: no worker left";

/// How the dispatcher routes a message.
pub(crate) enum Route<M> {
    RoundRobin,
    Random,
    /// To every worker; the function clones the message.
    Broadcast(fn(&M) -> M),
}

pub(crate) struct Dispatcher<A: Actor> {
    workers: Vec<Addr<A::Msg>>,
    /// Workers spawned and not watched yet (the dispatcher's weak address is made when it starts).
    fresh: Vec<Addr<A::Msg>>,
    /// The dispatcher's own address, weak: the workers' exit hooks report to it without keeping
    /// the pool reachable (a monitor would: the monitored actor holds its observer's address).
    me: Option<WeakAddr<A::Msg>>,
    next: usize,
    rng: u64,
    route: Route<A::Msg>,
    factory: Factory<A>,
    supervisor: Option<Supervisor>,
    shared: Arc<Shared<A::Msg>>,
    runtime: Handle,
}

impl<A: Actor> Dispatcher<A> {
    pub(crate) fn new(
        factory: Factory<A>,
        route: Route<A::Msg>,
        supervisor: Option<Supervisor>,
        shared: Arc<Shared<A::Msg>>,
        runtime: Handle,
    ) -> Dispatcher<A> {
        Dispatcher {
            workers: Vec::new(),
            fresh: Vec::new(),
            me: None,
            next: 0,
            rng: 0x9E37_79B9_7F4A_7C15,
            route,
            factory,
            supervisor,
            shared,
            runtime,
        }
    }

    pub(crate) fn workers(&self) -> &[Addr<A::Msg>] {
        &self.workers
    }

    /// Spawns `k` workers (supervised if the pool restarts them).
    pub(crate) fn grow_by(&mut self, k: usize) {
        for _ in 0..k {
            let worker = match &self.supervisor {
                Some(sup) => {
                    let factory = self.factory.clone();
                    match sup.spawn_child(move || factory()) {
                        Ok(worker) => worker,
                        // The supervisor gave up: its workers are stopping, and so will the pool.
                        Err(_) => return,
                    }
                }
                None => crate::spawn(&self.runtime, (self.factory)()),
            };
            self.workers.push(worker.clone());
            self.fresh.push(worker);
        }
    }

    /// Has each new worker report its exit to the dispatcher as a [`Down`].
    fn watch_fresh(&mut self, ctx: &mut Context<'_, Self>) {
        let me = self
            .me
            .get_or_insert_with(|| WeakAddr::new(&ctx.myself()))
            .clone();
        for worker in std::mem::take(&mut self.fresh) {
            let me = me.clone();
            let id = worker.id();
            on_exit(&worker, move |reason| {
                if let Some(pool) = me.upgrade() {
                    pool.to_any().signal(Signal::Down(Down { id, reason }));
                }
            });
        }
    }

    /// Stops `worker` behind the messages already sent to it.
    fn retire(worker: &Addr<A::Msg>) {
        worker.to_any().signal(Signal::Stop(ExitReason::Shutdown));
    }

    fn apply(&mut self, ctx: &mut Context<'_, Self>) {
        for cmd in self.shared.take_commands() {
            let len = self.workers.len();
            let target = match cmd {
                Command::Resize(n) => n,
                Command::Grow(k) => len.saturating_add(k),
                Command::Shrink(k) => len.saturating_sub(k),
            }
            .max(1);
            if target > len {
                self.grow_by(target - len);
            }
            while self.workers.len() > target {
                if let Some(worker) = self.workers.pop() {
                    Self::retire(&worker);
                }
            }
        }
        self.watch_fresh(ctx);
        self.shared.publish(&self.workers);
    }

    /// Removes the worker at `i`, which has stopped; stops the pool if it was the last.
    fn remove(&mut self, ctx: &mut Context<'_, Self>, i: usize) {
        drop(self.workers.remove(i));
        self.shared.publish(&self.workers);
        if self.workers.is_empty() {
            ctx.stop_with(ExitReason::Error(Arc::from(NO_WORKER)));
        }
    }

    /// Sends `msg` to worker `i`, or to the next live one if that one has stopped.
    #[inline]
    fn deliver(&mut self, ctx: &mut Context<'_, Self>, mut i: usize, msg: A::Msg) {
        let mut msg = msg;
        loop {
            let Some(worker) = self.workers.get(i) else {
                return; // no worker: the pool is stopping, `msg` is dropped with its mailbox
            };
            match worker.tell(msg) {
                Ok(()) => return,
                Err(SendError(back)) => {
                    msg = back;
                    self.remove(ctx, i);
                    if self.workers.is_empty() {
                        return;
                    }
                    i %= self.workers.len();
                }
            }
        }
    }

    #[inline]
    fn next_index(&mut self) -> usize {
        if self.next >= self.workers.len() {
            self.next = 0;
        }
        let i = self.next;
        self.next += 1;
        i
    }

    fn random_index(&mut self) -> usize {
        // xorshift64*: a fast generator, plenty for spreading load.
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (r % self.workers.len().max(1) as u64) as usize
    }

    fn broadcast(
        &mut self,
        ctx: &mut Context<'_, Self>,
        clone: fn(&A::Msg) -> A::Msg,
        msg: A::Msg,
    ) {
        let mut stopped = Vec::new();
        if let Some((last, rest)) = self.workers.split_last() {
            for (i, worker) in rest.iter().enumerate() {
                if worker.tell(clone(&msg)).is_err() {
                    stopped.push(i);
                }
            }
            if last.tell(msg).is_err() {
                stopped.push(rest.len());
            }
        }
        for i in stopped.into_iter().rev() {
            self.remove(ctx, i);
        }
    }
}

impl<A: Actor> Actor for Dispatcher<A> {
    type Msg = A::Msg;

    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        self.rng ^= ctx.id().as_u64().wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        self.watch_fresh(ctx);
        if self.workers.is_empty() {
            ctx.stop_with(ExitReason::Error(Arc::from(NO_WORKER)));
        }
    }

    #[inline]
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: A::Msg) {
        match self.route {
            Route::RoundRobin => {
                let i = self.next_index();
                self.deliver(ctx, i, msg);
            }
            Route::Random => {
                let i = self.random_index();
                self.deliver(ctx, i, msg);
            }
            Route::Broadcast(clone) => self.broadcast(ctx, clone, msg),
        }
    }

    fn on_down(&mut self, ctx: &mut Context<'_, Self>, down: Down) {
        if down.id == ctx.id() {
            // The handles' wake-up (see `Pool::command`).
            self.apply(ctx);
            return;
        }
        if let Some(i) = self.workers.iter().position(|w| w.id() == down.id) {
            self.remove(ctx, i);
        }
    }
}

impl<A: Actor> Drop for Dispatcher<A> {
    /// However the pool stops (unreachable, killed, no worker left, a panic), its workers stop
    /// after the messages already sent to them, and its supervisor with them.
    fn drop(&mut self) {
        for worker in &self.workers {
            Self::retire(worker);
        }
        if let Some(sup) = &self.supervisor {
            sup.stop();
        }
        self.shared.publish(&[]);
    }
}
