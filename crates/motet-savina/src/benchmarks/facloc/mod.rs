//! 20. Online Facility Location (parallelism): a quadtree of actors that splits as customers come.
//!
//! Flow (SPEC.md section 3.20): the Producer sends `n` customers, one at a time: the root Quadrant
//! answers each `Customer` with `NextCustomer`. A leaf Quadrant adds the customer at the cost of
//! the distance to the nearest facility it knows (its ancestors' and its own box's midpoint); once
//! its total cost exceeds `a · √2 · g` it *partitions*: it tells its parent it opened a facility
//! (`Facility`, from a child) and creates four children (from inside the actor) for the quarters of
//! its box, each taking the parent's customers that fall in its box (points on a split line go to
//! more than one). An inner Quadrant routes a customer to the first child whose box holds it. A
//! `Facility` from a child is passed up and to the child's diagonally opposite sibling; one from
//! the parent goes to every child. After the `n`-th customer the Producer sends `RequestExit`,
//! which travels down; leaves answer `ConfirmExit(facilities, customers)` up, and the root reports
//! the totals. The points come from Savina's LCG: `x = next_double()·g`, then `y` likewise; as in
//! Savina the generator is not reset between iterations (its static carries on), so each
//! iteration of a cell sees the next `n` points ([`Stream`]).
//!
//! Validation: at least `n` customers (boundary points are counted in more than one quadrant), and
//! a facility count within 2 of the count the same program gives run sequentially on the same
//! points (computed after each iteration, untimed): 14 at the defaults' first iteration (SPEC.md: "about 14"; the LCG's points pile up near
//! (0, 0)), 11 at the small size. Which quadrant learns of a facility when depends on the
//! interleaving, which can move a partition; every run measured gave the sequential count. The
//! result is the facility count.

mod actor;
mod floor;
mod reactor;

use crate::bench::{Benchmark, Outcome};
use crate::params::Params;
use crate::random::PseudoRandom;

/// Online Facility Location (Savina 20).
pub static BENCHMARK: Benchmark = Benchmark {
    name: "facloc",
    id: 20,
    title: "Online Facility Location: a quadtree of actors that splits as customers arrive",
    params: PARAMS,
    variants,
};

crate::params! {
    /// Savina's flags (`-s` and `-c` are accepted and, as in Savina, unused); "small" is a tenth of
    /// the points (SPEC.md gives no LF small size).
    const PARAMS: &[ParamSpec];

    /// The decoded parameters, shared by every variant.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Config {
        #[param("n", default = 100_000.0, small = 10_000.0, min = 1, help = "customers (points)")]
        n: u64,
        #[param("g", default = 500.0, small = 500.0, parse = positive, help = "grid size")]
        g: f64,
        #[param("a", default = 2.0, small = 2.0, parse = positive,
            help = "alpha: a quadrant partitions when its cost exceeds a·√2·g")]
        alpha: f64,
        #[param("s", default = 123_456.0, small = 123_456.0, min = 0,
            help = "seed (unused, as in Savina: the points use the LCG's default seed)")]
        _seed: u64,
        #[param("c", default = 3.0, small = 3.0, min = 0,
            help = "cutoff depth (unused, as in Savina)")]
        _cutoff: u64,
    }
    derived {
        /// The partition threshold `a·√2·g`.
        threshold: f64 = 0.0,
    }
    finish = Config::finish;
}

variants!(actor, floor, reactor);

/// Decodes a float that must be above 0.
fn positive(params: &Params, name: &str) -> Result<f64, String> {
    let v = params.f64(name);
    if v.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Err(format!("parameter `{name}` must be positive, got {v}"));
    }
    Ok(v)
}

impl Config {
    /// Derives the partition threshold.
    fn finish(&mut self) -> Result<(), String> {
        self.threshold = self.alpha * (std::f64::consts::SQRT_2 * self.g);
        Ok(())
    }
}

/// The Producer's points: Savina's LCG from its default seed, `x` then `y`.
pub(crate) struct Points {
    rng: PseudoRandom,
    g: f64,
}

impl Points {
    /// A fresh generator for grid size `g`, from the LCG's default seed.
    #[cfg(test)]
    pub(crate) fn new(g: f64) -> Points {
        Points::at(g, PseudoRandom::default())
    }

    /// The points for grid size `g` from the generator `rng`.
    pub(crate) fn at(g: f64, rng: PseudoRandom) -> Points {
        Points { rng, g }
    }

    /// The next point.
    pub(crate) fn next_point(&mut self) -> Point {
        let x = self.rng.next_double() * self.g;
        let y = self.rng.next_double() * self.g;
        Point { x, y }
    }
}

