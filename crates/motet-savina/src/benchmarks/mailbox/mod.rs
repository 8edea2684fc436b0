//! Mailbox performance in N:1 communication, after the CAF paper's section 5.3 (beyond Savina).
//!
//! Flow: the main thread creates one receiver and `s` senders and sends each sender `Go`; each
//! sender then sends `m` messages `(sender, sequence number)` to the receiver, in one handler
//! invocation, as fast as it can, and exits. The receiver counts the messages, checks that each
//! sender's arrive in the order they were sent, and exits with its tally after the last one.
//! s·m messages go through one mailbox: the senders contend on it, and with fewer workers than
//! senders the mailbox fills faster than the receiver drains it (the paper's memory figure).
//!
//! Validation: s·m messages received, m from every sender, each sender's in sending order (FIFO
//! per sender). The result is the number received.

#[cfg(feature = "peers")]
mod peers;

mod actor;
mod floor;

use crate::bench::{Benchmark, Outcome};

/// Mailbox N:1 (CAF 5.3; id 0: beyond Savina).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "mailbox",
    id: 0,
    title: "Mailbox N:1 (CAF paper 5.3): S senders send M messages each to one receiver",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `s` senders of `m` messages; "small" sends a tenth.
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("s", default = 20.0, small = 20.0, min = 1, help = "senders")]
        s: u32,
        #[param("m", default = 1_000_000.0, small = 100_000.0, min = 1,
            help = "messages per sender")]
        m: u32,
    }
}

variants!(actor, actor_tuned["batch"], floor, peers);
impl Config {
    /// Messages the receiver must get.
    pub(crate) fn total(&self) -> u64 {
        u64::from(self.s) * u64::from(self.m)
    }
}

/// One message to the receiver: who sent it and its place in that sender's sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Numbered {
    /// The sender's index.
    pub(crate) sender: u32,
    /// 0, 1, 2, ... per sender.
    pub(crate) seq: u32,
}

/// What the receiver saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tally {
    /// The next sequence number expected from each sender (= messages received from it, while
    /// they arrive in order).
    next: Vec<u32>,
    /// Messages received.
    pub(crate) received: u64,
    /// Messages that arrived out of their sender's order.
    pub(crate) out_of_order: u64,
}

impl Tally {
    /// An empty tally for `senders` senders.
    pub(crate) fn new(senders: u32) -> Tally {
        Tally {
            next: vec![0; senders as usize],
            received: 0,
            out_of_order: 0,
        }
    }

    /// Counts `msg`; returns the number received so far.
    #[inline]
    pub(crate) fn count(&mut self, msg: Numbered) -> u64 {
        let next = &mut self.next[msg.sender as usize];
        if msg.seq != *next {
            self.out_of_order += 1;
        }
        *next = msg.seq.wrapping_add(1);
        self.received += 1;
        self.received
    }
}

/// Validates a run: the receiver's tally (`None` if it never finished). The result is the number
/// of messages received (null if none).
pub(crate) fn check(cfg: Config, tally: Option<&Tally>) -> Outcome {
    let Some(tally) = tally else {
        return Outcome::failed("the receiver did not finish");
    };
    let mut outcome = Outcome::expect_eq("messages received", cfg.total(), tally.received);
    if outcome.check.is_ok() {
        if tally.out_of_order > 0 {
            outcome.check = Err(format!(
                "{} messages arrived out of their sender's order",
                tally.out_of_order
            ));
        } else if let Some(i) = tally.next.iter().position(|&n| n != cfg.m) {
            outcome.check = Err(format!(
                "sender {i}: {} messages received, expected {}",
                tally.next[i], cfg.m
            ));
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::{check, Config, Numbered, Tally, BENCHMARK};
    use crate::benchmarks::testing;

    fn numbered(sender: u32, seq: u32) -> Numbered {
        Numbered { sender, seq }
    }

    #[test]
    fn check_wants_every_message_in_order() {
        let cfg = Config { s: 2, m: 2 };
        let mut t = Tally::new(2);
        for msg in [
            numbered(0, 0),
            numbered(1, 0),
            numbered(0, 1),
            numbered(1, 1),
        ] {
            t.count(msg);
        }
        assert!(check(cfg, Some(&t)).check.is_ok());
        let mut swapped = Tally::new(2);
        for msg in [
            numbered(0, 1),
            numbered(0, 0),
            numbered(1, 0),
            numbered(1, 1),
        ] {
            swapped.count(msg);
        }
        assert!(check(cfg, Some(&swapped))
            .check
            .unwrap_err()
            .contains("out of"));
        let mut lopsided = Tally::new(2);
        for msg in [
            numbered(0, 0),
            numbered(0, 1),
            numbered(0, 2),
            numbered(1, 0),
        ] {
            lopsided.count(msg);
        }
        assert!(check(cfg, Some(&lopsided))
            .check
            .unwrap_err()
            .contains("sender 0"));
        assert!(check(cfg, None).check.is_err());
    }

    #[test]
    fn every_model_receives_every_message_in_order() {
        for (s, m) in [(1.0, 1.0), (3.0, 1000.0), (20.0, 500.0)] {
            let results = testing::run_actor_and_floor(&BENCHMARK, &[("s", s), ("m", m)]);
            let expected = serde_json::json!((s * m) as u64);
            assert_eq!(results, [expected.clone(), expected.clone(), expected]);
        }
    }

    #[test]
    fn empty_runs_are_rejected() {
        let err = testing::rejects(&BENCHMARK, &[("m", 0.0)]);
        assert!(err.contains("`m`"), "{err}");
    }
}
