//! 9. Concurrent Sorted Linked List (concurrency): `e` workers query and grow one sorted list.
//!
//! Flow (SPEC.md section 3.9): as in Concurrent Dictionary, each of the E workers keeps one request
//! outstanding and sends M in all, drawn from its [`PseudoRandom`] (seed id + M + w + s):
//! `r = next_int(100)`; below s a `Size`, below s + w a `Write(next_int())`, else a
//! `Contains(next_int())`. The List actor inserts in order (after equal values), scans from the head
//! for `Contains` (to the end on a miss) and counts for `Size`, answering each with a `Result`. After
//! M results a worker sends `EndWork` to the Master, which, after E of them, sends `EndWork` to the
//! List. The cost is the List's linear scans, in one actor. 2EM + 2E + 1 messages.
//!
//! Validation: E·M results reached the workers, and the final list holds the writes the workers'
//! generators ask for (16,126 at the defaults), in order. The result is the final size.
//!
//! [`PseudoRandom`]: crate::random::PseudoRandom

mod actor;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::params::{ParamSpec, Params};
use crate::random::PseudoRandom;

/// Concurrent Sorted Linked List (Savina 9).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "concsll",
    id: 9,
    title: "Concurrent Sorted Linked List: E workers query and grow one sorted list",
    params: PARAMS,
    variants,
};

/// `-e` workers, `-m` requests per worker, `-w` write and `-s` size percentages; "small" is LF's
/// small size (1,500 requests per worker).
const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "e",
        default: 20.0,
        small: 20.0,
        help: "workers",
    },
    ParamSpec {
        name: "m",
        default: 8_000.0,
        small: 1_500.0,
        help: "requests per worker",
    },
    ParamSpec {
        name: "w",
        default: 10.0,
        small: 10.0,
        help: "write percentage (below 50)",
    },
    ParamSpec {
        name: "s",
        default: 1.0,
        small: 1.0,
        help: "size percentage (2w + s below 100)",
    },
];

variants!(
    actor ["init-message", "vec-list"],
    reactor ["vec-list"] (own_protocol),
    floor ["init-message", "vec-list"],
);

/// The decoded parameters, shared by every variant.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    /// Workers (`-e`), at least 1.
    pub(crate) workers: usize,
    /// Requests per worker (`-m`).
    pub(crate) requests: u64,
    /// Write percentage (`-w`).
    pub(crate) write_percent: i32,
    /// Size percentage (`-s`).
    pub(crate) size_percent: i32,
    /// The writes the workers' generators ask for: the final size.
    pub(crate) expected_size: usize,
}

impl Config {
    /// Reads and checks the parameters (Savina's limits: w < 50 and 2w + s < 100), and counts the
    /// writes.
    pub(crate) fn from_params(params: &Params) -> Result<Config, String> {
        let workers = params.integer_as::<u32>("e", 1)?;
        let write = params.integer("w", 0)?;
        let size = params.integer("s", 0)?;
        if write >= 50 {
            return Err(format!("parameter `w` must be below 50, got {write}"));
        }
        if 2 * write + size >= 100 {
            return Err(format!(
                "parameters `w` and `s`: 2w + s must be below 100, got {}",
                2 * write + size
            ));
        }
        let mut cfg = Config {
            workers: workers as usize,
            requests: params.integer("m", 0)?,
            write_percent: write as i32,
            size_percent: size as i32,
            expected_size: 0,
        };
        cfg.expected_size = (0..cfg.workers)
            .map(|id| {
                let mut requests = cfg.requests_of(id);
                (0..cfg.requests)
                    .filter(|_| matches!(requests.next_request(), Request::Write(_)))
                    .count()
            })
            .sum();
        Ok(cfg)
    }

    /// Worker `id`'s requests.
    pub(crate) fn requests_of(&self, id: usize) -> Requests {
        let seed = id as i64
            + self.requests as i64
            + i64::from(self.write_percent)
            + i64::from(self.size_percent);
        Requests {
            rng: PseudoRandom::new(seed),
            write_percent: self.write_percent,
            size_percent: self.size_percent,
        }
    }
}

/// A worker's request to the List.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Request {
    Write(i32),
    Contains(i32),
    Size,
}

/// One worker's generator of requests.
pub(crate) struct Requests {
    rng: PseudoRandom,
    write_percent: i32,
    size_percent: i32,
}

impl Requests {
    /// The next request, drawn as Savina's worker draws it.
    pub(crate) fn next_request(&mut self) -> Request {
        let r = self.rng.next_int_below(100);
        if r < self.size_percent {
            Request::Size
        } else if r < self.size_percent + self.write_percent {
            Request::Write(self.rng.next_int())
        } else {
            Request::Contains(self.rng.next_int())
        }
    }
}

/// The List actor's sorted list. Savina's is a singly linked list; this one is a vector with the same
/// operations and the same linear scans: an insert walks from the head to the first larger value
/// (so equal values keep their arrival order) and `contains` walks until it finds the value, to the
/// end on a miss.
#[derive(Debug, Default)]
pub(crate) struct SortedList {
    values: Vec<i32>,
}

