//! The coordinator's logic (LF's RTI, centralized coordination) as a state machine without I/O:
//! it takes one message at a time and says what to send to whom. The coordinator's loop
//! ([`run_coordinator`](crate::run_coordinator)) runs it over a transport; its tests
//! (`coordinator/tests.rs`) run it on small graphs directly.
//!
//! # Grants
//!
//! Each federate reports its next event tag (NET) whenever it wants to advance, and its latest
//! completed tag (LTC) after each tag. For a federate `e` that asks for tag `n`, the coordinator
//! computes the earliest tag `B` at which a message could still reach `e`: the least, over the
//! connections into `e`, of the earliest tag at which the sender may still send, delayed by the
//! connection's delay. A federate `u` may still send at its NET (from the start tag while it has
//! reported none; `e` itself at `n`), or at the earliest tag at which something may still reach
//! it, computed the same way through its own upstream (a fixpoint over the graph, cycles
//! included); but never at or before its LTC, and never once it has resigned or failed.
//!
//! - `B > n`: tag advance grant (TAG) for `n`: nothing can arrive at or before `n` any more.
//! - `B == n` and `e` lies on a zero-delay cycle: provisional grant (PTAG) for `n`, as LF gives,
//!   since the cycle would otherwise wait on itself.
//! - otherwise `e` waits; each later message re-evaluates every federate.
//!
//! A federate with nothing left reports `FOREVER` and gets `TAG(FOREVER)` once every upstream
//! federate has ended.
//!
//! # Messages between federates
//!
//! Values on logical connections come to the coordinator, which forwards each to its destination
//! before any grant it computes afterwards (on the same ordered channel), and lowers the
//! destination's NET to the value's tag, as reactor-c's RTI does. A grant therefore never
//! overtakes a value it covers. Until the destination reports the value's tag completed, the
//! tag stays recorded as in transit, and a NET the destination sent before the value reached it
//! (a later tag) does not raise its NET past it.
//!
//! # Provisional grants and absent ports
//!
//! A federate granted `n` provisionally processes `n` up to the reactions that read network
//! inputs whose status at `n` is not known yet (see `federate.rs`). Its upstream federates tell
//! it, for each connection without a time delay into a federate on a zero-delay cycle, that
//! nothing comes at a tag
//! (LF's port-absent message), once the reactions that could have sent have run. Port-absent
//! messages take the values' route through the coordinator, so that on each connection values
//! and absences arrive in tag order, and the coordinator records, per connection, the latest tag
//! it carried something for. This bound joins the others in the fixpoint: a connection delivers
//! no earlier than one microstep after that tag (through a delay with a time part, no earlier
//! than that tag, since a later microstep of the sender lands on it again). While a federate holds a provisional grant for `n`, the federates
//! on a zero-delay cycle with it whose next event is later get a provisional grant for `n` too
//! (they may have to tell that they send nothing at `n`), and each connection into it that can
//! no longer deliver at or before `n` gets a port-absent message from the coordinator itself
//! (its sender may be unable to tell, through a delay with a time part).
//!
//! # Stop
//!
//! A stop request from one federate is sent to all others; each answers with the earliest tag it
//! can stop at; the largest answer is granted to all (LF's STOP_REQUEST / REPLY / GRANTED). While
//! a stop is being agreed, no grant goes beyond the largest tag proposed so far.
//!
//! # Failure
//!
//! A federate that vanishes without resigning (its process died, its connection dropped) is
//! handled as reactor-c's RTI handles `FAILED`: it counts as having ended (its NET is `FOREVER`),
//! grants to the others are re-evaluated so they do not wait for it, every other federate is
//! told of the failure (and ends its run with
//! [`FederatedError::FederateFailed`](crate::FederatedError::FederateFailed)), and the coordinator reports it at the end.

use crate::topology::{Delay, Topology};
use crate::wire::{FromRti, ToRti, WireTag};

/// What the coordinator knows of one federate.
#[derive(Clone, Debug, Default)]
struct Federate {
    joined: bool,
    /// Its next event tag; `None` until it reports one (it may send from the start tag).
    next: Option<WireTag>,
    completed: Option<WireTag>,
    granted: Option<WireTag>,
    provisional: Option<WireTag>,
    /// The tags of the values forwarded to it that it has not completed yet (reactor-c's
    /// in-transit records): a NET it sent before such a value reached it must not hide the
    /// value's tag.
    in_transit: Vec<WireTag>,
    /// Resigned or failed: it sends nothing any more.
    done: bool,
    failed: bool,
}

