//! Channel behaviour, each scenario run under the deterministic scheduler for many seeds and on real
//! pools of 1 and 2 workers (`motet_runtime::testing::check`; replay a failing seed with
//! `MOTET_SEED=<seed>`).

mod common;

use std::collections::VecDeque;
use std::time::Duration;

use common::recv_all_sorted;
use motet_process::channel::{
    self, RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError,
};
use motet_process::{ProcessSystem, Select};
use motet_runtime::{testing, Runtime};

/// A guard for waits that must complete (virtual time on a deterministic runtime).
const GUARD: Duration = Duration::from_secs(60);

fn system(rt: &Runtime) -> ProcessSystem {
    ProcessSystem::new(rt.handle())
}

#[test]
fn unbounded_keeps_order_per_sender() {
    testing::check(|rt| {
        let system = system(rt);
        let (tx, rx) = channel::unbounded::<u32>();
        let (out_tx, out_rx) = channel::unbounded::<Vec<u32>>();
        system.spawn(async move {
            let mut got = Vec::new();
            while let Ok(v) = rx.recv().await {
                got.push(v);
            }
            out_tx.send(got).unwrap();
        });
        system.spawn(async move {
            for i in 0..500 {
                tx.send(i).unwrap();
                if i % 7 == 0 {
                    motet_process::yield_now().await;
                }
            }
        });
        let got = system.block_on(out_rx.recv()).unwrap().unwrap();
        assert_eq!(got, (0..500).collect::<Vec<_>>());
        system.wait().unwrap();
    });
}

#[test]
fn bounded_send_waits_for_room() {
    testing::check(|rt| {
        let system = system(rt);
        let (tx, rx) = channel::bounded::<u32>(2);
        let (len_tx, len_rx) = channel::unbounded::<usize>();
        system.spawn(async move {
            for i in 0..100 {
                tx.send(i).await.unwrap();
                // A bounded channel never holds more than its capacity.
                len_tx.send(tx.len()).unwrap();
            }
        });
        let total = system
            .block_on(async {
                let mut sum = 0;
                while let Ok(v) = rx.recv().await {
                    sum += v;
                }
                sum
            })
            .unwrap();
        assert_eq!(total, (0..100).sum::<u32>());
        while let Ok(len) = len_rx.try_recv() {
            assert!(len <= 2, "a bounded channel held {len} values");
        }
        system.wait().unwrap();
    });
}

#[test]
fn rendezvous_hands_each_value_to_a_receiver() {
    testing::check(|rt| {
        let system = system(rt);
        let (tx, rx) = channel::bounded::<u32>(0);
        assert_eq!(tx.try_send(1), Err(TrySendError::Full(1)));
        let (done_tx, done_rx) = channel::unbounded::<u32>();
        system.spawn(async move {
            for i in 0..50 {
                tx.send(i).await.unwrap();
                assert_eq!(tx.len(), 0, "a rendezvous queues nothing");
            }
            done_tx.send(50).unwrap();
        });
        let got = system
            .block_on(async {
                let mut got = Vec::new();
                for _ in 0..50 {
                    got.push(rx.recv().await.unwrap());
                }
                got
            })
            .unwrap();
        assert_eq!(got, (0..50).collect::<Vec<_>>());
        assert_eq!(system.block_on(done_rx.recv()).unwrap(), Ok(50));
        system.wait().unwrap();
    });
}

#[test]
fn close_fails_sends_and_drains_receivers() {
    testing::check(|rt| {
        let system = system(rt);
        let (tx, rx) = channel::unbounded::<u32>();
        tx.send(1).unwrap();
        tx.send(2).unwrap();
        assert!(rx.close());
        assert!(!tx.close(), "closing twice reports the first close only");
        assert_eq!(tx.send(3), Err(SendError(3)));
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(system.block_on(rx.recv()).unwrap(), Ok(2));
        assert_eq!(system.block_on(rx.recv()).unwrap(), Err(RecvError));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    });
}

