use super::{Mailbox, MarkIdle, Node, Pop, Push, ReleaseStart};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn new_box<T>(idle: bool) -> Box<Mailbox<T>> {
    let mut b: Box<MaybeUninit<Mailbox<T>>> = Box::new(MaybeUninit::uninit());
    // SAFETY: the box is writable and its contents never move.
    unsafe {
        Mailbox::init(b.as_mut_ptr(), idle);
        Box::from_raw(Box::into_raw(b).cast())
    }
}

#[test]
fn fifo_and_idle_protocol() {
    let mb = new_box::<u32>(true);
    assert!(matches!(
        mb.push(Node::new(1)),
        Push::Pushed { was_idle: true }
    ));
    assert!(matches!(
        mb.push(Node::new(2)),
        Push::Pushed { was_idle: false }
    ));
    // SAFETY: this thread is the only consumer.
    unsafe {
        assert_eq!(mb.pop(), Pop::Item(1));
        assert_eq!(mb.pop(), Pop::Item(2));
        assert_eq!(mb.pop(), Pop::Empty);
        assert_eq!(mb.try_mark_idle(), MarkIdle::Idle);
    }
    assert!(matches!(
        mb.push(Node::new(3)),
        Push::Pushed { was_idle: true }
    ));
    // SAFETY: single consumer.
    unsafe { assert_eq!(mb.pop(), Pop::Item(3)) };
}

#[test]
fn mark_idle_fails_when_a_message_arrived() {
    let mb = new_box::<u32>(false);
    // SAFETY: single consumer.
    unsafe {
        assert_eq!(mb.pop(), Pop::Empty);
        assert!(matches!(
            mb.push(Node::new(9)),
            Push::Pushed { was_idle: false }
        ));
        assert_eq!(mb.try_mark_idle(), MarkIdle::Retry);
        assert_eq!(mb.pop(), Pop::Item(9));
    }
}

/// `try_pop` gives the same messages as `pop`, in order, interleaved with `pop`, and `None` once
/// the queue is empty, after which marking idle succeeds.
#[test]
fn try_pop_takes_messages_in_order() {
    let mb = new_box::<String>(false);
    for i in 0..5 {
        let _ = mb.push(Node::new(i.to_string()));
    }
    // SAFETY: single consumer.
    unsafe {
        assert_eq!(mb.try_pop().as_deref(), Some("0"));
        assert_eq!(mb.pop(), Pop::Item("1".to_string()));
        assert_eq!(mb.try_pop().as_deref(), Some("2"));
        assert_eq!(mb.try_pop().as_deref(), Some("3"));
        assert_eq!(mb.try_pop().as_deref(), Some("4"));
        assert_eq!(mb.try_pop(), None);
        assert_eq!(mb.try_mark_idle(), MarkIdle::Idle);
    }
    assert!(matches!(
        mb.push(Node::new("5".to_string())),
        Push::Pushed { was_idle: true }
    ));
    // SAFETY: single consumer.
    unsafe { assert_eq!(mb.try_pop().as_deref(), Some("5")) };
}

/// `try_pop_in_place` gives the same messages as `pop`, in order, each read once from the node it
/// points into; the node it points into stays valid until the next pop, and every value is dropped
/// exactly once (the counts below), including those left for the mailbox's drop.
#[test]
fn try_pop_in_place_reads_each_message_once() {
    let drops = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    struct Counted(u32, Arc<std::sync::atomic::AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }
    let mb = new_box::<Counted>(false);
    for i in 0..6 {
        let _ = mb.push(Node::new(Counted(i, drops.clone())));
    }
    // SAFETY: single consumer; each slot is read once, before the next pop.
    unsafe {
        let first = mb.try_pop_in_place().unwrap().read();
        assert_eq!(first.0, 0);
        assert!(matches!(mb.pop(), Pop::Item(Counted(1, _))));
        let slot = mb.try_pop_in_place().unwrap();
        // A push between taking the slot and reading it leaves the slot's node alone.
        let _ = mb.push(Node::new(Counted(6, drops.clone())));
        assert_eq!(slot.read().0, 2);
        assert_eq!(mb.try_pop().map(|c| c.0), Some(3));
        assert_eq!(mb.try_pop_in_place().unwrap().read().0, 4);
        drop(first);
    }
    // Values 0 to 4 were taken out (and dropped); 5 and 6 are still queued.
    assert_eq!(drops.load(Ordering::SeqCst), 5);
    drop(mb);
    assert_eq!(drops.load(Ordering::SeqCst), 7);
}

#[test]
fn close_drains_in_order_and_rejects_later_pushes() {
    let mb = new_box::<String>(false);
    for i in 0..3 {
        let _ = mb.push(Node::new(i.to_string()));
    }
    let mut seen = Vec::new();
    // SAFETY: single consumer.
    unsafe { mb.close(|v| seen.push(v)) };
    assert_eq!(seen, ["0", "1", "2"]);
    match mb.push(Node::new("late".to_string())) {
        Push::Closed(node) => assert_eq!(node.into_value(), "late"),
        Push::Pushed { .. } => panic!("push into a closed mailbox succeeded"),
    }
    assert!(mb.is_closed());
}

