// The peer chooses at an Offer: going on as if the left branch were taken, without offering, does
// not compile.
use motet_process::session::{session, End, Offer, Recv};

async fn server() {
    let (chan, _peer) = session::<Offer<Recv<u64, End>, End>>();
    let (_value, end) = chan.recv().await.unwrap();
    end.close();
}

fn main() {
    let _ = server();
}
