//! Reactors for the unit tests of the program analyses (the closure, the chain links, the choice
//! of protocol): each has one reaction `r` with empty body, so that a test program is its shape
//! alone. Reactions are numbered in the order the reactors are declared.

use motet_reactor_core::{Input, Output, ProgramBuilder, Startup};

/// A reactor `name` whose reaction is triggered at startup and writes its output `o`.
pub(crate) fn source(b: &mut ProgramBuilder, name: &str) -> Output<u8> {
    let r = b.reactor(name, ());
    let o = b.output::<u8, _>(r, "o");
    b.reaction(r, "r")
        .trigger(Startup)
        .effect(o)
        .body(|_, _| {});
    o
}

/// A reactor `name` whose reaction is triggered by its input `i` and writes its output `o`.
pub(crate) fn stage(b: &mut ProgramBuilder, name: &str) -> (Input<u8>, Output<u8>) {
    let r = b.reactor(name, ());
    let i = b.input::<u8, _>(r, "i");
    let o = b.output::<u8, _>(r, "o");
    b.reaction(r, "r").trigger(i).effect(o).body(|_, _| {});
    (i, o)
}

/// A reactor `name` whose reaction is triggered by its input `i`.
pub(crate) fn sink(b: &mut ProgramBuilder, name: &str) -> Input<u8> {
    let r = b.reactor(name, ());
    let i = b.input::<u8, _>(r, "i");
    b.reaction(r, "r").trigger(i).body(|_, _| {});
    i
}
