//! What a program prints through semihosting, in the lines `run-qemu.sh` reads
//! (`motet: key=value ...`), and how it exits.
//!
//! Lines are put together in a fixed buffer from strings and decimal numbers ([`Show`]), without
//! `core::fmt`, whose code would otherwise be linked into every program for a few lines of
//! output.

use cortex_m_semihosting::{debug, hio};
use motet_reactor_core::RunError;

/// The longest line printed; longer ones are cut.
const LINE: usize = 160;

/// A line being put together (see the module docs).
pub struct Line {
    buf: [u8; LINE],
    len: usize,
}

impl Line {
    /// An empty line.
    pub const fn new() -> Line {
        Line {
            buf: [0; LINE],
            len: 0,
        }
    }

    /// Appends `s` (as much of it as fits).
    pub fn str(&mut self, s: &str) -> &mut Line {
        let n = s.len().min(LINE - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        self
    }

    /// Appends `v` in decimal.
    pub fn num(&mut self, mut v: u64) -> &mut Line {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            let (q, r) = div10(v);
            digits[i] = b'0' + r as u8;
            v = q;
            if v == 0 {
                break;
            }
        }
        for &d in &digits[i..] {
            if self.len < LINE {
                self.buf[self.len] = d;
                self.len += 1;
            }
        }
        self
    }

    /// Appends `v` as [`Show`] writes it.
    pub fn show(&mut self, v: &(impl Show + ?Sized)) -> &mut Line {
        v.show(self);
        self
    }

    /// Prints the line and a newline to the host's standard output (nothing without a host).
    pub fn print(&mut self) {
        self.str("\n");
        if let Ok(mut out) = hio::hstdout() {
            let _ = out.write_all(&self.buf[..self.len]);
        }
        self.len = 0;
    }
}

impl Default for Line {
    fn default() -> Line {
        Line::new()
    }
}

/// `v / 10` and `v % 10` with the processor's 32-bit division, in three steps of at most 32
/// bits each: a 64-bit division would link a library routine larger than this module.
fn div10(v: u64) -> (u64, u32) {
    let hi = (v >> 32) as u32;
    let lo = v as u32;
    // Each step divides the previous remainder (below 10) followed by the next 16 bits.
    let mid = ((hi % 10) << 16) | (lo >> 16);
    let low = ((mid % 10) << 16) | (lo & 0xFFFF);
    let q = (u64::from(hi / 10) << 32) | u64::from(((mid / 10) << 16) | (low / 10));
    (q, low % 10)
}

/// A value a [`Line`] can print.
pub trait Show {
    /// Appends the value to `line`.
    fn show(&self, line: &mut Line);
}

impl Show for str {
    fn show(&self, line: &mut Line) {
        line.str(self);
    }
}

impl<T: Show + ?Sized> Show for &T {
    fn show(&self, line: &mut Line) {
        (**self).show(line);
    }
}

impl Show for bool {
    fn show(&self, line: &mut Line) {
        line.str(if *self { "true" } else { "false" });
    }
}

macro_rules! show_unsigned {
    ($($t:ty),*) => {$(
        impl Show for $t {
            fn show(&self, line: &mut Line) {
                line.num(*self as u64);
            }
        }
    )*};
}
show_unsigned!(u8, u16, u32, u64, usize);

/// A run error as one word (its kind), a colon and the reaction or action it names.
impl Show for RunError {
    fn show(&self, line: &mut Line) {
        let (kind, name) = match self {
            RunError::Undeclared { reaction, .. } => ("undeclared", reaction.as_str()),
            RunError::ForeignHandle { reaction } => ("foreign-handle", reaction.as_str()),
            RunError::Panicked { reaction, .. } => ("panicked", reaction.as_str()),
            RunError::BadPhysicalValue { action } => ("bad-physical-value", action.as_str()),
            RunError::PhysicalOverflow { action, .. } => ("physical-overflow", action.as_str()),
            RunError::RuntimeShutDown => ("runtime-shut-down", ""),
            RunError::NotTimed => ("not-timed", ""),
            _ => ("run-error", ""),
        };
        line.str(kind).str(":").str(name);
    }
}

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
pub fn finish(program: &str, result: impl Show, validated: bool) -> ! {
    Line::new()
        .str("motet: program=")
        .str(program)
        .str(" result=")
        .show(&result)
        .str(" validated=")
        .show(&validated)
        .print();
    exit(validated)
}

/// Prints the heap's size and peak and the stack's peak, in bytes.
pub fn memory() {
    Line::new()
        .str("motet: heap_size=")
        .show(&crate::heap::size())
        .str(" heap_peak=")
        .show(&crate::heap::peak())
        .str(" stack_peak=")
        .show(&crate::stack::peak())
        .print();
}

/// Prints a figure (`motet: name=value`).
pub fn figure(name: &str, value: impl Show) {
    Line::new()
        .str("motet: ")
        .str(name)
        .str("=")
        .show(&value)
        .print();
}

/// Sorts `v` in place (heapsort: small code, no allocation, `n log n` in every case).
fn sort(v: &mut [u32]) {
    /// Moves `v[root]` down the max-heap `v[..end]` to its place.
    fn sift_down(v: &mut [u32], mut root: usize, end: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && v[child + 1] > v[child] {
                child += 1;
            }
            if v[root] >= v[child] {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    let n = v.len();
    for root in (0..n / 2).rev() {
        sift_down(v, root, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}

/// The 50th and 99th percentiles and the maximum of `samples` (sorted in place; nearest rank),
/// or `None` if there are none.
pub fn percentiles(samples: &mut [u32]) -> Option<(u32, u32, u32)> {
    sort(samples);
    let n = samples.len();
    let max = *samples.last()?;
    let rank = |p: usize| samples[(n * p).div_ceil(100).max(1) - 1];
    Some((rank(50), rank(99), max))
}

/// Prints the percentiles of `samples` as `motet: name p50=.. p99=.. max=.. n=..` (nothing if
/// there are none).
pub fn distribution(name: &str, samples: &mut [u32]) {
    let n = samples.len();
    if let Some((p50, p99, max)) = percentiles(samples) {
        Line::new()
            .str("motet: ")
            .str(name)
            .str(" p50=")
            .show(&p50)
            .str(" p99=")
            .show(&p99)
            .str(" max=")
            .show(&max)
            .str(" n=")
            .show(&n)
            .print();
    }
}
