//! The coordinator's state machine run on small graphs directly: grants, provisional grants on
//! zero-delay cycles, values in transit, port-absent forwarding and stop requests.

use super::*;
use crate::topology::Link;

fn tag(time: u64, microstep: u32) -> WireTag {
    WireTag { time, microstep }
}

fn topo(n: usize, links: &[(u32, u32, Option<u64>)]) -> Topology {
    Topology {
        federates: (0..n).map(|i| format!("f{i}")).collect(),
        links: links
            .iter()
            .map(|&(from, to, after)| Link {
                from,
                to,
                after,
                physical: false,
                name: format!("{from}->{to}"),
            })
            .collect(),
    }
}

/// A coordinator whose federates have all joined (the start messages taken).
fn started(t: Topology) -> Coordinator {
    let fp = t.fingerprint();
    let n = t.federates.len() as u32;
    let mut c = Coordinator::new(t, 0);
    for fed in 0..n {
        let out = c.handle(ToRti::Join { fed, program: fp }, 0);
        if fed + 1 < n {
            assert!(out.is_empty());
        } else {
            assert_eq!(out.len(), n as usize);
        }
    }
    assert!(c.started());
    c
}

fn net(c: &mut Coordinator, fed: u32, t: WireTag) -> Vec<(u32, FromRti)> {
    c.handle(ToRti::NextEventTag { fed, tag: t }, 0)
}

fn ltc(c: &mut Coordinator, fed: u32, t: WireTag) -> Vec<(u32, FromRti)> {
    c.handle(ToRti::LatestTagComplete { fed, tag: t }, 0)
}

#[test]
fn a_different_program_is_rejected() {
    let mut c = Coordinator::new(topo(2, &[(0, 1, None)]), 0);
    let out = c.handle(ToRti::Join { fed: 0, program: 1 }, 0);
    assert!(matches!(out[..], [(0, FromRti::Reject { .. })]));
    assert!(!c.started());
}

/// a -> b -> c, no delays: c may advance only as far as b, b only as far as a.
#[test]
fn chain_grants_follow_the_upstream() {
    let mut c = started(topo(3, &[(0, 1, None), (1, 2, None)]));
    // The source has no upstream: granted at once.
    assert_eq!(net(&mut c, 0, tag(0, 0)), [(0, FromRti::Grant(tag(0, 0)))]);
    // b and c wait: a may still send at (0, 0).
    assert!(net(&mut c, 1, tag(0, 0)).is_empty());
    assert!(net(&mut c, 2, tag(0, 0)).is_empty());
    // a completes (0, 0): it cannot send at (0, 0) any more, so b may take it; c still
    // waits for b.
    assert_eq!(ltc(&mut c, 0, tag(0, 0)), [(1, FromRti::Grant(tag(0, 0)))]);
    assert_eq!(
        net(&mut c, 0, tag(10, 0)),
        [(0, FromRti::Grant(tag(10, 0)))]
    );
    assert_eq!(ltc(&mut c, 1, tag(0, 0)), [(2, FromRti::Grant(tag(0, 0)))]);
    // b wants 10 too, where a is: b waits for a to complete it.
    assert!(net(&mut c, 1, tag(10, 0)).is_empty());
    assert_eq!(
        ltc(&mut c, 0, tag(10, 0)),
        [(1, FromRti::Grant(tag(10, 0)))]
    );
    assert_eq!(c.granted(2), Some(tag(0, 0)));
}

/// a message forwarded to a federate lowers its NET before the grants sent after it.
#[test]
fn a_forwarded_value_comes_before_the_grant_it_covers() {
    let mut c = started(topo(2, &[(0, 1, Some(5))]));
    net(&mut c, 1, tag(100, 0));
    net(&mut c, 0, tag(0, 0));
    let out = c.handle(
        ToRti::Tagged {
            fed: 0,
            link: 0,
            tag: tag(5, 0),
            payload: vec![1],
        },
        0,
    );
    // Not granted yet: a later microstep of a (at (0, 1)) would land on 5 as well.
    assert!(matches!(out[..], [(1, FromRti::Tagged { .. })]), "{out:?}");
    ltc(&mut c, 0, tag(0, 0));
    let out = net(&mut c, 0, WireTag::FOREVER);
    // b's NET is now 5 (the value), granted after the value was forwarded.
    assert_eq!(
        out,
        [
            (0, FromRti::Grant(WireTag::FOREVER)),
            (1, FromRti::Grant(tag(5, 0)))
        ]
    );
}

