//! The shape of a federation as the coordinator sees it: the federates, and the logical
//! connections between them with their delays; and the least delay along any path from one
//! federate to another, which bounds the tags at which one's events can reach the other.
//!
//! # Delays as tag intervals
//!
//! A connection without `after` delivers at the sender's tag; `after 0` one microstep later;
//! `after d` (d > 0) at microstep 0, `d` later. A [`Delay`] `(time, micro)` applied to a tag
//! gives `(t, m + micro)` when `time` is 0 and `(t + time, micro)` otherwise. Two delays compose
//! into one ([`Delay::then`]) that gives the same tag as applying both in turn, so the least
//! delay over paths is a shortest-path problem; no cycle lowers a delay, so simple paths suffice.

use serde::{Deserialize, Serialize};

use crate::wire::WireTag;

/// A logical delay, as a tag interval (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Delay {
    /// Nanoseconds.
    pub time: u64,
    /// Microsteps.
    pub micro: u32,
}

impl Delay {
    /// No delay: the value arrives at the sender's tag.
    pub const NONE: Delay = Delay { time: 0, micro: 0 };

    /// The delay of a connection: `None` for a plain one, `Some(d)` for `after d`.
    pub fn of_connection(after: Option<u64>) -> Delay {
        match after {
            None => Delay::NONE,
            Some(0) => Delay { time: 0, micro: 1 },
            Some(d) => Delay { time: d, micro: 0 },
        }
    }

    /// `tag` delayed by `self` (saturating: `FOREVER` stays `FOREVER`).
    pub fn apply(self, tag: WireTag) -> WireTag {
        if tag == WireTag::FOREVER {
            return tag;
        }
        if self.time == 0 {
            WireTag {
                time: tag.time,
                microstep: tag.microstep.saturating_add(self.micro),
            }
        } else {
            WireTag {
                time: tag.time.saturating_add(self.time),
                microstep: self.micro,
            }
        }
    }

    /// `self` followed by `next`, as one delay.
    pub fn then(self, next: Delay) -> Delay {
        if next.time > 0 {
            Delay {
                time: self.time.saturating_add(next.time),
                micro: next.micro,
            }
        } else {
            Delay {
                time: self.time,
                micro: self.micro.saturating_add(next.micro),
            }
        }
    }
}

/// A logical connection between two federates.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// The sending federate (index).
    pub from: u32,
    /// The receiving federate (index).
    pub to: u32,
    /// `None`: plain; `Some(d)`: `after d` nanoseconds.
    pub after: Option<u64>,
    /// A physical connection (LF's `~>`): values go from federate to federate directly and
    /// take their tag from the receiver's clock; it does not constrain grants.
    pub physical: bool,
    /// Its name, `source port -> destination port`.
    pub name: String,
}

/// The federates and the logical connections between them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Topology {
    /// Federate names; a federate's index is its place here.
    pub federates: Vec<String>,
    /// The logical connections; a connection's index is its place here.
    pub links: Vec<Link>,
}

impl Topology {
    /// The index of federate `name`.
    pub fn index(&self, name: &str) -> Option<u32> {
        self.federates
            .iter()
            .position(|f| f == name)
            .map(|i| i as u32)
    }

    /// The logical connections (those that constrain grants).
    pub fn logical(&self) -> impl Iterator<Item = &Link> {
        self.links.iter().filter(|l| !l.physical)
    }

    /// A fingerprint of the topology (FNV-1a over its encoding): federates built from different
    /// programs have different ones.
    pub fn fingerprint(&self) -> u64 {
        let bytes = postcard::to_stdvec(self).unwrap_or_default();
        bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    /// `paths[u][e]`: the least delay along any path of connections from federate `u` to federate
    /// `e` (`paths[e][e]` only through a cycle), or `None` when there is no path.
    pub fn least_delays(&self) -> Vec<Vec<Option<Delay>>> {
        let n = self.federates.len();
        let mut d: Vec<Vec<Option<Delay>>> = vec![vec![None; n]; n];
        for l in self.logical() {
            let (u, e) = (l.from as usize, l.to as usize);
            let delay = Delay::of_connection(l.after);
            d[u][e] = Some(d[u][e].map_or(delay, |x| x.min(delay)));
        }
        // Bellman-Ford from every source: n rounds cover every simple path.
        for _ in 0..n {
            let mut changed = false;
            for l in self.logical() {
                let (m, e) = (l.from as usize, l.to as usize);
                let delay = Delay::of_connection(l.after);
                for row in d.iter_mut() {
                    if let Some(to_m) = row[m] {
                        let via = to_m.then(delay);
                        if row[e].is_none_or(|x| via < x) {
                            row[e] = Some(via);
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        d
    }

    /// The federates on a cycle of connections whose least delay is zero (no `after`): LF
    /// grants those provisional tags (PTAG).
    pub fn zero_delay_cycles(&self) -> Vec<u32> {
        let d = self.least_delays();
        (0..self.federates.len())
            .filter(|&e| d[e][e] == Some(Delay::NONE))
            .map(|e| e as u32)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(time: u64, microstep: u32) -> WireTag {
        WireTag { time, microstep }
    }

    #[test]
    fn composing_delays_is_applying_them_in_turn() {
        let delays = [
            Delay::NONE,
            Delay::of_connection(Some(0)),
            Delay::of_connection(Some(5)),
            Delay { time: 3, micro: 2 },
        ];
        for a in delays {
            for b in delays {
                for t in [tag(0, 0), tag(7, 3)] {
                    assert_eq!(b.apply(a.apply(t)), a.then(b).apply(t), "{a:?} then {b:?}");
                }
            }
        }
    }

    #[test]
    fn least_delay_takes_the_shorter_path() {
        // 0 -> 1 -> 2 with 10 + 10, and 0 -> 2 with 30.
        let t = Topology {
            federates: vec!["a".into(), "b".into(), "c".into()],
            links: vec![
                link(0, 1, Some(10)),
                link(1, 2, Some(10)),
                link(0, 2, Some(30)),
            ],
        };
        let d = t.least_delays();
        assert_eq!(d[0][2], Some(Delay { time: 20, micro: 0 }));
        assert_eq!(d[2][0], None);
        assert_eq!(d[0][0], None);
        assert!(t.zero_delay_cycles().is_empty());
    }

    #[test]
    fn cycles_are_found_with_their_delay() {
        let t = Topology {
            federates: vec!["a".into(), "b".into()],
            links: vec![link(0, 1, None), link(1, 0, None)],
        };
        assert_eq!(t.zero_delay_cycles(), [0, 1]);
        let t = Topology {
            federates: vec!["a".into(), "b".into()],
            links: vec![link(0, 1, None), link(1, 0, Some(0))],
        };
        assert!(t.zero_delay_cycles().is_empty());
        assert_eq!(t.least_delays()[0][0], Some(Delay { time: 0, micro: 1 }));
    }

    pub(crate) fn link(from: u32, to: u32, after: Option<u64>) -> Link {
        Link {
            from,
            to,
            after,
            physical: false,
            name: format!("{from}->{to}"),
        }
    }
}
