//! 10. Producer–Consumer with bounded buffer (concurrency): producers, consumers and one manager.
//!
//! `np` producers make `ipp` items each for `nc` consumers; the Manager holds at most `bb` of them.
//!
//! Flow (SPEC.md section 3.10): the Manager marks every consumer available and sends `ProduceData`
//! to every producer. A producer that has made its `ipp` items stops (telling the Manager
//! `ProducerExit`); otherwise it computes `item = process(previous, pc)` and sends `DataItem(item)`.
//! The Manager gives an item to the first available consumer or appends it to the pending list,
//! then parks the producer if `bb − np` items are pending, else answers `ProduceData`. A consumer
//! computes `process(value + item, cc)` and sends `ConsumerAvailable`; the Manager then hands it the
//! oldest pending item and releases one parked producer, or marks it available. The Manager stops
//! when every producer has stopped and every consumer is available, and sends `ConsumerExit` to the
//! consumers. `process(x, cost)` adds `ln(|next_double()| + 0.01)` to x `cost · 100` times from a
//! [`PseudoRandom`] seeded with `cost` on every call, so it adds a constant K(cost) (K(25) =
//! −11482.378824363414): 2,500 logarithms per call, 80,000 calls at the defaults.
//!
//! Validation: np · ipp items produced and consumed; each producer's last item is ipp · K(pc); the
//! consumers' final values add up to np · K(pc) · ipp(ipp + 1)/2 + np · ipp · K(cc) (20,060,000 · K
//! at the defaults), to 1e-8 relative: each call adds 2,500 small terms to a large value, and which
//! consumer gets which item depends on the schedule. The result is the items consumed.
//!
//! [`PseudoRandom`]: crate::random::PseudoRandom

mod actor;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::params::{ParamSpec, Params};
use crate::random::PseudoRandom;

/// Producer–Consumer with bounded buffer (Savina 10).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "bndbuffer",
    id: 10,
    title: "Producer-Consumer with bounded buffer: NP producers, NC consumers, one manager",
    params: PARAMS,
    variants,
};

/// Savina's flags; "small" is LF's small size (100 items per producer).
const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "bb",
        default: 50.0,
        small: 50.0,
        help: "buffer size",
    },
    ParamSpec {
        name: "np",
        default: 40.0,
        small: 40.0,
        help: "producers",
    },
    ParamSpec {
        name: "nc",
        default: 40.0,
        small: 40.0,
        help: "consumers",
    },
    ParamSpec {
        name: "ipp",
        default: 1_000.0,
        small: 100.0,
        help: "items per producer",
    },
    ParamSpec {
        name: "pc",
        default: 25.0,
        small: 25.0,
        help: "producer cost (hundreds of logarithms per item)",
    },
    ParamSpec {
        name: "cc",
        default: 25.0,
        small: 25.0,
        help: "consumer cost (hundreds of logarithms per item)",
    },
    ParamSpec {
        name: "nm",
        default: 1.0,
        small: 1.0,
        help: "mailboxes (accepted; unused, as in Savina's actor version)",
    },
];

variants!(actor, reactor(own_protocol), floor);

/// The decoded parameters, shared by every variant.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    /// Buffer size (`-bb`), above the number of producers.
    pub(crate) buffer: usize,
    /// Producers (`-np`), at least 1.
    pub(crate) producers: usize,
    /// Consumers (`-nc`), at least 1.
    pub(crate) consumers: usize,
    /// Items per producer (`-ipp`).
    pub(crate) items: u64,
    /// Producer cost (`-pc`).
    pub(crate) producer_cost: u32,
    /// Consumer cost (`-cc`).
    pub(crate) consumer_cost: u32,
    /// K(pc): what one producer call adds.
    pub(crate) k_producer: f64,
    /// K(cc): what one consumer call adds.
    pub(crate) k_consumer: f64,
}

impl Config {
    /// Reads and checks the parameters, and computes K for both costs.
    pub(crate) fn from_params(params: &Params) -> Result<Config, String> {
        let count = |name| params.integer_as::<u32>(name, 1).map(|v| v as usize);
        let cost = |name| params.integer_as::<u32>(name, 0);
        params.integer("nm", 0)?;
        let (producer_cost, consumer_cost) = (cost("pc")?, cost("cc")?);
        let (buffer, producers) = (count("bb")?, count("np")?);
        if buffer <= producers {
            // The Manager parks a producer whenever `bb − np` items are pending; with none or fewer
            // allowed, every producer ends up parked with nothing pending to release one.
            return Err(format!(
                "parameter `bb` must be above `np` ({producers}), got {buffer}"
            ));
        }
        Ok(Config {
            buffer,
            producers,
            consumers: count("nc")?,
            items: params.integer("ipp", 0)?,
            producer_cost,
            consumer_cost,
            k_producer: process(0.0, producer_cost),
            k_consumer: process(0.0, consumer_cost),
        })
    }

    /// Savina's `adjustedBufferSize`: pending items at which the Manager parks a producer.
    pub(crate) fn adjusted_buffer(&self) -> usize {
        self.buffer - self.producers
    }
}

