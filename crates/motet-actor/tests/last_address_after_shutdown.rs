//! Dropping an actor's last address after its runtime was dropped: the actor is shut down on the
//! dropping thread, and with it the last handle of the runtime, which must not free the runtime
//! while that thread is still using it.

use motet_actor::{spawn, Actor, Context};
use motet_runtime::Runtime;

struct Sink;

impl Actor for Sink {
    type Msg = u32;
    fn handle(&mut self, _: &mut Context<'_, Self>, _: u32) {}
}

#[test]
fn the_last_address_dropped_after_the_runtime_frees_it_safely() {
    for _ in 0..rounds() {
        let rt = Runtime::builder().workers(1).build().unwrap();
        let addrs: Vec<_> = (0..4).map(|_| spawn(rt.handle(), Sink)).collect();
        addrs[0].tell(1).unwrap();
        drop(rt);
        drop(addrs);
    }
}

/// Rounds: a few by default (each drops a runtime); `MOTET_SHUTDOWN_ROUNDS` for a longer run under
/// a checker (valgrind, AddressSanitizer), which is what sees a use after free here.
fn rounds() -> usize {
    std::env::var("MOTET_SHUTDOWN_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50)
}
