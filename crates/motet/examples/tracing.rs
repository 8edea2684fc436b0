//! The `tracing` spans and events of every model, printed with `tracing-subscriber`: an actor's
//! spawn, panic and exit (target `motet::actor`), a behaviour's spawn and run (`motet::boc`), a
//! process's spawn and park (`motet::process`), a reaction's execution with its tag
//! (`motet::reactor`), and the runtime's worker spans and parking (`motet_runtime`).
//!
//! `cargo run -p motet --features tracing --example tracing`
//!
//! For a timeline of a reactor program instead, the reactor's own trace writer makes a Chrome trace
//! (`cargo run -p motet --example reactors -- --trace trace.json`).

use motet::actor::{spawn, Actor, Context};
use motet::boc::{when, Cown};
use motet::process::{channel, ProcessSystem};
use motet::reactor::{ProgramBuilder, Runner, Startup};
use motet::Runtime;

/// An actor that panics on its first message.
struct Fragile;

impl Actor for Fragile {
    type Msg = &'static str;
    fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: &'static str) {
        panic!("{msg}");
    }
}

fn main() {
    // Spans are printed as they close (with their busy and idle times); events as they happen.
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_ansi(false)
        .init();
    // Keep the expected panic's message short.
    std::panic::set_hook(Box::new(|info| eprintln!("(panic hook) {info}")));
    let rt = Runtime::builder().workers(2).build().expect("runtime");

    let fragile = spawn(rt.handle(), Fragile);
    fragile.tell("boom").unwrap();
    rt.wait_quiescent();

    let cown = Cown::new(rt.handle(), 1u64);
    let doubled = when(&cown, |n| *n * 2).wait().unwrap();

    let system = ProcessSystem::new(rt.handle());
    let (tx, rx) = channel::unbounded::<u64>();
    let (out_tx, out_rx) = channel::unbounded::<u64>();
    system.spawn(async move {
        // Parks until the value comes.
        let v = rx.recv().await.unwrap();
        out_tx.send(v + 1).unwrap();
    });
    // Late enough that the process has parked on the empty channel.
    std::thread::sleep(std::time::Duration::from_millis(20));
    tx.send(doubled).unwrap();
    let got = out_rx.recv_blocking().unwrap();

    let mut b = ProgramBuilder::new();
    let hello = b.reactor("hello", got);
    b.reaction(hello, "greet")
        .trigger(Startup)
        .body(|got: &mut u64, ctx| println!("reaction at {}: {got}", ctx.tag()));
    let mut program = b.build().expect("a valid program");
    Runner::on(rt.handle()).run(&mut program).expect("the run");
}
