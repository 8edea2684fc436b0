//! The programs of LF's micro benchmarks (ping-pong, thread ring, counting), as LF's Savina ports
//! write them: one tag per message, through logical actions. `examples/micro.rs` times them, and
//! the tooling tests check their metrics; this file is a module of both (the example includes it
//! by path), so it uses nothing else of the tests.

use std::time::Duration;

use motet_reactor::{LogicalAction, Ports, Program, ProgramBuilder, ReactorId, Startup};

/// A reaction `start` of `reactor` that schedules `action` at startup, for the next microstep.
fn kick_off(b: &mut ProgramBuilder, reactor: ReactorId<u64>, action: LogicalAction<()>) {
    b.reaction(reactor, "start")
        .trigger(Startup)
        .effect(action)
        .body(move |_, ctx| ctx.schedule(action, (), Duration::ZERO));
}

/// Ping and pong: a round trip per tag through a logical action, as LF's Savina port does, `n`
/// times; also the handle of pong, whose state counts the pings it answered.
pub fn pingpong(n: u64) -> (Program, ReactorId<u64>) {
    let mut b = ProgramBuilder::new();
    let ping = b.reactor("ping", n);
    let serve = b.logical_action::<(), _>(ping, "serve", Duration::ZERO);
    let send = b.output::<u64, _>(ping, "ping");
    let recv = b.input::<u64, _>(ping, "pong");
    kick_off(&mut b, ping, serve);
    b.reaction(ping, "send")
        .trigger(serve)
        .effect(send)
        .body(move |left, ctx| {
            ctx.set(send, *left);
            *left -= 1;
        });
    b.reaction(ping, "recv")
        .trigger(recv)
        .effect(serve)
        .body(move |left, ctx| {
            if *left > 0 {
                ctx.schedule(serve, (), Duration::ZERO);
            }
        });
    let pong = b.reactor("pong", 0u64);
    let pin = b.input::<u64, _>(pong, "ping");
    let pout = b.output::<u64, _>(pong, "pong");
    b.reaction(pong, "reply")
        .trigger(pin)
        .effect(pout)
        .body(move |count, ctx| {
            *count += 1;
            let v = *ctx.get(pin).unwrap();
            ctx.set(pout, v);
        });
    b.connect(send, pin);
    b.connect(pout, recv);
    (b.build().unwrap(), pong)
}

/// A ring of `n` nodes passing a token `hops` times; each hop is one tag (a logical action breaks
/// the cycle in every node, as LF's port does; `send` is declared before `recv` so that the order
/// within a node does not close the cycle again).
pub fn ring(n: usize, hops: u64) -> Program {
    let mut b = ProgramBuilder::new();
    let nodes = b.bank(n, |b, i| {
        let r = b.reactor(&format!("node[{i}]"), i);
        let inp = b.input::<u64, _>(r, "in");
        let out = b.output::<u64, _>(r, "out");
        let fwd = b.logical_action::<u64, _>(r, "fwd", Duration::ZERO);
        b.reaction(r, "start")
            .trigger(Startup)
            .effect(out)
            .body(move |me, ctx| {
                if *me == 0 {
                    ctx.set(out, hops);
                }
            });
        b.reaction(r, "send")
            .trigger(fwd)
            .effect(out)
            .body(move |_, ctx| {
                let v = *ctx.get(fwd).unwrap();
                ctx.set(out, v);
            });
        b.reaction(r, "recv")
            .trigger(inp)
            .effect(fwd)
            .body(move |_, ctx| {
                let left = *ctx.get(inp).unwrap();
                if left > 0 {
                    ctx.schedule(fwd, left - 1, Duration::ZERO);
                }
            });
        (inp, out)
    });
    let outs: Ports<u64> = nodes.iter().map(|x| x.1).collect();
    let ins: Ports<u64> = nodes.iter().cycle().skip(1).take(n).map(|x| x.0).collect();
    b.connect(outs, ins);
    b.build().unwrap()
}

/// LF's counting actor: a producer sends `n` increments to a counter, one per tag (a logical action
/// per increment, as LF's port does), then asks for the count.
pub fn count(n: u64) -> Program {
    let mut b = ProgramBuilder::new();
    let producer = b.reactor("producer", 0u64);
    let next = b.logical_action::<(), _>(producer, "next", Duration::ZERO);
    let inc = b.output::<(), _>(producer, "increment");
    let ask = b.output::<(), _>(producer, "retrieve");
    let result = b.input::<u64, _>(producer, "result");
    kick_off(&mut b, producer, next);
    b.reaction(producer, "send")
        .trigger(next)
        .effect(inc)
        .effect(ask)
        .effect(next)
        .body(move |sent, ctx| {
            if *sent < n {
                ctx.set(inc, ());
                *sent += 1;
                ctx.schedule(next, (), Duration::ZERO);
            } else {
                ctx.set(ask, ());
            }
        });
    b.reaction(producer, "check")
        .trigger(result)
        .body(move |_, ctx| assert_eq!(*ctx.get(result).unwrap(), n));
    let counter = b.reactor("counter", 0u64);
    let cin = b.input::<(), _>(counter, "increment");
    let cask = b.input::<(), _>(counter, "retrieve");
    let cout = b.output::<u64, _>(counter, "result");
    b.reaction(counter, "count")
        .trigger(cin)
        .body(move |c, _| *c += 1);
    b.reaction(counter, "reply")
        .trigger(cask)
        .effect(cout)
        .body(move |c, ctx| ctx.set(cout, *c));
    b.connect(inc, cin);
    b.connect(ask, cask);
    b.connect(cout, result);
    b.build().unwrap()
}