#[test]
fn dropping_a_mailbox_drops_queued_values() {
    struct Flag(Arc<AtomicBool>);
    impl Drop for Flag {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let dropped = Arc::new(AtomicBool::new(false));
    let mb = new_box::<Flag>(true);
    let _ = mb.push(Node::new(Flag(dropped.clone())));
    drop(mb);
    assert!(dropped.load(Ordering::SeqCst));
}

/// Stress: 4 producers x 50,000 values, one consumer that marks idle whenever it runs dry and is
/// "scheduled" again only by the push that reports `was_idle`. Nothing is lost or duplicated, and each
/// producer's values arrive in order.
#[test]
fn stress_producers_idle_handoff() {
    const P: usize = 4;
    const N: usize = 50_000;
    let mb: Arc<Box<Mailbox<(usize, usize)>>> = Arc::new(new_box(true));
    let (wake_tx, wake_rx) = std::sync::mpsc::channel::<()>();
    let producers: Vec<_> = (0..P)
        .map(|p| {
            let mb = mb.clone();
            let wake = wake_tx.clone();
            std::thread::spawn(move || {
                for i in 0..N {
                    if let Push::Pushed { was_idle: true } = mb.push(Node::new((p, i))) {
                        wake.send(()).unwrap();
                    }
                }
            })
        })
        .collect();
    drop(wake_tx);
    let mut next = [0usize; P];
    let mut total = 0;
    // Each wake-up is one "turn": pop until empty, then mark idle.
    while total < P * N {
        wake_rx.recv().expect("a push must wake the idle consumer");
        loop {
            // SAFETY: only this thread consumes.
            match unsafe { mb.pop() } {
                Pop::Item((p, i)) => {
                    assert_eq!(next[p], i, "producer {p} out of order");
                    next[p] += 1;
                    total += 1;
                }
                Pop::Inconsistent => std::thread::yield_now(),
                Pop::Empty => {
                    // SAFETY: single consumer; the pop just returned Empty.
                    if unsafe { mb.try_mark_idle() } == MarkIdle::Idle {
                        break;
                    }
                }
            }
        }
    }
    for t in producers {
        t.join().unwrap();
    }
    assert_eq!(next, [N; P]);
}

#[test]
fn release_takes_over_the_idle_mark() {
    let mb = new_box::<u32>(true);
    assert_eq!(
        mb.begin_release(),
        ReleaseStart::Acquired { was_idle: true }
    );
    // A second release waits for the first.
    assert_eq!(mb.begin_release(), ReleaseStart::Busy);
    // A push during the release neither schedules nor loses the bit.
    assert!(matches!(
        mb.push(Node::new(1)),
        Push::Pushed { was_idle: false }
    ));
    mb.end_release(true);
    // SAFETY: this thread is the consumer (the release took over the idle mark for it).
    unsafe {
        assert_eq!(mb.pop(), Pop::Item(1));
        assert_eq!(mb.pop(), Pop::Empty);
        assert_eq!(mb.try_mark_idle(), MarkIdle::Idle);
    }
}

#[test]
fn release_of_an_active_consumer_forces_a_recheck() {
    let mb = new_box::<u32>(false);
    assert_eq!(
        mb.begin_release(),
        ReleaseStart::Acquired { was_idle: false }
    );
    // SAFETY: single consumer.
    unsafe {
        assert_eq!(mb.pop(), Pop::Empty);
        assert_eq!(mb.try_mark_idle(), MarkIdle::Retry, "BUSY blocks idling");
    }
    mb.end_release(false);
    // SAFETY: single consumer.
    unsafe {
        assert_eq!(
            mb.try_mark_idle(),
            MarkIdle::Recheck,
            "CHECK forces a re-read"
        );
        assert_eq!(mb.try_mark_idle(), MarkIdle::Idle);
    }
}

#[test]
fn release_after_close_is_refused() {
    let mb = new_box::<u32>(false);
    // SAFETY: single consumer.
    unsafe { mb.close(drop) };
    assert_eq!(mb.begin_release(), ReleaseStart::Closed);
}

fn gated_box<T>(idle: bool) -> Box<Mailbox<T>> {
    let mut mb = new_box(idle);
    mb.set_gate();
    mb
}

#[test]
fn a_gated_mailbox_refers_pushes_to_its_owner_and_keeps_the_gate() {
    let mb = gated_box::<u32>(true);
    let node = match mb.push(Node::new(1)) {
        Push::Closed(node) => node,
        _ => panic!("a gated push took the fast path"),
    };
    assert!(!mb.is_closed());
    assert_eq!(*node.value(), 1);
    assert!(matches!(
        mb.push_gated(node),
        Push::Pushed { was_idle: true }
    ));
    assert!(matches!(mb.push(Node::new(2)), Push::Closed(_)));
    assert!(!mb.is_closed());
    // SAFETY: single consumer.
    unsafe {
        assert_eq!(mb.pop(), Pop::Item(1));
        assert_eq!(mb.pop(), Pop::Empty);
        assert_eq!(mb.try_mark_idle(), MarkIdle::Idle);
    }
    assert!(matches!(
        mb.push_gated(Node::new(3)),
        Push::Pushed { was_idle: true }
    ));
    let mut seen = Vec::new();
    // SAFETY: single consumer.
    unsafe { mb.close(|v| seen.push(v)) };
    assert_eq!(seen, [3]);
    assert!(mb.is_closed());
    assert!(matches!(mb.push(Node::new(4)), Push::Closed(_)));
    assert!(matches!(mb.push_gated(Node::new(5)), Push::Closed(_)));
}
