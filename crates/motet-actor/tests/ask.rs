//! Request/response: timeouts (in virtual time under the deterministic scheduler), late replies,
//! asking a stopped actor, a dropped `Reply`, `Context::ask` from inside an actor, and `Ask` as a
//! future polled by a minimal executor.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Poll, Wake, Waker};
use std::thread::Thread;
use std::time::{Duration, Instant};

use motet_actor::{spawn, Actor, Addr, AskError, Context, ExitReason, Reply};
use motet_runtime::{testing, Runtime};

/// A deadlock guard for asks that must be answered (virtual time on a deterministic runtime).
const GUARD: Duration = Duration::from_secs(60);

/// A timeout meant to expire: 10 s of virtual time when deterministic, 20 ms on real threads.
fn short_timeout(rt: &Runtime) -> Duration {
    if rt.handle().seed().is_some() {
        Duration::from_secs(10)
    } else {
        Duration::from_millis(20)
    }
}

enum Msg {
    /// Answers with the value.
    Echo(u64, Reply<u64>),
    /// Keeps the reply without answering.
    Hold(Reply<u64>),
    /// Answers every held reply with `value`, and reports what each `send` returned.
    Release(u64, Reply<Vec<Result<(), u64>>>),
    /// Drops the reply unanswered.
    Ignore(Reply<u64>),
    /// Waits (busy) until the flag is set: keeps messages queued behind it.
    Gate(Arc<AtomicBool>),
    Stop,
}

#[derive(Default)]
struct Server {
    held: Vec<Reply<u64>>,
}

impl Actor for Server {
    type Msg = Msg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Echo(v, r) => {
                let _ = r.send(v);
            }
            Msg::Hold(r) => self.held.push(r),
            Msg::Release(v, r) => {
                let results = self.held.drain(..).map(|h| h.send(v)).collect();
                let _ = r.send(results);
            }
            Msg::Ignore(r) => drop(r),
            Msg::Gate(open) => {
                let deadline = Instant::now() + GUARD; // deadlock guard only
                while !open.load(SeqCst) && Instant::now() < deadline {
                    std::thread::yield_now();
                }
            }
            Msg::Stop => ctx.stop(),
        }
    }
}

#[test]
fn an_answered_ask_returns_the_value() {
    testing::check(|rt| {
        let s = spawn(rt.handle(), Server::default());
        for v in 0..20 {
            assert_eq!(s.ask(|r| Msg::Echo(v, r), GUARD).wait(), Ok(v));
        }
        // An answered ask cancels its timer: the runtime is quiescent without waiting for it.
        rt.wait_quiescent();
        assert!(rt.handle().is_quiescent());
    });
}

#[test]
fn an_unanswered_ask_times_out() {
    testing::check(|rt| {
        let s = spawn(rt.handle(), Server::default());
        let timeout = short_timeout(rt);
        let (wall, virt) = (Instant::now(), rt.handle().now());
        assert_eq!(s.ask(Msg::Hold, timeout).wait(), Err(AskError::Timeout));
        assert!(rt.handle().now() >= virt + timeout, "the ask gave up early");
        if rt.handle().seed().is_some() {
            // Virtual time: ten seconds of timeout did not take ten seconds.
            assert!(wall.elapsed() < timeout);
        }
        // The actor is unharmed.
        assert_eq!(s.ask(|r| Msg::Echo(5, r), GUARD).wait(), Ok(5));
    });
}

#[test]
fn a_reply_after_the_timeout_is_handed_back() {
    testing::check(|rt| {
        let s = spawn(rt.handle(), Server::default());
        let timeout = short_timeout(rt);
        let late = s.ask(Msg::Hold, timeout);
        assert_eq!(late.wait(), Err(AskError::Timeout));
        let answered = s.ask(Msg::Hold, GUARD);
        let results = s.ask(|r| Msg::Release(7, r), GUARD).wait().unwrap();
        // The timed-out one gets its value back; the live one is answered.
        assert_eq!(results, [Err(7), Ok(())]);
        assert_eq!(answered.wait(), Ok(7));
        rt.wait_quiescent();
    });
}

#[test]
fn asking_a_stopped_actor_fails_at_once() {
    testing::check(|rt| {
        let s = spawn(rt.handle(), Server::default());
        let w = s.watch();
        s.tell(Msg::Stop).unwrap();
        assert_eq!(w.wait(), ExitReason::Normal);
        assert!(s.is_stopped());
        let made = Arc::new(AtomicUsize::new(0));
        let m = made.clone();
        let ask = s.ask(
            move |r| {
                m.fetch_add(1, SeqCst);
                Msg::Echo(1, r)
            },
            GUARD,
        );
        assert_eq!(ask.wait(), Err(AskError::Stopped));
        assert_eq!(made.load(SeqCst), 1);
        // No timer is left behind.
        rt.wait_quiescent();
        assert!(rt.handle().is_quiescent());
    });
}

