//! The workloads of the `when_vs_tell` bench and the `when_tell_profile` example, each as an
//! actor version (`*_tell`, motet-actor) and a BoC version (`*_when`), run to quiescence on the
//! given runtime: Counting (one producer floods one receiver with `n` messages), Ping Pong (`n`
//! hops between two parties, each a whole scheduling) and a fan-out (rounds of one message to each
//! of 60 receivers, the shape of fjthrput). Included by path by both. The BoC versions come in two
//! forms: `*_when` spawns with `when` and drops the promise, `*_detached` with `when_detached`.

use motet_actor::{spawn, Actor, Addr, Context};
use motet_boc::{when, when_detached, Cown, CownSet};
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

/// Spawns a fire-and-forget behaviour: with `when_detached` if `DETACHED`, else with `when`,
/// dropping the promise.
fn fire<const DETACHED: bool, S, F>(cowns: S, f: F)
where
    S: CownSet,
    F: for<'a> FnOnce(<S::Shape as motet_boc::set::Shape>::View<'a>) + Send + 'static,
{
    if DETACHED {
        when_detached(cowns, f).expect("a valid cown set");
    } else {
        drop(when(cowns, f));
    }
}

pub fn count_when(rt: &Runtime, n: u64) {
    count_boc::<false>(rt, n)
}

pub fn count_detached(rt: &Runtime, n: u64) {
    count_boc::<true>(rt, n)
}

fn count_boc<const DETACHED: bool>(rt: &Runtime, n: u64) {
    let counter = Cown::new(rt.handle(), 0u64);
    let producer = Cown::new(rt.handle(), ());
    let c = counter.clone();
    fire::<DETACHED, _, _>(&producer, move |_| {
        for _ in 0..n {
            fire::<DETACHED, _, _>(&c, |n| *n += 1);
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
fn hop<const DETACHED: bool>(me: &Cown<Party>, left: u64) {
    fire::<DETACHED, _, _>(me, move |p: &mut Party| {
        p.hits += 1;
        match (&p.partner, left) {
            (Some(partner), 1..) => hop::<DETACHED>(partner, left - 1),
            // The last hop breaks the reference cycle between the two cowns.
            _ => p.partner = None,
        }
    });
}

pub fn pingpong_when(rt: &Runtime, n: u64) {
    pingpong_boc::<false>(rt, n)
}

pub fn pingpong_detached(rt: &Runtime, n: u64) {
    pingpong_boc::<true>(rt, n)
}

fn pingpong_boc<const DETACHED: bool>(rt: &Runtime, n: u64) {
    let party = |partner| Party { hits: 0, partner };
    let ping = Cown::new(rt.handle(), party(None));
    let pong = Cown::new(rt.handle(), party(Some(ping.clone())));
    let p = pong.clone();
    drop(when(&ping, move |party| party.partner = Some(p)));
    hop::<DETACHED>(&ping, n);
    rt.wait_quiescent();
    drop(when(&pong, |party| party.partner = None));
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
    fanout_boc::<false>(rt, n)
}

pub fn fanout_detached(rt: &Runtime, n: u64) {
    fanout_boc::<true>(rt, n)
}

fn fanout_boc<const DETACHED: bool>(rt: &Runtime, n: u64) {
    let receivers: Vec<Cown<u64>> = (0..FANOUT).map(|_| Cown::new(rt.handle(), 0)).collect();
    let sender = Cown::new(rt.handle(), ());
    let rounds = n / FANOUT as u64;
    let rs = receivers.clone();
    fire::<DETACHED, _, _>(&sender, move |_| {
        for _ in 0..rounds {
            for r in &rs {
                fire::<DETACHED, _, _>(r, |count| *count += 1);
            }
        }
    });
    rt.wait_quiescent();
    for r in receivers {
        assert_eq!(r.try_unwrap().ok(), Some(rounds));
    }
}
