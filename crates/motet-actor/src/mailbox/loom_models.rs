//! Loom models of the mailbox: `RUSTFLAGS="--cfg loom" cargo test -p motet-actor --lib --release loom`.

use super::{Mailbox, MarkIdle, Node, Pop, Push, ReleaseStart};
use loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use loom::sync::Arc;
use std::mem::MaybeUninit;

fn new_box<T>(idle: bool) -> Box<Mailbox<T>> {
    let mut b: Box<MaybeUninit<Mailbox<T>>> = Box::new(MaybeUninit::uninit());
    // SAFETY: writable, never moves.
    unsafe {
        Mailbox::init(b.as_mut_ptr(), idle);
        Box::from_raw(Box::into_raw(b).cast())
    }
}

/// Runs the consumer's turns: whoever gets `was_idle` (or the initial token) must run a turn. A turn
/// pops until empty and marks idle. Turns are serialised by the `turn` token counter.
fn turn(mb: &Mailbox<usize>, seen: &AtomicUsize) {
    loop {
        // SAFETY: the scheduling protocol hands the consumer role to one thread at a time.
        match unsafe { mb.pop() } {
            Pop::Item(v) => {
                seen.fetch_add(v, SeqCst);
            }
            Pop::Inconsistent => loom::thread::yield_now(),
            Pop::Empty => {
                // SAFETY: as above.
                if unsafe { mb.try_mark_idle() } == MarkIdle::Idle {
                    return;
                }
            }
        }
    }
}

/// A turn as an actor's runs it (`cell/turn.rs`): `try_pop_in_place` until it finds nothing, then
/// try to mark idle, which fails (and the turn goes on) if a push is halfway or a message arrived.
fn turn_try_pop(mb: &Mailbox<usize>, seen: &AtomicUsize) {
    loop {
        // SAFETY: the scheduling protocol hands the consumer role to one thread at a time; the
        // value is read once, before the next pop.
        if let Some(v) = unsafe { mb.try_pop_in_place().map(|slot| slot.read()) } {
            seen.fetch_add(v, SeqCst);
            continue;
        }
        // SAFETY: as above.
        match unsafe { mb.try_mark_idle() } {
            MarkIdle::Idle => return,
            _ => loom::thread::yield_now(),
        }
    }
}