/// A stop being agreed.
#[derive(Clone, Debug)]
struct PendingStop {
    tag: WireTag,
    waiting: Vec<bool>,
}

/// The coordinator's state machine (see the module docs).
#[derive(Debug)]
pub struct Coordinator {
    topo: Topology,
    zero_cycle: Vec<bool>,
    /// `cycle_with[u][e]`: paths without delay lead from `u` to `e` and back.
    cycle_with: Vec<Vec<bool>>,
    feds: Vec<Federate>,
    started: bool,
    start_delay_ns: u64,
    start_ns: u64,
    stop: Option<PendingStop>,
    stop_granted: Option<WireTag>,
    /// Per connection, the earliest tag at which it may still deliver, from the values and
    /// port-absent messages it carried.
    link_floor: Vec<Option<WireTag>>,
    /// Per connection, the latest tag for which the coordinator itself told its destination
    /// that nothing arrives.
    absent_told: Vec<Option<WireTag>>,
    failures: Vec<String>,
    /// Messages sent, for the figures (coordination messages per tag).
    sent: u64,
    out: Vec<(u32, FromRti)>,
}

impl Coordinator {
    /// A coordinator for `topo`; the start tag is set `start_delay_ns` after the last join.
    pub fn new(topo: Topology, start_delay_ns: u64) -> Coordinator {
        let mut zero_cycle = vec![false; topo.federates.len()];
        for e in topo.zero_delay_cycles() {
            zero_cycle[e as usize] = true;
        }
        let d = topo.least_delays();
        let zero = |a: usize, b: usize| d[a][b] == Some(Delay::NONE);
        let n = topo.federates.len();
        let cycle_with = (0..n)
            .map(|u| (0..n).map(|e| u != e && zero(u, e) && zero(e, u)).collect())
            .collect();
        let feds = vec![Federate::default(); topo.federates.len()];
        let link_floor = vec![None; topo.links.len()];
        let absent_told = vec![None; topo.links.len()];
        Coordinator {
            link_floor,
            absent_told,
            topo,
            zero_cycle,
            cycle_with,
            feds,
            started: false,
            start_delay_ns,
            start_ns: 0,
            stop: None,
            stop_granted: None,
            failures: Vec::new(),
            sent: 0,
            out: Vec::new(),
        }
    }

    /// The federation's topology.
    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    /// Whether every federate has joined and been told to start.
    pub fn started(&self) -> bool {
        self.started
    }

    /// Whether every federate has ended (resigned or failed).
    pub fn finished(&self) -> bool {
        self.feds.iter().all(|f| f.done)
    }

    /// The federates that failed, in the order they did.
    pub fn failures(&self) -> &[String] {
        &self.failures
    }

    /// How many messages the coordinator has sent so far.
    pub fn messages_sent(&self) -> u64 {
        self.sent
    }

    /// The last grant given to federate `fed`, if any.
    pub fn granted(&self, fed: u32) -> Option<WireTag> {
        self.feds.get(fed as usize).and_then(|f| f.granted)
    }

    /// Takes one message from a federate, at physical time `now_ns` (nanoseconds since the Unix
    /// epoch, for the start time); returns what to send to whom, in order.
    pub fn handle(&mut self, msg: ToRti, now_ns: u64) -> Vec<(u32, FromRti)> {
        match msg {
            ToRti::Join { fed, program } => self.join(fed, program, now_ns),
            ToRti::NextEventTag { fed, tag } => {
                if let Some(f) = self.fed_mut(fed) {
                    let pending = f.in_transit.iter().min().copied();
                    f.next = Some(pending.map_or(tag, |p| p.min(tag)));
                }
            }
            ToRti::LatestTagComplete { fed, tag } => {
                if let Some(f) = self.fed_mut(fed) {
                    f.completed = Some(f.completed.map_or(tag, |c| c.max(tag)));
                    f.in_transit.retain(|&t| t > tag);
                }
            }
            ToRti::Tagged {
                fed,
                link,
                tag,
                payload,
            } => self.forward(fed, link, tag, payload),
            ToRti::PortAbsent { fed, link, tag } => self.absent(fed, link, tag),
            ToRti::StopRequest { fed, tag } => self.stop_request(fed, tag),
            ToRti::StopReply { fed, tag } => self.stop_reply(fed, tag),
            ToRti::Resign { fed } => {
                if let Some(f) = self.fed_mut(fed) {
                    f.done = true;
                    self.send(fed, FromRti::Resigned);
                }
                self.forget_in_stop(fed);
            }
        }
        self.evaluate_all();
        core::mem::take(&mut self.out)
    }

