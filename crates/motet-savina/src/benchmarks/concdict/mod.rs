//! 8. Concurrent Dictionary (concurrency): `e` workers send `m` requests each to one dictionary.
//!
//! Flow (SPEC.md section 3.8): the Master creates the Dictionary, which copies a 524,287-entry map
//! (key k ↦ k, built once, untimed; std's `HashMap`) when it is created, inside the timed run as in
//! Savina; then the E workers, and sends each `DoWork`. A worker, on any message (`DoWork` or a
//! `Result`), counts it; while the count is at most M it draws `r = nextInt(100)` from its
//! `java.util.Random` (seed id + M + w, as Savina's Akka port): below w it sends `Write(self,
//! key, value)`, else `Read(self, key)`, keys `|nextInt()| mod 524,287`; one request outstanding
//! per worker. The Dictionary answers each with `Result(value)`.
//! On its (M + 1)-th message a worker sends `EndWork` to the Master and stops; after E of them the
//! Master sends `EndWork` to the Dictionary, which reports its size. 2EM + 2E + 1 messages.
//!
//! The tuned programs (`actor-tuned`, `floor-tuned`) hand the Dictionary the workers' addresses in
//! an `Init` from the main thread, which creates every actor (`init-message`,
//! `main-creates-actors`), map the keys with an integer hasher laid out for cache locality
//! (`tuned-hash`) and draw with the suite's LCG, as LF's and CAF's ports do (`lcg-requests`).
//!
//! Validation: the final size is 524,287 (writes only overwrite), E·M results reached the workers,
//! every read found a value, and the Dictionary served the writes the workers' generators ask for
//! (19,848 at the defaults with `java.util.Random`, 19,981 with the LCG). The result is the number
//! of results.

mod actor;
mod actor_tuned;
mod floor;
mod floor_tuned;
mod reactor;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, OnceLock};

use crate::bench::{Benchmark, Outcome};
use crate::random::{JavaRandom, PseudoRandom};

/// Concurrent Dictionary (Savina 8).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "concdict",
    id: 8,
    title: "Concurrent Dictionary: E workers read and write one dictionary actor",
    params: PARAMS,
    variants,
};

crate::params! {
    /// `-e` workers, `-m` requests per worker, `-w` write percentage; "small" sends a tenth.
    const PARAMS: &[ParamSpec];

    /// The decoded parameters and what every iteration shares: the map the Dictionary starts from,
    /// and the number of writes the workers will send.
    #[derive(Clone, Debug)]
    pub(crate) struct Config {
        /// At most `u32::MAX`.
        #[param("e", default = 20.0, small = 20.0, min = 1, help = "workers")]
        workers: usize,
        #[param("m", default = 10_000.0, small = 1_000.0, min = 0, help = "requests per worker")]
        requests: u64,
        #[param("w", default = 10.0, small = 10.0, min = 0, help = "write percentage (0 to 100)")]
        write_percent: u64,
    }
    derived {
        /// Keys 0 to 524,286, each mapped to itself (Savina's `DATA_MAP`).
        data: Arc<Map> = Arc::default(),
        /// The same in the tuned programs' map.
        tuned_data: Arc<TunedMap> = Arc::default(),
        /// The writes the workers' generators ask for.
        expected_writes: u64 = 0,
        /// The writes the tuned programs' generators (the LCG) ask for.
        tuned_expected_writes: u64 = 0,
    }
    finish = Config::finish;
}

/// Savina's `DATA_LIMIT`: `Integer.MAX_VALUE / 4096`, the number of keys.
pub(crate) const DATA_LIMIT: i32 = i32::MAX / 4_096;

variants!(
    actor,
    actor_tuned ["init-message", "main-creates-actors", "tuned-hash", "lcg-requests"],
    reactor (own_protocol),
    floor,
    floor_tuned ["main-creates-actors", "tuned-hash", "lcg-requests"],
);

/// The tuned dictionary's hash for integer keys, laid out as Java's `HashMap<Integer, _>` lays them out:
/// key k lands in bucket k mod capacity (Java's `Integer.hashCode` is the value itself), so the
/// small keys the LCG draws (below 65,536) stay in one compact, cache-resident part of the
/// 524,287-entry table, as in Savina. hashbrown also reads a 7-bit tag from the top of the hash;
/// that comes from a multiplicative mix (rustc's FxHash constant). std's SipHash scatters the keys
/// over the whole table, and every lookup missed the cache (several times slower, measured).
#[derive(Default)]
pub(crate) struct IntHasher(u64);

impl Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64((self.0 << 8) | u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        const TAG_BITS: u64 = 0x7f << 57;
        self.0 = (n & !TAG_BITS) | (n.wrapping_mul(0x517c_c1b7_2722_0a95) & TAG_BITS);
    }

    fn write_i32(&mut self, n: i32) {
        self.write_u64(u64::from(n as u32));
    }
}

