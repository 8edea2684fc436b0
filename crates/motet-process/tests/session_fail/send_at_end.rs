// A session at End has no send.
use motet_process::session::{session, End};

fn main() {
    let (chan, _peer) = session::<End>();
    let _ = chan.send(1);
}
