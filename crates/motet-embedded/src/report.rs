//! What a program prints through semihosting, in the lines `run-qemu.sh` reads
//! (`motet: key=value ...`), and how it exits.

use core::fmt::Display;

use cortex_m_semihosting::{debug, hprintln};

/// Ends the run: QEMU exits with status 0 if `ok`, else 1.
pub fn exit(ok: bool) -> ! {
    debug::exit(if ok {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    // Without semihosting the exit returns: wait forever instead.
    loop {
        cortex_m::asm::wfi();
    }
}

/// Prints the program's result and whether it validated, then exits (status 1 if not).
pub fn finish(program: &str, result: impl Display, validated: bool) -> ! {
    hprintln!(
        "motet: program={} result={} validated={}",
        program,
        result,
        validated
    );
    exit(validated)
}

/// Prints the heap's size and peak and the stack's peak, in bytes.
pub fn memory() {
    hprintln!(
        "motet: heap_size={} heap_peak={} stack_peak={}",
        crate::heap::size(),
        crate::heap::peak(),
        crate::stack::peak()
    );
}

/// Prints a figure (`motet: name=value`).
pub fn figure(name: &str, value: impl Display) {
    hprintln!("motet: {}={}", name, value);
}

/// The 50th and 99th percentiles and the maximum of `samples` (sorted in place; nearest rank).
///
/// # Panics
/// If `samples` is empty.
pub fn percentiles(samples: &mut [u32]) -> (u32, u32, u32) {
    assert!(!samples.is_empty(), "percentiles of no samples");
    samples.sort_unstable();
    let rank = |p: usize| samples[(samples.len() * p).div_ceil(100).max(1) - 1];
    (rank(50), rank(99), samples[samples.len() - 1])
}

/// Prints the percentiles of `samples` as `motet: name p50=.. p99=.. max=.. n=..`.
pub fn distribution(name: &str, samples: &mut [u32]) {
    let n = samples.len();
    let (p50, p99, max) = percentiles(samples);
    hprintln!(
        "motet: {} p50={} p99={} max={} n={}",
        name,
        p50,
        p99,
        max,
        n
    );
}
