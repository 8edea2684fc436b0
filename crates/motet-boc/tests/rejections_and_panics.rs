//! What a program sees of a rejected `when` without waiting for it, of a batch's promises, and of
//! panics in behaviours that have no promise. The panic count is process-wide: the other test in
//! this file's process makes no behaviour panic, so the count read here is exact.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use motet_boc::{
    behaviour_panics, set_behaviour_panic_hook, take_behaviour_panic_hook, try_when, when,
    when_detached, Batch, Cown, WhenError,
};
use motet_runtime::Runtime;

#[test]
fn rejections_are_visible_at_spawn_and_batches_hand_out_promises_once_spawned() {
    let rt = Runtime::builder().workers(2).build().unwrap();
    let a = Cown::new(rt.handle(), 10);
    let b = Cown::new(rt.handle(), 20);

    // A duplicate writer is an error at once from `try_when`, and readable on a `when`'s promise.
    assert_eq!(
        try_when((&a, &a), |(x, _)| *x).err(),
        Some(WhenError::DuplicateCown)
    );
    let p = when((&b, &b), |(x, _)| *x);
    assert_eq!(p.rejected(), Some(&WhenError::DuplicateCown));
    let empty: Vec<Cown<i32>> = Vec::new();
    assert_eq!(try_when(&empty, |_| ()).err(), Some(WhenError::NoCowns));
    let ok = try_when((&a, &b), |(x, y)| *x + *y).unwrap();
    assert_eq!(ok.rejected(), None);
    assert_eq!(ok.wait(), Ok(30));

    // A batch's tickets become promises only through the batch that was spawned.
    let mut first = Batch::new();
    let mut second = Batch::new();
    let s1 = first.add(&a, |x| {
        *x += 1;
        *x
    });
    let rejected = first.add((&a, &a), |(x, _)| *x);
    assert_eq!(rejected.rejected(), Some(&WhenError::DuplicateCown));
    let s2 = second.add(&b, |y| *y);
    assert_eq!(
        first.len(),
        1,
        "a rejected behaviour is not part of the batch"
    );
    let spawned = first.spawn();
    // A ticket of a batch that is not spawned yet is refused, and given back.
    let s2 = spawned.promise(s2).expect_err("another batch's ticket");
    assert_eq!(spawned.promise(s1).unwrap().wait(), Ok(11));
    assert_eq!(
        spawned.promise(rejected).unwrap().wait(),
        Err(WhenError::DuplicateCown)
    );
    let spawned_second = second.spawn();
    assert_eq!(spawned_second.promise(s2).unwrap().wait(), Ok(20));

    // The earlier form still builds and works.
    let mut old = Batch::new();
    #[allow(deprecated)]
    let p = old.when(&b, |y| *y + 1);
    old.spawn();
    assert_eq!(p.wait(), Ok(21));
}

#[test]
fn panics_without_promises_are_counted_and_handed_to_the_hook() {
    let messages = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&messages);
    set_behaviour_panic_hook(move |p| seen.lock().unwrap().push(p.message().to_string()));
    let rt = Runtime::builder().workers(2).build().unwrap();
    let before = behaviour_panics();
    let cowns: Vec<Cown<u32>> = (0..4).map(|i| Cown::new(rt.handle(), i)).collect();
    let ran = Arc::new(AtomicUsize::new(0));
    for (i, c) in cowns.iter().enumerate() {
        let ran = Arc::clone(&ran);
        when_detached(c, move |v| {
            ran.fetch_add(1, Ordering::Relaxed);
            if *v % 2 == 1 {
                panic!("odd value {i}");
            }
        })
        .unwrap();
    }
    // One with a promise is counted too, and its promise still says so.
    let p = when(&cowns[0], |_| -> u32 { panic!("with a promise") });
    assert!(matches!(p.wait(), Err(WhenError::Panicked(m)) if m == "with a promise"));
    rt.wait_quiescent();
    assert_eq!(ran.load(Ordering::Relaxed), 4);
    assert_eq!(behaviour_panics() - before, 3);
    let mut got = messages.lock().unwrap().clone();
    got.sort();
    assert_eq!(got, ["odd value 1", "odd value 3", "with a promise"]);

    // A hook that panics goes no further: the behaviours after it run, the count goes on.
    set_behaviour_panic_hook(|_| panic!("the hook itself"));
    when_detached(&cowns[1], |_| panic!("again")).unwrap();
    assert_eq!(when(&cowns[1], |v| *v).wait(), Ok(1));
    assert_eq!(behaviour_panics() - before, 4);
    assert!(take_behaviour_panic_hook());
    assert!(!take_behaviour_panic_hook());
}