    /// Federate `fed` vanished without resigning (see the module docs).
    pub fn federate_failed(&mut self, fed: u32) -> Vec<(u32, FromRti)> {
        let Some(f) = self.fed_mut(fed) else {
            return Vec::new();
        };
        if f.done {
            return Vec::new();
        }
        f.done = true;
        f.failed = true;
        let name = self.topo.federates[fed as usize].clone();
        self.failures.push(name.clone());
        for other in 0..self.feds.len() as u32 {
            if !self.feds[other as usize].done && self.feds[other as usize].joined {
                self.send(other, FromRti::Failed(name.clone()));
            }
        }
        self.forget_in_stop(fed);
        self.evaluate_all();
        core::mem::take(&mut self.out)
    }

    fn fed_mut(&mut self, fed: u32) -> Option<&mut Federate> {
        self.feds.get_mut(fed as usize)
    }

    fn send(&mut self, to: u32, msg: FromRti) {
        self.sent += 1;
        self.out.push((to, msg));
    }

    fn join(&mut self, fed: u32, program: u64, now_ns: u64) {
        if fed as usize >= self.feds.len() {
            return;
        }
        if program != self.topo.fingerprint() {
            self.send(
                fed,
                FromRti::Reject {
                    reason: "built from a different program than the coordinator's".into(),
                },
            );
            return;
        }
        if self.started || self.feds[fed as usize].joined {
            // A repeated join (byte transports repeat it until the start arrives).
            if self.started {
                let start_ns = self.start_ns;
                self.send(fed, FromRti::Start { start_ns });
            }
            return;
        }
        self.feds[fed as usize].joined = true;
        if self.feds.iter().all(|f| f.joined) {
            self.started = true;
            let start_ns = now_ns.saturating_add(self.start_delay_ns);
            self.start_ns = start_ns;
            for f in 0..self.feds.len() as u32 {
                self.send(f, FromRti::Start { start_ns });
            }
            // Who failed between joining and the start is told with the start.
            for name in self.failures.clone() {
                for f in 0..self.feds.len() as u32 {
                    if !self.feds[f as usize].done {
                        self.send(f, FromRti::Failed(name.clone()));
                    }
                }
            }
        }
    }

    fn forward(&mut self, fed: u32, link: u32, tag: WireTag, payload: Vec<u8>) {
        let Some(l) = self.topo.links.get(link as usize) else {
            return;
        };
        if l.from != fed || l.physical {
            return;
        }
        let to = l.to;
        if Delay::of_connection(l.after).time == 0 {
            // Its destination knows the connection's content at `tag` now.
            self.told(link, tag);
        }
        self.known(link, tag);
        let dest = &mut self.feds[to as usize];
        if dest.done {
            return;
        }
        // The destination will process `tag`: its NET is at most that until it completes it,
        // whatever NET it sent before the value reached it.
        if dest.next.is_some_and(|n| tag < n) {
            dest.next = Some(tag);
        }
        dest.in_transit.push(tag);
        self.send(to, FromRti::Tagged { link, tag, payload });
    }

    /// Forwards a port-absent message on `link` at `tag` (see the module docs).
    fn absent(&mut self, fed: u32, link: u32, tag: WireTag) {
        let Some(l) = self.topo.links.get(link as usize) else {
            return;
        };
        if l.from != fed || l.physical {
            return;
        }
        let to = l.to;
        self.known(link, tag);
        self.told(link, tag);
        if !self.feds[to as usize].done {
            self.send(to, FromRti::PortAbsent { link, tag });
        }
    }

