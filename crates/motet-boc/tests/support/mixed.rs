//! The scenario the leak tests share: `Tracked` values that count themselves, and a mixed run of
//! every kind of behaviour.

use std::num::NonZeroUsize;

use motet_boc::{read_all, when, when_detached, Batch, Cown, Deferred, WhenError};
use motet_runtime::Runtime;

pub use motet_runtime::testing::{Census, Tracked};

/// Every kind of behaviour, kept and dropped promises, detached behaviours, panics, rejections,
/// batches, deferred values, backpressure.
pub fn mixed(rt: &Runtime, census: &Census) {
    let h = rt.handle();
    let a = Cown::new(h, census.track());
    let b = Cown::new(h, census.track());
    let set: Vec<_> = (0..4).map(|_| Cown::new(h, census.track())).collect();
    let bounded = Cown::bounded(h, census.track(), NonZeroUsize::new(2).unwrap());
    for i in 0..200 {
        let t = census.track();
        let r = census.track();
        let p = when((&a, b.read()), move |_| {
            drop(t);
            r
        });
        if i % 3 == 0 {
            drop(p.wait());
        }
        let t = census.track();
        drop(when(&set, move |_| drop(t)));
        let t = census.track();
        drop(when(read_all(&set), move |_| drop(t)));
        let (b2, t) = (b.clone(), census.track());
        drop(when(&a, move |_| {
            let t2 = census_free(t);
            drop(when(&b2, move |_| drop(t2)));
        }));
        let t = census.track();
        let r = census.track();
        drop(when(&bounded, move |_| {
            drop(t);
            r
        }));
        let (t, r) = (census.track(), census.track());
        when_detached(&a, move |_| {
            drop(t);
            r
        })
        .unwrap();
        let t = census.track();
        when_detached((&a, &set[1]), move |_| drop(t)).unwrap();
        let t = census.track();
        when_detached(&set, move |_| drop(t)).unwrap();
        // A detached behaviour spawning on the bounded cown: its release may be deferred.
        let (bounded2, t) = (bounded.clone(), census.track());
        when_detached(&b, move |_| {
            let t2 = census_free(t);
            when_detached(&bounded2, move |_| drop(t2)).unwrap();
        })
        .unwrap();
    }
    let t = census.track();
    when_detached(&a, move |_| {
        let _t = t;
        panic!("tracked detached panic")
    })
    .unwrap();
    let t = census.track();
    assert_eq!(
        when_detached((&a, &a), move |_| drop(t)),
        Err(WhenError::DuplicateCown)
    );
    let t = census.track();
    let panicked = when(&a, move |_| -> Tracked {
        let _t = t;
        panic!("tracked panic")
    });
    assert!(matches!(panicked.wait(), Err(WhenError::Panicked(_))));
    let t = census.track();
    assert_eq!(
        when((&a, &a), move |_| drop(t)).wait(),
        Err(WhenError::DuplicateCown)
    );
    let mut batch = Batch::new();
    for _ in 0..10 {
        let (t, r) = (census.track(), census.track());
        drop(batch.add((&a, &set[0]), move |_| {
            drop(t);
            r
        }));
    }
    batch.spawn();
    let (d, resolver) = Deferred::<Tracked>::new(h);
    let t = census.track();
    let waiting = when((&d, &b), move |(v, _)| {
        drop(t);
        v.is_ok()
    });
    resolver.resolve(census.track());
    assert_eq!(waiting.wait(), Ok(true));
    let (broken, resolver) = Deferred::<Tracked>::new(h);
    let t = census.track();
    drop(when(&broken, move |_| drop(t)));
    drop(resolver);
    rt.wait_quiescent();
}

/// Moves a tracked value through (used to move it across a nested spawn).
fn census_free(t: Tracked) -> Tracked {
    t
}
