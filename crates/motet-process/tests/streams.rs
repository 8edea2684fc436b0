//! Channels as `futures` streams and sinks in processes, under the deterministic scheduler for
//! many seeds and on real pools (`motet_runtime::testing::check`). A tokio task streaming from and
//! sinking into processes is a test of the facade crate (`crates/motet/tests/tokio_interop.rs`).
#![cfg(feature = "futures")]

use futures::{SinkExt, StreamExt};
use motet_process::channel::{self, SendError};
use motet_process::ProcessSystem;
use motet_runtime::testing::{self, Census, Tracked};

#[test]
fn a_bounded_sink_feeds_a_stream_in_order_through_a_full_channel() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let (tx, rx) = channel::bounded::<u32>(2);
        let (out_tx, out_rx) = channel::unbounded::<Vec<u32>>();
        system.spawn(async move {
            let mut sink = tx.into_sink();
            let mut values = futures::stream::iter((1..=200).map(Ok));
            sink.send_all(&mut values).await.unwrap();
        });
        system.spawn(async move {
            // The stream ends when the sink (the last sender) is dropped and the queue is empty.
            let got: Vec<u32> = rx.into_stream().collect().await;
            out_tx.send(got).unwrap();
        });
        let got = system.block_on(out_rx.recv()).unwrap().unwrap();
        assert_eq!(got, (1..=200).collect::<Vec<_>>());
        system.wait().unwrap();
    });
}

#[test]
fn an_unbounded_sender_is_a_sink_and_its_errors_hand_the_value_back() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let (tx, rx) = channel::unbounded::<u32>();
        let (out_tx, out_rx) = channel::unbounded::<Result<(), SendError<u32>>>();
        system.spawn(async move {
            // The sender's own `send` and `close` come first: the sink's are named through
            // `SinkExt`.
            let mut sink = tx;
            SinkExt::send(&mut sink, 1).await.unwrap();
            sink.feed(2).await.unwrap();
            sink.flush().await.unwrap();
            SinkExt::close(&mut sink).await.unwrap();
            // The sink's `close` leaves the channel open: the receiver still takes values.
            SinkExt::send(&mut sink, 3).await.unwrap();
            let mut stream = rx.into_stream();
            let got: Vec<u32> = (&mut stream).take(3).collect().await;
            assert_eq!(got, [1, 2, 3]);
            // With the receiver gone, a send fails and gives the value back.
            drop(stream);
            out_tx.send(SinkExt::send(&mut sink, 4).await).unwrap();
        });
        let result = system.block_on(out_rx.recv()).unwrap().unwrap();
        assert_eq!(result, Err(SendError(4)));
        system.wait().unwrap();
    });
}

#[test]
fn a_bounded_sink_reports_closing_with_the_value_it_held() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let (tx, rx) = channel::bounded::<u32>(1);
        let (out_tx, out_rx) = channel::unbounded::<Result<(), SendError<u32>>>();
        let (held_tx, held_rx) = channel::unbounded::<()>();
        let closer = rx.clone();
        system.spawn(async move {
            let mut sink = tx.into_sink();
            SinkExt::send(&mut sink, 1).await.unwrap();
            // The channel is full: 2 waits in the sink, and the channel closes before or while
            // the flush waits for room.
            sink.feed(2).await.unwrap();
            held_tx.send(()).unwrap();
            out_tx.send(sink.flush().await).unwrap();
            drop(rx);
        });
        system.spawn(async move {
            held_rx.recv().await.unwrap();
            closer.close();
        });
        let result = system.block_on(out_rx.recv()).unwrap().unwrap();
        assert_eq!(result, Err(SendError(2)));
        system.wait().unwrap();
    });
}

#[test]
fn dropping_a_waiting_stream_or_sink_loses_and_leaks_nothing() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let census = Census::default();
        let (tx, rx) = channel::bounded::<Tracked>(1);
        let (done_tx, done_rx) = channel::unbounded::<(usize, isize)>();
        let kept = rx.clone();
        let values = census.clone();
        system.spawn(async move {
            // A stream parked on the empty channel, then dropped: the next value goes to the
            // receiver that stays.
            let mut stream = rx.into_stream();
            assert!(futures::poll!(stream.next()).is_pending());
            drop(stream);
            // A sink whose second value waits for room, dropped while waiting: that value is
            // dropped unsent, and the channel still holds the first.
            let mut sink = tx.into_sink();
            sink.feed(values.track()).await.unwrap();
            sink.feed(values.track()).await.unwrap();
            assert!(futures::poll!(sink.flush()).is_pending());
            drop(sink);
            let live_in_channel = values.live();
            let mut queued = 0;
            while let Ok(v) = kept.try_recv() {
                drop(v);
                queued += 1;
            }
            done_tx.send((queued, live_in_channel)).unwrap();
        });
        let (queued, live_in_channel) = system.block_on(done_rx.recv()).unwrap().unwrap();
        system.wait().unwrap();
        assert_eq!((queued, live_in_channel), (1, 1));
        assert_eq!(census.live(), 0);
    });
}

#[test]
fn a_stream_gives_its_receiver_back_with_nothing_lost() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let (tx, rx) = channel::unbounded::<u32>();
        let (out_tx, out_rx) = channel::unbounded::<Vec<u32>>();
        tx.send(1).unwrap();
        system.spawn(async move {
            let mut stream = rx.into_stream();
            assert_eq!(stream.next().await, Some(1));
            // Parked on the empty channel, then turned back into its receiver.
            assert!(futures::poll!(stream.next()).is_pending());
            let rx = stream.into_inner();
            tx.send(2).unwrap();
            tx.send(3).unwrap();
            drop(tx);
            let mut got = Vec::new();
            while let Ok(v) = rx.recv().await {
                got.push(v);
            }
            out_tx.send(got).unwrap();
        });
        let got = system.block_on(out_rx.recv()).unwrap().unwrap();
        assert_eq!(got, [2, 3]);
        system.wait().unwrap();
    });
}
