//! The workloads of the `when_vs_tell` bench and the `when_tell_profile` example, each as an
//! actor version (`*_tell`, motet-actor) and a BoC version (`*_when`), run to quiescence on the
//! given runtime: Counting (one producer floods one receiver with `n` messages), Ping Pong (`n`
//! hops between two parties, each a whole scheduling) and a fan-out (rounds of one message to each
//! of 60 receivers, the shape of fjthrput). Included by path by both.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_boc::{when, Cown};
use motet_runtime::Runtime;

enum CounterMsg {
    Increment,
}

struct Counter(u64);

impl Actor for Counter {
    type Msg = CounterMsg;
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: CounterMsg) {
        match msg {
            CounterMsg::Increment => self.0 += 1,
        }
    }
}

struct Producer(Addr<CounterMsg>);

impl Actor for Producer {
    type Msg = u64;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, n: u64) {
        for _ in 0..n {
            let _ = self.0.tell(CounterMsg::Increment);
        }
        ctx.stop();
    }
}

pub fn count_tell(rt: &Runtime, n: u64) {
    let counter = spawn(rt.handle(), Counter(0));
    let producer = spawn(rt.handle(), Producer(counter));
    let _ = producer.tell(n);
    drop(producer);
    rt.wait_quiescent();
}

pub fn count_when(rt: &Runtime, n: u64) {
    let counter = Cown::new(rt.handle(), 0u64);
    let producer = Cown::new(rt.handle(), ());
    let c = counter.clone();
    when(&producer, move |_| {
        for _ in 0..n {
            when(&c, |n| *n += 1);
        }
    });
    rt.wait_quiescent();
    assert_eq!(counter.try_unwrap().ok(), Some(n));
}

enum Setup {
    Partner(Addr<u64>),
    Ball(u64),
}

struct Pong {
    ping: Option<Addr<u64>>,
}

impl Actor for Pong {
    type Msg = Setup;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Setup) {
        match msg {
            Setup::Partner(ping) => self.ping = Some(ping),
            Setup::Ball(0) => ctx.stop(),
            Setup::Ball(left) => {
                if let Some(ping) = &self.ping {
                    let _ = ping.tell(left - 1);
                }
            }
        }
    }
}

struct Forward(Addr<Setup>);

impl Actor for Forward {
    type Msg = u64;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, left: u64) {
        if left == 0 {
            ctx.stop();
            return;
        }
        let _ = self.0.tell(Setup::Ball(left - 1));
    }
}

pub fn pingpong_tell(rt: &Runtime, n: u64) {
    let pong = spawn(rt.handle(), Pong { ping: None });
    let ping = spawn(rt.handle(), Forward(pong.clone()));
    let _ = pong.tell(Setup::Partner(ping.clone()));
    let _ = ping.tell(n);
    drop((pong, ping));
    rt.wait_quiescent();
}

/// A BoC ping-pong party: its hit count and the partner's cown (as the actors hold addresses).
struct Party {
    hits: u64,
    partner: Option<Cown<Party>>,
}

/// A hop: a behaviour on `me` that spawns the next hop on its partner.
fn hop(me: &Cown<Party>, left: u64) {
    when(me, move |p| {
        p.hits += 1;
        match (&p.partner, left) {
            (Some(partner), 1..) => hop(partner, left - 1),
            // The last hop breaks the reference cycle between the two cowns.
            _ => p.partner = None,
        }
    });
}

pub fn pingpong_when(rt: &Runtime, n: u64) {
    let party = |partner| Party { hits: 0, partner };
    let ping = Cown::new(rt.handle(), party(None));
    let pong = Cown::new(rt.handle(), party(Some(ping.clone())));
    let p = pong.clone();
    when(&ping, move |party| party.partner = Some(p));
    hop(&ping, n);
    rt.wait_quiescent();
    when(&pong, |party| party.partner = None);
    rt.wait_quiescent();
}

/// Receivers of the fan-out workload (fjthrput's default).
const FANOUT: usize = 60;

struct Receiver(u64);

impl Actor for Receiver {
    type Msg = ();
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, _msg: ()) {
        self.0 += 1;
    }
}

struct Sender(Vec<Addr<()>>);

impl Actor for Sender {
    type Msg = u64;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, rounds: u64) {
        for _ in 0..rounds {
            for r in &self.0 {
                let _ = r.tell(());
            }
        }
        ctx.stop();
    }
}

pub fn fanout_tell(rt: &Runtime, n: u64) {
    let receivers = (0..FANOUT)
        .map(|_| spawn(rt.handle(), Receiver(0)))
        .collect();
    let sender = spawn(rt.handle(), Sender(receivers));
    let _ = sender.tell(n / FANOUT as u64);
    drop(sender);
    rt.wait_quiescent();
}

pub fn fanout_when(rt: &Runtime, n: u64) {
    let receivers: Vec<Cown<u64>> = (0..FANOUT).map(|_| Cown::new(rt.handle(), 0)).collect();
    let sender = Cown::new(rt.handle(), ());
    let rounds = n / FANOUT as u64;
    let rs = receivers.clone();
    when(&sender, move |_| {
        for _ in 0..rounds {
            for r in &rs {
                when(r, |count| *count += 1);
            }
        }
    });
    rt.wait_quiescent();
    for r in receivers {
        assert_eq!(r.try_unwrap().ok(), Some(rounds));
    }
}
