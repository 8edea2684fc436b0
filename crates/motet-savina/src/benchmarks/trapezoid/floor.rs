//! Trapezoidal Approximation on the sequential floor: the actor program's message flow (the
//! Master creates its W workers when the work arrives and sends each its range; each worker sends
//! one `Result` and exits; the Master adds the results as they come) on one thread, with SPEC.md's
//! kernel ([`area`]).

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{area, check, Config};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the area.
fn run(cfg: &Config) -> Outcome {
    let mut sys = System::new();
    let master = sys.spawn(Node::Master {
        workers: cfg.w,
        received: 0,
        area: 0.0,
        done: false,
    });
    sys.send(
        master,
        Msg::Work {
            l: cfg.l,
            r: cfg.r,
            h: cfg.h(),
        },
    );
    sys.run();
    let &Node::Master { area, done, .. } = sys.actor(master) else {
        unreachable!("the first actor is the Master")
    };
    check(cfg, done.then_some(area))
}

/// Every message of the program.
enum Msg {
    /// To the Master: the whole range; to a worker: its part.
    Work { l: f64, r: f64, h: f64 },
    /// To the Master: a worker's area.
    Result(f64),
}

/// The Master and the workers.
enum Node {
    Master {
        workers: usize,
        received: usize,
        area: f64,
        done: bool,
    },
    Worker {
        master: ActorId,
    },
}

impl Actor for Node {
    type Msg = Msg;

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match (self, msg) {
            (&mut Node::Master { workers, .. }, Msg::Work { l, r, h }) => {
                let width = (r - l) / workers as f64;
                let master = cx.me();
                for i in 0..workers {
                    let wl = width * i as f64 + l;
                    let worker = cx.spawn(Node::Worker { master });
                    cx.send(
                        worker,
                        Msg::Work {
                            l: wl,
                            r: wl + width,
                            h,
                        },
                    );
                }
            }
            (
                Node::Master {
                    workers,
                    received,
                    area,
                    done,
                },
                Msg::Result(a),
            ) => {
                *area += a;
                *received += 1;
                if *received == *workers {
                    *done = true;
                    cx.exit();
                }
            }
            (&mut Node::Worker { master }, Msg::Work { l, r, h }) => {
                cx.send(master, Msg::Result(area(l, r, h)));
                cx.exit();
            }
            (Node::Worker { .. }, Msg::Result(_)) => {
                unreachable!("trapezoid: the Master's message to a worker")
            }
        }
    }
}
