//! Stashing: messages set aside run again, in order and before newer mailbox messages, after
//! `unstash_all`; the stash is bounded and hands the message back when full.

use std::sync::mpsc;
use std::time::Duration;

use motet_actor::{Actor, Context, Spawn, StashFull, DEFAULT_STASH_CAPACITY};
use motet_runtime::Runtime;

const GUARD: Duration = Duration::from_secs(30);

enum Msg {
    Open,
    Close,
    Work(u32),
}

/// Works only while open: stashes work that comes while closed, and takes it back on `Open`.
struct Door {
    open: bool,
    log: mpsc::Sender<Result<u32, String>>,
}

impl Actor for Door {
    type Msg = Msg;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Open => {
                self.open = true;
                ctx.unstash_all();
            }
            Msg::Close => self.open = false,
            Msg::Work(n) if self.open => {
                let _ = self.log.send(Ok(n));
            }
            Msg::Work(n) => {
                if let Err(StashFull(Msg::Work(m))) = ctx.stash(Msg::Work(n)) {
                    let _ = self
                        .log
                        .send(Err(format!("full {m} ({} stashed)", ctx.stashed())));
                }
            }
        }
    }
}

fn door(
    rt: &Runtime,
    capacity: Option<usize>,
) -> (motet_actor::Addr<Msg>, mpsc::Receiver<Result<u32, String>>) {
    let (tx, rx) = mpsc::channel();
    let mut spawn = Spawn::new(Door {
        open: false,
        log: tx,
    });
    if let Some(c) = capacity {
        spawn = spawn.stash_capacity(c);
    }
    (spawn.spawn(rt.handle()), rx)
}

#[test]
fn unstashed_messages_run_in_order_before_newer_ones() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, rx) = door(&rt, None);
    for n in 0..5 {
        addr.tell(Msg::Work(n)).unwrap();
    }
    addr.tell(Msg::Open).unwrap();
    addr.tell(Msg::Work(5)).unwrap();
    let got: Vec<_> = (0..6).map(|_| rx.recv_timeout(GUARD).unwrap()).collect();
    assert_eq!(got, (0..6).map(Ok).collect::<Vec<_>>());
}

#[test]
fn a_message_restashed_while_unstashing_waits_for_the_next_unstash() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (tx, rx) = mpsc::channel();
    /// Stashes every odd number once; `Open` releases the stash.
    struct Picky(mpsc::Sender<u32>, std::collections::HashSet<u32>);
    impl Actor for Picky {
        type Msg = Option<u32>;
        fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Option<u32>) {
            match msg {
                None => ctx.unstash_all(),
                Some(n) if n % 2 == 1 && self.1.insert(n) => ctx.stash(Some(n)).unwrap(),
                Some(n) => self.0.send(n).unwrap(),
            }
        }
    }
    let addr = motet_actor::spawn(rt.handle(), Picky(tx, Default::default()));
    for n in 0..4 {
        addr.tell(Some(n)).unwrap();
    }
    addr.tell(None).unwrap();
    addr.tell(Some(10)).unwrap();
    let got: Vec<_> = (0..5).map(|_| rx.recv_timeout(GUARD).unwrap()).collect();
    assert_eq!(got, [0, 2, 1, 3, 10]);
}

#[test]
fn a_full_stash_hands_the_message_back() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, rx) = door(&rt, Some(3));
    for n in 0..5 {
        addr.tell(Msg::Work(n)).unwrap();
    }
    assert_eq!(
        rx.recv_timeout(GUARD).unwrap(),
        Err("full 3 (3 stashed)".into())
    );
    assert_eq!(
        rx.recv_timeout(GUARD).unwrap(),
        Err("full 4 (3 stashed)".into())
    );
    addr.tell(Msg::Open).unwrap();
    let got: Vec<_> = (0..3).map(|_| rx.recv_timeout(GUARD).unwrap()).collect();
    assert_eq!(got, [Ok(0), Ok(1), Ok(2)]);
    // Room again: closed, it stashes.
    addr.tell(Msg::Close).unwrap();
    addr.tell(Msg::Work(7)).unwrap();
    addr.tell(Msg::Open).unwrap();
    assert_eq!(rx.recv_timeout(GUARD).unwrap(), Ok(7));
}

#[test]
fn the_default_capacity_is_the_documented_one() {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let (addr, rx) = door(&rt, None);
    let n = DEFAULT_STASH_CAPACITY as u32;
    for i in 0..=n {
        addr.tell(Msg::Work(i)).unwrap();
    }
    assert_eq!(
        rx.recv_timeout(GUARD).unwrap(),
        Err(format!("full {n} ({n} stashed)"))
    );
}
