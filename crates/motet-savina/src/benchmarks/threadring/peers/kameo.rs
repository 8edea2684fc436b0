//! Thread Ring on kameo: `N` ring members with unbounded mailboxes on a tokio runtime with
//! `threads` workers.

use ::kameo::actor::ActorRef;
use ::kameo::message::{Context, Message};
use ::kameo::Actor;

use super::Report;
use crate::bench::Prepared;
use crate::benchmarks::threadring::Config;
use crate::params::Params;
use crate::peers::{kameo_spawn, tokio_program, Reporter};

/// Links a member to the next one in the ring.
struct Data(ActorRef<Member>);

/// The token, with the passes left.
struct Ping(u64);

/// The exit wave, with the members left to stop.
struct Exit(usize);

#[derive(Actor)]
struct Member {
    id: usize,
    ring_size: usize,
    /// Pings handled, reported on the exit (which reaches the member after every ping sent to
    /// it).
    pings: u64,
    next: Option<ActorRef<Member>>,
    done: Reporter<Report>,
}

impl Member {
    fn successor(&self) -> &ActorRef<Member> {
        self.next
            .as_ref()
            .expect("Data arrives before the first Ping")
    }
}

impl Message<Data> for Member {
    type Reply = ();

    async fn handle(&mut self, Data(next): Data, _: &mut Context<Self, ()>) {
        self.next = Some(next);
    }
}

impl Message<Ping> for Member {
    type Reply = ();

    async fn handle(&mut self, Ping(left): Ping, _: &mut Context<Self, ()>) {
        self.pings += 1;
        if left > 0 {
            let _ = self.successor().tell(Ping(left - 1)).try_send();
        } else {
            self.done.report(Report::ZeroAt(self.id));
            let _ = self.successor().tell(Exit(self.ring_size)).try_send();
        }
    }
}

impl Message<Exit> for Member {
    type Reply = ();

    async fn handle(&mut self, Exit(left): Exit, ctx: &mut Context<Self, ()>) {
        if left > 0 {
            // The last Exit reaches a member that has already stopped and is dropped.
            let _ = self.successor().tell(Exit(left - 1)).try_send();
        }
        self.done.report(Report::Exited(self.pings));
        ctx.stop();
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the first actors and sends the kick-off messages, on the main thread.
async fn start(Config { n, r }: Config, reporter: Reporter<Report>) {
    let members: Vec<_> = (0..n)
        .map(|id| {
            let member = Member {
                id,
                ring_size: n,
                next: None,
                pings: 0,
                done: reporter.clone(),
            };
            kameo_spawn(member)
        })
        .collect();
    drop(reporter);
    for (i, member) in members.iter().enumerate() {
        let next = members[(i + 1) % members.len()].clone();
        member
            .tell(Data(next))
            .try_send()
            .expect("the member is running");
    }
    members[0]
        .tell(Ping(r))
        .try_send()
        .expect("the member is running");
    drop(members);
}
