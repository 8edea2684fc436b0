//! The messages of remote_savina's programs, serde-encoded when they cross processes.

use super::*;

/// An address as a message field that can cross nodes.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub(crate) struct Remote<M: RemoteMsg>(#[serde(with = "motet_remote::addr")] pub(crate) Addr<M>);

/// The addresses of actors a factory spawned, in the order of the indices asked for.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub(crate) struct Spawned<M: RemoteMsg>(pub(crate) Vec<Remote<M>>);

impl RemoteMsg for Spawned<FjMsg> {
    const NAME: &'static str = "examples.remote_savina.Spawned<FjMsg>";
}

impl RemoteMsg for Spawned<BigMsg> {
    const NAME: &'static str = "examples.remote_savina.Spawned<BigMsg>";
}

/// What the actors report to the collector in the main process.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Report {
    /// A fjthrput worker handled its N-th message.
    Fj { index: u32, processed: u64 },
    /// A Big actor exited: the pings it answered and the pongs from an unexpected neighbor.
    Big {
        id: i32,
        pings_handled: u64,
        unexpected: u64,
    },
    /// The Sink exited after this many exits.
    Sink { exits: u64 },
}

impl RemoteMsg for Report {
    const NAME: &'static str = "examples.remote_savina.Report";
}

/// A fjthrput worker's messages.
#[derive(Serialize, Deserialize)]
pub(crate) enum FjMsg {
    /// One unit of fork-join work.
    Work,
    /// Answer the number of messages handled, then stop (the untimed check).
    Finish(RemoteReply<u64>),
}

impl RemoteMsg for FjMsg {
    const NAME: &'static str = "examples.remote_savina.FjMsg";
}

/// Every Big actor's address, by id, shared by all of them.
#[derive(Clone)]
pub(crate) struct Neighbors(pub(crate) Arc<[Addr<BigMsg>]>);

impl Serialize for Neighbors {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|a| Remote(a.clone())))
    }
}

impl<'de> Deserialize<'de> for Neighbors {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Neighbors, D::Error> {
        let all = Vec::<Remote<BigMsg>>::deserialize(d)?;
        Ok(Neighbors(all.into_iter().map(|r| r.0).collect()))
    }
}

/// A Big actor's messages.
#[derive(Serialize, Deserialize)]
pub(crate) enum BigMsg {
    Neighbors(Neighbors),
    Ping(i32),
    Pong(i32),
    Exit,
}

impl RemoteMsg for BigMsg {
    const NAME: &'static str = "examples.remote_savina.BigMsg";
}

/// The Sink's messages.
#[derive(Serialize, Deserialize)]
pub(crate) enum SinkMsg {
    Neighbors(Neighbors),
    Exit,
}

impl RemoteMsg for SinkMsg {
    const NAME: &'static str = "examples.remote_savina.SinkMsg";
}

/// The child's factory: spawns the child's share of the actors and hands them their setup.
#[derive(Serialize, Deserialize)]
pub(crate) enum Setup {
    /// Spawn fjthrput workers with these indices.
    Fj {
        n: u64,
        indices: Vec<u32>,
        report: Remote<Report>,
        reply: RemoteReply<Spawned<FjMsg>>,
    },
    /// Spawn Big actors with these ids (kept until `BigNeighbors`).
    Big {
        n: u64,
        ids: Vec<i32>,
        sink: Remote<SinkMsg>,
        report: Remote<Report>,
        reply: RemoteReply<Spawned<BigMsg>>,
    },
    /// Tell the Big actors spawned last their neighbors; answer how many were told.
    BigNeighbors {
        all: Neighbors,
        reply: RemoteReply<u64>,
    },
}

impl RemoteMsg for Setup {
    const NAME: &'static str = "examples.remote_savina.Setup";
}
