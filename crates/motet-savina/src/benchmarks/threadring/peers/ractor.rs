//! Thread Ring on ractor: `N` ring members on a tokio runtime with `threads` workers.

use ::ractor::{ActorProcessingErr, ActorRef};

use super::Report;
use crate::bench::Prepared;
use crate::benchmarks::threadring::Config;
use crate::params::Params;
use crate::peers::{ractor_spawn, tokio_program, RactorState, Reporter};

/// A ring member's messages.
enum MemberMsg {
    /// Links the member to the next one in the ring.
    Data(ActorRef<MemberMsg>),
    /// The token, with the passes left.
    Ping(u64),
    /// The exit wave, with the members left to stop.
    Exit(usize),
}

struct MemberState {
    id: usize,
    ring_size: usize,
    /// Pings handled, reported on the exit (which reaches the member after every ping sent to
    /// it).
    pings: u64,
    next: Option<ActorRef<MemberMsg>>,
    done: Reporter<Report>,
}

impl MemberState {
    fn successor(&self) -> &ActorRef<MemberMsg> {
        self.next
            .as_ref()
            .expect("Data arrives before the first Ping")
    }
}

impl RactorState for MemberState {
    type Msg = MemberMsg;

    async fn handle(
        &mut self,
        myself: ActorRef<MemberMsg>,
        msg: MemberMsg,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            MemberMsg::Data(next) => self.next = Some(next),
            MemberMsg::Ping(left) if left > 0 => {
                self.pings += 1;
                self.successor().cast(MemberMsg::Ping(left - 1))?
            }
            MemberMsg::Ping(_) => {
                self.pings += 1;
                self.done.report(Report::ZeroAt(self.id));
                self.successor().cast(MemberMsg::Exit(self.ring_size))?;
            }
            MemberMsg::Exit(left) => {
                if left > 0 {
                    // The last Exit reaches a member that has already stopped: ignore the error.
                    let _ = self.successor().cast(MemberMsg::Exit(left - 1));
                }
                self.done.report(Report::Exited(self.pings));
                myself.stop(None);
            }
        }
        Ok(())
    }
}

/// Builds the tokio runtime (untimed).
pub(super) fn prepare(params: &Params, threads: usize) -> Prepared {
    tokio_program(Config::from_params(params)?, threads, start, super::outcome)
}

/// Creates the first actors and sends the kick-off messages, on the main thread.
async fn start(Config { n, r }: Config, reporter: Reporter<Report>) {
    let mut members = Vec::with_capacity(n);
    for id in 0..n {
        let state = MemberState {
            id,
            ring_size: n,
            next: None,
            pings: 0,
            done: reporter.clone(),
        };
        let (member, _) = ractor_spawn(state).await.expect("spawn a ring member");
        members.push(member);
    }
    drop(reporter);
    for (i, member) in members.iter().enumerate() {
        let next = members[(i + 1) % members.len()].clone();
        member
            .cast(MemberMsg::Data(next))
            .expect("the member is running");
    }
    members[0]
        .cast(MemberMsg::Ping(r))
        .expect("the member is running");
    drop(members);
}
