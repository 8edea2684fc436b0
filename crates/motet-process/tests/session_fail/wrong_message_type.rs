// The protocol sends a u64; sending a string does not compile.
use motet_process::session::{session, End, Send};

fn main() {
    let (chan, _peer) = session::<Send<u64, End>>();
    let end = chan.send("forty-two").unwrap();
    end.close();
}
