//! Reactors beside actors and processes: a reaction sends to an actor's address and to a
//! process's channel, an actor feeds a physical action of the program, and a process runs the
//! program with `Runner::run_async`, awaiting it without blocking a worker.
//!
//! A thermostat program asks a sensor actor for readings; each reading arrives as a physical
//! action (tagged from the clock when it arrives), the control reaction decides heat on or off
//! and reports each decision on a channel that a logging process reads.
//!
//! Run with `cargo run -p motet --example reactor_interop`.

use std::time::Duration;

use motet::actor::{spawn, Actor, Context};
use motet::process::{channel, ProcessSystem};
use motet::reactor::{PhysicalSender, ProgramBuilder, Runner, Startup};
use motet::Runtime;

/// A simulated sensor: answers each request with the next temperature of its list, through the
/// program's physical action.
struct Sensor {
    readings: Vec<f64>,
    next: usize,
    to_program: PhysicalSender<f64>,
}

impl Actor for Sensor {
    type Msg = ();

    fn handle(&mut self, ctx: &mut Context<'_, Self>, (): ()) {
        match self.readings.get(self.next) {
            Some(&t) => {
                self.next += 1;
                self.to_program.send(t);
            }
            None => ctx.stop(),
        }
    }
}

fn main() {
    let rt = Runtime::builder().workers(2).build().expect("a runtime");
    let system = ProcessSystem::new(rt.handle());

    let mut b = ProgramBuilder::new();
    let thermostat = b.reactor("thermostat", 0u32);
    let reading = b.physical_action::<f64, _>(thermostat, "reading", Duration::ZERO);
    let sensor = spawn(
        rt.handle(),
        Sensor {
            readings: vec![18.5, 19.2, 20.4, 21.3, 20.9],
            next: 0,
            to_program: b.sender(reading),
        },
    );
    let (log_tx, log_rx) = channel::unbounded::<String>();

    let ask = sensor.clone();
    b.reaction(thermostat, "start")
        .trigger(Startup)
        .body(move |_, _| {
            // A reaction may send to an actor: the address is captured by the body.
            let _ = ask.tell(());
        });
    b.reaction(thermostat, "control")
        .trigger(reading)
        .body(move |count, ctx| {
            let t = *ctx.get(reading).expect("triggered by the reading");
            let heat = if t < 20.0 { "on" } else { "off" };
            // ... and to a process's channel.
            let _ = log_tx.send(format!("{t:.1} C: heat {heat}"));
            *count += 1;
            if *count == 5 {
                ctx.request_stop();
            } else {
                let _ = sensor.tell(());
            }
        });
    let program = b.build().expect("a valid program");

    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let runner = Runner::on(rt.handle());
    system.spawn(async move {
        let mut finished = runner
            .run_async(program)
            .expect("a thread for the run")
            .await;
        let decisions = *finished.program.state_mut(thermostat);
        let _ = done_tx.send((finished.result.is_ok(), decisions));
    });
    system.spawn(async move {
        while let Ok(line) = log_rx.recv().await {
            println!("{line}");
        }
    });
    let (ok, decisions) = done_rx.recv().expect("the program ends");
    println!("run ok: {ok}, {decisions} decisions");
}
