//! Actor creation on kameo: every testee spawns its two children from its handler, with unbounded
//! mailboxes on a tokio runtime with `threads` workers.

use ::kameo::actor::ActorRef;
use ::kameo::message::{Context, Message};
use ::kameo::Actor;

use crate::bench::Prepared;
use crate::benchmarks::actorcreation::Config;
use crate::params::Params;
use crate::peers::{kameo_spawn, tokio_program, Reporter};

/// Build a subtree of this depth.
struct Spread(u32);

/// A child's subtree has this many leaves.
struct Leaves(u64);

#[derive(Actor)]
struct Testee {
    /// `None` for the root, which reports to the main thread.
    parent: Option<ActorRef<Testee>>,
    pending: u8,
    leaves: u64,
    done: Reporter<u64>,
}

impl Testee {
    fn new(parent: Option<ActorRef<Testee>>, done: Reporter<u64>) -> Testee {
        Testee {
            parent,
            pending: 0,
            leaves: 0,
            done,
        }
    }

    fn finish(&mut self, leaves: u64, ctx: &mut Context<Self, ()>) {
        match self.parent.take() {
            Some(parent) => {
                let _ = parent.tell(Leaves(leaves)).try_send();
            }
            None => self.done.report(leaves),
        }
        ctx.stop();
    }
}

impl Message<Spread> for Testee {
    type Reply = ();

    async fn handle(&mut self, Spread(depth): Spread, ctx: &mut Context<Self, ()>) {
        if depth == 0 {
            self.finish(1, ctx);
            return;
        }
        for _ in 0..2 {
            let child = Testee::new(Some(ctx.actor_ref().clone()), self.done.clone());
            let child = kameo_spawn(child);
            child
                .tell(Spread(depth - 1))
                .try_send()
                .expect("the child is running");
        }
        self.pending = 2;
    }
}

impl Message<Leaves> for Testee {
    type Reply = ();

    async fn handle(&mut self, Leaves(leaves): Leaves, ctx: &mut Context<Self, ()>) {
        self.leaves += leaves;
        self.pending -= 1;
        if self.pending == 0 {
            self.finish(self.leaves, ctx);
        }
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Spawns the root and sends it `Spread(n)`, on the main thread.
async fn start(Config { n }: Config, reporter: Reporter<u64>) {
    let root = kameo_spawn(Testee::new(None, reporter));
    root.tell(Spread(n))
        .try_send()
        .expect("the root is running");
}
