//! Concurrent Dictionary on the sequential floor, the tuned actor program's flow (deviations
//! `main-creates-actors`, `tuned-hash`, `lcg-requests`).

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check_tuned as check, serve, Config, Request, Requests, Tally, TunedMap as Map};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let cfg = &cfg;
    let mut sys = System::new();
    let dictionary = sys.spawn(Node::Dictionary(Dictionary {
        map: (*cfg.tuned_data).clone(),
        writes: 0,
        size: None,
    }));
    let master = sys.spawn(Node::Master {
        workers: cfg.workers,
        ended: 0,
        dictionary,
    });
    let workers: Vec<ActorId> = (0..cfg.workers)
        .map(|id| {
            sys.spawn(Node::Worker(Worker {
                requests: cfg.tuned_requests_of(id),
                limit: cfg.requests,
                count: 0,
                misses: 0,
                dictionary,
                master,
            }))
        })
        .collect();
    for &worker in &workers {
        sys.send(worker, Msg::DoWork);
    }
    sys.run();
    let (mut results, mut misses) = (0, 0);
    let mut tally = None;
    for node in sys.actors() {
        match node {
            Node::Dictionary(d) => {
                tally = d.size.map(|size| Tally {
                    results: 0,
                    misses: 0,
                    writes: d.writes,
                    size,
                });
            }
            Node::Worker(w) => {
                results += w.count.saturating_sub(1);
                misses += w.misses;
            }
            Node::Master { .. } => {}
        }
    }
    check(
        cfg,
        tally.map(|t| Tally {
            results,
            misses,
            ..t
        }),
    )
}

/// The messages of Concurrent Dictionary.
enum Msg {
    /// To a worker: start.
    DoWork,
    /// To the Dictionary, from worker `from`.
    Request { from: ActorId, request: Request },
    /// To a worker: the answer to its request.
    Result(Option<i32>),
    /// To the Master from a worker, and from the Master to the Dictionary.
    EndWork,
}

/// The Dictionary, the Master and the workers.
enum Node {
    Dictionary(Dictionary),
    Master {
        workers: usize,
        ended: usize,
        dictionary: ActorId,
    },
    Worker(Worker),
}

struct Dictionary {
    map: Map,
    writes: u64,
    size: Option<usize>,
}

struct Worker {
    requests: Requests,
    limit: u64,
    count: u64,
    misses: u64,
    dictionary: ActorId,
    master: ActorId,
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (Node::Dictionary(d), Msg::Request { from, request }) => {
                let value = serve(&mut d.map, &mut d.writes, request);
                cx.send(from, Msg::Result(value));
            }
            (Node::Dictionary(d), Msg::EndWork) => {
                d.size = Some(d.map.len());
                cx.exit();
            }
            (
                Node::Master {
                    workers,
                    ended,
                    dictionary,
                },
                Msg::EndWork,
            ) => {
                *ended += 1;
                if *ended == *workers {
                    cx.send(*dictionary, Msg::EndWork);
                    cx.exit();
                }
            }
            (Node::Worker(w), msg @ (Msg::DoWork | Msg::Result(_))) => {
                if let Msg::Result(None) = msg {
                    w.misses += 1;
                }
                w.count += 1;
                if w.count <= w.limit {
                    let me = cx.me();
                    let request = w.requests.next_request();
                    cx.send(w.dictionary, Msg::Request { from: me, request });
                } else {
                    cx.send(w.master, Msg::EndWork);
                    cx.exit();
                }
            }
            _ => unreachable!("concdict: message sent to the wrong actor"),
        }
    }
}
