//! `Runner::run_async` from a process and from an actor, and the interop it enables: reactions
//! that send to a channel or to an actor's address, and an actor that feeds a physical action.

use std::sync::mpsc;
use std::time::Duration;

use motet_actor::{spawn, Actor, Addr, Context};
use motet_process::{channel, ProcessSystem};
use motet_reactor::{
    Finished, PhysicalAction, PhysicalSender, Program, ProgramBuilder, ReactorId, Runner, Startup,
};
use motet_runtime::Runtime;

/// Long enough for any run here on a loaded machine; only reached when something is broken.
const PATIENCE: Duration = Duration::from_secs(60);

/// A program whose startup reaction sends `0..n` to `out`, a channel of motet-process, and
/// whose reactor counts them in its state.
fn to_channel(n: u32, out: channel::Sender<u32>) -> (Program, ReactorId<u32>) {
    let mut b = ProgramBuilder::new();
    let r = b.reactor("src", 0u32);
    b.reaction(r, "emit").trigger(Startup).body(move |sent, _| {
        for i in 0..n {
            if out.send(i).is_ok() {
                *sent += 1;
            }
        }
    });
    (b.build().unwrap(), r)
}

/// A process awaits a run on the runtime's workers (2, so the parallel path runs) and receives
/// what its reactions sent over a channel; the program comes back with its state.
#[test]
fn a_process_awaits_a_run() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let (values_tx, values_rx) = channel::unbounded::<u32>();
    let (program, src) = to_channel(5, values_tx);
    let runner = Runner::on(rt.handle());
    let (done_tx, done_rx) = mpsc::channel();
    system.spawn(async move {
        let mut finished = runner.run_async(program).unwrap().await;
        let report = finished.result.expect("the run succeeds");
        let sent = *finished.program.state_mut(src);
        let mut got = Vec::new();
        for _ in 0..sent {
            got.push(values_rx.recv().await.unwrap());
        }
        done_tx
            .send((report.metrics.reactions_executed, got))
            .unwrap();
    });
    let (executed, got) = done_rx.recv_timeout(PATIENCE).expect("the process ends");
    assert_eq!(executed, 1);
    assert_eq!(got, vec![0, 1, 2, 3, 4]);
}

/// Messages of the actor that starts a run and then takes its outcome.
enum Supervise {
    Start(Box<Program>),
    Done(Box<Finished>),
}

/// Starts a run from its handler without blocking its worker, and is told of the end by a
/// message that `RunFuture::then` sends it.
struct Starter {
    counter: ReactorId<u32>,
    report: mpsc::Sender<Result<u32, String>>,
}

impl Actor for Starter {
    type Msg = Supervise;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Supervise) {
        match msg {
            Supervise::Start(program) => {
                let me = ctx.myself();
                let runner = Runner::on(ctx.runtime()).fast(true);
                runner.run_async(*program).unwrap().then(move |finished| {
                    let _ = me.tell(Supervise::Done(Box::new(finished)));
                });
            }
            Supervise::Done(mut finished) => {
                let outcome = match finished.result {
                    Ok(_) => Ok(*finished.program.state_mut(self.counter)),
                    Err(e) => Err(e.to_string()),
                };
                let _ = self.report.send(outcome);
                ctx.stop();
            }
        }
    }
}

/// An actor runs a program of 100 timer ticks (fast) and reads the count when told it ended.
#[test]
fn an_actor_starts_a_run_and_is_told_the_outcome() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let mut b = ProgramBuilder::new();
    let r = b.reactor("counter", 0u32);
    let t = b.timer(r, "tick", Duration::ZERO, Duration::from_millis(1));
    b.reaction(r, "count").trigger(t).body(|n, ctx| {
        *n += 1;
        if *n == 100 {
            ctx.request_stop();
        }
    });
    let program = b.build().unwrap();
    let (tx, rx) = mpsc::channel();
    let starter = spawn(
        rt.handle(),
        Starter {
            counter: r,
            report: tx,
        },
    );
    starter
        .tell(Supervise::Start(Box::new(program)))
        .ok()
        .unwrap();
    assert_eq!(
        rx.recv_timeout(PATIENCE).expect("the actor reports"),
        Ok(100)
    );
}

/// Answers each number with the next one, through a physical action of the program.
struct Echo {
    back: PhysicalSender<u32>,
}

impl Actor for Echo {
    type Msg = u32;

    fn handle(&mut self, _: &mut Context<'_, Self>, n: u32) {
        self.back.send(n + 1);
    }
}

/// A reaction sends to an actor's address; the actor feeds the program's physical action; the
/// reaction that action triggers sends again, five rounds, then the program stops. The run is
/// awaited from a process; the log holds what the reactions saw, in order.
#[test]
fn reactions_and_an_actor_talk_through_a_physical_action() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let mut b = ProgramBuilder::new();
    let r = b.reactor("talker", Vec::<u32>::new());
    let answer: PhysicalAction<u32> = b.physical_action(r, "answer", Duration::ZERO);
    let back = b.sender(answer);
    let echo: Addr<u32> = spawn(rt.handle(), Echo { back });
    let first = echo.clone();
    b.reaction(r, "open").trigger(Startup).body(move |_, _| {
        let _ = first.tell(0);
    });
    b.reaction(r, "reply")
        .trigger(answer)
        .body(move |seen, ctx| {
            let n = *ctx.get(answer).unwrap();
            seen.push(n);
            if n < 5 {
                let _ = echo.tell(n);
            } else {
                ctx.request_stop();
            }
        });
    let program = b.build().unwrap();
    let runner = Runner::on(rt.handle());
    let (tx, rx) = mpsc::channel();
    system.spawn(async move {
        let mut finished = runner.run_async(program).unwrap().await;
        let ok = finished.result.is_ok();
        let _ = tx.send((ok, finished.program.state_mut(r).clone()));
    });
    let (ok, seen) = rx.recv_timeout(PATIENCE).expect("the run ends");
    assert!(ok);
    assert_eq!(seen, vec![1, 2, 3, 4, 5]);
}

/// A program run twice through `run_async` re-raises the panic of the second run where the
/// outcome is awaited, as `Runner::run` panics.
#[test]
fn a_second_run_panics_where_it_is_awaited() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    b.reaction(r, "noop").trigger(Startup).body(|_, _| {});
    let program = b.build().unwrap();
    let (tx, rx) = mpsc::channel();
    system.spawn(async move {
        let finished = Runner::new().fast(true).run_async(program).unwrap().await;
        let again = Runner::new()
            .fast(true)
            .run_async(finished.program)
            .unwrap();
        let outcome = futures_catch(again).await;
        let _ = tx.send(outcome);
    });
    let panicked = rx.recv_timeout(PATIENCE).expect("the process ends");
    assert!(
        panicked,
        "the second run's panic reaches the awaiting process"
    );
}

/// Awaits `f`, returning whether polling it panicked.
async fn futures_catch(f: motet_reactor::RunFuture) -> bool {
    use std::future::Future;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::pin::pin;
    use std::task::Poll;
    let mut f = pin!(f);
    std::future::poll_fn(
        |cx| match catch_unwind(AssertUnwindSafe(|| f.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(_)) => Poll::Ready(false),
            Err(_) => Poll::Ready(true),
        },
    )
    .await
}