/// a -> b, a -> c, b -> d, c -> d (delays 10 and 20 through c): d waits for the nearer path.
#[test]
fn diamond_takes_the_least_delay() {
    let mut c = started(topo(
        4,
        &[
            (0, 1, Some(10)),
            (0, 2, Some(20)),
            (1, 3, None),
            (2, 3, None),
        ],
    ));
    net(&mut c, 0, tag(0, 0));
    net(&mut c, 1, tag(10, 0));
    net(&mut c, 2, tag(20, 0));
    // d asks for 9 ms: a may send at 0, reaching d no earlier than 10 ms: granted.
    assert_eq!(net(&mut c, 3, tag(9, 0)), [(3, FromRti::Grant(tag(9, 0)))]);
    // 10 ms is not: b may send at 10 ms (its NET) with no delay.
    assert!(net(&mut c, 3, tag(10, 0)).is_empty());
    // b completes 10: it can send only after that, a only through b or c: d gets 10.
    assert_eq!(
        ltc(&mut c, 1, tag(10, 0)),
        [(3, FromRti::Grant(tag(10, 0)))]
    );
    // d asks for 25: b has nothing left, but a (at 0) may still reach d through b at 10.
    assert!(net(&mut c, 1, WireTag::FOREVER).is_empty());
    assert!(net(&mut c, 3, tag(25, 0)).is_empty());
    // a resigns: b and c, which waited for it, are granted; c, at 20, is d's nearest now.
    assert_eq!(
        c.handle(ToRti::Resign { fed: 0 }, 0),
        [
            (0, FromRti::Resigned),
            (1, FromRti::Grant(WireTag::FOREVER)),
            (2, FromRti::Grant(tag(20, 0)))
        ]
    );
    ltc(&mut c, 2, tag(20, 0));
    assert_eq!(
        net(&mut c, 2, WireTag::FOREVER),
        [
            (2, FromRti::Grant(WireTag::FOREVER)),
            (3, FromRti::Grant(tag(25, 0)))
        ]
    );
}

/// A NET that the destination sent before a forwarded value reached it does not hide the
/// value: its downstream is not granted past the value's tag plus the delay.
#[test]
fn a_stale_net_does_not_hide_a_value_in_transit() {
    // a -> b -> c, b -> c after 3.
    let mut c = started(topo(3, &[(0, 1, None), (1, 2, Some(3))]));
    assert_eq!(
        net(&mut c, 0, tag(10, 0)),
        [(0, FromRti::Grant(tag(10, 0)))]
    );
    // a sends at 10 to b, then moves on to 50.
    let out = c.handle(
        ToRti::Tagged {
            fed: 0,
            link: 0,
            tag: tag(10, 0),
            payload: vec![],
        },
        0,
    );
    assert!(matches!(out[..], [(1, FromRti::Tagged { .. })]));
    ltc(&mut c, 0, tag(10, 0));
    net(&mut c, 0, tag(50, 0));
    // b's NET(60), sent before the value reached it, arrives now: b is granted 10, the
    // value's tag, not 60.
    assert_eq!(
        net(&mut c, 1, tag(60, 0)),
        [(1, FromRti::Grant(tag(10, 0)))]
    );
    // c asks for 20: b will still process 10 and may send at 10 + 3: no grant.
    assert!(net(&mut c, 2, tag(20, 0)).iter().all(|(to, _)| *to != 2));
    assert_eq!(c.granted(2), None);
    // b completes 10 and asks for 60: now c may have 20.
    ltc(&mut c, 1, tag(10, 0));
    let out = net(&mut c, 1, tag(60, 0));
    assert!(out.contains(&(2, FromRti::Grant(tag(20, 0)))), "{out:?}");
}

