//! Thread Ring on actix: `N` ring members, placed round-robin on the arbiters.

use ::actix::{ActorContext, Addr, Context, Handler, Message};

use super::Report;
use crate::bench::Prepared;
use crate::benchmarks::threadring::Config;
use crate::params::Params;
use crate::peers::{actix_program, Placement, Reporter};

/// Links a member to the next one in the ring.
#[derive(Message)]
#[rtype(result = "()")]
struct Data(Addr<Member>);

/// The token, with the passes left.
#[derive(Message)]
#[rtype(result = "()")]
struct Ping(u64);

/// The exit wave, with the members left to stop.
#[derive(Message)]
#[rtype(result = "()")]
struct Exit(usize);

struct Member {
    id: usize,
    ring_size: usize,
    /// Pings handled, reported on the exit (which reaches the member after every ping sent to
    /// it).
    pings: u64,
    next: Option<Addr<Member>>,
    done: Reporter<Report>,
}

impl Member {
    fn successor(&self) -> &Addr<Member> {
        self.next
            .as_ref()
            .expect("Data arrives before the first Ping")
    }
}

crate::peers::actix_actors!(Member);

impl Handler<Data> for Member {
    type Result = ();

    fn handle(&mut self, Data(next): Data, _: &mut Context<Self>) {
        self.next = Some(next);
    }
}

impl Handler<Ping> for Member {
    type Result = ();

    fn handle(&mut self, Ping(left): Ping, _: &mut Context<Self>) {
        self.pings += 1;
        if left > 0 {
            self.successor().do_send(Ping(left - 1));
        } else {
            self.done.report(Report::ZeroAt(self.id));
            self.successor().do_send(Exit(self.ring_size));
        }
    }
}

impl Handler<Exit> for Member {
    type Result = ();

    fn handle(&mut self, Exit(left): Exit, ctx: &mut Context<Self>) {
        if left > 0 {
            self.successor().do_send(Exit(left - 1));
        }
        self.done.report(Report::Exited(self.pings));
        ctx.stop();
    }
}

/// Builds the arbiters (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    actix_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Places the first actors and sends the kick-off messages, on the main thread; returns the
/// addresses the main thread keeps until every actor has exited.
fn start(
    Config { n, r }: Config,
    mut place: Placement,
    reporter: Reporter<Report>,
) -> Vec<Addr<Member>> {
    let members: Vec<_> = (0..n)
        .map(|id| {
            let done = reporter.clone();
            place.start(move || Member {
                id,
                ring_size: n,
                next: None,
                pings: 0,
                done,
            })
        })
        .collect();
    drop(reporter);
    for (i, member) in members.iter().enumerate() {
        member.do_send(Data(members[(i + 1) % members.len()].clone()));
    }
    members[0].do_send(Ping(r));
    members
}
