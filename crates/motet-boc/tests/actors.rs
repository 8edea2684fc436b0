//! `when` from inside actors (motet-actor), and behaviours that send to actors, on the same
//! runtime; and a promise awaited by an async task on a thread of its own.

use std::time::Duration;

use motet_actor::{spawn, Actor, Addr, Context, Reply};
use motet_boc::{when, Cown};
use motet_runtime::testing;

/// A deadlock guard for asks that must be answered (virtual on a deterministic runtime).
const GUARD: Duration = Duration::from_secs(60);

enum Msg {
    /// Spawn a behaviour adding `n` to the cown; it reports back with `Added`.
    Add(u64),
    /// A behaviour's report: the cown's value after its addition.
    Added(u64),
    /// How many reports so far, and the largest value reported.
    Get(Reply<(usize, u64)>),
}

struct Spawner {
    cown: Cown<u64>,
    reports: usize,
    max: u64,
}

impl Actor for Spawner {
    type Msg = Msg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Add(n) => {
                let me: Addr<Msg> = ctx.myself();
                drop(when(&self.cown, move |v| {
                    *v += n;
                    let _ = me.tell(Msg::Added(*v));
                }));
            }
            Msg::Added(v) => {
                self.reports += 1;
                self.max = self.max.max(v);
            }
            Msg::Get(reply) => {
                let _ = reply.send((self.reports, self.max));
            }
        }
    }
}

#[test]
fn actors_spawn_behaviours_that_answer_them() {
    testing::check(|rt| {
        let cown = Cown::new(rt.handle(), 0u64);
        let actor = spawn(
            rt.handle(),
            Spawner {
                cown: cown.clone(),
                reports: 0,
                max: 0,
            },
        );
        for n in 1..=100 {
            actor.tell(Msg::Add(n)).unwrap();
        }
        rt.wait_quiescent();
        let (reports, max) = actor.ask(Msg::Get, GUARD).wait().unwrap();
        assert_eq!((reports, max), (100, 5050));
        assert_eq!(when(&cown, |v| *v).wait(), Ok(5050));
    });
}

struct Collector(Vec<u64>);

impl Actor for Collector {
    type Msg = (u64, Option<Reply<Vec<u64>>>);
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, (v, reply): Self::Msg) {
        match reply {
            Some(reply) => {
                let _ = reply.send(self.0.clone());
            }
            None => self.0.push(v),
        }
    }
}

#[test]
fn behaviours_send_to_actors_in_cown_order() {
    testing::check(|rt| {
        let collector = spawn(rt.handle(), Collector(Vec::new()));
        let cown = Cown::new(rt.handle(), 0u64);
        for _ in 0..50 {
            let to = collector.clone();
            drop(when(&cown, move |v| {
                *v += 1;
                let _ = to.tell((*v, None));
            }));
        }
        rt.wait_quiescent();
        let seen = collector.ask(|r| (0, Some(r)), GUARD).wait().unwrap();
        assert_eq!(seen, (1..=50).collect::<Vec<_>>(), "one sender: order kept");
    });
}
