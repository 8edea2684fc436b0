//! Concurrent Dictionary on the sequential floor: the actor program's flow (Savina's: the Master
//! creates the Dictionary, which copies the map, and the workers, and sends each `DoWork`).

use std::sync::Arc;

pub(super) use super::floor_tuned::prepare as prepare_tuned;
use super::{check, serve, Config, Map, Request, Requests, Tally};
use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Arc::new(Config::from_params(params)?), run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Arc<Config>) -> Outcome {
    let mut sys = System::new();
    sys.spawn(Node::Master(Master {
        cfg: cfg.clone(),
        ended: 0,
        dictionary: None,
    }));
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
            Node::Master(_) => {}
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
    Master(Master),
    Worker(Worker),
}

struct Master {
    cfg: Arc<Config>,
    ended: usize,
    dictionary: Option<ActorId>,
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

    /// The Master creates the Dictionary (which copies the map) and the workers, and starts them.
    fn started(&mut self, cx: &mut Context<Self>) {
        let Node::Master(m) = self else {
            return;
        };
        let dictionary = cx.spawn(Node::Dictionary(Dictionary {
            map: (*m.cfg.data).clone(),
            writes: 0,
            size: None,
        }));
        m.dictionary = Some(dictionary);
        let master = cx.me();
        for id in 0..m.cfg.workers {
            let worker = cx.spawn(Node::Worker(Worker {
                requests: m.cfg.requests_of(id),
                limit: m.cfg.requests,
                count: 0,
                misses: 0,
                dictionary,
                master,
            }));
            cx.send(worker, Msg::DoWork);
        }
    }

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
            (Node::Master(m), Msg::EndWork) => {
                m.ended += 1;
                if m.ended == m.cfg.workers {
                    if let Some(dictionary) = m.dictionary.take() {
                        cx.send(dictionary, Msg::EndWork);
                    }
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
