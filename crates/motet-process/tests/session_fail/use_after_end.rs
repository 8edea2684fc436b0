// After End nothing can be done with the endpoint: closing consumes it.
use motet_process::session::{session, End, Send};

fn main() {
    let (chan, _peer) = session::<Send<u64, End>>();
    let end = chan.send(1).unwrap();
    end.close();
    end.close();
}