/// Savina's `processItem`: adds `ln(|next_double()| + 0.01)` to `current`, `cost · 100` times (once
/// if `cost` is 0), from a generator seeded with `cost` on every call.
pub(crate) fn process(current: f64, cost: u32) -> f64 {
    let mut rng = PseudoRandom::new(i64::from(cost));
    let steps = if cost > 0 { u64::from(cost) * 100 } else { 1 };
    let mut result = current;
    for _ in 0..steps {
        result += (rng.next_double().abs() + 0.01).ln();
    }
    result
}

/// What a run ends with.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Tally {
    /// Items each producer made, and its last item.
    pub(crate) producers: Vec<(u64, f64)>,
    /// Items each consumer consumed, and its final value.
    pub(crate) consumers: Vec<(u64, f64)>,
}

/// Relative tolerance for the sums (see the module documentation).
const TOLERANCE: f64 = 1e-8;

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= TOLERANCE * want.abs().max(1.0)
}

/// Validates a run (None if the Manager never finished). The result is the items consumed.
pub(crate) fn check(cfg: &Config, tally: Option<&Tally>) -> Outcome {
    let Some(t) = tally else {
        return Outcome::failed("the manager did not finish");
    };
    let np = cfg.producers as f64;
    let ipp = cfg.items as f64;
    let consumed: u64 = t.consumers.iter().map(|c| c.0).sum();
    let mut outcome =
        Outcome::expect_eq("items consumed", cfg.producers as u64 * cfg.items, consumed);
    if outcome.check.is_err() {
        return outcome;
    }
    let last = ipp * cfg.k_producer;
    let sum: f64 = t.consumers.iter().map(|c| c.1).sum();
    let want = np * cfg.k_producer * ipp * (ipp + 1.0) / 2.0 + np * ipp * cfg.k_consumer;
    outcome.check = if t.producers.len() != cfg.producers || t.consumers.len() != cfg.consumers {
        Err(format!(
            "{} producers and {} consumers reported",
            t.producers.len(),
            t.consumers.len()
        ))
    } else if let Some((i, p)) = t
        .producers
        .iter()
        .enumerate()
        .find(|(_, p)| p.0 != cfg.items || !close(p.1, last))
    {
        Err(format!(
            "producer {i} made {} items ending at {}, expected {} ending at {last}",
            p.0, p.1, cfg.items
        ))
    } else if !close(sum, want) {
        Err(format!(
            "the consumers' values add up to {sum}, expected {want}"
        ))
    } else {
        Ok(())
    };
    outcome
}

#[cfg(test)]
mod tests {
    use super::{check, process, Config, Tally, BENCHMARK};
    use crate::benchmarks::testing::{self, params, rejects_alike as rejects, validates};

    /// SPEC.md: K(25) = −11482.378824363414 (Java's `Math.log`; glibc's may differ in a last bit).
    #[test]
    fn k_is_savinas() {
        let k = process(0.0, 25);
        assert!((k + 11_482.378_824_363_414).abs() < 1e-9, "{k}");
        // Cost 0: one logarithm, ln(1/(v + 1) + 0.01) for the first draw from seed 0.
        assert!(process(0.0, 0) < 0.0);
    }

    #[test]
    fn check_wants_every_item_and_the_derived_sums() {
        let cfg = Config::from_params(&params(
            &BENCHMARK,
            &[
                ("np", 2.0),
                ("nc", 1.0),
                ("ipp", 3.0),
                ("pc", 1.0),
                ("cc", 2.0),
            ],
        ))
        .unwrap();
        let (kp, kc) = (cfg.k_producer, cfg.k_consumer);
        let good = Tally {
            producers: vec![(3, 3.0 * kp); 2],
            consumers: vec![(6, 2.0 * 6.0 * kp + 6.0 * kc)],
        };
        assert!(check(&cfg, Some(&good)).check.is_ok());
        assert_eq!(check(&cfg, Some(&good)).result, serde_json::json!(6));
        assert!(check(&cfg, None).check.is_err());
        let mut short = good.clone();
        short.consumers[0].0 = 5;
        assert!(check(&cfg, Some(&short)).check.is_err());
        let mut off = good.clone();
        off.consumers[0].1 += 1.0;
        assert!(check(&cfg, Some(&off)).check.is_err());
        let mut lazy = good.clone();
        lazy.producers[1].1 = 0.0;
        assert!(check(&cfg, Some(&lazy)).check.is_err());
    }

    #[test]
    fn every_model_validates_at_a_reduced_size() {
        let sets = [
            ("bb", 8.0),
            ("np", 5.0),
            ("nc", 3.0),
            ("ipp", 40.0),
            ("pc", 1.0),
            ("cc", 2.0),
        ];
        testing::expect_result(
            &BENCHMARK,
            testing::ACTOR_AND_FLOOR,
            &sets,
            serde_json::json!(200),
        );
        // One free slot: the Manager parks a producer as soon as one item is pending.
        validates(
            &BENCHMARK,
            &[
                ("bb", 7.0),
                ("np", 6.0),
                ("nc", 2.0),
                ("ipp", 10.0),
                ("pc", 0.0),
                ("cc", 0.0),
            ],
        );
    }

    #[test]
    fn bad_sizes_are_rejected() {
        assert!(rejects(&BENCHMARK, &[("np", 0.0)]).contains("`np`"));
        assert!(rejects(&BENCHMARK, &[("bb", 40.0)]).contains("`bb`"));
        assert!(rejects(&BENCHMARK, &[("cc", -1.0)]).contains("`cc`"));
    }
}
