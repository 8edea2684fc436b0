//! Helpers shared by motet-process's integration tests.

use motet_process::channel::Receiver;
use motet_process::ProcessSystem;

/// Every value `rx` yields until its last sender is gone, received by the calling thread inside
/// `system` (`ProcessSystem::block_on`), sorted.
pub fn recv_all_sorted<T: Send + Ord>(system: &ProcessSystem, rx: &Receiver<T>) -> Vec<T> {
    let mut got = system
        .block_on(async {
            let mut got = Vec::new();
            while let Ok(v) = rx.recv().await {
                got.push(v);
            }
            got
        })
        .unwrap();
    got.sort();
    got
}