/// Two producers push 1 and 10 into `mb` with `push`; each push that reports `was_idle` runs
/// `consume` (a consumer turn) on the pushing thread. Returns the sum the turns saw.
fn idle_handoff(
    mb: Box<Mailbox<usize>>,
    values: [usize; 2],
    push: fn(&Mailbox<usize>, usize) -> Push<usize>,
    consume: fn(&Mailbox<usize>, &AtomicUsize),
) -> usize {
    let mb = Arc::new(mb);
    let seen = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = values
        .into_iter()
        .map(|v| {
            let (mb, seen) = (mb.clone(), seen.clone());
            loom::thread::spawn(move || {
                if let Push::Pushed { was_idle: true } = push(&mb, v) {
                    consume(&mb, &seen);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    seen.load(SeqCst)
}

/// A plain push.
fn push(mb: &Mailbox<usize>, v: usize) -> Push<usize> {
    mb.push(Node::new(v))
}

/// The same hand-off as [`loom_two_producers_idle_handoff`], with the consumer turn of an actor
/// (`try_pop_in_place`, no separate test for a half-finished push).
#[test]
fn loom_two_producers_idle_handoff_try_pop() {
    loom::model(|| {
        let seen = idle_handoff(new_box(true), [1, 10], push, turn_try_pop);
        assert_eq!(seen, 11);
    });
}

/// Two producers push into an idle mailbox; each push that reports `was_idle` runs a consumer turn on
/// the pushing thread. Every value is consumed exactly once, and the consumer role is never held by two
/// threads at once (loom would flag the concurrent access to `tail`).
#[test]
fn loom_two_producers_idle_handoff() {
    loom::model(|| {
        let seen = idle_handoff(new_box(true), [1, 10], push, turn);
        assert_eq!(seen, 11);
    });
}

/// A producer pushes 5 with `push` while this thread, the consumer, closes `mb`. Returns the sum
/// of what the close drained and what the producer got back.
fn push_races_close(
    mb: &Arc<Box<Mailbox<usize>>>,
    push: fn(&Mailbox<usize>, usize) -> Push<usize>,
) -> usize {
    let producer = {
        let mb = mb.clone();
        loom::thread::spawn(move || match push(&mb, 5) {
            Push::Pushed { .. } => 0,
            Push::Closed(node) => node.into_value(),
        })
    };
    let mut drained = 0;
    // SAFETY: this thread is the consumer (the mailbox started active, not idle).
    unsafe { mb.close(|v| drained += v) };
    let returned = producer.join().unwrap();
    drained + returned
}

/// A producer races with the consumer closing the mailbox: the value is either drained by `close` or
/// handed back to the producer, never both and never lost.
#[test]
fn loom_push_races_close() {
    loom::model(|| {
        let mb = Arc::new(new_box::<usize>(false));
        assert_eq!(push_races_close(&mb, push), 5);
    });
}

/// The last-address release against a consumer finishing its turn: the consumer reads a counter
/// (standing for the reference count) at every empty mailbox, and may go idle only through
/// `try_mark_idle`. The releaser decrements the counter under BUSY. Whatever the interleaving, the
/// decrement is seen: either by the consumer before it goes idle, or because the releaser took over
/// the idle mark and runs the consumer's next turn itself.
#[test]
fn loom_release_is_never_missed() {
    release_model(false);
}

/// As [`loom_release_is_never_missed`], on a gated (bounded) mailbox.
#[test]
fn loom_gated_release_is_never_missed() {
    release_model(true);
}

fn gated_box(idle: bool) -> Box<Mailbox<usize>> {
    let mut mb = new_box::<usize>(idle);
    mb.set_gate();
    mb
}

/// A gated push: the fast path refers it to the owner, which pushes it through the gate.
fn push_gated(mb: &Mailbox<usize>, v: usize) -> Push<usize> {
    match mb.push(Node::new(v)) {
        Push::Closed(node) => mb.push_gated(node),
        pushed => pushed,
    }
}

/// Two producers push through the gate of an idle mailbox; whoever clears the idle mark runs the
/// consumer's turns (which mark it idle again, keeping the gate). Every value is seen once.
#[test]
fn loom_gated_pushes_wake_the_consumer() {
    loom::model(|| {
        let seen = idle_handoff(gated_box(true), [1, 2], push_gated, turn);
        assert_eq!(seen, 3);
    });
}

/// A gated push races with the close: the value is drained or handed back, never both or lost.
#[test]
fn loom_gated_push_races_close() {
    loom::model(|| {
        let mb = Arc::new(gated_box(false));
        assert_eq!(push_races_close(&mb, push_gated), 5);
        assert!(mb.is_closed());
    });
}

fn release_model(gated: bool) {
    loom::model(move || {
        let mb = Arc::new(if gated {
            gated_box(false)
        } else {
            new_box::<usize>(false)
        });
        let refs = Arc::new(AtomicUsize::new(1));
        let seen_zero = Arc::new(AtomicUsize::new(0));
        // One consumer turn: returns when idle or when it saw the count at zero.
        let turn = |mb: &Mailbox<usize>, refs: &AtomicUsize, seen: &AtomicUsize| loop {
            if refs.load(SeqCst) == 0 {
                seen.fetch_add(1, SeqCst);
                return;
            }
            // SAFETY: the consumer role is held by one thread at a time (see the model's protocol).
            match unsafe { mb.pop() } {
                Pop::Item(_) | Pop::Inconsistent => {}
                // SAFETY: as above.
                Pop::Empty => match unsafe { mb.try_mark_idle() } {
                    MarkIdle::Idle => return,
                    MarkIdle::Recheck => {}
                    MarkIdle::Retry => loom::thread::yield_now(),
                },
            }
        };
        let releaser = {
            let (mb, refs, seen) = (mb.clone(), refs.clone(), seen_zero.clone());
            loom::thread::spawn(move || loop {
                match mb.begin_release() {
                    ReleaseStart::Acquired { was_idle } => {
                        refs.fetch_sub(1, SeqCst);
                        mb.end_release(was_idle);
                        if was_idle {
                            turn(&mb, &refs, &seen);
                        }
                        return;
                    }
                    ReleaseStart::Busy => loom::thread::yield_now(),
                    ReleaseStart::Closed => unreachable!("never closed here"),
                }
            })
        };
        turn(&mb, &refs, &seen_zero);
        releaser.join().unwrap();
        assert_eq!(
            seen_zero.load(SeqCst),
            1,
            "the release was missed or seen twice"
        );
    });
}
