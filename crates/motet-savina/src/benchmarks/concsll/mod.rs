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
//! Kernel: every default program's List is SPEC.md's sorted singly linked list ([`LinkedList`]):
//! `Write` and `Contains` walk from the head and `Size` walks the list and counts. `actor-tuned`
//! and `floor-tuned` keep the values in a vector scanned in blocks, with its length as `Size`
//! ([`VecList`], deviation `vec-list`).
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
    actor,
    actor_tuned["vec-list"],
    reactor(own_protocol),
    floor,
    floor_tuned["vec-list"],
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

/// Which sorted list a program's List keeps: its kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ListKind {
    /// SPEC.md's singly linked list: every default program.
    Linked,
    /// A vector scanned in blocks (deviation `vec-list`): the tuned programs.
    Vec,
}

/// The List actor's sorted list, of the program's [`ListKind`]. Both hold the same values in the
/// same order and answer every request alike.
#[derive(Debug)]
pub(crate) enum SortedList {
    /// SPEC.md's list.
    Linked(LinkedList),
    /// The tuned list.
    Vec(VecList),
}

impl Default for SortedList {
    /// An empty list of SPEC.md's kind.
    fn default() -> SortedList {
        SortedList::new(ListKind::Linked)
    }
}

impl SortedList {
    /// An empty list of `kind`.
    pub(crate) fn new(kind: ListKind) -> SortedList {
        match kind {
            ListKind::Linked => SortedList::Linked(LinkedList::default()),
            ListKind::Vec => SortedList::Vec(VecList::default()),
        }
    }

    /// Serves one request: the value the List answers (a write's value, 1 or 0 for `Contains`, the
    /// count for `Size`). The workers ignore it, so the List passes it through
    /// [`std::hint::black_box`]: a scan whose answer is unused could be optimised away.
    #[inline]
    pub(crate) fn serve(&mut self, request: Request) -> i32 {
        match self {
            SortedList::Linked(list) => serve(list, request),
            SortedList::Vec(list) => serve(list, request),
        }
    }

    /// The number of values (a walk over SPEC.md's list).
    pub(crate) fn len(&self) -> usize {
        match self {
            SortedList::Linked(list) => list.len(),
            SortedList::Vec(list) => list.len(),
        }
    }

    /// Whether the values are in order.
    pub(crate) fn is_sorted(&self) -> bool {
        match self {
            SortedList::Linked(list) => list.is_sorted(),
            SortedList::Vec(list) => list.is_sorted(),
        }
    }

    /// The values, from the head.
    #[cfg(test)]
    fn values(&self) -> Vec<i32> {
        match self {
            SortedList::Linked(list) => list.iter().collect(),
            SortedList::Vec(list) => list.values.clone(),
        }
    }
}

/// The operations of the List's sorted list.
trait Sorted {
    /// Inserts `value` after every value not larger than it.
    fn add(&mut self, value: i32);
    /// Whether the list holds `value`.
    fn contains(&self, value: i32) -> bool;
    /// The number of values.
    fn len(&self) -> usize;
}

/// [`SortedList::serve`] on one kind of list.
#[inline(always)]
fn serve(list: &mut impl Sorted, request: Request) -> i32 {
    match request {
        Request::Write(value) => {
            list.add(value);
            value
        }
        Request::Contains(value) => i32::from(list.contains(value)),
        Request::Size => list.len() as i32,
    }
}

/// SPEC.md's sorted singly linked list (Savina's `SortedLinkedList`): an insert walks from the
/// head to the first larger value (so equal values keep their arrival order), `contains` walks
/// until it finds the value, to the end on a miss (it does not stop at a larger value), and `len`
/// walks the whole list and counts.
#[derive(Debug, Default)]
pub(crate) struct LinkedList {
    head: Link,
}

/// A link to the rest of a [`LinkedList`].
type Link = Option<Box<Node>>;

/// One value of a [`LinkedList`] and the link to the next.
#[derive(Debug)]
struct Node {
    value: i32,
    next: Link,
}

impl LinkedList {
    /// The values, from the head.
    fn iter(&self) -> impl Iterator<Item = i32> + '_ {
        std::iter::successors(self.head.as_deref(), |node| node.next.as_deref())
            .map(|node| node.value)
    }

    /// Whether the values are in order.
    pub(crate) fn is_sorted(&self) -> bool {
        self.iter().is_sorted()
    }
}

impl Sorted for LinkedList {
    fn add(&mut self, value: i32) {
        let mut link = &mut self.head;
        while link.as_ref().is_some_and(|node| node.value <= value) {
            link = &mut link.as_mut().expect("a node, as just checked").next;
        }
        let next = link.take();
        *link = Some(Box::new(Node { value, next }));
    }

    fn contains(&self, value: i32) -> bool {
        let mut link = &self.head;
        while let Some(node) = link {
            if node.value == value {
                return true;
            }
            link = &node.next;
        }
        false
    }

    fn len(&self) -> usize {
        let mut count = 0;
        let mut link = &self.head;
        while let Some(node) = link {
            count += 1;
            link = &node.next;
        }
        count
    }
}