#[test]
fn close_wakes_parked_receivers_and_senders() {
    testing::check(|rt| {
        let system = system(rt);
        let (tx, rx) = channel::unbounded::<u32>();
        let (btx, brx) = channel::bounded::<u32>(0);
        let (out_tx, out_rx) = channel::unbounded::<String>();
        for _ in 0..3 {
            let (rx, out) = (rx.clone(), out_tx.clone());
            system.spawn(async move {
                let r = rx.recv().await;
                out.send(format!("recv {r:?}")).unwrap();
            });
            let (btx, out) = (btx.clone(), out_tx.clone());
            system.spawn(async move {
                let r = btx.send(7).await;
                out.send(format!("send {r:?}")).unwrap();
            });
        }
        drop(out_tx);
        // Let them park (on a pool, a receive from outside shows they have run).
        rt.wait_quiescent();
        assert_eq!(system.live(), 6);
        tx.close();
        brx.close();
        let got: Vec<String> = recv_all_sorted(&system, &out_rx);
        assert_eq!(
            got,
            [
                "recv Err(RecvError)",
                "recv Err(RecvError)",
                "recv Err(RecvError)",
                "send Err(SendError(..))",
                "send Err(SendError(..))",
                "send Err(SendError(..))"
            ]
        );
        system.wait().unwrap();
    });
}

#[test]
fn last_sender_dropped_closes_the_channel() {
    testing::check(|rt| {
        let system = system(rt);
        let (tx, rx) = channel::unbounded::<u32>();
        let tx2 = tx.clone();
        system.spawn(async move {
            tx.send(1).unwrap();
        });
        system.spawn(async move {
            tx2.send(2).unwrap();
        });
        let got = recv_all_sorted(&system, &rx);
        assert_eq!(got, [1, 2]);
        system.wait().unwrap();
    });
}

#[test]
fn last_receiver_dropped_fails_sends() {
    let (tx, rx) = channel::unbounded::<String>();
    tx.send("queued".into()).unwrap();
    drop(rx);
    assert!(tx.is_closed());
    assert_eq!(tx.send("late".into()), Err(SendError("late".to_string())));
}

#[test]
fn recv_timeout_times_out_and_then_receives() {
    testing::check(|rt| {
        let system = system(rt);
        let (tx, rx) = channel::unbounded::<u32>();
        let (out_tx, out_rx) = channel::unbounded();
        system.spawn(async move {
            let first = rx.recv_timeout(Duration::from_millis(20)).await;
            out_tx.send(first).unwrap();
            let second = rx.recv_timeout(GUARD).await;
            out_tx.send(second).unwrap();
            let third = rx.recv_timeout(GUARD).await;
            out_tx.send(third).unwrap();
        });
        assert_eq!(
            system.block_on(out_rx.recv()).unwrap(),
            Ok(Err(RecvTimeoutError::Timeout))
        );
        tx.send(5).unwrap();
        assert_eq!(system.block_on(out_rx.recv()).unwrap(), Ok(Ok(5)));
        drop(tx);
        assert_eq!(
            system.block_on(out_rx.recv()).unwrap(),
            Ok(Err(RecvTimeoutError::Closed))
        );
        system.wait().unwrap();
        // No timer is left behind: the runtime becomes quiescent.
        rt.wait_quiescent();
    });
}

#[test]
fn select_takes_the_ready_branch_and_leaves_the_others() {
    testing::check(|rt| {
        let system = system(rt);
        let (a_tx, a) = channel::unbounded::<u32>();
        let (b_tx, b) = channel::unbounded::<&'static str>();
        b_tx.send("b").unwrap();
        let got = system
            .block_on(async {
                Select::new()
                    .recv(&a, |r| format!("a {r:?}"))
                    .recv(&b, |r| format!("b {r:?}"))
                    .await
            })
            .unwrap();
        assert_eq!(got, "b Ok(\"b\")");
        // The select waits on both; the first to send wins, nothing else is taken.
        let (out_tx, out_rx) = channel::unbounded::<String>();
        let (a2, b2) = (a.clone(), b.clone());
        system.spawn(async move {
            let got = Select::new()
                .recv(&a2, |r| format!("a {r:?}"))
                .recv(&b2, |r| format!("b {r:?}"))
                .await;
            out_tx.send(got).unwrap();
        });
        rt.wait_quiescent();
        a_tx.send(1).unwrap();
        assert_eq!(
            system.block_on(out_rx.recv()).unwrap(),
            Ok("a Ok(1)".into())
        );
        b_tx.send("left").unwrap();
        assert_eq!(b.try_recv(), Ok("left"));
        assert_eq!(a.try_recv(), Err(TryRecvError::Empty));
        system.wait().unwrap();
    });
}

