//! The mailbox comparison behind motet-actor's choice: CAF's cached stack against an intrusive
//! Vyukov queue, on the three access patterns of actor programs.
//!
//! `cargo bench -p motet-actor --bench mailbox`
//!
//! - `burst`: one producer pushes 1,000 messages, then the consumer drains them (Counting Actor).
//! - `handoff`: push one message into an idle mailbox, pop it, find it empty, mark idle (Ping Pong:
//!   every message is a whole turn).
//! - `contended`: 4 threads push 10,000 messages each while the consumer drains (many-to-one).

use std::hint::black_box;
use std::mem::MaybeUninit;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use motet_actor::mailbox::cached_stack::{CachedStack, StackNode};
use motet_actor::mailbox::{Mailbox, Node, Pop};

fn vyukov(idle: bool) -> Box<Mailbox<u64>> {
    let mut b: Box<MaybeUninit<Mailbox<u64>>> = Box::new(MaybeUninit::uninit());
    // SAFETY: writable, and the box never moves.
    unsafe {
        Mailbox::init(b.as_mut_ptr(), idle);
        Box::from_raw(Box::into_raw(b).cast())
    }
}

fn burst(c: &mut Criterion) {
    const N: u64 = 1000;
    let mut g = c.benchmark_group("burst");
    g.throughput(Throughput::Elements(N));
    g.bench_function("vyukov", |b| {
        let mb = vyukov(false);
        b.iter(|| {
            for i in 0..N {
                let _ = black_box(mb.push(Node::new(i)));
            }
            // SAFETY: this thread is the only consumer.
            while let Pop::Item(v) = unsafe { mb.pop() } {
                black_box(v);
            }
        })
    });
    g.bench_function("cached_stack", |b| {
        let st = CachedStack::<u64>::new(false);
        b.iter(|| {
            for i in 0..N {
                black_box(st.push(StackNode::new(i)));
            }
            // SAFETY: single consumer.
            while let Pop::Item(v) = unsafe { st.pop() } {
                black_box(v);
            }
        })
    });
    g.finish();
}

fn handoff(c: &mut Criterion) {
    let mut g = c.benchmark_group("handoff");
    g.throughput(Throughput::Elements(1));
    g.bench_function("vyukov", |b| {
        let mb = vyukov(true);
        b.iter(|| {
            let _ = black_box(mb.push(Node::new(1)));
            // SAFETY: single consumer.
            unsafe {
                black_box(mb.pop());
                let _ = mb.pop();
                let _ = black_box(mb.try_mark_idle());
            }
        })
    });
    g.bench_function("cached_stack", |b| {
        let st = CachedStack::<u64>::new(true);
        b.iter(|| {
            black_box(st.push(StackNode::new(1)));
            // SAFETY: single consumer.
            unsafe {
                black_box(st.pop());
                let _ = st.pop();
                black_box(st.try_mark_idle());
            }
        })
    });
    g.finish();
}

fn contended_run<P: Sync + Send + 'static>(
    q: Arc<P>,
    push: fn(&P, u64),
    pop: fn(&P) -> bool,
) -> Duration {
    const P_THREADS: u64 = 4;
    const N: u64 = 10_000;
    let start = Instant::now();
    let producers: Vec<_> = (0..P_THREADS)
        .map(|_| {
            let q = q.clone();
            std::thread::spawn(move || {
                for i in 0..N {
                    push(&q, i);
                }
            })
        })
        .collect();
    let mut got = 0;
    while got < P_THREADS * N {
        if pop(&q) {
            got += 1;
        } else {
            std::hint::spin_loop();
        }
    }
    for p in producers {
        p.join().unwrap();
    }
    start.elapsed()
}

fn contended(c: &mut Criterion) {
    let mut g = c.benchmark_group("contended");
    g.throughput(Throughput::Elements(40_000));
    g.sample_size(20);
    g.bench_function("vyukov", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| {
                    contended_run(
                        Arc::new(vyukov(false)),
                        |q, i| {
                            let _ = q.push(Node::new(i));
                        },
                        // SAFETY: only the measuring thread consumes.
                        |q| matches!(unsafe { q.pop() }, Pop::Item(_)),
                    )
                })
                .sum()
        })
    });
    g.bench_function("cached_stack", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| {
                    contended_run(
                        Arc::new(CachedStack::<u64>::new(false)),
                        |q, i| {
                            q.push(StackNode::new(i));
                        },
                        // SAFETY: only the measuring thread consumes.
                        |q| matches!(unsafe { q.pop() }, Pop::Item(_)),
                    )
                })
                .sum()
        })
    });
    g.finish();
}

criterion_group!(benches, burst, handoff, contended);
criterion_main!(benches);
