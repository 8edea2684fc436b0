//! The node a thread is encoding or decoding for, so that addresses and reply handles inside a
//! message can be exported (encode) or turned into proxies (decode), as Akka's serialisation does.

use std::cell::RefCell;
use std::sync::Arc;

use crate::id::NodeId;
use crate::node::Inner;

thread_local! {
    static CURRENT: RefCell<Option<(Arc<Inner>, NodeId)>> = const { RefCell::new(None) };
}

/// Runs `f` with `node` as the current node and `peer` as the other end (the destination while
/// encoding, the sender while decoding); restores the previous context after.
pub(crate) fn with<R>(node: &Arc<Inner>, peer: NodeId, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<(Arc<Inner>, NodeId)>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = prev);
        }
    }
    let prev = CURRENT.with(|c| c.borrow_mut().replace((node.clone(), peer)));
    let _restore = Restore(prev);
    f()
}

/// The current node and peer, if a node is encoding or decoding on this thread.
pub(crate) fn current() -> Option<(Arc<Inner>, NodeId)> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Whether a node is encoding or decoding on this thread.
pub(crate) fn is_set() -> bool {
    CURRENT.with(|c| c.borrow().is_some())
}
