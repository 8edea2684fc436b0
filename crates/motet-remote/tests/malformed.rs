//! Malformed frames on a node's inbox: truncated, garbage, wrong type id, wrong version, oversized
//! and unknown-actor frames are rejected and counted, never delivered (inside a batch too, between
//! good frames for the same actor), and the node keeps working. The frames are put by a raw Zenoh
//! session in this process, on loopback.

use std::time::{Duration, Instant};

use motet_actor::{spawn, Actor, Context};
use motet_remote::testing::free_port;
use motet_remote::{type_id_of, Node, NodeConfig, RemoteMsg, Stats};
use serde::{Deserialize, Serialize};
use zenoh::qos::CongestionControl;
use zenoh::Wait;

#[derive(Serialize, Deserialize)]
struct Count(u64);
impl RemoteMsg for Count {
    const NAME: &'static str = "tests.malformed.Count";
    const VERSION: u32 = 2;
}

struct Counter(crossbeam_channel::Sender<u64>);
impl Actor for Counter {
    type Msg = Count;
    fn handle(&mut self, _: &mut Context<'_, Self>, Count(n): Count) {
        let _ = self.0.send(n);
    }
}

/// A frame as the envelope format writes it, built by hand here so that the test does not share
/// the encoder it checks: postcard header (magic u16 varint, protocol u8, from NodeId, body) then
/// the payload.
fn frame(magic: u16, dest: u64, type_id: u64, version: u32, payload: &[u8]) -> Vec<u8> {
    #[derive(Serialize)]
    struct From {
        zid: u128,
        incarnation: u32,
    }
    #[derive(Serialize)]
    enum Body {
        Tell {
            dest: u64,
            type_id: u64,
            version: u32,
        },
    }
    #[derive(Serialize)]
    struct Header {
        magic: u16,
        protocol: u8,
        from: From,
        body: Body,
    }
    let h = Header {
        magic,
        protocol: 1,
        from: From {
            zid: 0xabc,
            incarnation: 0,
        },
        body: Body::Tell {
            dest,
            type_id,
            version,
        },
    };
    let mut v = postcard::to_stdvec(&h).unwrap();
    v.extend_from_slice(payload);
    v
}

/// A `Batch` frame (body variant 6, no fields) holding `frames`, each behind its 4-byte length.
fn batch(frames: &[Vec<u8>]) -> Vec<u8> {
    #[derive(Serialize)]
    struct Header {
        magic: u16,
        protocol: u8,
        zid: u128,
        incarnation: u32,
        body: u32,
    }
    let mut v = postcard::to_stdvec(&Header {
        magic: 0x6d74,
        protocol: 1,
        zid: 0xabc,
        incarnation: 0,
        body: 6,
    })
    .unwrap();
    for f in frames {
        v.extend_from_slice(&(f.len() as u32).to_le_bytes());
        v.extend_from_slice(f);
    }
    v
}