#[test]
fn select_sees_closed_channels_and_times_out() {
    testing::check(|rt| {
        let system = system(rt);
        let (a_tx, a) = channel::unbounded::<u32>();
        let (_b_tx, b) = channel::unbounded::<u32>();
        let got = system
            .block_on(async {
                Select::new()
                    .recv(&a, |r| format!("a {r:?}"))
                    .recv(&b, |r| format!("b {r:?}"))
                    .timeout(Duration::from_millis(10), || "timeout".to_string())
                    .await
            })
            .unwrap();
        assert_eq!(got, "timeout");
        drop(a_tx);
        let got = system
            .block_on(async {
                Select::new()
                    .recv(&b, |r| format!("b {r:?}"))
                    .recv(&a, |r| format!("a {r:?}"))
                    .timeout(GUARD, || "timeout".to_string())
                    .await
            })
            .unwrap();
        assert_eq!(got, "a Err(RecvError)");
        rt.wait_quiescent();
    });
}

#[test]
fn a_cancelled_receive_loses_nothing() {
    testing::check(|rt| {
        let system = system(rt);
        let (tx, rx) = channel::unbounded::<u32>();
        let (out_tx, out_rx) = channel::unbounded::<Vec<u32>>();
        let rx2 = rx.clone();
        // Many short receives that time out race the sends; every value ends up received once.
        system.spawn(async move {
            let mut got = Vec::new();
            loop {
                match rx2.recv_timeout(Duration::from_micros(50)).await {
                    Ok(v) => got.push(v),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Closed) => break,
                }
            }
            out_tx.send(got).unwrap();
        });
        system.spawn(async move {
            for i in 0..200 {
                tx.send(i).unwrap();
                if i % 3 == 0 {
                    motet_process::yield_now().await;
                }
            }
        });
        drop(rx);
        let got = system.block_on(out_rx.recv()).unwrap().unwrap();
        assert_eq!(got, (0..200).collect::<Vec<_>>());
        system.wait().unwrap();
    });
}

#[test]
fn channels_travel_over_channels() {
    testing::check(|rt| {
        let system = system(rt);
        // A broker hands out fresh channels; clients talk over them.
        let (broker_tx, broker_rx) = channel::unbounded::<channel::Sender<channel::Sender<u64>>>();
        system.spawn(async move {
            while let Ok(client) = broker_rx.recv().await {
                let (tx, rx) = channel::unbounded::<u64>();
                client.send(tx).unwrap();
                motet_process::ProcessSystem::current()
                    .expect("inside a process")
                    .spawn(async move {
                        let mut sum = 0;
                        while let Ok(v) = rx.recv().await {
                            sum += v;
                        }
                        assert_eq!(sum, 45);
                    });
            }
        });
        let total = system
            .block_on(async move {
                let (me, mine) = channel::unbounded();
                broker_tx.send(me).unwrap();
                let session = mine.recv().await.unwrap();
                for i in 0..10 {
                    session.send(i).unwrap();
                }
                45
            })
            .unwrap();
        assert_eq!(total, 45);
        system.wait().unwrap();
    });
}

#[test]
fn blocking_from_outside_the_runtime() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let system = ProcessSystem::new(rt.handle());
    let (tx, rx) = channel::bounded::<u32>(1);
    let (back_tx, back_rx) = channel::unbounded::<u32>();
    system.spawn(async move {
        while let Ok(v) = rx.recv().await {
            back_tx.send(v * 2).unwrap();
        }
    });
    for i in 0..100 {
        tx.send_blocking(i).unwrap();
    }
    drop(tx);
    let got: Vec<u32> = back_rx.into_iter().collect();
    assert_eq!(got, (0..100).map(|i| i * 2).collect::<Vec<_>>());
    let (_keep, empty) = channel::unbounded::<u32>();
    assert_eq!(
        empty.recv_blocking_timeout(Duration::from_millis(5)),
        Err(RecvTimeoutError::Timeout)
    );
    system.wait().unwrap();
}

