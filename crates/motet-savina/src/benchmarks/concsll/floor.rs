//! Concurrent Sorted Linked List on the sequential floor: the actor program's flow (the Master
//! creates the List and the workers as it starts). The List keeps SPEC.md's linked list; under
//! `floor-tuned` a vector (deviation `vec-list`), as `actor-tuned`'s.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Config, ListKind, Request, Requests, SortedList};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program((Config::from_params(params)?, ListKind::Linked), run)
}

/// [`prepare`] with the List in a vector (deviation `vec-list`).
pub(super) fn prepare_tuned(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program((Config::from_params(params)?, ListKind::Vec), run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run((cfg, kind): &(Config, ListKind)) -> Outcome {
    let mut sys = System::new();
    sys.spawn(Node::Master {
        cfg: *cfg,
        kind: *kind,
        ended: 0,
        list: None,
    });
    sys.run();
    let mut results = 0;
    let mut final_list = None;
    for node in sys.actors() {
        match node {
            Node::List { list, done: true } => final_list = Some(list),
            Node::Worker(w) => results += w.count.saturating_sub(1),
            Node::List { .. } | Node::Master { .. } => {}
        }
    }
    check(cfg, results, final_list)
}

/// The messages of Concurrent Sorted Linked List.
enum Msg {
    /// To a worker: start.
    DoWork,
    /// To the List, from worker `from`.
    Request { from: ActorId, request: Request },
    /// To a worker: the List's answer (Savina's workers ignore its value).
    Result,
    /// To the Master from a worker, and from the Master to the List.
    EndWork,
}

/// The List, the Master and the workers.
enum Node {
    List {
        list: SortedList,
        done: bool,
    },
    Master {
        cfg: Config,
        kind: ListKind,
        ended: usize,
        list: Option<ActorId>,
    },
    Worker(Worker),
}

struct Worker {
    requests: Requests,
    limit: u64,
    count: u64,
    list: ActorId,
    master: ActorId,
}

impl Actor for Node {
    type Msg = Msg;

    /// The Master creates the List and the workers, and starts the workers.
    fn started(&mut self, cx: &mut Context<Self>) {
        let Node::Master {
            cfg, kind, list, ..
        } = self
        else {
            return;
        };
        let new_list = cx.spawn(Node::List {
            list: SortedList::new(*kind),
            done: false,
        });
        *list = Some(new_list);
        let master = cx.me();
        for id in 0..cfg.workers {
            let worker = cx.spawn(Node::Worker(Worker {
                requests: cfg.requests_of(id),
                limit: cfg.requests,
                count: 0,
                list: new_list,
                master,
            }));
            cx.send(worker, Msg::DoWork);
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (Node::List { list, .. }, Msg::Request { from, request }) => {
                std::hint::black_box(list.serve(request));
                cx.send(from, Msg::Result);
            }
            (Node::List { done, .. }, Msg::EndWork) => {
                *done = true;
                cx.exit();
            }
            (
                Node::Master {
                    cfg, ended, list, ..
                },
                Msg::EndWork,
            ) => {
                *ended += 1;
                if *ended == cfg.workers {
                    if let Some(list) = list.take() {
                        cx.send(list, Msg::EndWork);
                    }
                    cx.exit();
                }
            }
            (Node::Worker(w), Msg::DoWork | Msg::Result) => {
                w.count += 1;
                if w.count <= w.limit {
                    let me = cx.me();
                    let request = w.requests.next_request();
                    cx.send(w.list, Msg::Request { from: me, request });
                } else {
                    cx.send(w.master, Msg::EndWork);
                    cx.exit();
                }
            }
            _ => unreachable!("concsll: message sent to the wrong actor"),
        }
    }
}
