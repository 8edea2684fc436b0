//! Effpi's ping-pong: the ping carries the channel its pong is sent back on (pi-calculus mobility),
//! under the deterministic scheduler and on pools of 1 and 2 workers.

use motet_process::{channel, ProcessSystem};
use motet_runtime::testing;

#[test]
fn pingpong_passes_reply_channels() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let (ping_tx, ping_rx) = channel::unbounded::<(u32, channel::Sender<u32>)>();
        system.spawn(async move {
            while let Ok((n, reply)) = ping_rx.recv().await {
                reply.send(n + 1).unwrap();
            }
        });
        let (res_tx, res_rx) = channel::unbounded::<u32>();
        system.spawn(async move {
            let (tx, rx) = channel::unbounded();
            let mut n = 0;
            for _ in 0..1000 {
                ping_tx.send((n, tx.clone())).unwrap();
                n = rx.recv().await.unwrap();
            }
            res_tx.send(n).unwrap();
        });
        assert_eq!(system.block_on(res_rx.recv()).unwrap(), Ok(1000));
        system.wait().unwrap();
        assert_eq!(system.live(), 0);
    });
}
