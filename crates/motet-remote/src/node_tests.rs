//! Node-internal rules that no two-process test reaches deterministically: one suspension makes
//! one new incarnation, and an ask of a node already declared down does not wait.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use motet_runtime::Runtime;

use super::{Node, PendingReply};
use crate::id::NodeId;
use crate::testing::free_port;
use crate::NodeConfig;

fn lone_node(ns: &str) -> (Node, Runtime) {
    let rt = Runtime::builder().workers(1).build().unwrap();
    let listen = format!("tcp/127.0.0.1:{}", free_port());
    let node = Node::start(rt.handle(), NodeConfig::new().namespace(ns).listen(&listen)).unwrap();
    (node, rt)
}

#[test]
fn two_notices_of_one_suspension_make_one_new_incarnation() {
    let (node, _rt) = lone_node("rejoin-once");
    let suspended = node.id();
    // The watchdog and a peer's `Quarantined` frame both report the same suspension.
    node.inner.rejoin(suspended);
    node.inner.rejoin(suspended);
    assert_eq!(node.stats().rejoins, 1);
    assert_eq!(node.id().incarnation, suspended.incarnation + 1);
    // A notice about the current incarnation still makes a new one.
    node.inner.rejoin(node.id());
    assert_eq!(node.id().incarnation, suspended.incarnation + 2);
}

#[test]
fn an_ask_of_a_node_already_declared_down_fails_at_once() {
    let (node, _rt) = lone_node("ask-lost");
    let lost = NodeId {
        zid: 0xabc,
        incarnation: 3,
    };
    node.inner.node_lost(lost);
    let failed = Arc::new(AtomicBool::new(false));
    let flag = failed.clone();
    let id = node.inner.add_reply(PendingReply {
        node: lost,
        type_id: 0,
        complete: Box::new(move |payload| {
            assert!(payload.is_none(), "failed, not answered");
            flag.store(true, Ordering::SeqCst);
            Ok(())
        }),
    });
    assert!(failed.load(Ordering::SeqCst), "the ask failed at once");
    assert!(!node.inner.lock().replies.contains_key(&id));

    // An ask of a live node waits for its answer.
    let alive = NodeId {
        zid: 0xdef,
        incarnation: 0,
    };
    let id = node.inner.add_reply(PendingReply {
        node: alive,
        type_id: 0,
        complete: Box::new(|_| Ok(())),
    });
    assert!(node.inner.lock().replies.contains_key(&id));
}