/// The dictionary's map: std's `HashMap`, as Savina's is Java's.
pub(crate) type Map = HashMap<i32, i32>;

/// The tuned dictionary's map (deviation `tuned-hash`).
pub(crate) type TunedMap = HashMap<i32, i32, BuildHasherDefault<IntHasher>>;

/// Savina's `DATA_MAP`, built once per process (it does not depend on the parameters).
fn data_map() -> Arc<Map> {
    static DATA: OnceLock<Arc<Map>> = OnceLock::new();
    DATA.get_or_init(|| Arc::new((0..DATA_LIMIT).map(|k| (k, k)).collect()))
        .clone()
}

/// [`data_map`] in the tuned programs' map.
fn tuned_data_map() -> Arc<TunedMap> {
    static DATA: OnceLock<Arc<TunedMap>> = OnceLock::new();
    DATA.get_or_init(|| Arc::new((0..DATA_LIMIT).map(|k| (k, k)).collect()))
        .clone()
}

impl Config {
    /// Checks the percentage and the workers; takes the map and counts the writes.
    fn finish(&mut self) -> Result<(), String> {
        if self.write_percent > 100 {
            return Err(format!(
                "parameter `w` must be at most 100, got {}",
                self.write_percent
            ));
        }
        if self.workers > u32::MAX as usize {
            return Err(format!("parameter `e` must be at most {}", u32::MAX));
        }
        self.data = data_map();
        self.tuned_data = tuned_data_map();
        let writes = |requests_of: fn(&Config, usize) -> Requests| {
            (0..self.workers)
                .map(|id| {
                    let mut requests = requests_of(self, id);
                    (0..self.requests)
                        .filter(|_| matches!(requests.next_request(), Request::Write { .. }))
                        .count() as u64
                })
                .sum()
        };
        let (java, lcg) = (
            writes(Config::requests_of),
            writes(Config::tuned_requests_of),
        );
        self.expected_writes = java;
        self.tuned_expected_writes = lcg;
        Ok(())
    }

    /// The seed of worker `id`'s generator: id + M + w.
    fn seed(&self, id: usize) -> i64 {
        id as i64 + self.requests as i64 + self.write_percent as i64
    }

    /// Worker `id`'s requests, from `java.util.Random` as in Savina's Akka port.
    pub(crate) fn requests_of(&self, id: usize) -> Requests {
        Requests {
            rng: Generator::Java(JavaRandom::new(self.seed(id))),
            // At most 100.
            write_percent: self.write_percent as i32,
        }
    }

    /// Worker `id`'s requests in the tuned programs, from the suite's LCG (deviation
    /// `lcg-requests`).
    pub(crate) fn tuned_requests_of(&self, id: usize) -> Requests {
        Requests {
            rng: Generator::Lcg(PseudoRandom::new(self.seed(id))),
            write_percent: self.write_percent as i32,
        }
    }
}

/// A worker's generator.
enum Generator {
    Java(JavaRandom),
    Lcg(PseudoRandom),
}

impl Generator {
    fn next_int(&mut self) -> i32 {
        match self {
            Generator::Java(r) => r.next_int(),
            Generator::Lcg(r) => r.next_int(),
        }
    }

    fn next_int_below(&mut self, bound: i32) -> i32 {
        match self {
            Generator::Java(r) => r.next_int_below(bound),
            Generator::Lcg(r) => r.next_int_below(bound),
        }
    }
}

/// A worker's request to the Dictionary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Request {
    Write { key: i32, value: i32 },
    Read { key: i32 },
}

/// One worker's generator of requests.
pub(crate) struct Requests {
    rng: Generator,
    write_percent: i32,
}

impl Requests {
    /// The next request, drawn as Savina's worker draws it (the key before the value).
    pub(crate) fn next_request(&mut self) -> Request {
        if self.rng.next_int_below(100) < self.write_percent {
            let key = self.rng.next_int().wrapping_abs() % DATA_LIMIT;
            let value = self.rng.next_int();
            Request::Write { key, value }
        } else {
            Request::Read {
                key: self.rng.next_int().wrapping_abs() % DATA_LIMIT,
            }
        }
    }
}

/// Serves one request; `writes` counts the writes. Returns the value to answer.
#[inline]
pub(crate) fn serve<S: std::hash::BuildHasher>(
    map: &mut HashMap<i32, i32, S>,
    writes: &mut u64,
    request: Request,
) -> Option<i32> {
    match request {
        Request::Write { key, value } => {
            map.insert(key, value);
            *writes += 1;
            Some(value)
        }
        Request::Read { key } => map.get(&key).copied(),
    }
}

/// What a run ends with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Results the workers received.
    pub(crate) results: u64,
    /// Results that found no value for the key read.
    pub(crate) misses: u64,
    /// Writes the Dictionary served.
    pub(crate) writes: u64,
    /// The Dictionary's size at `EndWork`.
    pub(crate) size: usize,
}

