//! The deferral graph on its own: which deferred releases it parks, which it lets go at once, and
//! when a release wakes what is parked.

use super::{Bound, Deferrals};

/// A bound of `bound` with `pending` behaviours counted.
fn bound_with(bound: usize, pending: usize) -> Box<Bound> {
    let b = Box::new(Bound::new(bound));
    for _ in 0..pending {
        b.enqueue();
    }
    b
}

#[test]
fn a_full_cown_that_drains_parks_the_release_until_it_is_below_its_bound() {
    let graph = Deferrals::<u32>::new();
    let sink = bound_with(2, 3);
    assert_eq!(graph.defer(&sink, std::iter::empty(), || 7), Ok(()));
    // Still full after one release: a stale wake lets nothing go.
    assert!(!sink.on_release());
    assert_eq!(graph.take_parked(&sink, true), Vec::<u32>::new());
    assert!(sink.on_release());
    assert_eq!(graph.take_parked(&sink, true), vec![7]);
    assert_eq!(graph.take_parked(&sink, true), Vec::<u32>::new());
}

#[test]
fn a_cown_below_its_bound_lets_the_release_go_at_once() {
    let graph = Deferrals::<u32>::new();
    let sink = bound_with(2, 1);
    let mut made = false;
    assert_eq!(
        graph.defer(&sink, std::iter::empty(), || {
            made = true;
            7
        }),
        Err(None)
    );
    assert!(!made, "a release that goes at once is not made into a task");
}

#[test]
fn an_entangled_cown_lets_the_release_go_at_once() {
    let graph = Deferrals::<u32>::new();
    let sink = bound_with(1, 2);
    assert!(!sink.entangle());
    assert_eq!(graph.defer(&sink, std::iter::empty(), || 7), Err(None));
    sink.disentangle();
    assert_eq!(graph.defer(&sink, std::iter::empty(), || 8), Ok(()));
    // A later entanglement wakes the parked release, whatever the count.
    assert!(sink.entangle());
    assert_eq!(graph.take_parked(&sink, false), vec![8]);
}

#[test]
fn the_deferral_that_closes_a_cycle_lets_go() {
    let graph = Deferrals::<u32>::new();
    let (a, b) = (bound_with(1, 2), bound_with(1, 2));
    // Holding `a`, deferred on `b`: `b` drains.
    assert_eq!(graph.defer(&b, [&*a].into_iter(), || 1), Ok(()));
    // Holding `b`, deferred on `a`, whose holder waits for `b`: a cycle.
    assert_eq!(graph.defer(&a, [&*b].into_iter(), || 2), Err(None));
    // The first one stays parked; the refused one left no edge behind: deferring on `a` while
    // holding nothing bounded still parks (`a` drains through `b`).
    assert_eq!(graph.defer(&a, std::iter::empty(), || 3), Ok(()));
    assert_eq!(graph.take_parked(&b, false), vec![1]);
    graph.released(&b, [&*a].into_iter());
    assert_eq!(graph.take_parked(&a, false), vec![3]);
}

#[test]
fn a_path_through_an_entangled_cown_does_not_drain() {
    let graph = Deferrals::<u32>::new();
    let (a, b, c) = (bound_with(1, 2), bound_with(1, 2), bound_with(1, 2));
    // a -> b -> c: holding `a` deferred on `b`, holding `b` deferred on `c`.
    assert_eq!(graph.defer(&b, [&*a].into_iter(), || 1), Ok(()));
    assert_eq!(graph.defer(&c, [&*b].into_iter(), || 2), Ok(()));
    assert_eq!(graph.defer(&a, std::iter::empty(), || 3), Ok(()));
    // `c` becomes entangled: a deferral on `a` now sees it at the end of the path.
    assert!(c.entangle());
    assert_eq!(graph.defer(&a, std::iter::empty(), || 4), Err(None));
    // What the entanglement wakes is the release parked on `c`, whose edge leads there.
    assert_eq!(graph.take_parked(&c, false), vec![2]);
    graph.released(&c, [&*b].into_iter());
    assert_eq!(graph.defer(&a, std::iter::empty(), || 5), Ok(()));
    c.disentangle();
    assert_eq!(graph.take_parked(&a, false), vec![3, 5]);
    assert_eq!(graph.take_parked(&b, false), vec![1]);
    graph.released(&b, [&*a].into_iter());
}

#[test]
fn a_cown_reached_twice_without_a_cycle_drains() {
    let graph = Deferrals::<u32>::new();
    let (a, b, c, d) = (
        bound_with(1, 2),
        bound_with(1, 2),
        bound_with(1, 2),
        bound_with(1, 2),
    );
    // a -> b -> d and a -> c -> d: two readers of `a` deferred on `b` and `c`, and a behaviour
    // holding `b` and `c` deferred on `d`.
    assert_eq!(graph.defer(&b, [&*a].into_iter(), || 1), Ok(()));
    assert_eq!(graph.defer(&c, [&*a].into_iter(), || 2), Ok(()));
    assert_eq!(graph.defer(&d, [&*b, &*c].into_iter(), || 3), Ok(()));
    assert_eq!(graph.defer(&a, std::iter::empty(), || 4), Ok(()));
    // Holding `d`, deferred on `a`: the cycle is found through either path.
    assert_eq!(graph.defer(&a, [&*d].into_iter(), || 5), Err(None));
}