fn wait_for(node: &Node, f: impl Fn(&Stats) -> bool) -> Stats {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let s = node.stats();
        if f(&s) || Instant::now() > deadline {
            return s;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn malformed_frames_are_rejected_and_counted() {
    let port = free_port();
    let rt = motet_runtime::Runtime::builder()
        .workers(1)
        .build()
        .unwrap();
    let node = Node::start(
        rt.handle(),
        NodeConfig::new()
            .namespace("malformed")
            .listen(&format!("tcp/127.0.0.1:{port}"))
            .max_frame(4096),
    )
    .unwrap();
    let (tx, rx) = crossbeam_channel::unbounded();
    let counter = spawn(rt.handle(), Counter(tx));
    node.publish("counter", &counter).unwrap();
    let dest = counter.id().as_u64();

    let mut c = zenoh::Config::default();
    c.insert_json5("mode", "\"peer\"").unwrap();
    c.insert_json5("scouting/multicast/enabled", "false")
        .unwrap();
    c.insert_json5("connect/endpoints", &format!("[\"tcp/127.0.0.1:{port}\"]"))
        .unwrap();
    let raw = zenoh::open(c).wait().unwrap();
    let inbox = raw
        .declare_publisher(format!("motet/malformed/inbox/{}", node.id().key_chunk()))
        .congestion_control(CongestionControl::Block)
        .wait()
        .unwrap();
    let tid = type_id_of(Count::NAME);
    let good = |n: u64| {
        frame(
            0x6d74,
            dest,
            tid,
            2,
            &postcard::to_stdvec(&Count(n)).unwrap(),
        )
    };

    // A good frame arrives (this also waits until the raw session is connected).
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        inbox.put(good(1)).wait().unwrap();
        if rx.recv_timeout(Duration::from_millis(200)).is_ok() {
            break;
        }
        assert!(Instant::now() < deadline, "no good frame delivered");
    }
    while rx.try_recv().is_ok() {}
    let before = node.stats();

    let g = good(7);
    inbox.put(g[..3].to_vec()).wait().unwrap(); // truncated header
    inbox.put(vec![0xff; 64]).wait().unwrap(); // garbage
    inbox.put(frame(0x1234, dest, tid, 2, &[7])).wait().unwrap(); // bad magic
    inbox
        .put(frame(0x6d74, dest, tid ^ 1, 2, &[7]))
        .wait()
        .unwrap(); // wrong type id
    inbox.put(frame(0x6d74, dest, tid, 3, &[7])).wait().unwrap(); // wrong version
    inbox
        .put(frame(0x6d74, dest + 999, tid, 2, &[7]))
        .wait()
        .unwrap(); // unknown actor
    inbox.put(frame(0x6d74, dest, tid, 2, &[])).wait().unwrap(); // payload missing
    inbox.put(vec![0u8; 8192]).wait().unwrap(); // oversized
    let mut cut = batch(&[good(8), good(9)]);
    cut.pop();
    inbox.put(cut).wait().unwrap(); // a batch whose last entry is cut: none of it delivered
                                    // A batch inside a batch.
    inbox.put(batch(&[batch(&[good(10)])])).wait().unwrap();
    // A batch looks its destination up once per run of frames for one actor: a frame for the
    // same actor with another version, or for an unknown actor, between good ones is still
    // rejected.
    inbox
        .put(batch(&[
            good(11),
            frame(0x6d74, dest, tid, 3, &[7]),
            frame(0x6d74, dest + 999, tid, 2, &[7]),
            good(12),
        ]))
        .wait()
        .unwrap();
    inbox.put(batch(&[good(5), good(6)])).wait().unwrap(); // a good batch, delivered in order
    inbox.put(good(42)).wait().unwrap(); // still works after all that

    assert_eq!(rx.recv_timeout(Duration::from_secs(30)), Ok(11));
    assert_eq!(rx.recv_timeout(Duration::from_secs(30)), Ok(12));
    assert_eq!(rx.recv_timeout(Duration::from_secs(30)), Ok(5));
    assert_eq!(rx.recv_timeout(Duration::from_secs(30)), Ok(6));
    assert_eq!(rx.recv_timeout(Duration::from_secs(30)), Ok(42));
    let s = wait_for(&node, |s| s.rejected() - before.rejected() >= 12);
    assert_eq!(s.rejected_malformed - before.rejected_malformed, 5);
    assert_eq!(s.rejected_type - before.rejected_type, 3);
    assert_eq!(s.rejected_unknown_actor - before.rejected_unknown_actor, 2);
    assert_eq!(s.rejected_payload - before.rejected_payload, 1);
    assert_eq!(s.rejected_oversized - before.rejected_oversized, 1);
    assert!(rx.try_recv().is_err(), "nothing malformed was delivered");
    drop(inbox);
    let _ = raw.close().wait();
}

#[test]
fn lookup_with_another_message_type_is_a_clear_error() {
    let rt = motet_runtime::Runtime::builder()
        .workers(1)
        .build()
        .unwrap();
    let node = Node::start(rt.handle(), NodeConfig::new().namespace("lookup-type")).unwrap();
    let (tx, _rx) = crossbeam_channel::unbounded();
    let counter = spawn(rt.handle(), Counter(tx));
    node.publish("counter", &counter).unwrap();
    assert_eq!(
        node.lookup::<String>("counter", Duration::from_millis(300)),
        Err(motet_remote::LookupError::WrongType)
    );
    assert_eq!(
        node.lookup::<Count>("counter", Duration::from_secs(10)),
        Ok(counter)
    );
    assert_eq!(
        node.lookup::<Count>("bad/name", Duration::from_secs(1)),
        Err(motet_remote::LookupError::BadName)
    );
}