/// Where each iteration's points start: Savina's generator is a static that carries on from one
/// iteration to the next, so an iteration starts where the one before stopped, `n` points later.
/// The timed run reads the start; the untimed validation moves it on.
pub(crate) struct Stream(std::sync::Mutex<PseudoRandom>);

impl Stream {
    /// The first iteration starts at the LCG's default seed.
    pub(crate) fn new() -> Stream {
        Stream(std::sync::Mutex::new(PseudoRandom::default()))
    }

    /// The generator this iteration starts from.
    pub(crate) fn start(&self) -> PseudoRandom {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Moves the start on by the `n` points of an iteration.
    pub(crate) fn advance(&self, cfg: &Config) {
        let mut points = Points::at(cfg.g, self.start());
        for _ in 0..cfg.n {
            points.next_point();
        }
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = points.rng;
    }
}

/// A point of the grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Point {
    pub(crate) x: f64,
    pub(crate) y: f64,
}

impl Point {
    /// The Euclidean distance.
    #[inline]
    pub(crate) fn distance(self, p: Point) -> f64 {
        let (dx, dy) = (p.x - self.x, p.y - self.y);
        ((dx * dx) + (dy * dy)).sqrt()
    }
}

/// A closed box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rect {
    x1: f64,
    y1: f64,
    x2: f64,
    y2: f64,
}

impl Rect {
    /// The whole grid.
    pub(crate) fn grid(g: f64) -> Rect {
        Rect {
            x1: 0.0,
            y1: 0.0,
            x2: g,
            y2: g,
        }
    }

    /// Whether `p` lies in the box, borders included.
    #[inline]
    pub(crate) fn contains(&self, p: Point) -> bool {
        self.x1 <= p.x && self.y1 <= p.y && p.x <= self.x2 && p.y <= self.y2
    }

    /// The midpoint: where the box's facility would open.
    pub(crate) fn mid(&self) -> Point {
        Point {
            x: (self.x1 + self.x2) / 2.0,
            y: (self.y1 + self.y2) / 2.0,
        }
    }

    /// The four quarters, in Savina's order: top left, top right, bottom left, bottom right.
    pub(crate) fn quarters(&self) -> [Rect; 4] {
        let m = self.mid();
        [
            Rect {
                x1: self.x1,
                y1: m.y,
                x2: m.x,
                y2: self.y2,
            },
            Rect {
                x1: m.x,
                y1: m.y,
                x2: self.x2,
                y2: self.y2,
            },
            Rect {
                x1: self.x1,
                y1: self.y1,
                x2: m.x,
                y2: m.y,
            },
            Rect {
                x1: m.x,
                y1: self.y1,
                x2: self.x2,
                y2: m.y,
            },
        ]
    }
}

/// The quarter diagonally opposite quarter `position` (0 top left … 3 bottom right).
pub(crate) fn opposite(position: usize) -> usize {
    3 - position
}

/// A quadrant's own state, shared by the actor and floor versions (Savina's `QuadrantActor`
/// without its messaging).
#[derive(Debug)]
pub(crate) struct Quadrant {
    /// Where the quadrant lies in its parent (`None` for the root).
    pub(crate) position: Option<usize>,
    pub(crate) boundary: Rect,
    pub(crate) depth: u32,
    threshold: f64,
    /// The facilities from ancestors and the box's own midpoint.
    pub(crate) local_facilities: Vec<Point>,
    known_facilities: u64,
    max_depth_of_known_open_facility: i64,
    pub(crate) support_customers: Vec<Point>,
    total_cost: f64,
    pub(crate) terminated_children: u32,
    pub(crate) children_facilities: u64,
    pub(crate) facility_customers: u64,
    /// The children's boxes once the quadrant has partitioned.
    pub(crate) children_boundaries: Option<Box<[Rect; 4]>>,
}

impl Quadrant {
    /// The root quadrant over the whole grid.
    pub(crate) fn root(cfg: &Config) -> Quadrant {
        Quadrant::new(None, Rect::grid(cfg.g), cfg.threshold, 0, &[], 1, -1)
    }

    fn new(
        position: Option<usize>,
        boundary: Rect,
        threshold: f64,
        depth: u32,
        ancestors: &[Point],
        known_facilities: u64,
        max_depth_of_known_open_facility: i64,
    ) -> Quadrant {
        let mut local_facilities = Vec::with_capacity(ancestors.len() + 1);
        local_facilities.extend_from_slice(ancestors);
        local_facilities.push(boundary.mid());
        Quadrant {
            position,
            boundary,
            depth,
            threshold,
            local_facilities,
            known_facilities,
            max_depth_of_known_open_facility,
            support_customers: Vec::new(),
            total_cost: 0.0,
            terminated_children: 0,
            children_facilities: 0,
            facility_customers: 0,
            children_boundaries: None,
        }
    }