#[test]
fn a_dropped_reply_fails_the_ask() {
    testing::check(|rt| {
        let s = spawn(rt.handle(), Server::default());
        assert_eq!(s.ask(Msg::Ignore, GUARD).wait(), Err(AskError::Dropped));
        // A request still queued when the actor stops is dropped too.
        let open = Arc::new(AtomicBool::new(false));
        s.tell(Msg::Gate(open.clone())).unwrap();
        s.tell(Msg::Stop).unwrap();
        let queued = s.ask(|r| Msg::Echo(3, r), GUARD);
        open.store(true, SeqCst);
        assert_eq!(queued.wait(), Err(AskError::Dropped));
        // A request held in the state when the actor stops, likewise.
        let s = spawn(rt.handle(), Server::default());
        let held = s.ask(Msg::Hold, GUARD);
        s.tell(Msg::Stop).unwrap();
        assert_eq!(held.wait(), Err(AskError::Dropped));
    });
}

#[test]
fn then_routes_the_answer_to_a_callback() {
    testing::check(|rt| {
        let s = spawn(rt.handle(), Server::default());
        let got = Arc::new(Mutex::new(Vec::new()));
        for v in 0..3 {
            let g = got.clone();
            s.ask(|r| Msg::Echo(v, r), GUARD)
                .then(move |res| g.lock().unwrap().push(res));
        }
        let g = got.clone();
        s.ask(Msg::Ignore, GUARD)
            .then(move |res| g.lock().unwrap().push(res));
        rt.wait_quiescent();
        let mut got = got.lock().unwrap().clone();
        got.sort_by_key(|r| r.map_or(u64::MAX, |v| v));
        assert_eq!(got, [Ok(0), Ok(1), Ok(2), Err(AskError::Dropped)]);
    });
}

/// Asks from inside an actor: `Context::ask` turns each outcome into a message to the asker.
enum AskerMsg {
    Go(Addr<Msg>, Duration),
    Outcome(&'static str, Result<u64, AskError>),
}

/// What an asker received, by request.
type Outcomes = Arc<Mutex<Vec<(&'static str, Result<u64, AskError>)>>>;

struct Asker {
    outcomes: Outcomes,
}

impl Actor for Asker {
    type Msg = AskerMsg;

    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: AskerMsg) {
        match msg {
            AskerMsg::Go(target, timeout) => {
                ctx.ask(
                    &target,
                    |r| Msg::Echo(11, r),
                    GUARD,
                    |res| AskerMsg::Outcome("echo", res),
                );
                ctx.ask(&target, Msg::Hold, timeout, |res| {
                    AskerMsg::Outcome("hold", res)
                });
                ctx.ask(&target, Msg::Ignore, GUARD, |res| {
                    AskerMsg::Outcome("ignore", res)
                });
            }
            AskerMsg::Outcome(what, res) => self.outcomes.lock().unwrap().push((what, res)),
        }
    }
}

#[test]
fn context_ask_delivers_the_outcome_as_a_message() {
    testing::check(|rt| {
        let outcomes = Outcomes::default();
        let asker = spawn(
            rt.handle(),
            Asker {
                outcomes: outcomes.clone(),
            },
        );
        let target = spawn(rt.handle(), Server::default());
        asker
            .tell(AskerMsg::Go(target.clone(), short_timeout(rt)))
            .unwrap();
        rt.wait_quiescent();
        let mut got = outcomes.lock().unwrap().clone();
        got.sort_by_key(|(what, _)| *what);
        assert_eq!(
            got,
            [
                ("echo", Ok(11)),
                ("hold", Err(AskError::Timeout)),
                ("ignore", Err(AskError::Dropped)),
            ]
        );
        // Asking a stopped actor from inside an actor: the outcome arrives too.
        let w = target.watch();
        target.tell(Msg::Stop).unwrap();
        w.wait();
        outcomes.lock().unwrap().clear();
        asker.tell(AskerMsg::Go(target, short_timeout(rt))).unwrap();
        rt.wait_quiescent();
        let got = outcomes.lock().unwrap().clone();
        assert_eq!(got.len(), 3);
        assert!(got.iter().all(|(_, res)| *res == Err(AskError::Stopped)));
    });
}

/// A waker that unparks the thread blocked in [`block_on`].
struct Unpark {
    thread: Thread,
    woken: AtomicBool,
    wakes: AtomicUsize,
}

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, SeqCst);
        self.woken.store(true, SeqCst);
        self.thread.unpark();
    }
}

