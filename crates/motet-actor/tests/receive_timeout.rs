//! Receive timeouts: a message once nothing arrived for the duration, repeated while idle, reset by
//! arriving messages, gone once cleared or when the actor stops.

use std::sync::mpsc;
use std::time::Duration;

use motet_actor::{Actor, Addr, Context, ExitReason};
use motet_runtime::Runtime;

const GUARD: Duration = Duration::from_secs(30);

#[derive(Debug, PartialEq)]
enum Msg {
    Ping,
    Idle,
    Clear,
    Stop,
}

struct Sleepy(mpsc::Sender<&'static str>, Duration);

impl Actor for Sleepy {
    type Msg = Msg;
    const RECEIVE_TIMEOUT: bool = true;
    fn started(&mut self, ctx: &mut Context<'_, Self>) {
        ctx.set_receive_timeout(self.1, || Msg::Idle);
    }
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        let _ = self.0.send(match msg {
            Msg::Ping => "ping",
            Msg::Idle => "idle",
            Msg::Clear => {
                ctx.clear_receive_timeout();
                "clear"
            }
            Msg::Stop => {
                ctx.stop();
                "stop"
            }
        });
    }
}

fn sleepy(rt: &Runtime) -> (Addr<Msg>, mpsc::Receiver<&'static str>) {
    sleepy_after(rt, Duration::from_millis(50))
}

fn sleepy_after(rt: &Runtime, after: Duration) -> (Addr<Msg>, mpsc::Receiver<&'static str>) {
    let (tx, rx) = mpsc::channel();
    (motet_actor::spawn(rt.handle(), Sleepy(tx, after)), rx)
}

#[test]
fn an_idle_actor_gets_its_timeout_message_repeatedly() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, rx) = sleepy(&rt);
    assert_eq!(rx.recv_timeout(GUARD), Ok("idle"));
    assert_eq!(rx.recv_timeout(GUARD), Ok("idle"));
    addr.tell(Msg::Clear).unwrap();
    assert_eq!(rx.recv_timeout(GUARD), Ok("clear"));
    // Cleared: nothing more (a pending check from before is stale).
    assert_eq!(
        rx.recv_timeout(Duration::from_millis(300)),
        Err(mpsc::RecvTimeoutError::Timeout)
    );
    addr.tell(Msg::Stop).unwrap();
}

/// A steady stream of messages, much closer together than the timeout, for several timeout
/// periods keeps it from firing (a timeout that ignored arrivals would fire about 7 times).
#[test]
fn arriving_messages_reset_the_timeout() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, rx) = sleepy_after(&rt, Duration::from_millis(200));
    let mut pings = 0;
    for _ in 0..300 {
        addr.tell(Msg::Ping).unwrap();
        std::thread::sleep(Duration::from_millis(5));
    }
    addr.tell(Msg::Clear).unwrap();
    let mut idles_between = 0;
    let mut seen_ping = false;
    loop {
        match rx.recv_timeout(GUARD).unwrap() {
            "ping" => {
                seen_ping = true;
                pings += 1;
            }
            "idle" if seen_ping => idles_between += 1,
            "idle" => {}
            "clear" => break,
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!(pings, 300);
    // Pings about 5 ms apart for about 1.5 s: a sender stalled for a whole period could let one
    // timeout through, not one per period.
    assert!(
        idles_between <= 1,
        "{idles_between} timeouts fired among the pings"
    );
    addr.tell(Msg::Stop).unwrap();
}

#[test]
fn a_pending_timeout_does_not_keep_an_unreachable_actor_alive() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, rx) = sleepy(&rt);
    let exit = addr.watch();
    drop(addr);
    assert_eq!(exit.wait_timeout(GUARD), Some(ExitReason::Unreachable));
    // The sender is dropped with the actor: the log ends.
    while rx.recv_timeout(GUARD).is_ok() {}
}

#[test]
fn stopping_cancels_the_timeout() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, rx) = sleepy(&rt);
    let exit = addr.watch();
    addr.tell(Msg::Stop).unwrap();
    assert_eq!(exit.wait_timeout(GUARD), Some(ExitReason::Normal));
    assert_eq!(rx.recv_timeout(GUARD), Ok("stop"));
    // Nothing after the stop: the channel closes with the actor's state.
    assert_eq!(
        rx.recv_timeout(GUARD),
        Err(mpsc::RecvTimeoutError::Disconnected)
    );
    drop(addr);
    // Nothing keeps the runtime busy: its pending timer was cancelled.
    rt.wait_quiescent();
}
