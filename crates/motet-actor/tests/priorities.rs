//! Urgent messages: an actor with `PRIORITIES` handles queued urgent messages before queued normal
//! ones, each kind in the order sent; an actor without it takes an urgent send as a plain one.

use std::sync::mpsc;
use std::time::Duration;

use motet_actor::{spawn, Actor, Context, ExitReason};
use motet_runtime::Runtime;

const GUARD: Duration = Duration::from_secs(30);

enum Msg {
    /// Blocks the handler until released, so that messages queue up behind it.
    Hold(mpsc::Receiver<()>),
    Normal(u32),
    Urgent(u32),
}

/// Logs what it handles, in order.
struct Log<const P: bool>(mpsc::Sender<String>);

impl<const P: bool> Actor for Log<P> {
    type Msg = Msg;
    const PRIORITIES: bool = P;
    fn handle(&mut self, _: &mut Context<'_, Self>, msg: Msg) {
        let entry = match msg {
            Msg::Hold(gate) => {
                let _ = gate.recv();
                return;
            }
            Msg::Normal(n) => format!("n{n}"),
            Msg::Urgent(n) => format!("u{n}"),
        };
        let _ = self.0.send(entry);
    }
}

fn queue_behind_a_hold<const P: bool>() -> Vec<String> {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let (tx, rx) = mpsc::channel();
    let addr = spawn(rt.handle(), Log::<P>(tx));
    let (release, gate) = mpsc::channel();
    addr.tell(Msg::Hold(gate)).unwrap();
    for i in 0..3 {
        addr.tell(Msg::Normal(i)).unwrap();
        addr.tell_urgent(Msg::Urgent(i)).unwrap();
    }
    release.send(()).unwrap();
    (0..6).map(|_| rx.recv_timeout(GUARD).unwrap()).collect()
}

#[test]
fn urgent_messages_overtake_queued_normal_ones_in_fifo_order() {
    assert_eq!(
        queue_behind_a_hold::<true>(),
        ["u0", "u1", "u2", "n0", "n1", "n2"]
    );
}

#[test]
fn an_urgent_send_to_an_actor_without_priorities_is_a_plain_one() {
    assert_eq!(
        queue_behind_a_hold::<false>(),
        ["n0", "u0", "n1", "u1", "n2", "u2"]
    );
}

/// Many senders, each sending urgent and normal numbers in increasing order: each sender's
/// urgent and normal messages arrive in the order sent, none lost.
#[test]
fn fifo_within_each_priority_per_sender_under_load() {
    struct Check {
        last: [[Option<u32>; 2]; 4],
        count: u32,
        done: mpsc::Sender<u32>,
    }
    impl Actor for Check {
        type Msg = (usize, bool, u32);
        const PRIORITIES: bool = true;
        fn handle(&mut self, ctx: &mut Context<'_, Self>, (s, urgent, n): (usize, bool, u32)) {
            let last = &mut self.last[s][urgent as usize];
            assert!(last.is_none_or(|l| l < n), "out of order");
            *last = Some(n);
            self.count += 1;
            if self.count == 4 * 2 * 5000 {
                let _ = self.done.send(self.count);
                ctx.stop();
            }
        }
    }
    let rt = Runtime::builder().workers(2).build().unwrap();
    let (tx, rx) = mpsc::channel();
    let addr = spawn(
        rt.handle(),
        Check {
            last: [[None; 2]; 4],
            count: 0,
            done: tx,
        },
    );
    let exit = addr.watch();
    let senders: Vec<_> = (0..4)
        .map(|s| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                for n in 0..5000 {
                    addr.tell((s, false, n)).unwrap();
                    addr.tell_urgent((s, true, n)).unwrap();
                }
            })
        })
        .collect();
    for s in senders {
        s.join().unwrap();
    }
    assert_eq!(rx.recv_timeout(GUARD), Ok(40_000));
    // A panic (an order violation) would have stopped it with that reason instead.
    assert_eq!(exit.wait_timeout(GUARD), Some(ExitReason::Normal));
}

#[test]
fn an_urgent_send_to_a_stopped_actor_fails_with_the_message() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (tx, _rx) = mpsc::channel();
    let addr = spawn(rt.handle(), Log::<true>(tx));
    let exit = addr.watch();
    addr.kill();
    exit.wait_timeout(GUARD).unwrap();
    match addr.tell_urgent(Msg::Urgent(9)) {
        Err(motet_actor::SendError(Msg::Urgent(9))) => {}
        _ => panic!("the urgent message was not handed back"),
    }
}