impl SortedList {
    /// Inserts `value` after every value not larger than it.
    pub(crate) fn add(&mut self, value: i32) {
        let at = self
            .values
            .iter()
            .position(|&v| value < v)
            .unwrap_or(self.values.len());
        self.values.insert(at, value);
    }

    /// Whether the list holds `value`, scanning from the head. The scan compares a block of values
    /// at a time (which the compiler vectorises) and stops after the block holding the value.
    pub(crate) fn contains(&self, value: i32) -> bool {
        const BLOCK: usize = 64;
        self.values
            .chunks(BLOCK)
            .any(|block| block.iter().fold(false, |found, &v| found | (v == value)))
    }

    /// The number of values.
    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the values are in order.
    pub(crate) fn is_sorted(&self) -> bool {
        self.values.windows(2).all(|w| w[0] <= w[1])
    }

    /// Serves one request: the value the List answers. The workers ignore it, so the List passes it
    /// through [`std::hint::black_box`]: a scan whose answer is unused could be optimised away.
    #[inline]
    pub(crate) fn serve(&mut self, request: Request) -> i32 {
        match request {
            Request::Write(value) => {
                self.add(value);
                value
            }
            Request::Contains(value) => i32::from(self.contains(value)),
            Request::Size => self.len() as i32,
        }
    }
}

/// Validates a run: the workers received `results`; `list` is the List's final state (None if it
/// never got `EndWork`). The result is the final size.
pub(crate) fn check(cfg: &Config, results: u64, list: Option<&SortedList>) -> Outcome {
    let Some(list) = list else {
        return Outcome::failed("the list actor did not finish");
    };
    let mut outcome = Outcome::expect_eq("final list size", cfg.expected_size, list.len());
    if outcome.check.is_ok() {
        let want = cfg.workers as u64 * cfg.requests;
        outcome.check = if results != want {
            Err(format!("{results} results received, expected {want}"))
        } else if !list.is_sorted() {
            Err("the list is not in order".into())
        } else {
            Ok(())
        };
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::{check, Config, Request, SortedList, BENCHMARK};
    use crate::benchmarks::testing::{self, params, rejects_alike as rejects, validates};

    /// SPEC.md (LCG era): 16,126 writes, 10 `Size` and 143,864 `Contains` requests at the defaults.
    #[test]
    fn default_workload_is_savinas() {
        let cfg = Config::from_params(&params(&BENCHMARK, &[("m", 8_000.0)])).unwrap();
        assert_eq!(cfg.expected_size, 16_126);
        let (mut sizes, mut contains) = (0, 0);
        for id in 0..cfg.workers {
            let mut requests = cfg.requests_of(id);
            for _ in 0..cfg.requests {
                match requests.next_request() {
                    Request::Size => sizes += 1,
                    Request::Contains(_) => contains += 1,
                    Request::Write(_) => {}
                }
            }
        }
        assert_eq!((sizes, contains), (10, 143_864));
    }

    #[test]
    fn the_list_stays_sorted_and_scans_every_block() {
        let mut list = SortedList::default();
        for v in [5, 3, 9, 3, 200, -1] {
            list.add(v);
        }
        assert_eq!(list.values, [-1, 3, 3, 5, 9, 200]);
        for v in 0..150 {
            list.add(1000 + v);
        }
        assert!(list.is_sorted());
        assert!(list.contains(3) && list.contains(1149) && list.contains(-1));
        assert!(!list.contains(4) && !list.contains(2000));
        assert_eq!(list.serve(Request::Size), 156);
        assert_eq!(list.serve(Request::Contains(1100)), 1);
        assert_eq!(list.serve(Request::Write(7)), 7);
        assert_eq!(list.len(), 157);
    }

    #[test]
    fn check_wants_every_result_and_every_write() {
        let cfg = Config::from_params(&params(&BENCHMARK, &[("e", 2.0), ("m", 50.0)])).unwrap();
        let mut list = SortedList::default();
        for v in 0..cfg.expected_size as i32 {
            list.add(v);
        }
        assert!(check(&cfg, 100, Some(&list)).check.is_ok());
        assert!(check(&cfg, 99, Some(&list)).check.is_err());
        assert!(check(&cfg, 100, None).check.is_err());
        list.add(0);
        assert!(check(&cfg, 100, Some(&list)).check.is_err());
    }

    #[test]
    fn every_model_validates_at_a_reduced_size() {
        let cfg = Config::from_params(&params(
            &BENCHMARK,
            &[("e", 4.0), ("m", 300.0), ("w", 30.0), ("s", 5.0)],
        ))
        .unwrap();
        testing::expect_result(
            &BENCHMARK,
            testing::ACTOR_AND_FLOOR,
            &[("e", 4.0), ("m", 300.0), ("w", 30.0), ("s", 5.0)],
            serde_json::json!(cfg.expected_size),
        );
        validates(&BENCHMARK, &[("e", 1.0), ("m", 0.0)]);
    }

    #[test]
    fn savinas_limits_are_enforced() {
        assert!(rejects(&BENCHMARK, &[("w", 50.0)]).contains("`w`"));
        assert!(rejects(&BENCHMARK, &[("w", 40.0), ("s", 20.0)]).contains("2w + s"));
    }
}
