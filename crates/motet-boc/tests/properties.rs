//! Property tests: random programs of thousands of behaviours over random sets of cowns, with
//! nested spawns and atomic batches, checked for mutual exclusion (no two running behaviours share
//! a cown, except readers with readers) and happens-before (each cown's order of execution is the
//! order in which the behaviours naming it were spawned; consecutive readers in any order among
//! themselves). Each program runs under the deterministic scheduler with several seeds and on pools
//! of 1 and 2 workers. `PROPTEST_CASES` sets how many programs are generated.
//!
//! To know the spawn order of concurrent spawners (the main thread and behaviours on workers),
//! every spawn takes one lock while it records itself and calls `when`; execution is unaffected.

use std::sync::atomic::{AtomicIsize, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

use motet_boc::{read_all, when, when_detached, Batch, Cown};
use motet_runtime::{testing, Runtime};
use proptest::prelude::*;

/// What a behaviour names.
#[derive(Clone, Debug)]
enum Access {
    /// A dynamic set with write access.
    Write(Vec<usize>),
    /// A dynamic set, read-only.
    Read(Vec<usize>),
    /// A tuple: one cown written, another read.
    Mixed { write: usize, read: usize },
}

impl Access {
    fn named(&self) -> Vec<(usize, bool)> {
        match self {
            Access::Write(ix) => ix.iter().map(|&i| (i, false)).collect(),
            Access::Read(ix) => ix.iter().map(|&i| (i, true)).collect(),
            Access::Mixed { write, read } => vec![(*write, false), (*read, true)],
        }
    }
}

/// A behaviour and the behaviours it spawns when it runs.
#[derive(Clone, Debug)]
struct Op {
    access: Access,
    children: Vec<Op>,
}

/// A top-level step of the main thread.
#[derive(Clone, Debug)]
enum Step {
    Alone(Op),
    Batch(Vec<Op>),
}

fn access(cowns: usize) -> impl Strategy<Value = Access> {
    let all: Vec<usize> = (0..cowns).collect();
    prop_oneof![
        3 => proptest::sample::subsequence(all.clone(), 1..=3.min(cowns)).prop_shuffle().prop_map(Access::Write),
        2 => proptest::sample::subsequence(all, 1..=3.min(cowns)).prop_shuffle().prop_map(Access::Read),
        2 => (0..cowns, 1..cowns).prop_map(move |(w, d)| Access::Mixed { write: w, read: (w + d) % cowns }),
    ]
}

fn op(cowns: usize) -> impl Strategy<Value = Op> {
    let leaf = access(cowns).prop_map(|access| Op {
        access,
        children: Vec::new(),
    });
    leaf.prop_recursive(2, 8, 3, move |inner| {
        (access(cowns), proptest::collection::vec(inner, 0..3))
            .prop_map(|(access, children)| Op { access, children })
    })
}

fn program() -> impl Strategy<Value = (usize, Vec<Step>)> {
    (2usize..8).prop_flat_map(|cowns| {
        let step = prop_oneof![
            6 => op(cowns).prop_map(Step::Alone),
            1 => proptest::collection::vec(op(cowns), 2..4).prop_map(Step::Batch),
        ];
        (Just(cowns), proptest::collection::vec(step, 300..700))
    })
}

/// Records spawns and runs, and checks exclusion as behaviours run.
struct World {
    cowns: Vec<Cown<u64>>,
    spawn_lock: Mutex<()>,
    /// Per cown: (behaviour id, read-only) in spawn order.
    spawned: Vec<Mutex<Vec<(u64, bool)>>>,
    /// Per cown: behaviour ids in the order they started on it.
    started: Vec<Mutex<Vec<u64>>>,
    /// Per cown: -1 while a writer runs, else the number of running readers.
    active: Vec<AtomicIsize>,
    violations: AtomicUsize,
    next_id: AtomicU64,
    ran: AtomicUsize,
    writes: Vec<AtomicU64>,
}

impl World {
    fn new(rt: &Runtime, n: usize) -> Arc<World> {
        Arc::new(World {
            cowns: (0..n).map(|_| Cown::new(rt.handle(), 0)).collect(),
            spawn_lock: Mutex::new(()),
            spawned: (0..n).map(|_| Mutex::new(Vec::new())).collect(),
            started: (0..n).map(|_| Mutex::new(Vec::new())).collect(),
            active: (0..n).map(|_| AtomicIsize::new(0)).collect(),
            violations: AtomicUsize::new(0),
            next_id: AtomicU64::new(0),
            ran: AtomicUsize::new(0),
            writes: (0..n).map(|_| AtomicU64::new(0)).collect(),
        })
    }

    fn enter(&self, id: u64, named: &[(usize, bool)]) {
        for &(c, read) in named {
            let ok = if read {
                self.active[c]
                    .fetch_update(SeqCst, SeqCst, |a| (a >= 0).then_some(a + 1))
                    .is_ok()
            } else {
                self.active[c]
                    .compare_exchange(0, -1, SeqCst, SeqCst)
                    .is_ok()
            };
            if !ok {
                self.violations.fetch_add(1, SeqCst);
            }
            self.started[c].lock().unwrap().push(id);
        }
    }

    fn exit(&self, named: &[(usize, bool)]) {
        for &(c, read) in named {
            if read {
                self.active[c].fetch_sub(1, SeqCst);
            } else {
                self.active[c].store(0, SeqCst);
                self.writes[c].fetch_add(1, SeqCst);
            }
        }
    }

    /// Records the spawn of `op` (the caller holds the spawn lock) and returns its id.
    fn record(&self, op: &Op) -> u64 {
        let id = self.next_id.fetch_add(1, SeqCst);
        for (c, read) in op.access.named() {
            self.spawned[c].lock().unwrap().push((id, read));
        }
        id
    }

    /// The closure of `op`'s behaviour, without the cown values.
    fn body(self: &Arc<World>, id: u64, op: Op) -> impl FnOnce() + Send + 'static {
        let world = self.clone();
        move || {
            let named = op.access.named();
            world.enter(id, &named);
            for child in op.children {
                world.spawn(child);
            }
            world.ran.fetch_add(1, SeqCst);
            world.exit(&named);
        }
    }

    fn spawn(self: &Arc<World>, op: Op) {
        let _order = self.spawn_lock.lock().unwrap();
        let id = self.record(&op);
        self.spawn_with(None, id, op);
    }

    fn spawn_batch(self: &Arc<World>, ops: Vec<Op>) {
        let _order = self.spawn_lock.lock().unwrap();
        let mut batch = Batch::new();
        for op in ops {
            let id = self.record(&op);
            self.spawn_with(Some(&mut batch), id, op);
        }
        batch.spawn();
    }

    fn spawn_with(self: &Arc<World>, batch: Option<&mut Batch>, id: u64, op: Op) {
        let access = op.access.clone();
        let body = self.body(id, op);
        let set = |ix: &[usize]| {
            ix.iter()
                .map(|&i| self.cowns[i].clone())
                .collect::<Vec<_>>()
        };
        // Behaviours spawned alone alternate between `when` and `when_detached`.
        let detached = id.is_multiple_of(2);
        match (access, batch) {
            (Access::Write(ix), None) if detached => {
                when_detached(&set(&ix), move |mut vals| {
                    vals.iter_mut().for_each(|v| *v += 1);
                    body()
                })
                .unwrap();
            }
            (Access::Write(ix), None) => drop(when(&set(&ix), move |mut vals| {
                vals.iter_mut().for_each(|v| *v += 1);
                body()
            })),
            (Access::Write(ix), Some(b)) => drop(b.add(&set(&ix), move |mut vals| {
                vals.iter_mut().for_each(|v| *v += 1);
                body()
            })),
            (Access::Read(ix), None) if detached => {
                when_detached(read_all(&set(&ix)), move |_| body()).unwrap();
            }
            (Access::Read(ix), None) => drop(when(read_all(&set(&ix)), move |_| body())),
            (Access::Read(ix), Some(b)) => drop(b.add(read_all(&set(&ix)), move |_| body())),
            (Access::Mixed { write, read }, None) if detached => {
                let (w, r) = (&self.cowns[write], &self.cowns[read]);
                when_detached((w, r.read()), move |(v, _)| {
                    *v += 1;
                    body()
                })
                .unwrap();
            }
            (Access::Mixed { write, read }, None) => {
                let (w, r) = (&self.cowns[write], &self.cowns[read]);
                drop(when((w, r.read()), move |(v, _)| {
                    *v += 1;
                    body()
                }))
            }
            (Access::Mixed { write, read }, Some(b)) => {
                let (w, r) = (&self.cowns[write], &self.cowns[read]);
                drop(b.add((w, r.read()), move |(v, _)| {
                    *v += 1;
                    body()
                }))
            }
        }
    }

    /// Checks everything once the runtime is quiescent.
    fn check(&self, total: usize) {
        assert_eq!(
            self.violations.load(SeqCst),
            0,
            "mutual exclusion was violated"
        );
        assert_eq!(self.ran.load(SeqCst), total, "not every behaviour ran");
        for c in 0..self.cowns.len() {
            let spawned = self.spawned[c].lock().unwrap().clone();
            let started = self.started[c].lock().unwrap().clone();
            check_order(&spawned, &started);
            let value = when(&self.cowns[c], |v| *v).wait().unwrap();
            assert_eq!(
                value,
                self.writes[c].load(SeqCst),
                "lost or repeated writes"
            );
        }
    }
}

