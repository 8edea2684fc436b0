//! Groups: publish reaches every member, a member that stops leaves by itself, and no message
//! published after `leave` returned reaches the member that left, even with a publisher running
//! concurrently.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use motet_actor::{spawn, Actor, Context, Group};
use motet_runtime::{testing, Runtime};

const GUARD: Duration = Duration::from_secs(60);

#[derive(Clone)]
enum Note {
    Value(u64),
    Stop,
}

/// Records the values it receives.
struct Member {
    seen: Arc<Mutex<Vec<u64>>>,
}

impl Actor for Member {
    type Msg = Note;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, note: Note) {
        match note {
            Note::Value(v) => self.seen.lock().unwrap().push(v),
            Note::Stop => ctx.stop(),
        }
    }
}

fn member(rt: &Runtime) -> (motet_actor::Addr<Note>, Arc<Mutex<Vec<u64>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let addr = spawn(rt.handle(), Member { seen: seen.clone() });
    (addr, seen)
}

#[test]
fn publish_reaches_every_member_in_order() {
    testing::check(|rt| {
        let group = Group::new();
        let members: Vec<_> = (0..3).map(|_| member(rt)).collect();
        for (addr, _) in &members {
            assert!(group.join(addr));
            assert!(!group.join(addr), "joining twice is refused");
        }
        assert_eq!(group.len(), 3);
        for v in 0..10 {
            assert_eq!(group.publish(Note::Value(v)), 3);
        }
        rt.wait_quiescent();
        for (_, seen) in &members {
            assert_eq!(*seen.lock().unwrap(), (0..10).collect::<Vec<_>>());
        }
    });
}

#[test]
fn a_member_that_stops_leaves_by_itself() {
    testing::check(|rt| {
        let group = Group::new();
        let (a, _) = member(rt);
        let (b, seen_b) = member(rt);
        group.join(&a);
        group.join(&b);
        let stopped = a.watch();
        a.tell(Note::Stop).unwrap();
        assert!(stopped.wait().is_normal());
        assert_eq!(group.members(), vec![b.id()]);
        assert_eq!(group.publish(Note::Value(7)), 1);
        rt.wait_quiescent();
        assert_eq!(*seen_b.lock().unwrap(), vec![7]);
        // A stopped actor cannot join.
        assert!(!group.join(&a));
    });
}

#[test]
fn a_member_that_left_gets_nothing_published_afterwards() {
    testing::check(|rt| {
        let group = Group::new();
        let (a, seen_a) = member(rt);
        let (b, seen_b) = member(rt);
        group.join(&a);
        group.join(&b);
        group.publish(Note::Value(1));
        assert!(group.leave(&a));
        assert!(!group.leave(&a));
        group.publish(Note::Value(2));
        rt.wait_quiescent();
        assert_eq!(*seen_a.lock().unwrap(), vec![1]);
        assert_eq!(*seen_b.lock().unwrap(), vec![1, 2]);
    });
}

/// The linearisation point under concurrency: a publisher thread numbers its publishes and
/// announces each number before publishing it; once `leave` returns, the member may still get the
/// publish in flight, but none announced after that.
#[test]
fn leave_is_linearised_against_a_concurrent_publisher() {
    testing::check_threads(|rt| {
        for _ in 0..20 {
            let group = Group::new();
            let (a, seen_a) = member(rt);
            group.join(&a);
            let announced = Arc::new(AtomicU64::new(0));
            let stop = Arc::new(AtomicUsize::new(0));
            let publisher = {
                let group = group.clone();
                let announced = announced.clone();
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut n = 0;
                    while stop.load(SeqCst) == 0 {
                        n += 1;
                        announced.store(n, SeqCst);
                        group.publish(Note::Value(n));
                    }
                })
            };
            let deadline = Instant::now() + GUARD;
            while announced.load(SeqCst) < 50 {
                assert!(Instant::now() < deadline);
                std::thread::yield_now();
            }
            assert!(group.leave(&a));
            let last_before = announced.load(SeqCst);
            while announced.load(SeqCst) < last_before + 50 {
                assert!(Instant::now() < deadline);
                std::thread::yield_now();
            }
            stop.store(1, SeqCst);
            publisher.join().unwrap();
            rt.wait_quiescent();
            let seen = seen_a.lock().unwrap();
            let max = seen.iter().copied().max().unwrap_or(0);
            assert!(
                max <= last_before,
                "published {max} after leave returned (last announced before: {last_before})"
            );
            assert!(seen.windows(2).all(|w| w[0] < w[1]), "out of order");
        }
    });
}

/// A group installs one exit hook per actor: after leaving and joining again, the member is
/// still removed when it stops.
#[test]
fn a_member_that_joined_again_still_leaves_when_it_stops() {
    testing::check(|rt| {
        let group = Group::new();
        let (a, _) = member(rt);
        for _ in 0..5 {
            assert!(group.join(&a));
            assert!(group.leave(&a));
        }
        assert!(group.join(&a));
        let stopped = a.watch();
        a.tell(Note::Stop).unwrap();
        stopped.wait();
        assert!(group.is_empty());
    });
}
