//! Supervision: a worker that panics on bad input is restarted in place (same address), until it
//! fails more often than the restart intensity allows; a monitor sees the supervisor give up.
//!
//! `cargo run -p motet --example supervision`

use std::time::Duration;

use motet::actor::{Actor, Context, Strategy, Supervisor};
use motet::Runtime;

struct Parser {
    parsed: u32,
}

impl Actor for Parser {
    type Msg = String;

    fn started(&mut self, _ctx: &mut Context<'_, Self>) {
        println!("parser (re)started");
    }

    fn handle(&mut self, _ctx: &mut Context<'_, Self>, line: String) {
        let n: i64 = line.trim().parse().expect("not a number");
        self.parsed += 1;
        println!("parsed {n} ({} since the last restart)", self.parsed);
    }
}

fn main() {
    // Panics are contained by the runtime; print one line for each instead of a backtrace.
    std::panic::set_hook(Box::new(|info| eprintln!("worker panicked: {info}")));
    let rt = Runtime::new().expect("runtime");
    let sup = Supervisor::builder(Strategy::OneForOne)
        .intensity(2, Duration::from_secs(60))
        .spawn(rt.handle());
    let parser = sup.spawn_child(|| Parser { parsed: 0 }).unwrap();
    let sup_exit = sup.watch();
    for line in ["1", "2", "oops", "3", "again?", "4", "third strike"] {
        let _ = parser.tell(line.to_string());
    }
    println!("supervisor exited: {}", sup_exit.wait());
    rt.wait_quiescent();
    println!("parser stopped: {}", parser.is_stopped());
}