#[test]
fn many_receivers_share_the_values() {
    testing::check(|rt| {
        let system = system(rt);
        let (tx, rx) = channel::unbounded::<u32>();
        let (out_tx, out_rx) = channel::unbounded::<u32>();
        for _ in 0..4 {
            let (rx, out) = (rx.clone(), out_tx.clone());
            system.spawn(async move {
                while let Ok(v) = rx.recv().await {
                    out.send(v).unwrap();
                }
            });
        }
        drop((rx, out_tx));
        for i in 0..400 {
            tx.send(i).unwrap();
        }
        drop(tx);
        let got = recv_all_sorted(&system, &out_rx);
        assert_eq!(got, (0..400).collect::<Vec<_>>());
        system.wait().unwrap();
    });
}

#[test]
fn recv_many_takes_what_is_queued_in_order() {
    testing::check(|rt| {
        let system = system(rt);
        let (tx, rx) = channel::unbounded::<u32>();
        let (out_tx, out_rx) = channel::unbounded::<(Vec<u32>, usize)>();
        system.spawn(async move {
            let mut got = Vec::new();
            let mut batch = VecDeque::new();
            let mut batches = 0;
            // Every other batch is appended to what the previous one left.
            while let Ok(n) = rx.recv_many(&mut batch).await {
                assert!(n >= 1 && n <= batch.len());
                batches += 1;
                if batches % 2 == 0 {
                    got.extend(batch.drain(..));
                }
            }
            got.extend(batch.drain(..));
            out_tx.send((got, batches)).unwrap();
        });
        system.spawn(async move {
            for i in 0..500 {
                tx.send(i).unwrap();
                if i % 7 == 0 {
                    motet_process::yield_now().await;
                }
            }
        });
        let (got, batches) = system.block_on(out_rx.recv()).unwrap().unwrap();
        assert_eq!(got, (0..500).collect::<Vec<_>>());
        assert!(batches <= 500);
        system.wait().unwrap();
    });
}

#[test]
fn recv_many_refills_a_bounded_channel_from_waiting_senders() {
    testing::check(|rt| {
        for cap in [0, 1, 3] {
            let system = system(rt);
            let (tx, rx) = channel::bounded::<u32>(cap);
            for s in 0..4u32 {
                let tx = tx.clone();
                system.spawn(async move {
                    for i in 0..50 {
                        tx.send(s * 1000 + i).await.unwrap();
                    }
                });
            }
            drop(tx);
            let got = system
                .block_on(async move {
                    let mut got = Vec::new();
                    let mut batch = VecDeque::new();
                    while let Ok(n) = rx.recv_many(&mut batch).await {
                        // At most a value handed to the parked receive, the queue and one value
                        // of each waiting sender.
                        assert!(n <= cap + 5, "{n} values from a channel of {cap}");
                        got.extend(batch.drain(..));
                    }
                    got
                })
                .unwrap();
            // Each sender's values arrive in its order, none lost.
            assert_eq!(got.len(), 200);
            for s in 0..4u32 {
                let mine: Vec<u32> = got.iter().copied().filter(|v| v / 1000 == s).collect();
                assert_eq!(mine, (0..50).map(|i| s * 1000 + i).collect::<Vec<_>>());
            }
            system.wait().unwrap();
        }
    });
}

#[test]
fn recv_many_outside_processes_and_after_close() {
    testing::check(|rt| {
        let system = system(rt);
        let (tx, rx) = channel::unbounded::<u32>();
        for i in 0..10 {
            tx.send(i).unwrap();
        }
        tx.close();
        let mut batch = VecDeque::new();
        assert_eq!(system.block_on(rx.recv_many(&mut batch)).unwrap(), Ok(10));
        assert_eq!(batch, (0..10).collect::<VecDeque<_>>());
        assert_eq!(
            system.block_on(rx.recv_many(&mut batch)).unwrap(),
            Err(RecvError)
        );
        assert_eq!(batch.len(), 10, "a failed receive appends nothing");
        system.wait().unwrap();
    });
}