    /// Records that the destination of `link` knows its content at `tag`.
    fn told(&mut self, link: u32, tag: WireTag) {
        if let Some(t) = self.absent_told.get_mut(link as usize) {
            *t = Some(t.map_or(tag, |x| x.max(tag)));
        }
    }

    /// Records a value or a port-absent message on `link` at `tag`: the sender's next one
    /// comes from a later tag of its own, so the connection delivers no earlier than one
    /// microstep after `tag`; through a delay with a time part, at `tag` again (a later
    /// microstep of the sender lands on the same tag).
    fn known(&mut self, link: u32, tag: WireTag) {
        let Some(l) = self.topo.links.get(link as usize) else {
            return;
        };
        let next = if Delay::of_connection(l.after).time > 0 {
            tag
        } else {
            Delay::of_connection(Some(0)).apply(tag)
        };
        if let Some(k) = self.link_floor.get_mut(link as usize) {
            *k = Some(k.map_or(next, |x| x.max(next)));
        }
    }

    /// The earliest tag at which a message could still reach federate `e`, asking for `n`
    /// (see the module docs): the least fixpoint of "each federate may still send at its NET, or
    /// at whatever may still reach it, but never at or before what it has completed".
    fn earliest_incoming(&self, e: usize, n: WireTag) -> WireTag {
        self.incoming(e, n)
            .into_iter()
            .map(|(_, t)| t)
            .min()
            .unwrap_or(WireTag::FOREVER)
    }

