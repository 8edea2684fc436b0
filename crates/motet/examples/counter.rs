//! A first actor program: a counter that answers asks, and a client actor that talks to it.
//!
//! `cargo run -p motet --example counter`

use std::time::Duration;

use motet::actor::{spawn, Actor, AskError, Context, Reply};
use motet::Runtime;

/// The counter's messages: add to it, or ask for its value.
enum CounterMsg {
    Add(u64),
    Get(Reply<u64>),
}

struct Counter {
    total: u64,
}

impl Actor for Counter {
    type Msg = CounterMsg;

    fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: CounterMsg) {
        match msg {
            CounterMsg::Add(n) => self.total += n,
            CounterMsg::Get(reply) => {
                let _ = reply.send(self.total);
            }
        }
    }
}

/// A client that adds 1..=10 and then asks, without blocking its worker.
struct Client {
    counter: motet::actor::Addr<CounterMsg>,
}

enum ClientMsg {
    Go,
    Total(Result<u64, AskError>),
}

impl Actor for Client {
    type Msg = ClientMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: ClientMsg) {
        match msg {
            ClientMsg::Go => {
                for n in 1..=10 {
                    let _ = self.counter.tell(CounterMsg::Add(n));
                }
                ctx.ask(
                    &self.counter,
                    CounterMsg::Get,
                    Duration::from_secs(1),
                    ClientMsg::Total,
                );
            }
            ClientMsg::Total(total) => {
                println!("client sees total = {total:?}");
                ctx.stop();
            }
        }
    }
}

fn main() {
    let rt = Runtime::new().expect("runtime");
    let counter = spawn(rt.handle(), Counter { total: 0 });
    let client = spawn(
        rt.handle(),
        Client {
            counter: counter.clone(),
        },
    );
    client.tell(ClientMsg::Go).unwrap();
    let done = client.watch();
    println!("client exited: {}", done.wait());

    // From a plain thread, ask blocks until the answer or the timeout.
    let total = counter
        .ask(CounterMsg::Get, Duration::from_secs(1))
        .wait()
        .expect("the counter answers");
    println!("main sees total = {total}");
    assert_eq!(total, 55);
}