/// Validates a run (None if the Dictionary never reported). The result is the number of results.
pub(crate) fn check(cfg: &Config, tally: Option<Tally>) -> Outcome {
    check_writes(cfg, cfg.expected_writes, tally)
}

/// [`check`] for the tuned programs, whose generators ask for other writes.
pub(crate) fn check_tuned(cfg: &Config, tally: Option<Tally>) -> Outcome {
    check_writes(cfg, cfg.tuned_expected_writes, tally)
}

/// [`check`], `expected_writes` the writes the generators ask for.
fn check_writes(cfg: &Config, expected_writes: u64, tally: Option<Tally>) -> Outcome {
    let Some(t) = tally else {
        return Outcome::failed("the dictionary did not report");
    };
    let mut outcome = Outcome::expect_eq(
        "results received",
        cfg.workers as u64 * cfg.requests,
        t.results,
    );
    if outcome.check.is_ok() {
        outcome.check = if t.misses != 0 {
            Err(format!("{} reads found no value", t.misses))
        } else if t.size != DATA_LIMIT as usize {
            Err(format!("dictionary size {}, expected {DATA_LIMIT}", t.size))
        } else if t.writes != expected_writes {
            Err(format!(
                "{} writes served, expected {expected_writes}",
                t.writes
            ))
        } else {
            Ok(())
        };
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::{check, serve, Config, Request, Tally, BENCHMARK, DATA_LIMIT};
    use crate::benchmarks::testing::{self, params, rejects_alike as rejects, validates};

    fn config(sets: &[(&str, f64)]) -> Config {
        Config::from_params(&params(&BENCHMARK, sets)).unwrap()
    }

    /// SPEC.md: DATA_LIMIT is 524,287; `java.util.Random` gives 19,848 writes at the defaults,
    /// the LCG 19,981.
    #[test]
    fn default_workload_is_savinas() {
        assert_eq!(DATA_LIMIT, 524_287);
        let cfg = config(&[("m", 10_000.0)]);
        assert_eq!(cfg.data.len(), 524_287);
        assert_eq!(cfg.tuned_data.len(), 524_287);
        assert_eq!(cfg.expected_writes, 19_848);
        assert_eq!(cfg.tuned_expected_writes, 19_981);
    }

    #[test]
    fn serving_overwrites_and_reads() {
        let cfg = config(&[("m", 1.0)]);
        let mut map = (*cfg.data).clone();
        let mut writes = 0;
        assert_eq!(
            serve(&mut map, &mut writes, Request::Read { key: 7 }),
            Some(7)
        );
        let w = Request::Write { key: 7, value: -3 };
        assert_eq!(serve(&mut map, &mut writes, w), Some(-3));
        assert_eq!(
            serve(&mut map, &mut writes, Request::Read { key: 7 }),
            Some(-3)
        );
        assert_eq!((map.len(), writes), (524_287, 1));
    }

    #[test]
    fn check_wants_every_result_and_the_full_map() {
        let cfg = config(&[("e", 2.0), ("m", 5.0)]);
        let good = Tally {
            results: 10,
            misses: 0,
            writes: cfg.expected_writes,
            size: 524_287,
        };
        assert!(check(&cfg, Some(good)).check.is_ok());
        assert!(check(&cfg, None).check.is_err());
        let tuned = Tally {
            writes: cfg.tuned_expected_writes,
            ..good
        };
        assert!(super::check_tuned(&cfg, Some(tuned)).check.is_ok());
        for bad in [
            Tally { results: 9, ..good },
            Tally { misses: 1, ..good },
            Tally {
                size: 524_288,
                ..good
            },
            Tally {
                writes: good.writes + 1,
                ..good
            },
        ] {
            assert!(check(&cfg, Some(bad)).check.is_err(), "{bad:?}");
        }
    }

    #[test]
    fn every_model_validates_at_a_reduced_size() {
        testing::expect_result(
            &BENCHMARK,
            testing::ACTOR_AND_FLOOR,
            &[("e", 5.0), ("m", 400.0), ("w", 30.0)],
            serde_json::json!(2_000),
        );
        validates(&BENCHMARK, &[("e", 1.0), ("m", 0.0)]);
        testing::expect_result(
            &BENCHMARK,
            testing::TUNED_ACTOR_AND_FLOOR,
            &[("e", 5.0), ("m", 400.0), ("w", 30.0)],
            serde_json::json!(2_000),
        );
    }

    #[test]
    fn bad_sizes_are_rejected() {
        assert!(rejects(&BENCHMARK, &[("w", 101.0)]).contains("`w`"));
        assert!(rejects(&BENCHMARK, &[("e", 0.0)]).contains("`e`"));
    }
}