    /// Per logical connection into `e`, the earliest tag at which it may still deliver, `e`
    /// asking for `n` (see [`Coordinator::earliest_incoming`]).
    fn incoming(&self, e: usize, n: WireTag) -> Vec<(usize, WireTag)> {
        let k = self.feds.len();
        let after_completed =
            |f: &Federate| f.completed.map(|c| Delay::of_connection(Some(0)).apply(c));
        let floor = |u: usize| -> WireTag {
            let f = &self.feds[u];
            if f.done {
                WireTag::FOREVER
            } else {
                after_completed(f).unwrap_or(WireTag::ZERO)
            }
        };
        let own = |u: usize| -> WireTag {
            let f = &self.feds[u];
            if f.done {
                WireTag::FOREVER
            } else if u == e {
                n
            } else {
                f.next.unwrap_or(WireTag::ZERO)
            }
        };
        // The earliest tag a connection may still deliver at, from its sender's earliest: never
        // before its floor.
        let deliver = |ix: usize, from: WireTag| -> WireTag {
            let l = &self.topo.links[ix];
            let at = Delay::of_connection(l.after).apply(from);
            match self.link_floor[ix] {
                Some(floor) => at.max(floor),
                None => at,
            }
        };
        let logical = || {
            self.topo
                .links
                .iter()
                .enumerate()
                .filter(|(_, l)| !l.physical)
        };
        let mut y: Vec<WireTag> = (0..k).map(|u| own(u).max(floor(u))).collect();
        for _ in 0..=k {
            let mut changed = false;
            for (ix, l) in logical() {
                let (w, u) = (l.from as usize, l.to as usize);
                if u == e || self.feds[u].done {
                    continue;
                }
                let via = deliver(ix, y[w]).max(floor(u));
                if via < y[u] {
                    y[u] = via;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        logical()
            .filter(|(_, l)| l.to as usize == e)
            .map(|(ix, l)| (ix, deliver(ix, y[l.from as usize])))
            .collect()
    }

    fn evaluate_all(&mut self) {
        if !self.started {
            return;
        }
        for e in 0..self.feds.len() {
            self.evaluate(e);
        }
    }

    fn evaluate(&mut self, e: usize) {
        self.grant(e);
        // A provisional grant still open: the federates it waits for may have become able to
        // take it (see `provisional_upstream`).
        let f = &self.feds[e];
        if let Some(p) = f.provisional {
            if !f.done && f.granted.is_none_or(|g| g < p) && f.completed.is_none_or(|c| c < p) {
                self.provisional_upstream(e, p);
                self.absent_inputs(e, p);
            }
        }
    }

    /// While `e` holds a provisional grant for `p`: each connection into `e` that can no longer
    /// deliver at or before `p` is absent at `p`, and `e` is told so with a port-absent message
    /// of the coordinator's own. Its sender may be unable to say it: through a delay with a
    /// time part, a later microstep of the sender could land on the same tag, so only the
    /// sender's progress, which the coordinator follows, rules it out.
    fn absent_inputs(&mut self, e: usize, p: WireTag) {
        for (ix, at) in self.incoming(e, p) {
            if at > p && self.absent_told[ix].is_none_or(|t| t < p) {
                self.absent_told[ix] = Some(p);
                self.send(
                    e as u32,
                    FromRti::PortAbsent {
                        link: ix as u32,
                        tag: p,
                    },
                );
            }
        }
    }

    /// Grants federate `e` its next event tag, in full or provisionally, when it may have it.
    fn grant(&mut self, e: usize) {
        let f = &self.feds[e];
        let Some(n) = f.next else { return };
        if f.done || f.granted.is_some_and(|g| g >= n) {
            return;
        }
        if let Some(s) = &self.stop {
            if n > s.tag {
                return;
            }
        }
        let b = self.earliest_incoming(e, n);
        if b > n || (b == WireTag::FOREVER && n == WireTag::FOREVER) {
            self.feds[e].granted = Some(n);
            self.send(e as u32, FromRti::Grant(n));
        } else if b == n && self.zero_cycle[e] && self.feds[e].provisional.is_none_or(|p| p < n) {
            self.feds[e].provisional = Some(n);
            self.send(e as u32, FromRti::ProvisionalGrant(n));
        }
    }

    /// While `e` holds a provisional grant for `n`: the federates on a zero-delay cycle with
    /// `e` whose next event is later may still have to send at `n` (what `e` sends them at `n`
    /// can make them send back), and they alone can say that they do not. Each gets a
    /// provisional grant for `n` too, as reactor-c's RTI gives its upstream federates, once
    /// nothing can reach it before `n` any more (a provisional grant covers the tags before it
    /// in full); it processes `n`, possibly an empty tag, to send its values or port-absent
    /// messages.
    fn provisional_upstream(&mut self, e: usize, n: WireTag) {
        for u in 0..self.feds.len() {
            let f = &self.feds[u];
            let idle_at_n = f.next.is_some_and(|x| x > n)
                && f.completed.is_none_or(|c| c < n)
                && f.granted.is_none_or(|g| g < n)
                && f.provisional.is_none_or(|p| p < n);
            if self.cycle_with[u][e] && !f.done && idle_at_n && self.earliest_incoming(u, n) >= n {
                self.feds[u].provisional = Some(n);
                self.send(u as u32, FromRti::ProvisionalGrant(n));
            }
        }
    }

    fn stop_request(&mut self, fed: u32, tag: WireTag) {
        if self.stop_granted.is_some() || fed as usize >= self.feds.len() {
            return;
        }
        if let Some(s) = &mut self.stop {
            s.tag = s.tag.max(tag);
            s.waiting[fed as usize] = false;
        } else {
            let waiting: Vec<bool> = (0..self.feds.len())
                .map(|i| i != fed as usize && !self.feds[i].done)
                .collect();
            for (i, &w) in waiting.iter().enumerate() {
                if w {
                    self.send(i as u32, FromRti::StopRequest(tag));
                }
            }
            self.stop = Some(PendingStop { tag, waiting });
        }
        self.stop_complete();
    }

    fn stop_reply(&mut self, fed: u32, tag: WireTag) {
        if let Some(s) = &mut self.stop {
            if let Some(w) = s.waiting.get_mut(fed as usize) {
                *w = false;
                s.tag = s.tag.max(tag);
            }
        }
        self.stop_complete();
    }

    fn forget_in_stop(&mut self, fed: u32) {
        if let Some(s) = &mut self.stop {
            if let Some(w) = s.waiting.get_mut(fed as usize) {
                *w = false;
            }
        }
        self.stop_complete();
    }

    fn stop_complete(&mut self) {
        let Some(s) = &self.stop else { return };
        if s.waiting.iter().any(|&w| w) {
            return;
        }
        let tag = s.tag;
        self.stop = None;
        self.stop_granted = Some(tag);
        for f in 0..self.feds.len() as u32 {
            if !self.feds[f as usize].done {
                self.send(f, FromRti::StopGranted(tag));
            }
        }
    }
}

#[cfg(test)]
mod tests;
