//! A tour of motet's actors beyond the basics: `cargo run -p motet --example actor_tour`. Each
//! part asserts what it shows, so the tour exits 0 only if everything behaved as described.

mod kinds;

fn main() {
    kinds::run();
}