    /// A child for quarter `position`: inherits the facilities and takes, from `customers` (the
    /// parent's), those in its box. Called where the child starts.
    pub(crate) fn child(&self, position: usize, customers: &[Point]) -> Quadrant {
        let boundary = self.boundary.quarters()[position];
        let mut child = Quadrant::new(
            Some(position),
            boundary,
            self.threshold,
            self.depth + 1,
            &self.local_facilities,
            self.known_facilities,
            self.max_depth_of_known_open_facility,
        );
        for &p in customers {
            if boundary.contains(p) {
                child.add_customer(p);
            }
        }
        child
    }

    /// Adds a customer at the distance to its nearest known facility.
    pub(crate) fn add_customer(&mut self, p: Point) {
        self.support_customers.push(p);
        let cost = self
            .local_facilities
            .iter()
            .fold(f64::MAX, |best, f| best.min(f.distance(p)));
        self.total_cost += cost;
    }

    /// A customer reaching a leaf: adds it and says whether the leaf must partition now.
    pub(crate) fn leaf_customer(&mut self, p: Point) -> bool {
        self.add_customer(p);
        self.total_cost > self.threshold
    }

    /// Which child a customer goes to (the first whose box holds it).
    pub(crate) fn route(&self, p: Point) -> Option<usize> {
        self.children_boundaries
            .as_ref()?
            .iter()
            .position(|b| b.contains(p))
    }

    /// Partitions: records the children's boxes and hands back the support customers for the
    /// children to take their share of. The caller tells the parent (`Facility` from a child at
    /// this quadrant's depth) and creates the four children.
    pub(crate) fn partition(&mut self) -> Vec<Point> {
        self.max_depth_of_known_open_facility = self
            .max_depth_of_known_open_facility
            .max(i64::from(self.depth));
        self.children_boundaries = Some(Box::new(self.boundary.quarters()));
        std::mem::take(&mut self.support_customers)
    }

    /// A `Facility` message: records the facility.
    pub(crate) fn learn_facility(&mut self, point: Point, depth: u32, from_child: bool) {
        self.known_facilities += 1;
        self.local_facilities.push(point);
        if from_child {
            self.max_depth_of_known_open_facility =
                self.max_depth_of_known_open_facility.max(i64::from(depth));
        }
    }

    /// A child's `ConfirmExit`: adds its counts; true when all four have confirmed.
    pub(crate) fn child_exited(&mut self, facilities: u64, customers: u64) -> bool {
        self.terminated_children += 1;
        self.children_facilities += facilities;
        self.facility_customers += customers;
        self.terminated_children == 4
    }

    /// What this quadrant reports on exit: facilities (its own if it partitioned, plus its
    /// children's) and customers (its children's plus its own support customers).
    pub(crate) fn exit_counts(&self) -> (u64, u64) {
        let own = u64::from(self.children_boundaries.is_some());
        (
            self.children_facilities + own,
            self.facility_customers + self.support_customers.len() as u64,
        )
    }
}

/// The root's report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Report {
    /// Facilities opened (Savina counts the root as one even if it never partitions).
    pub(crate) facilities: u64,
    /// Customers held by the quadrants.
    pub(crate) customers: u64,
}

impl Report {
    /// The root's report from its counts.
    pub(crate) fn of_root(root: &Quadrant) -> Report {
        let (facilities, customers) = root.exit_counts();
        Report {
            facilities: facilities.max(1),
            customers,
        }
    }
}

/// How far a run's facility count may be from the sequential run's.
const FACILITY_SLACK: u64 = 2;

/// Validates a run: at least `n` customers and a facility count within [`FACILITY_SLACK`] of
/// `sequential` (the count of the same program run in order). The result is the facility count.
pub(crate) fn check(cfg: &Config, sequential: u64, got: Option<Report>) -> Outcome {
    let Some(report) = got else {
        return Outcome::failed("the root quadrant did not report");
    };
    let check = if report.customers < cfg.n {
        Err(format!(
            "{} customers held, fewer than the {} sent",
            report.customers, cfg.n
        ))
    } else if report.facilities.abs_diff(sequential) > FACILITY_SLACK {
        Err(format!(
            "{} facilities, the sequential run opens {sequential}",
            report.facilities
        ))
    } else {
        Ok(())
    };
    Outcome {
        result: report.facilities.into(),
        check,
    }
}

#[cfg(test)]
mod tests {
    use super::{check, Config, Point, Points, Rect, Report, BENCHMARK};
    use crate::bench::Model;
    use crate::benchmarks::testing::{self, rejects, run_actor_and_floor};

    fn config(n: f64) -> Config {
        Config::from_params(&testing::defaults(&BENCHMARK, &[("n", n)])).unwrap()
    }

