//! A rejected `when`, one test per cause (a cown named twice with write access, no cown at all),
//! through every form of spawn: the error is there at once, the closure is dropped unrun, nothing
//! runs, and the process-wide count sees it. The tests of this file take `SERIAL`, so that each
//! reads the count's change exactly (no other file's tests share this process).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use motet_boc::{read_all, rejected_whens, try_when, when, when_detached, Batch, Cown, WhenError};
use motet_runtime::Runtime;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Counts the closures that ran and the closures that were dropped (run or not).
#[derive(Default)]
struct Witness {
    ran: AtomicUsize,
    dropped: AtomicUsize,
}

/// A value to capture in a closure: counts its drop.
struct Token(Arc<Witness>);

impl Drop for Token {
    fn drop(&mut self) {
        self.0.dropped.fetch_add(1, Ordering::SeqCst);
    }
}

impl Token {
    fn ran(&self) {
        self.0.ran.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_cown_named_twice_with_write_access_is_rejected_by_every_form_of_spawn() {
    let _serial = serial();
    let rt = Runtime::builder().workers(2).build().unwrap();
    let a = Cown::new(rt.handle(), 1u32);
    let b = Cown::new(rt.handle(), 2u32);
    let w = Arc::new(Witness::default());
    let token = || Token(Arc::clone(&w));
    let before = rejected_whens();

    // Two writers (the two-cown path), a writer and a reader, three cowns (the general path).
    let t = token();
    let p = when((&a, &a), move |(x, _)| {
        t.ran();
        *x += 100;
    });
    assert_eq!(p.rejected(), Some(&WhenError::DuplicateCown));
    assert!(p.is_done(), "a rejected promise does not wait");
    assert_eq!(p.wait(), Err(WhenError::DuplicateCown));
    let t = token();
    let p = when((a.read(), &a), move |(_, x)| {
        t.ran();
        *x += 100;
    });
    assert_eq!(p.rejected(), Some(&WhenError::DuplicateCown));
    drop(p);
    let t = token();
    let r = try_when((&a, &b, &a), move |(x, _, _)| {
        t.ran();
        *x += 100;
    });
    assert_eq!(r.err(), Some(WhenError::DuplicateCown));
    // A dynamic set with one cown twice.
    let twice = vec![b.clone(), b.clone()];
    let t = token();
    let r = when_detached(&twice, move |mut v| {
        t.ran();
        *v.get_mut(0).unwrap() += 100;
    });
    assert_eq!(r, Err(WhenError::DuplicateCown));
    // A batch member: not added, and its ticket says why.
    let mut batch = Batch::new();
    let t = token();
    let staged = batch.add((&b, &b), move |(y, _)| {
        t.ran();
        *y += 100;
    });
    assert_eq!(staged.rejected(), Some(&WhenError::DuplicateCown));
    assert!(batch.is_empty());
    let spawned = batch.spawn();
    assert_eq!(
        spawned.promise(staged).unwrap().wait(),
        Err(WhenError::DuplicateCown)
    );

    assert_eq!(rejected_whens() - before, 5);
    // Every closure was dropped at the spawn, none ran, and the cowns are as they were.
    assert_eq!(w.dropped.load(Ordering::SeqCst), 5);
    rt.wait_quiescent();
    assert_eq!(w.ran.load(Ordering::SeqCst), 0);
    assert_eq!(when((&a, &b), |(x, y)| (*x, *y)).wait(), Ok((1, 2)));

    // Named twice read-only, a cown is acquired once: not a rejection.
    let sum = try_when((a.read(), a.read()), |(x, y)| *x + *y).unwrap();
    assert_eq!(sum.rejected(), None);
    assert_eq!(sum.wait(), Ok(2));
    let both = vec![a.clone(), a.clone()];
    assert_eq!(when(read_all(&both), |v| v.len()).wait(), Ok(2));
    assert_eq!(rejected_whens() - before, 5);
}

#[test]
fn a_when_that_names_no_cown_is_rejected_by_every_form_of_spawn() {
    let _serial = serial();
    let rt = Runtime::builder().workers(2).build().unwrap();
    let none: Vec<Cown<u32>> = Vec::new();
    let w = Arc::new(Witness::default());
    let token = || Token(Arc::clone(&w));
    let before = rejected_whens();

    let t = token();
    let p = when(&none, move |_| t.ran());
    assert_eq!(p.rejected(), Some(&WhenError::NoCowns));
    assert_eq!(p.wait(), Err(WhenError::NoCowns));
    let t = token();
    let r = try_when(read_all(&none), move |_| t.ran());
    assert_eq!(r.err(), Some(WhenError::NoCowns));
    let t = token();
    assert_eq!(
        when_detached(none.as_slice(), move |_| t.ran()),
        Err(WhenError::NoCowns)
    );
    let mut batch = Batch::new();
    let t = token();
    let staged = batch.add(&none, move |_| t.ran());
    assert_eq!(staged.rejected(), Some(&WhenError::NoCowns));
    assert!(batch.is_empty());
    drop(staged);
    batch.spawn();

    assert_eq!(rejected_whens() - before, 4);
    assert_eq!(w.dropped.load(Ordering::SeqCst), 4);
    rt.wait_quiescent();
    assert_eq!(w.ran.load(Ordering::SeqCst), 0);
}

#[test]
fn accepted_whens_are_not_counted_as_rejections() {
    let _serial = serial();
    let rt = Runtime::builder().workers(2).build().unwrap();
    let cowns: Vec<Cown<u32>> = (0..3).map(|i| Cown::new(rt.handle(), i)).collect();
    let before = rejected_whens();
    drop(when(&cowns[0], |x| *x += 1));
    drop(when((&cowns[0], &cowns[1]), |(x, y)| *x += *y));
    drop(when((&cowns[0], &cowns[1], &cowns[2]), |(x, _, _)| *x += 1));
    when_detached(&cowns, |_| ()).unwrap();
    let mut batch = Batch::new();
    drop(batch.add(&cowns[2], |z| *z += 1));
    batch.spawn();
    rt.wait_quiescent();
    assert_eq!(rejected_whens(), before);
}
