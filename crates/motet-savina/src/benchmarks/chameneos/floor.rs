//! Chameneos on the sequential floor.

use crate::bench::{Outcome, Prepared};
use crate::floor::{Actor, ActorId, Context, System};
use crate::params::Params;

use super::{check, Color, Config};

/// Builds the floor program; `threads` is ignored (the floor is sequential).
pub(super) fn prepare(params: &Params, _threads: usize) -> Prepared {
    crate::floor::program(Config::from_params(params)?, run)
}

/// One timed iteration: runs the program on a fresh system and checks the result.
fn run(cfg: &Config) -> Outcome {
    let mut sys = System::new();
    let mall = sys.spawn(Node::Mall(Mall {
        meetings_left: cfg.m,
        creatures: cfg.c,
        waiting: None,
        sum_meetings: 0,
        faded: 0,
    }));
    sys.run();
    let Node::Mall(mall) = sys.actor(mall) else {
        unreachable!("actor 0 is the mall")
    };
    if mall.faded != cfg.c {
        return Outcome {
            result: mall.sum_meetings.into(),
            check: Err(format!("{} of {} creatures reported", mall.faded, cfg.c)),
        };
    }
    check(cfg.m, mall.sum_meetings)
}

/// The messages of Chameneos.
enum Msg {
    /// To the Mall, and forwarded by it to the waiting creature.
    Meet { color: Color, from: ActorId },
    /// To the other creature of a meeting: its new color.
    Change(Color),
    /// From the Mall to a creature once no meetings are left.
    Exit { mall: ActorId },
    /// A fading creature's meeting count, to the Mall.
    MeetingCount(u64),
}

/// The mall and the creatures.
enum Node {
    Mall(Mall),
    Creature(Creature),
}

/// The mall: pairs creatures until no meetings are left.
struct Mall {
    meetings_left: u64,
    creatures: usize,
    waiting: Option<ActorId>,
    sum_meetings: u64,
    faded: usize,
}

/// A creature.
struct Creature {
    mall: ActorId,
    color: Color,
    meetings: u64,
}

impl Actor for Node {
    type Msg = Msg;

    fn started(&mut self, cx: &mut Context<Self>) {
        match self {
            Node::Mall(mall) => {
                let me = cx.me();
                for i in 0..mall.creatures {
                    cx.spawn(Node::Creature(Creature {
                        mall: me,
                        color: Color::initial(i),
                        meetings: 0,
                    }));
                }
            }
            Node::Creature(c) => {
                let from = cx.me();
                cx.send(
                    c.mall,
                    Msg::Meet {
                        color: c.color,
                        from,
                    },
                );
            }
        }
    }

    fn receive(&mut self, msg: Msg, cx: &mut Context<Self>) {
        match self {
            Node::Mall(mall) => mall.receive(msg, cx),
            Node::Creature(c) => c.receive(msg, cx),
        }
    }
}

impl Mall {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        match msg {
            Msg::Meet { color, from } => {
                if self.meetings_left == 0 {
                    let mall = cx.me();
                    cx.send(from, Msg::Exit { mall });
                } else if let Some(waiting) = self.waiting.take() {
                    self.meetings_left -= 1;
                    cx.send(waiting, Msg::Meet { color, from });
                } else {
                    self.waiting = Some(from);
                }
            }
            Msg::MeetingCount(count) => {
                self.faded += 1;
                self.sum_meetings += count;
                if self.faded == self.creatures {
                    cx.exit();
                }
            }
            _ => unreachable!("chameneos: creature message sent to the mall"),
        }
    }
}

impl Creature {
    fn receive(&mut self, msg: Msg, cx: &mut Context<Node>) {
        let me = cx.me();
        match msg {
            Msg::Meet { color, from } => {
                self.color = self.color.complement(color);
                self.meetings += 1;
                cx.send(from, Msg::Change(self.color));
                cx.send(
                    self.mall,
                    Msg::Meet {
                        color: self.color,
                        from: me,
                    },
                );
            }
            Msg::Change(color) => {
                self.color = color;
                self.meetings += 1;
                cx.send(
                    self.mall,
                    Msg::Meet {
                        color: self.color,
                        from: me,
                    },
                );
            }
            Msg::Exit { mall } => {
                self.color = Color::Faded;
                cx.send(mall, Msg::MeetingCount(self.meetings));
                cx.exit();
            }
            Msg::MeetingCount(_) => unreachable!("chameneos: mall message sent to a creature"),
        }
    }
}
