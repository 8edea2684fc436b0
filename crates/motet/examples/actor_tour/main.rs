//! A tour of motet's actors beyond the basics: `cargo run -p motet --example actor_tour`.
//!
//! Each part shows one feature in a few lines and asserts what it shows, so the tour exits 0 only
//! if everything behaved as described: first the kinds of actors and their opt-in mailboxes
//! (`kinds`), then the tools built on actors (`tools`).

mod kinds;
mod tools;

fn main() {
    kinds::run();
    tools::run();
}
