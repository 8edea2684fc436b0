// The protocol receives first; a process that sends there does not compile.
use motet_process::session::{session, End, Recv};

fn main() {
    let (chan, _peer) = session::<Recv<u64, End>>();
    let end = chan.send(1).unwrap();
    end.close();
}
