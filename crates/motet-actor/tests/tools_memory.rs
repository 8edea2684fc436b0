//! Joining and leaving a group, or registering and unregistering a name, over and over costs a
//! long-lived actor nothing that grows: each group or registry installs one exit hook per actor,
//! not one per join or registration. (The counting allocator covers the whole process, so this
//! file holds this one test.)

use motet_actor::{spawn, Actor, Context, Group, Registry};
use motet_runtime::testing::CountingAllocator;
use motet_runtime::Runtime;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

struct Sink;
impl Actor for Sink {
    type Msg = u32;
    fn handle(&mut self, _: &mut Context<'_, Self>, _: u32) {}
}

/// Far below what one exit hook per cycle would leave (a watch slot, its callback and a signal,
/// over a hundred bytes each time), above what the runtime's caches may hold.
const LIMIT: isize = 256 * 1024;
const CYCLES: usize = 20_000;

#[test]
fn rejoining_and_reregistering_do_not_grow_the_actor() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let addr = spawn(rt.handle(), Sink);
    let group = Group::new();
    let registry = Registry::new();
    let cycle = |n: usize| {
        for _ in 0..n {
            group.join(&addr);
            group.leave(&addr);
            registry.register("sink", &addr).unwrap();
            registry.unregister("sink");
        }
        rt.wait_quiescent();
    };
    cycle(100);
    let base = CountingAllocator::live_bytes();
    cycle(CYCLES);
    let grown = CountingAllocator::live_bytes() - base;
    println!("bytes left after {CYCLES} join/leave and register/unregister cycles: {grown}");
    assert!(grown < LIMIT, "{grown} bytes left behind");
}