/// a <-> b with an `after 5` back edge: each may go up to the other's NET plus the delay.
#[test]
fn cycle_with_delay_advances() {
    let mut c = started(topo(2, &[(0, 1, None), (1, 0, Some(5))]));
    // a asks for 0: b may send from 0, plus 5: granted.
    assert_eq!(net(&mut c, 0, tag(0, 0)), [(0, FromRti::Grant(tag(0, 0)))]);
    // b asks for 0: a may send at 0 with no delay: waits until a completes 0.
    assert!(net(&mut c, 1, tag(0, 0)).is_empty());
    // a completes 0: b may take 0.
    assert_eq!(ltc(&mut c, 0, tag(0, 0)), [(1, FromRti::Grant(tag(0, 0)))]);
    // a's next (3) is below b's NET + 5: granted.
    assert_eq!(net(&mut c, 0, tag(3, 0)), [(0, FromRti::Grant(tag(3, 0)))]);
    // a asks for 6: b may send at 0 (its NET), arriving at 5 <= 6: wait, also once b has
    // completed 0 (it may still send at (0, 1)).
    assert!(ltc(&mut c, 0, tag(3, 0)).is_empty());
    assert!(net(&mut c, 0, tag(6, 0)).is_empty());
    assert!(ltc(&mut c, 1, tag(0, 0)).is_empty());
    // b moves to 3: what it sends reaches a at 8 > 6; b may take 3, a being at 6.
    assert_eq!(
        net(&mut c, 1, tag(3, 0)),
        [
            (0, FromRti::Grant(tag(6, 0))),
            (1, FromRti::Grant(tag(3, 0)))
        ]
    );
}

/// a <-> b with no delay: neither could ever be granted; both get provisional grants.
#[test]
fn zero_delay_cycle_gets_provisional_grants() {
    let mut c = started(topo(2, &[(0, 1, None), (1, 0, None)]));
    assert_eq!(
        net(&mut c, 0, tag(0, 0)),
        [(0, FromRti::ProvisionalGrant(tag(0, 0)))]
    );
    assert_eq!(
        net(&mut c, 1, tag(0, 0)),
        [(1, FromRti::ProvisionalGrant(tag(0, 0)))]
    );
    // Once b has completed 0, nothing can reach a at 0 any more: a gets the full grant.
    assert_eq!(ltc(&mut c, 1, tag(0, 0)), [(0, FromRti::Grant(tag(0, 0)))]);
    // b asks for 10 while a may still send at (0, 1): nothing yet.
    assert!(net(&mut c, 1, tag(10, 0)).is_empty());
}

/// a <-> b with no delay, b idle until 10: a's provisional grant for 0 goes to b too (b
/// alone can say it sends nothing at 0); a's port-absent message for 0 reaches b, and once
/// the connection a -> b is known at 0, nothing can come back from b at 0: a gets the full
/// grant.
#[test]
fn port_absent_messages_are_forwarded_and_end_a_provisional_wait() {
    let mut c = started(topo(2, &[(0, 1, None), (1, 0, None)]));
    assert!(net(&mut c, 1, tag(10, 0)).is_empty());
    assert_eq!(
        net(&mut c, 0, tag(0, 0)),
        [
            (0, FromRti::ProvisionalGrant(tag(0, 0))),
            (1, FromRti::ProvisionalGrant(tag(0, 0)))
        ]
    );
    let out = c.handle(
        ToRti::PortAbsent {
            fed: 0,
            link: 0,
            tag: tag(0, 0),
        },
        0,
    );
    assert_eq!(
        out,
        [
            (
                1,
                FromRti::PortAbsent {
                    link: 0,
                    tag: tag(0, 0)
                }
            ),
            (0, FromRti::Grant(tag(0, 0)))
        ]
    );
    // A port-absent message from a federate that is not the connection's sender is ignored.
    let out = c.handle(
        ToRti::PortAbsent {
            fed: 0,
            link: 1,
            tag: tag(0, 0),
        },
        0,
    );
    assert!(out.is_empty(), "{out:?}");
}