fn unpark_waker() -> (Arc<Unpark>, Waker) {
    let state = Arc::new(Unpark {
        thread: std::thread::current(),
        woken: AtomicBool::new(false),
        wakes: AtomicUsize::new(0),
    });
    let waker = Waker::from(state.clone());
    (state, waker)
}

/// A minimal executor: polls `fut` on this thread, parking between polls until woken. On a
/// deterministic runtime it drives the runtime instead of parking.
fn block_on<F: Future>(rt: &Runtime, fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let (state, waker) = unpark_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    loop {
        state.woken.store(false, SeqCst);
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        let woken = rt.handle().drive_until(|| state.woken.load(SeqCst));
        assert!(
            woken || rt.handle().seed().is_none(),
            "the runtime is quiescent and the future was not woken"
        );
        let deadline = Instant::now() + GUARD; // deadlock guard only
        while !state.woken.load(SeqCst) {
            let now = Instant::now();
            assert!(now < deadline, "the future was never woken");
            std::thread::park_timeout(deadline - now);
        }
    }
}

#[test]
fn ask_is_a_future() {
    testing::check(|rt| {
        let s = spawn(rt.handle(), Server::default());
        assert_eq!(block_on(rt, s.ask(|r| Msg::Echo(9, r), GUARD)), Ok(9));
        assert_eq!(
            block_on(rt, s.ask(Msg::Hold, short_timeout(rt))),
            Err(AskError::Timeout)
        );
        assert_eq!(
            block_on(rt, s.ask(Msg::Ignore, GUARD)),
            Err(AskError::Dropped)
        );
        let w = s.watch();
        s.tell(Msg::Stop).unwrap();
        assert_eq!(block_on(rt, w), ExitReason::Normal);
        assert_eq!(
            block_on(rt, s.ask(|r| Msg::Echo(1, r), GUARD)),
            Err(AskError::Stopped)
        );
    });
}

/// The waker registered by a pending poll is woken by the reply, once.
#[test]
fn a_pending_ask_is_woken_by_the_reply() {
    testing::check_deterministic(|rt| {
        let s = spawn(rt.handle(), Server::default());
        let mut ask = pin!(s.ask(|r| Msg::Echo(4, r), GUARD));
        let (state, waker) = unpark_waker();
        let mut cx = std::task::Context::from_waker(&waker);
        // Nothing has run yet: the first poll registers the waker.
        assert!(ask.as_mut().poll(&mut cx).is_pending());
        assert_eq!(state.wakes.load(SeqCst), 0);
        rt.wait_quiescent();
        assert_eq!(state.wakes.load(SeqCst), 1);
        assert_eq!(ask.as_mut().poll(&mut cx), Poll::Ready(Ok(4)));
    });
}

/// Dropping an `Ask` future before the answer abandons it: the actor's reply is accepted and then
/// dropped, and the runtime winds down.
#[test]
fn an_abandoned_ask_drops_the_reply_harmlessly() {
    struct Token(Arc<AtomicUsize>);
    impl Drop for Token {
        fn drop(&mut self) {
            self.0.fetch_add(1, SeqCst);
        }
    }
    enum TokMsg {
        Hold(Reply<Token>),
        Release(Arc<AtomicUsize>, Reply<bool>),
    }
    #[derive(Default)]
    struct TokServer(Vec<Reply<Token>>);
    impl Actor for TokServer {
        type Msg = TokMsg;
        fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: TokMsg) {
            match msg {
                TokMsg::Hold(r) => self.0.push(r),
                TokMsg::Release(dropped, r) => {
                    let ok = self
                        .0
                        .drain(..)
                        .all(|h| h.send(Token(dropped.clone())).is_ok());
                    let _ = r.send(ok);
                }
            }
        }
    }
    testing::check(|rt| {
        let dropped = Arc::new(AtomicUsize::new(0));
        let s = spawn(rt.handle(), TokServer::default());
        {
            let mut ask = pin!(s.ask(TokMsg::Hold, GUARD));
            let (_state, waker) = unpark_waker();
            let _ = ask
                .as_mut()
                .poll(&mut std::task::Context::from_waker(&waker));
        } // abandoned
        let sent = s
            .ask(|r| TokMsg::Release(dropped.clone(), r), GUARD)
            .wait()
            .unwrap();
        assert!(sent, "the abandoned ask's slot still takes the reply");
        rt.wait_quiescent();
        assert_eq!(
            dropped.load(SeqCst),
            1,
            "the abandoned reply was not dropped"
        );
        assert!(rt.handle().is_quiescent());
    });
}
