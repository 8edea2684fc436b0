//! A tour of motet's actors beyond the basics: `cargo run -p motet --example actor_tour`.
//!
//! Each part shows one feature in a few lines and checks what it claims with assertions.

mod tools;

fn main() {
    tools::run();
}