/// a <-> b without delay, c -> a after 5. c's value at 5 (from its tag 0) does not tell
/// that nothing else comes at 5 (c's tag (0, 1) would land there too); once c moves on to
/// 20, the coordinator tells a, which holds a provisional grant for 5, itself.
#[test]
fn the_coordinator_tells_an_absence_its_sender_cannot() {
    let mut c = started(topo(3, &[(0, 1, None), (1, 0, None), (2, 0, Some(5))]));
    assert!(net(&mut c, 1, tag(10, 0)).is_empty());
    assert_eq!(net(&mut c, 2, tag(0, 0)), [(2, FromRti::Grant(tag(0, 0)))]);
    let out = c.handle(
        ToRti::Tagged {
            fed: 2,
            link: 2,
            tag: tag(5, 0),
            payload: vec![],
        },
        0,
    );
    assert!(matches!(out[..], [(0, FromRti::Tagged { .. })]), "{out:?}");
    assert_eq!(
        net(&mut c, 0, tag(5, 0)),
        [
            (0, FromRti::ProvisionalGrant(tag(5, 0))),
            (1, FromRti::ProvisionalGrant(tag(5, 0)))
        ]
    );
    assert!(ltc(&mut c, 2, tag(0, 0)).is_empty());
    let out = net(&mut c, 2, tag(20, 0));
    assert!(
        out.contains(&(
            0,
            FromRti::PortAbsent {
                link: 2,
                tag: tag(5, 0)
            }
        )),
        "{out:?}"
    );
    assert!(out.contains(&(2, FromRti::Grant(tag(20, 0)))), "{out:?}");
    // Told once.
    let out = net(&mut c, 2, tag(21, 0));
    assert!(
        !out.iter()
            .any(|m| matches!(m.1, FromRti::PortAbsent { .. })),
        "{out:?}"
    );
}

/// A federate that fails counts as ended: its downstream is granted, the others are told.
#[test]
fn a_failed_federate_no_longer_holds_the_others() {
    let mut c = started(topo(3, &[(0, 1, Some(1))]));
    net(&mut c, 0, tag(0, 0));
    assert!(net(&mut c, 1, tag(50, 0)).is_empty());
    let out = c.federate_failed(0);
    assert_eq!(
        out,
        [
            (1, FromRti::Failed("f0".into())),
            (2, FromRti::Failed("f0".into())),
            (1, FromRti::Grant(tag(50, 0)))
        ]
    );
    assert_eq!(c.failures(), ["f0"]);
    // A second report of the same failure changes nothing.
    assert!(c.federate_failed(0).is_empty());
    for fed in [1, 2] {
        c.handle(ToRti::Resign { fed }, 0);
    }
    assert!(c.finished());
}

/// A stop request goes to the others; the latest answer is granted to all.
#[test]
fn stop_is_agreed_at_the_latest_answer() {
    let mut c = started(topo(3, &[]));
    let out = c.handle(
        ToRti::StopRequest {
            fed: 0,
            tag: tag(5, 1),
        },
        0,
    );
    assert_eq!(
        out,
        [
            (1, FromRti::StopRequest(tag(5, 1))),
            (2, FromRti::StopRequest(tag(5, 1)))
        ]
    );
    // While it is agreed, no grant beyond the largest proposal.
    assert!(net(&mut c, 1, tag(9, 0)).is_empty());
    assert!(c
        .handle(
            ToRti::StopReply {
                fed: 1,
                tag: tag(5, 1)
            },
            0
        )
        .is_empty());
    let out = c.handle(
        ToRti::StopReply {
            fed: 2,
            tag: tag(7, 0),
        },
        0,
    );
    assert_eq!(
        &out[..3],
        [
            (0, FromRti::StopGranted(tag(7, 0))),
            (1, FromRti::StopGranted(tag(7, 0))),
            (2, FromRti::StopGranted(tag(7, 0)))
        ]
    );
}
