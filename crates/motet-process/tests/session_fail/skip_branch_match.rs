// Handling only one of the peer's choices does not compile either.
use motet_process::session::{session, Branch, End, Offer, Recv};

async fn server() {
    let (chan, _peer) = session::<Offer<Recv<u64, End>, End>>();
    match chan.offer().await.unwrap() {
        Branch::Left(c) => {
            let (_value, end) = c.recv().await.unwrap();
            end.close();
        }
    }
}

fn main() {
    let _ = server();
}
