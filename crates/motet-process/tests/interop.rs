//! Processes and motet actors on one runtime: a process tells and asks an actor; an actor sends into
//! a channel and spawns a process. Also the process actor facade.

mod common;

use std::time::Duration;

use common::recv_all_sorted;
use motet_actor::{spawn, Actor, Context, Reply};
use motet_process::actor::{self as pactor, Flow};
use motet_process::{channel, ProcessSystem};
use motet_runtime::testing;

const GUARD: Duration = Duration::from_secs(60);

struct Counter(u64);

enum CounterMsg {
    Add(u64),
    Get(Reply<u64>),
}

impl Actor for Counter {
    type Msg = CounterMsg;
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: CounterMsg) {
        match msg {
            CounterMsg::Add(n) => self.0 += n,
            CounterMsg::Get(reply) => {
                let _ = reply.send(self.0);
            }
        }
    }
}

#[test]
fn a_process_tells_and_asks_an_actor() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let counter = spawn(rt.handle(), Counter(0));
        let (out_tx, out_rx) = channel::unbounded::<u64>();
        system.spawn(async move {
            for i in 1..=10 {
                counter.tell(CounterMsg::Add(i)).unwrap();
            }
            // The ask's future parks the process until the actor answers.
            let total = counter.ask(CounterMsg::Get, GUARD).await.unwrap();
            out_tx.send(total).unwrap();
        });
        assert_eq!(system.block_on(out_rx.recv()).unwrap(), Ok(55));
        system.wait().unwrap();
    });
}

/// An actor that forwards what it receives into a channel, and spawns a process per `Spawn`.
struct Bridge {
    out: channel::Sender<String>,
    system: ProcessSystem,
}

enum BridgeMsg {
    Forward(String),
    Spawn(u32),
}

impl Actor for Bridge {
    type Msg = BridgeMsg;
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: BridgeMsg) {
        match msg {
            BridgeMsg::Forward(s) => {
                let _ = self.out.send(s);
            }
            BridgeMsg::Spawn(n) => {
                let out = self.out.clone();
                self.system.spawn(async move {
                    let _ = out.send(format!("process {n}"));
                });
            }
        }
    }
}

#[test]
fn an_actor_sends_into_a_channel_and_spawns_processes() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let (out_tx, out_rx) = channel::unbounded::<String>();
        let bridge = spawn(
            rt.handle(),
            Bridge {
                out: out_tx,
                system: system.clone(),
            },
        );
        bridge.tell(BridgeMsg::Forward("hello".into())).unwrap();
        bridge.tell(BridgeMsg::Spawn(1)).unwrap();
        bridge.tell(BridgeMsg::Spawn(2)).unwrap();
        drop(bridge);
        let got = recv_all_sorted(&system, &out_rx);
        assert_eq!(got, ["hello", "process 1", "process 2"]);
        system.wait().unwrap();
    });
}

#[test]
fn process_actors_pingpong_with_reply_refs() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        enum PongMsg {
            Ping(pactor::ActorRef<u32>, u32),
        }
        let pong = pactor::spawn_handler(&system, 0u32, |count, msg: PongMsg, _mb| {
            let PongMsg::Ping(reply, n) = msg;
            *count += 1;
            let _ = reply.send(n);
            Flow::Continue
        });
        let (done_tx, done_rx) = channel::unbounded::<u32>();
        pactor::spawn(&system, move |mailbox: pactor::Mailbox<u32>| async move {
            let me = mailbox.self_ref();
            let mut last = 0;
            for i in 0..200 {
                pong.send(PongMsg::Ping(me.clone(), i)).unwrap();
                last = mailbox.read().await.unwrap();
            }
            done_tx.send(last).unwrap();
        });
        assert_eq!(system.block_on(done_rx.recv()).unwrap(), Ok(199));
        // The ping actor ended; pong ends when its last reference (held by ping) is gone.
        system.wait().unwrap();
    });
}

#[test]
fn an_ended_actor_refuses_messages() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let once = pactor::spawn_handler(&system, (), |_, _msg: u32, _| Flow::Stop);
        once.send(1).unwrap();
        system.wait().unwrap();
        assert!(once.is_closed());
        assert_eq!(once.send(2).map_err(|e| e.0), Err(2));
    });
}
