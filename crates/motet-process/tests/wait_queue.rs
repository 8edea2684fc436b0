//! The order of a channel's wait queues when entries leave from anywhere in them: parked receives
//! and bounded sends are polled by hand with a no-op waker (outside any runtime), so which entry is
//! where in the queue is known.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use motet_process::channel;

fn poll<F: Future + ?Sized>(future: Pin<&mut F>) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(Waker::noop()))
}

/// A receive on each of `receivers`, polled once: each parks, in that order, at the back of the
/// channel's wait queue.
fn park_all(receivers: &[channel::Receiver<u32>]) -> Vec<Pin<Box<channel::Recv<'_, u32>>>> {
    let mut parked: Vec<_> = receivers.iter().map(|r| Box::pin(r.recv())).collect();
    for receive in &mut parked {
        assert!(poll(receive.as_mut()).is_pending());
    }
    parked
}

#[test]
fn receivers_that_leave_the_middle_or_the_back_of_the_queue_keep_the_others_in_order() {
    let (tx, rx) = channel::unbounded::<u32>();
    let receivers: Vec<_> = (0..5).map(|_| rx.clone()).collect();
    let mut parked = park_all(&receivers);
    // Leave from the back, the middle and the front of the queue of five.
    drop(parked.remove(4));
    drop(parked.remove(2));
    drop(parked.remove(0));
    for v in 1..=3 {
        tx.send(v).unwrap();
    }
    // The two left, in the order they parked, then the queue.
    assert_eq!(poll(parked[0].as_mut()), Poll::Ready(Ok(1)));
    assert_eq!(poll(parked[1].as_mut()), Poll::Ready(Ok(2)));
    assert_eq!(rx.try_recv(), Ok(3));
    // The queue is empty again: a new receive parks, and the next value reaches it.
    let mut again = Box::pin(rx.recv());
    assert!(poll(again.as_mut()).is_pending());
    tx.send(4).unwrap();
    assert_eq!(poll(again.as_mut()), Poll::Ready(Ok(4)));
}

#[test]
fn senders_waiting_for_room_leave_from_anywhere_and_the_rest_deliver_in_order() {
    let (tx, rx) = channel::bounded::<u32>(1);
    tx.try_send(0).unwrap();
    let mut waiting: Vec<_> = (1..=4).map(|v| Box::pin(tx.send(v))).collect();
    for send in &mut waiting {
        assert!(poll(send.as_mut()).is_pending());
    }
    drop(waiting.remove(1)); // value 2
    drop(waiting.remove(2)); // value 4
    let got: Vec<u32> = (0..3).map(|_| rx.try_recv().unwrap()).collect();
    assert_eq!(got, [0, 1, 3]);
    for send in &mut waiting {
        assert_eq!(poll(send.as_mut()), Poll::Ready(Ok(())));
    }
    assert!(rx.try_recv().is_err());
    assert_eq!(rx.capacity(), Some(1));
}

#[test]
fn closing_wakes_every_parked_receiver_and_waiting_sender() {
    let (tx, rx) = channel::unbounded::<u32>();
    let receivers: Vec<_> = (0..3).map(|_| rx.clone()).collect();
    let mut parked = park_all(&receivers);
    assert!(tx.close());
    for receive in &mut parked {
        assert!(matches!(poll(receive.as_mut()), Poll::Ready(Err(_))));
    }

    let (btx, brx) = channel::bounded::<u32>(0);
    let mut waiting: Vec<_> = (0..3).map(|v| Box::pin(btx.send(v))).collect();
    for send in &mut waiting {
        assert!(poll(send.as_mut()).is_pending());
    }
    assert!(brx.close());
    for (v, send) in waiting.iter_mut().enumerate() {
        match poll(send.as_mut()) {
            Poll::Ready(Err(e)) => assert_eq!(e.0, v as u32),
            other => panic!("a closed channel gives a waiting send its value back: {other:?}"),
        }
    }
}
