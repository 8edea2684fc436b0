//! One iteration of each benchmark (fjthrput, big) in a placement.

use super::*;

pub(crate) fn fjthrput(place: &Placement<'_>, n: u64, a: usize) -> Result<Iteration, String> {
    let h = place.rt.handle();
    let start = Instant::now();
    let far_indices: Vec<u32> = (0..a)
        .filter(|&i| place.is_far(i))
        .map(|i| i as u32)
        .collect();
    let far_workers = if far_indices.is_empty() {
        Vec::new()
    } else {
        let report = Remote(place.collector.clone());
        place
            .setup(|reply| Setup::Fj {
                n,
                indices: far_indices,
                report,
                reply: reply.into(),
            })?
            .0
    };
    let mut far_workers = far_workers.into_iter();
    let workers: Vec<Addr<FjMsg>> = (0..a)
        .map(|i| match place.is_far(i) {
            true => far_workers.next().map(|r| r.0).ok_or("too few workers"),
            false => Ok(spawn_worker(h, i as u32, n, &place.collector)),
        })
        .collect::<Result<_, _>>()?;
    for _ in 0..n {
        for w in &workers {
            let _ = w.tell(FjMsg::Work);
        }
        if let Some(far) = place.far {
            far.node.wait_writable(LONG);
        }
    }
    let reports = place.collect(a)?;
    let elapsed = start.elapsed();
    // The untimed check: each worker, asked after the rounds, counts exactly N messages.
    let mut done = vec![0u64; a];
    let mut check = Ok(());
    for r in reports {
        match r {
            Report::Fj { index, processed } if (index as usize) < a => {
                if done[index as usize] != 0 {
                    check = Err(format!("worker {index} reported twice"));
                }
                done[index as usize] = processed;
            }
            other => check = Err(format!("unexpected report {other:?}")),
        }
    }
    let mut messages = 0;
    for (i, w) in workers.iter().enumerate() {
        let counted = w
            .ask(|r| FjMsg::Finish(r.into()), LONG)
            .wait()
            .map_err(|e| format!("worker {i} did not answer: {e:?}"))?;
        messages += counted;
        if check.is_ok() && (done[i] != n || counted != n) {
            check = Err(format!(
                "worker {i} reported {} and counted {counted} messages, expected {n}",
                done[i]
            ));
        }
    }
    Ok(Iteration {
        elapsed,
        messages,
        check,
    })
}

// ---------------------------------------------------------------------------------------------
// big

pub(crate) fn big(place: &Placement<'_>, n: u64, w: usize) -> Result<Iteration, String> {
    let h = place.rt.handle();
    let start = Instant::now();
    let sink = spawn(
        h,
        Sink {
            w,
            exits: 0,
            neighbors: None,
            report: place.collector.clone(),
        },
    );
    let far_ids: Vec<i32> = (0..w)
        .filter(|&i| place.is_far(i))
        .map(|i| i as i32)
        .collect();
    let far_bigs = if far_ids.is_empty() {
        Vec::new()
    } else {
        let (sink, report) = (Remote(sink.clone()), Remote(place.collector.clone()));
        place
            .setup(|reply| Setup::Big {
                n,
                ids: far_ids,
                sink,
                report,
                reply: reply.into(),
            })?
            .0
    };
    let mut far_bigs = far_bigs.into_iter();
    let bigs: Vec<Addr<BigMsg>> = (0..w)
        .map(|i| match place.is_far(i) {
            true => far_bigs.next().map(|r| r.0).ok_or("too few Big actors"),
            false => Ok(spawn_big(h, i as i32, n, &sink, &place.collector)),
        })
        .collect::<Result<_, _>>()?;
    let all = Neighbors(bigs.iter().cloned().collect());
    let _ = sink.tell(SinkMsg::Neighbors(all.clone()));
    for (i, big) in bigs.iter().enumerate() {
        if !place.is_far(i) {
            let _ = big.tell(BigMsg::Neighbors(all.clone()));
        }
    }
    if place.far.is_some() && w > 1 {
        let told = place.setup(|reply| Setup::BigNeighbors {
            all: all.clone(),
            reply: reply.into(),
        })?;
        if told as usize != w / 2 {
            return Err(format!("the child told {told} Big actors their neighbors"));
        }
    }
    drop(all);
    for big in &bigs {
        let _ = big.tell(BigMsg::Pong(-1));
    }
    drop((bigs, sink));
    let reports = place.collect(w + 1)?;
    let elapsed = start.elapsed();
    let (mut exits, mut pings, mut unexpected) = (None, 0u64, 0u64);
    let mut seen = vec![false; w];
    let mut check = Ok(());
    for r in reports {
        match r {
            Report::Sink { exits: e } if exits.is_none() => exits = Some(e),
            Report::Big {
                id,
                pings_handled,
                unexpected: u,
            } if (id as usize) < w && !seen[id as usize] => {
                seen[id as usize] = true;
                pings += pings_handled;
                unexpected += u;
            }
            other => check = Err(format!("unexpected report {other:?}")),
        }
    }
    let w64 = w as u64;
    if check.is_ok() {
        check = if exits != Some(w64) {
            Err(format!("the Sink counted {exits:?} exits, expected {w}"))
        } else if pings != w64 * n {
            Err(format!("{pings} pings answered, expected {}", w64 * n))
        } else if unexpected != 0 {
            Err(format!("{unexpected} pongs from an unexpected neighbor"))
        } else {
            Ok(())
        };
    }
    Ok(Iteration {
        elapsed,
        // SPEC.md's count: W x N pings and as many pongs, W Pong(-1), W + 1 Neighbors, W exits to
        // the Sink and W to the Big actors.
        messages: 2 * pings + 4 * w64 + 1,
        check,
    })
}