/// A cown's start order is its spawn order, up to permutations within runs of readers.
fn check_order(spawned: &[(u64, bool)], started: &[u64]) {
    assert_eq!(spawned.len(), started.len());
    let mut i = 0;
    while i < spawned.len() {
        let mut j = i + 1;
        if spawned[i].1 {
            while j < spawned.len() && spawned[j].1 {
                j += 1;
            }
        }
        let mut expected: Vec<u64> = spawned[i..j].iter().map(|s| s.0).collect();
        let mut seen = started[i..j].to_vec();
        expected.sort_unstable();
        seen.sort_unstable();
        assert_eq!(
            seen, expected,
            "happens-before violated at position {i}: spawned {spawned:?}, started {started:?}"
        );
        i = j;
    }
}

fn count(op: &Op) -> usize {
    1 + op.children.iter().map(count).sum::<usize>()
}

fn run(rt: &Runtime, cowns: usize, steps: &[Step]) {
    let world = World::new(rt, cowns);
    let mut total = 0;
    for step in steps {
        match step {
            Step::Alone(op) => {
                total += count(op);
                world.spawn(op.clone());
            }
            Step::Batch(ops) => {
                total += ops.iter().map(count).sum::<usize>();
                world.spawn_batch(ops.clone());
            }
        }
    }
    rt.wait_quiescent();
    world.check(total);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(8)
    ))]

    #[test]
    fn exclusion_and_happens_before_deterministic((cowns, steps) in program()) {
        for seed in testing::seeds(3) {
            let rt = Runtime::builder().deterministic(seed).build().unwrap();
            run(&rt, cowns, &steps);
        }
    }

    #[test]
    fn exclusion_and_happens_before_on_one_and_two_workers((cowns, steps) in program()) {
        testing::check_threads(|rt| run(rt, cowns, &steps));
    }
}
