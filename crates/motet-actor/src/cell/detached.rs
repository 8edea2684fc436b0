//! Detached and scoped actors: their runnables go to a thread of their own.

use motet_runtime::task::Turn;
use motet_runtime::Runnable;

use super::header::Header;
use super::turn::ActorTask;
use crate::actor::Actor;
use crate::home::{run_detached, Home, HomeTurn};

impl<A: Actor, const GATED: bool, const DETACHED: bool> ActorTask<A, GATED, DETACHED> {
    /// A detached actor's turn on its own thread: the runnable back if the turn yielded.
    pub(super) fn turn_at_home(
        runnable: Runnable<Header<A::Msg>>,
    ) -> Option<Runnable<Header<A::Msg>>> {
        match Self::run_turn(Self::resume(runnable)) {
            Turn::Idle => None,
            Turn::Yield(runnable) => Some(runnable),
        }
    }
}

/// Starts a detached actor's thread with its first turn; `turn` runs one turn there.
#[cold]
#[inline(never)]
pub(super) fn start_detached<M: Send + 'static>(
    home: std::sync::Arc<Home<M>>,
    runnable: Runnable<Header<M>>,
    turn: HomeTurn<M>,
) {
    let id = runnable.id;
    std::thread::Builder::new()
        .name(format!("motet-detached-{}", id.as_u64()))
        .spawn(move || run_detached(home, runnable, turn))
        .expect("could not start a detached actor's thread");
}

/// Hands the runnable of a detached or scoped actor, which a worker got from a waking push (or a
/// runtime's shutdown), to the actor's home thread.
#[cold]
#[inline(never)]
pub(crate) fn send_home<M: Send + 'static>(runnable: Runnable<Header<M>>) {
    let Some(home) = runnable.home() else {
        unreachable!("only detached and scoped actors are of a kind that sends them home")
    };
    // Its own reference: once the runnable is handed over, the actor may stop and free its cell
    // (and the header's reference) before `give` returns.
    let home = std::sync::Arc::clone(home);
    home.give(runnable);
}
