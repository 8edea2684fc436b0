//! Ping Pong on kameo: `Ping` and `Pong` actors with unbounded mailboxes on a tokio runtime with
//! `threads` workers.

use ::kameo::actor::ActorRef;
use ::kameo::message::{Context, Message};
use ::kameo::Actor;

use crate::bench::Prepared;
use crate::benchmarks::pingpong::Config;
use crate::params::Params;
use crate::peers::{kameo_spawn, tokio_program, Reporter};

use super::Report;

/// Kicks off the exchange.
struct Start;

/// Ping's message to itself after a `SendPong` while pings are left: send the next ping.
struct PingSelf;

/// A ping, carrying the actor to answer.
struct SendPing(ActorRef<Ping>);

/// Pong's answer.
struct SendPong;

/// Ends the exchange.
struct Stop;

#[derive(Actor)]
struct Ping {
    pings_left: u64,
    pongs: u64,
    pong: ActorRef<Pong>,
    done: Reporter<Report>,
}

impl Ping {
    fn send_ping(&mut self, me: &ActorRef<Ping>) {
        self.pings_left -= 1;
        let _ = self.pong.tell(SendPing(me.clone())).try_send();
    }
}

impl Message<Start> for Ping {
    type Reply = ();

    async fn handle(&mut self, _: Start, ctx: &mut Context<Self, ()>) {
        self.send_ping(ctx.actor_ref());
    }
}

impl Message<PingSelf> for Ping {
    type Reply = ();

    async fn handle(&mut self, _: PingSelf, ctx: &mut Context<Self, ()>) {
        self.send_ping(ctx.actor_ref());
    }
}

impl Message<SendPong> for Ping {
    type Reply = ();

    async fn handle(&mut self, _: SendPong, ctx: &mut Context<Self, ()>) {
        self.pongs += 1;
        if self.pings_left > 0 {
            let _ = ctx.actor_ref().tell(PingSelf).try_send();
        } else {
            let _ = self.pong.tell(Stop).try_send();
            self.done.report(Report::PongsReceived(self.pongs));
            ctx.stop();
        }
    }
}

#[derive(Actor)]
struct Pong {
    count: u64,
    done: Reporter<Report>,
}

impl Message<SendPing> for Pong {
    type Reply = ();

    async fn handle(&mut self, SendPing(ping): SendPing, _: &mut Context<Self, ()>) {
        self.count += 1;
        let _ = ping.tell(SendPong).try_send();
    }
}

impl Message<Stop> for Pong {
    type Reply = ();

    async fn handle(&mut self, _: Stop, ctx: &mut Context<Self, ()>) {
        self.done.report(Report::PingsAnswered(self.count));
        ctx.stop();
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(super::config(params)?, threads, start, super::outcome)
}

/// Creates the first actors and sends the kick-off messages, on the main thread.
async fn start(Config { n, .. }: Config, reporter: Reporter<Report>) {
    let pong = kameo_spawn(Pong {
        count: 0,
        done: reporter.clone(),
    });
    let ping = kameo_spawn(Ping {
        pings_left: n,
        pongs: 0,
        pong,
        done: reporter,
    });
    ping.tell(Start).try_send().expect("Ping is running");
    drop(ping);
}