    #[test]
    fn points_follow_the_lcg() {
        let mut points = Points::new(500.0);
        // The first draws from seed 74755 are 22896 and 34761.
        let p = points.next_point();
        assert_eq!(p.x, 500.0 / 22897.0);
        assert_eq!(p.y, 500.0 / 34762.0);
    }

    #[test]
    fn quarters_share_their_borders() {
        let q = Rect::grid(8.0).quarters();
        let centre = Point { x: 4.0, y: 4.0 };
        assert!(q.iter().all(|b| b.contains(centre)));
        assert!(q[0].contains(Point { x: 0.0, y: 8.0 }));
        assert!(q[3].contains(Point { x: 8.0, y: 0.0 }));
    }

    #[test]
    fn check_wants_the_customers_and_a_facility_count_in_range() {
        let cfg = config(100_000.0);
        let ok = Report {
            facilities: 14,
            customers: 100_010,
        };
        let few = Report {
            customers: 99_999,
            ..ok
        };
        let many = Report {
            facilities: 17,
            ..ok
        };
        assert!(check(&cfg, 14, Some(ok)).check.is_ok());
        assert!(check(&cfg, 12, Some(ok)).check.is_ok());
        assert!(check(&cfg, 14, Some(few)).check.is_err());
        assert!(check(&cfg, 14, Some(many)).check.is_err());
        assert!(check(&cfg, 14, None).check.is_err());
    }

    /// Every variant validates at two reduced sizes, over several iterations (each on the next
    /// points); the sequential runs open 10 and 11 facilities on the first points.
    #[test]
    fn actor_and_floor_validate() {
        for (n, sequential) in [(3000.0, 10), (10_000.0, 11)] {
            let cfg = config(n);
            let start = crate::random::PseudoRandom::default();
            assert_eq!(super::floor::sequential_facilities(&cfg, start), sequential);
            let results = run_actor_and_floor(&BENCHMARK, &[("n", n)]);
            let outcomes = testing::run_iterations(
                &BENCHMARK,
                crate::bench::Model::Floor,
                1,
                &testing::params(&BENCHMARK, &[("n", n)]),
                3,
            );
            assert_eq!(outcomes[0].result, serde_json::json!(sequential));
            assert!(outcomes.iter().all(|o| o.check.is_ok()), "{outcomes:?}");
            assert!(results.iter().all(|r| r.is_u64()));
        }
    }

    /// The reactor programs on both schedulers, on one and two workers, three iterations each
    /// (each on the next points): each validates, the first opens the sequential run's count,
    /// the quadrants created are four per partition (every facility, the root's included, once
    /// the root has partitioned), and every schedule gives the same results and figures. One
    /// customer opens no facility: the root reports its own.
    #[test]
    fn reactor_programs_split_quadrants_by_mutations() {
        for (n, sequential) in [(3000.0, 10u64), (1.0, 1)] {
            let params = testing::params(&BENCHMARK, &[("n", n)]);
            let mut first = None;
            for model in [Model::Reactor, Model::ReactorLevel] {
                for threads in [1, 2] {
                    let runs = testing::reactor_runs(&BENCHMARK, model, threads, &params, 3);
                    let seen: Vec<_> = runs
                        .into_iter()
                        .map(|(outcome, m)| (outcome.result.as_u64().unwrap(), m))
                        .collect();
                    let run = format!("n={n} {model} t={threads}");
                    assert_eq!(seen[0].0, sequential, "{run}");
                    for (facilities, m) in &seen {
                        let created = m.reactors_created;
                        assert!(
                            created == 4 * facilities || (created, *facilities) == (0, 1),
                            "{run}: {created} created, {facilities} facilities"
                        );
                    }
                    match &first {
                        None => first = Some(seen),
                        Some(f) => assert_eq!(&seen, f, "{run}"),
                    }
                }
            }
        }
    }

    /// The points carry on from one iteration to the next, as Savina's static generator does.
    #[test]
    fn each_iteration_takes_the_next_points() {
        let cfg = config(10.0);
        let stream = super::Stream::new();
        let mut points = Points::new(cfg.g);
        let first: Vec<_> = (0..10).map(|_| points.next_point()).collect();
        let second = points.next_point();
        assert_eq!(Points::at(cfg.g, stream.start()).next_point(), first[0]);
        stream.advance(&cfg);
        assert_eq!(Points::at(cfg.g, stream.start()).next_point(), second);
    }

    #[test]
    fn bad_sizes_are_rejected() {
        assert!(rejects(&BENCHMARK, &[("g", 0.0)]).contains("`g`"));
        assert!(rejects(&BENCHMARK, &[("n", 0.0)]).contains("`n`"));
    }
}
