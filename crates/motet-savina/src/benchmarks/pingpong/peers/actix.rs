//! Ping Pong on actix: `Ping` and `Pong` actors, placed round-robin on the arbiters.

use ::actix::{ActorContext, Addr, AsyncContext, Context, Handler, Message};

use crate::bench::Prepared;
use crate::benchmarks::pingpong::Config;
use crate::params::Params;
use crate::peers::{actix_program, Placement, Reporter};

use super::Report;

/// Kicks off the exchange.
#[derive(Message)]
#[rtype(result = "()")]
struct Start;

/// Ping's message to itself after a `SendPong` while pings are left: send the next ping.
#[derive(Message)]
#[rtype(result = "()")]
struct PingSelf;

/// A ping, carrying the address to answer.
#[derive(Message)]
#[rtype(result = "()")]
struct SendPing(Addr<Ping>);

/// Pong's answer.
#[derive(Message)]
#[rtype(result = "()")]
struct SendPong;

/// Ends the exchange.
#[derive(Message)]
#[rtype(result = "()")]
struct Stop;

struct Ping {
    pings_left: u64,
    pongs: u64,
    pong: Addr<Pong>,
    done: Reporter<Report>,
}

impl Ping {
    fn send_ping(&mut self, ctx: &mut Context<Self>) {
        self.pings_left -= 1;
        self.pong.do_send(SendPing(ctx.address()));
    }
}

crate::peers::actix_actors!(Ping);

impl Handler<Start> for Ping {
    type Result = ();

    fn handle(&mut self, _: Start, ctx: &mut Context<Self>) {
        self.send_ping(ctx);
    }
}

impl Handler<PingSelf> for Ping {
    type Result = ();

    fn handle(&mut self, _: PingSelf, ctx: &mut Context<Self>) {
        self.send_ping(ctx);
    }
}

impl Handler<SendPong> for Ping {
    type Result = ();

    fn handle(&mut self, _: SendPong, ctx: &mut Context<Self>) {
        self.pongs += 1;
        if self.pings_left > 0 {
            // Through the mailbox, as Akka's `self ! Ping`.
            ctx.address().do_send(PingSelf);
        } else {
            self.pong.do_send(Stop);
            self.done.report(Report::PongsReceived(self.pongs));
            ctx.stop();
        }
    }
}

struct Pong {
    count: u64,
    done: Reporter<Report>,
}

crate::peers::actix_actors!(Pong);

impl Handler<SendPing> for Pong {
    type Result = ();

    fn handle(&mut self, SendPing(ping): SendPing, _: &mut Context<Self>) {
        self.count += 1;
        ping.do_send(SendPong);
    }
}

impl Handler<Stop> for Pong {
    type Result = ();

    fn handle(&mut self, _: Stop, ctx: &mut Context<Self>) {
        self.done.report(Report::PingsAnswered(self.count));
        ctx.stop();
    }
}

/// Builds the arbiters (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    actix_program(super::config(params)?, threads, start, super::outcome)
}

/// Places the first actors and sends the kick-off messages, on the main thread; returns the
/// addresses the main thread keeps until every actor has exited.
fn start(
    Config { n, .. }: Config,
    mut place: Placement,
    reporter: Reporter<Report>,
) -> (Addr<Ping>, Addr<Pong>) {
    let done = reporter.clone();
    let pong = place.start(move || Pong { count: 0, done });
    let ping_pong = pong.clone();
    let ping = place.start(move || Ping {
        pings_left: n,
        pongs: 0,
        pong: ping_pong,
        done: reporter,
    });
    ping.do_send(Start);
    (ping, pong)
}