impl Drop for LinkedList {
    /// Unlinks the nodes one at a time: the derived drop would recurse once per node, deeper than
    /// a thread's stack holds for a list of the default size.
    fn drop(&mut self) {
        let mut link = self.head.take();
        while let Some(mut node) = link {
            link = node.next.take();
        }
    }
}

/// The tuned list (deviation `vec-list`): the values in a sorted vector, with the linked list's
/// linear scans (an insert finds the first larger value from the head, `contains` scans until it
/// finds the value), but contiguous, a block of values compared at a time, and an O(1) `len`.
#[derive(Debug, Default)]
pub(crate) struct VecList {
    values: Vec<i32>,
}

impl VecList {
    /// Whether the values are in order.
    pub(crate) fn is_sorted(&self) -> bool {
        self.values.is_sorted()
    }
}

impl Sorted for VecList {
    fn add(&mut self, value: i32) {
        let at = self
            .values
            .iter()
            .position(|&v| value < v)
            .unwrap_or(self.values.len());
        self.values.insert(at, value);
    }

    /// Scans from the head a block at a time (which the compiler vectorises) and stops after the
    /// block holding the value.
    fn contains(&self, value: i32) -> bool {
        const BLOCK: usize = 64;
        self.values
            .chunks(BLOCK)
            .any(|block| block.iter().fold(false, |found, &v| found | (v == value)))
    }

    fn len(&self) -> usize {
        self.values.len()
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
    use super::{check, Config, ListKind, Request, SortedList, BENCHMARK};
    use crate::bench::Model;
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

    /// Both kinds of list keep the values in order, find them anywhere (across the vector's
    /// blocks), and answer every request alike.
    #[test]
    fn both_lists_stay_sorted_and_answer_alike() {
        for kind in [ListKind::Linked, ListKind::Vec] {
            let mut list = SortedList::new(kind);
            assert_eq!(list.serve(Request::Size), 0);
            assert_eq!(list.serve(Request::Contains(0)), 0);
            for v in [5, 3, 9, 3, 200, -1] {
                assert_eq!(list.serve(Request::Write(v)), v);
            }
            assert_eq!(list.values(), [-1, 3, 3, 5, 9, 200], "{kind:?}");
            for v in (0..150).rev() {
                list.serve(Request::Write(1000 + v));
            }
            assert!(list.is_sorted(), "{kind:?}");
            for (v, found) in [(3, 1), (1149, 1), (-1, 1), (200, 1), (4, 0), (2000, 0)] {
                assert_eq!(list.serve(Request::Contains(v)), found, "{kind:?} {v}");
            }
            assert_eq!(list.serve(Request::Size), 156);
            assert_eq!(list.serve(Request::Write(7)), 7);
            assert_eq!(list.len(), 157);
            let values = list.values();
            assert_eq!(values[..6], [-1, 3, 3, 5, 7, 9], "{kind:?}");
            assert_eq!(
                values[7..],
                (1000..1150).collect::<Vec<_>>()[..],
                "{kind:?}"
            );
        }
    }

    /// A linked list of far more nodes than the default run makes drops without recursing once per
    /// node (the derived drop would overflow the test thread's stack).
    #[test]
    fn a_long_linked_list_drops() {
        let mut list = SortedList::new(ListKind::Linked);
        for v in (0..1_000_000).rev() {
            list.serve(Request::Write(v));
        }
        assert_eq!(list.len(), 1_000_000);
        drop(list);
    }

    #[test]
    fn check_wants_every_result_and_every_write() {
        let cfg = Config::from_params(&params(&BENCHMARK, &[("e", 2.0), ("m", 50.0)])).unwrap();
        let mut list = SortedList::default();
        for v in 0..cfg.expected_size as i32 {
            list.serve(Request::Write(v));
        }
        assert!(check(&cfg, 100, Some(&list)).check.is_ok());
        assert!(check(&cfg, 99, Some(&list)).check.is_err());
        assert!(check(&cfg, 100, None).check.is_err());
        list.serve(Request::Write(0));
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

    /// The default programs (the linked list) and the tuned ones (the vector) validate and end with
    /// the same list size.
    #[test]
    fn default_and_tuned_programs_agree() {
        let sets = [("e", 4.0), ("m", 300.0), ("w", 30.0), ("s", 5.0)];
        let cfg = Config::from_params(&params(&BENCHMARK, &sets)).unwrap();
        assert!(cfg.expected_size > 0);
        testing::expect_result(
            &BENCHMARK,
            &[
                (Model::Actor, 2, 1),
                (Model::ActorTuned, 2, 1),
                (Model::Floor, 1, 1),
                (Model::FloorTuned, 1, 1),
                (Model::Reactor, 2, 1),
            ],
            &sets,
            serde_json::json!(cfg.expected_size),
        );
    }

    #[test]
    fn savinas_limits_are_enforced() {
        assert!(rejects(&BENCHMARK, &[("w", 50.0)]).contains("`w`"));
        assert!(rejects(&BENCHMARK, &[("w", 40.0), ("s", 20.0)]).contains("2w + s"));
    }
}
