//! Stress: eight producer threads send 100,000 messages each into one actor; nothing is lost or
//! duplicated and each sender's messages arrive in the order sent, on pools of 1 and 2 workers,
//! three times over.
//!
//! The full size runs in about a second even in a debug build, so it is not ignored there. A smaller
//! version also runs under the deterministic scheduler (the producers push from their threads while
//! the test thread drives the actor).

use std::time::Duration;

use motet_actor::{spawn, Actor, Context, Reply};
use motet_runtime::{testing, Runtime};

const SENDERS: usize = 8;

enum Msg {
    Item { sender: usize, seq: u64 },
    Report(Reply<Report>),
}

#[derive(Debug, PartialEq, Eq)]
struct Report {
    /// Messages received, in all.
    total: u64,
    /// Per sender: the next sequence number expected (the count received in order).
    next: Vec<u64>,
    /// Messages that arrived out of order, twice, or after a gap.
    violations: u64,
}

struct Sink {
    next: Vec<u64>,
    total: u64,
    violations: u64,
}

impl Actor for Sink {
    type Msg = Msg;

    fn handle(&mut self, _ctx: &mut Context<'_, Self>, msg: Msg) {
        match msg {
            Msg::Item { sender, seq } => {
                self.total += 1;
                if seq == self.next[sender] {
                    self.next[sender] += 1;
                } else {
                    self.violations += 1;
                    self.next[sender] = self.next[sender].max(seq + 1);
                }
            }
            Msg::Report(reply) => {
                let _ = reply.send(Report {
                    total: self.total,
                    next: self.next.clone(),
                    violations: self.violations,
                });
            }
        }
    }
}

/// `SENDERS` threads send `per_sender` messages each to one actor; then the actor's account must be
/// exact.
fn fan_in(rt: &Runtime, per_sender: u64, rounds: usize) {
    for _ in 0..rounds {
        let sink = spawn(
            rt.handle(),
            Sink {
                next: vec![0; SENDERS],
                total: 0,
                violations: 0,
            },
        );
        std::thread::scope(|s| {
            for sender in 0..SENDERS {
                let sink = sink.clone();
                s.spawn(move || {
                    for seq in 0..per_sender {
                        if sink.tell(Msg::Item { sender, seq }).is_err() {
                            panic!("the sink stopped");
                        }
                    }
                });
            }
        });
        // The timeout is a deadlock guard only (virtual on a deterministic runtime).
        let report = sink
            .ask(Msg::Report, Duration::from_secs(120))
            .wait()
            .expect("the sink answers");
        assert_eq!(
            report,
            Report {
                total: per_sender * SENDERS as u64,
                next: vec![per_sender; SENDERS],
                violations: 0,
            },
            "messages were lost, duplicated or reordered"
        );
        drop(sink);
        rt.wait_quiescent();
    }
}

#[test]
fn eight_senders_a_hundred_thousand_each() {
    testing::check_threads(|rt| fan_in(rt, 100_000, 3));
}

#[test]
fn eight_senders_deterministic() {
    testing::check_deterministic(|rt| fan_in(rt, 2_000, 1));
}
